"""``POST /query`` and ``POST /query/stream``: the v1 gate (CV-2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from tanda.api.answering import (
    ANSWER_RESPONSES,
    ScenarioHeader,
    answer_frames,
    scenario_for,
    stream_answer,
    stream_responses,
)
from tanda.api.security import PARTNER_SECURITY, current_runtime, partner_principal
from tanda.auth import Principal
from tanda.contract.query_v1 import (
    V1_STREAM_FRAMES,
    QueryV1Request,
    QueryV1Response,
    V1FaithfulnessFrame,
    V1MessageStartFrame,
)
from tanda.conversations.storage import abandon
from tanda.service.answer_v1 import PreparedV1, answer_v1_request, complete_v1, prepare_v1
from tanda.wiring import Runtime

router = APIRouter(tags=["query v1"])


@router.post(
    "/query",
    response_model=QueryV1Response,
    responses=ANSWER_RESPONSES,
    openapi_extra=PARTNER_SECURITY,
    summary="Answer with unconfirmed sentences withheld (v1 gate)",
)
def query_v1(
    body: QueryV1Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> QueryV1Response:
    runtime = current_runtime(request)
    return answer_v1_request(
        runtime, principal, body, scenario=scenario_for(runtime, x_tanda_scenario)
    )


def v1_frames(
    runtime: Runtime,
    prepared: PreparedV1,
    body: QueryV1Request,
    scenario: str | None,
    emit: Callable[[BaseModel], None],
    abandoned: Callable[[], bool],
) -> list[BaseModel]:
    response, result = complete_v1(
        runtime, prepared, body, scenario=scenario, progress=emit, abandoned=abandoned
    )
    return answer_frames(
        start=V1MessageStartFrame(
            conversation_id=response.conversation_id, message_id=response.message_id
        ),
        trace_id=response.trace_id,
        citations=response.citations,
        passages=result.outcome.passages,
        blocked=response.fallback_reason == "policy_blocked",
        counts=V1FaithfulnessFrame(
            claims_supported=response.claims_supported,
            claims_total=response.claims_total,
            grounding_rate=response.grounding_rate,
            dropped_claims_count=response.dropped_claims_count,
            dropped_claim_reasons=response.dropped_claim_reasons,
            provenance_complete=response.provenance_complete,
            fallback_used=response.fallback_used,
            fallback_reason=response.fallback_reason,
        ),
        answer=response.answer,
        fallback_used=response.fallback_used,
        history_truncated=response.history_truncated,
    )


@router.post(
    "/query/stream",
    responses=stream_responses(V1_STREAM_FRAMES),
    openapi_extra=PARTNER_SECURITY,
    response_class=StreamingResponse,
    summary="The v1 gate, streamed; its `faithfulness` frame counts withheld sentences",
)
def query_v1_stream(
    body: QueryV1Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> StreamingResponse:
    runtime = current_runtime(request)
    scenario = scenario_for(runtime, x_tanda_scenario)
    return stream_answer(
        request,
        resumable=body.conversation_id is not None,
        prepare=lambda: prepare_v1(runtime, principal, body),
        frames=lambda prepared, emit, abandoned: v1_frames(
            runtime, prepared, body, scenario, emit, abandoned
        ),
        give_back=lambda prepared: abandon(runtime.store, prepared),
    )
