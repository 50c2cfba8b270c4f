"""``POST /query/v2`` (V2-01 … V2-20): authenticate, validate, hand over to the use case."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request

from tanda.api.security import AUTH_RESPONSES, current_runtime, partner_principal
from tanda.auth import Principal
from tanda.contract import ErrorResponse, QueryV2Request, QueryV2Response
from tanda.errors import BadRequest
from tanda.service.answer_v2 import answer_v2
from tanda.wiring import Runtime

router = APIRouter(tags=["query v2"])

RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    400: {"model": ErrorResponse, "description": "The request cannot be served."},
    404: {"model": ErrorResponse, "description": "The tool that ran returned nothing readable."},
    409: {"model": ErrorResponse, "description": "The conversation belongs to another route."},
    413: {"model": ErrorResponse, "description": "Fixed text: the source material does not fit."},
    502: {"model": ErrorResponse, "description": "A model or source did not answer usably."},
}


@router.post(
    "/query/v2",
    response_model=QueryV2Response,
    responses=RESPONSES,
    summary="Answer with every statement marked (annotate-v2)",
)
def query_v2(
    body: QueryV2Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: Annotated[
        str | None,
        Header(description="Scripted model only: the scenario to answer with; ignored otherwise."),
    ] = None,
) -> QueryV2Response:
    runtime = current_runtime(request)
    return answer_v2(runtime, principal, body, scenario=scenario_for(runtime, x_tanda_scenario))


def scenario_for(runtime: Runtime, header: str | None) -> str | None:
    """The scripted model's scenario from ``X-Tanda-Scenario``; ignored under any other model."""
    if not runtime.scripted or header is None:
        return None
    from tanda.adapters.scripted import ScriptedModel

    model = runtime.model
    if isinstance(model, ScriptedModel) and header not in model.scenarios:
        raise BadRequest("Unknown scenario.", code="unknown_scenario")
    return header
