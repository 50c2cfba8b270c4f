"""``POST /playground`` (PG-1 … PG-5): admins try an editorial prompt without publishing."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from tanda.api.answering import ANSWER_RESPONSES, ScenarioHeader, scenario_for
from tanda.api.security import ADMIN_RESPONSES, ADMIN_SECURITY, admin_principal, current_runtime
from tanda.auth import Principal
from tanda.contract.playground import PlaygroundRequest, PlaygroundResponse
from tanda.service.playground import run_playground

router = APIRouter(tags=["playground"])


@router.post(
    "/playground",
    response_model=PlaygroundResponse,
    responses={**ANSWER_RESPONSES, **ADMIN_RESPONSES},
    openapi_extra=ADMIN_SECURITY,
    summary="Run the /query/v2 pipeline with a candidate editorial prompt; nothing is published",
)
def playground(
    body: PlaygroundRequest,
    request: Request,
    principal: Annotated[Principal, Depends(admin_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> PlaygroundResponse:
    runtime = current_runtime(request)
    return run_playground(
        runtime, principal, body, scenario=scenario_for(runtime, x_tanda_scenario)
    )
