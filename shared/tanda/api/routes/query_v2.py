"""``POST /query/v2`` and ``/query/v2/stream`` (V2-01 … V2-21): authenticate, validate, hand over
to the use case."""

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
from tanda.contract import QueryV2Request, QueryV2Response
from tanda.contract.frames import STREAM_FRAMES
from tanda.service import turn
from tanda.service.answer_v2 import QUERY_V2, answer_v2

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
        prepare=lambda: turn.prepare(runtime, principal, body, QUERY_V2),
        frames=lambda prepared, emit, abandoned: turn.stream(
            runtime, prepared, body, QUERY_V2, scenario=scenario, emit=emit, abandoned=abandoned
        ),
        give_back=lambda prepared: turn.give_back(runtime, prepared),
    )
