"""``POST /v1/ask`` (ASK-01 … ASK-13): retrieve, then one cited answer (docs/ask.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from tanda.api.answering import ScenarioHeader, scenario_for
from tanda.api.security import V1_SECURITY, current_runtime, v1_principal
from tanda.api.v1_responses import V1_ASK_RESPONSES
from tanda.auth import Principal
from tanda.contract.v1_ask import V1AskRequest, V1AskResponse
from tanda.service.ask_v1 import ask_v1

router = APIRouter(tags=["v1"])


@router.post(
    "/v1/ask",
    response_model=V1AskResponse,
    responses=V1_ASK_RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="Answer from the caller's documents, citing each source as [S#]",
)
def v1_ask(
    body: V1AskRequest,
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> V1AskResponse:
    runtime = current_runtime(request)
    return ask_v1(runtime, principal, body, scenario=scenario_for(runtime, x_tanda_scenario))
