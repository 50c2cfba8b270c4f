"""``/v1/cross-check`` (XC-1 … XC-6): contradictions and support between documents, as a
background job — ``POST`` queues it (202), ``GET /{id}`` polls it, ``GET`` lists the tenant's
jobs (``?scheduled=true``: those a schedule started). docs/cross-check.md."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from tanda.api.answering import ScenarioHeader, scenario_for
from tanda.api.security import AUTH_RESPONSES, V1_SECURITY, current_runtime, v1_principal
from tanda.api.v1_responses import V1_RESPONSES
from tanda.auth import Principal
from tanda.contract.errors import ErrorResponse
from tanda.contract.v1_cross_check import (
    V1CrossCheckAccepted,
    V1CrossCheckJob,
    V1CrossCheckList,
    V1CrossCheckRequest,
)
from tanda.service.cross_check import cross_check_jobs, cross_check_status, start_cross_check

router = APIRouter(tags=["v1"])

MAX_PAGE = 100

GET_OPERATION_ID = "get_cross_check_v1_cross_check__job_id__get"
"""FastAPI's operationId of ``GET /v1/cross-check/{job_id}``, which the 202 links to."""
POST_RESPONSES: dict[int | str, dict[str, Any]] = {
    202: {
        "links": {
            "GetCrossCheckJob": {
                "operationId": GET_OPERATION_ID,
                "parameters": {"job_id": "$response.body#/id"},
                "description": "Poll the job by the `id` the 202 returned.",
            }
        }
    },
    **V1_RESPONSES,
    400: {"model": ErrorResponse, "description": "`unknown_scenario` (scripted model only)."},
    404: {
        "model": ErrorResponse,
        "description": "`document_not_found`: a document is not among the caller's (unknown "
        "and another tenant's alike; which one is not said). Nothing was charged.",
    },
}
GET_RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    404: {
        "model": ErrorResponse,
        "description": "`job_not_found`: no such job of the caller (another tenant's alike).",
    },
}


@router.post(
    "/v1/cross-check",
    response_model=V1CrossCheckAccepted,
    status_code=202,
    responses=POST_RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="Queue a cross-check of two or more documents; charged once, as one ask",
)
def post_cross_check(
    body: V1CrossCheckRequest,
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> V1CrossCheckAccepted:
    runtime = current_runtime(request)
    return start_cross_check(
        runtime, principal, body, scenario=scenario_for(runtime, x_tanda_scenario)
    )


@router.get(
    "/v1/cross-check",
    response_model=V1CrossCheckList,
    responses=AUTH_RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="The caller's cross-check jobs, newest first, a page at a time",
)
def list_cross_checks(
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
    scheduled: Annotated[
        bool | None,
        Query(description="`true`: only jobs a schedule started; `false`: only the others."),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
    cursor: Annotated[
        str | None,
        Query(max_length=64, description="The `next_cursor` of the previous page."),
    ] = None,
) -> V1CrossCheckList:
    return cross_check_jobs(
        current_runtime(request), principal, scheduled=scheduled, limit=limit, cursor=cursor
    )


@router.get(
    "/v1/cross-check/{job_id}",
    response_model=V1CrossCheckJob,
    response_model_exclude_none=False,
    responses=GET_RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="Poll a cross-check job: queued → running → completed | failed (free)",
)
def get_cross_check(
    job_id: str,
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
) -> V1CrossCheckJob:
    return cross_check_status(current_runtime(request), principal, job_id)
