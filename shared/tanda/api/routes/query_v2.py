"""``POST /query/v2`` and ``/query/v2/stream`` (V2-01 … V2-21): authenticate, validate, hand over
to the use case."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from tanda.annotate.aggregate import annotations_frame
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
from tanda.contract import QueryV2Request, QueryV2Response
from tanda.contract.frames import STREAM_FRAMES, MessageStartFrame
from tanda.conversations.storage import abandon
from tanda.service.answer_v2 import PreparedAnswer, answer_v2, complete_v2, prepare_v2
from tanda.wiring import Runtime

router = APIRouter(tags=["query v2"])


@router.post(
    "/query/v2",
    response_model=QueryV2Response,
    responses=ANSWER_RESPONSES,
    openapi_extra=PARTNER_SECURITY,
    summary="Answer with every statement marked (annotate-v2)",
)
def query_v2(
    body: QueryV2Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> QueryV2Response:
    runtime = current_runtime(request)
    return answer_v2(runtime, principal, body, scenario=scenario_for(runtime, x_tanda_scenario))


def stream_frames(
    runtime: Runtime,
    prepared: PreparedAnswer,
    body: QueryV2Request,
    scenario: str | None,
    emit: Callable[[BaseModel], None],
    abandoned: Callable[[], bool],
) -> list[BaseModel]:
    """V2-21: progress while the agent works; then every frame of the finished, judged and
    guarded answer, in order."""
    response, outcome = complete_v2(
        runtime, prepared, body, scenario=scenario, progress=emit, abandoned=abandoned
    )
    return answer_frames(
        start=MessageStartFrame(
            conversation_id=response.conversation_id, message_id=response.message_id
        ),
        trace_id=response.trace_id,
        citations=response.citations,
        passages=outcome.passages,
        blocked=response.fallback_reason == "policy_blocked",
        counts=annotations_frame(
            outcome.annotation,
            fallback_used=response.fallback_used,
            fallback_reason=response.fallback_reason,
        ),
        answer=response.answer,
        fallback_used=response.fallback_used,
        history_truncated=response.history_truncated,
    )


@router.post(
    "/query/v2/stream",
    responses=stream_responses(STREAM_FRAMES),
    openapi_extra=PARTNER_SECURITY,
    response_class=StreamingResponse,
    summary="The same answer as /query/v2, streamed with its annotations first",
)
def query_v2_stream(
    body: QueryV2Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> StreamingResponse:
    runtime = current_runtime(request)
    scenario = scenario_for(runtime, x_tanda_scenario)
    # ASK-11's proof chain is JSON only: the stream has no frame for it, so it is not built (and
    # withholds nothing) here.
    body = body.model_copy(update={"include_proof": False})
    # A free worker (503), then ownership (404/409), are settled before the stream starts.
    return stream_answer(
        request,
        resumable=body.conversation_id is not None,
        prepare=lambda: prepare_v2(runtime, principal, body),
        frames=lambda prepared, emit, abandoned: stream_frames(
            runtime, prepared, body, scenario, emit, abandoned
        ),
        give_back=lambda prepared: abandon(runtime.store, prepared),
    )
