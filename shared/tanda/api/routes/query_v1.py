"""``POST /query`` and ``POST /query/stream``: the v1 gate (CV-2)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from tanda.api.answering import (
    ANSWER_RESPONSES,
    ScenarioHeader,
    scenario_for,
    stream_answer,
    stream_responses,
)
from tanda.api.security import PARTNER_SECURITY, current_runtime, partner_principal
from tanda.auth import Principal
from tanda.contract.query_v1 import V1_STREAM_FRAMES, QueryV1Request, QueryV1Response
from tanda.service import turn
from tanda.service.answer_v1 import QUERY_V1, answer_v1_request

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
        prepare=lambda: turn.prepare(runtime, principal, body, QUERY_V1),
        frames=lambda prepared, emit, abandoned: turn.stream(
            runtime, prepared, body, QUERY_V1, scenario=scenario, emit=emit, abandoned=abandoned
        ),
        give_back=lambda prepared: turn.give_back(runtime, prepared),
    )
