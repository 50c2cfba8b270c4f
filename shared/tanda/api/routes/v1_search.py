"""``POST /v1/search`` (ASK-01, ASK-02, ASK-13): ranked chunks of the caller's tenant; billed and
throttled like every /v1 route."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from tanda.api.security import V1_SECURITY, current_runtime, v1_principal
from tanda.api.v1_responses import V1_RESPONSES
from tanda.auth import Principal
from tanda.contract.errors import ErrorResponse
from tanda.contract.v1_search import V1SearchRequest, V1SearchResponse
from tanda.service.search_v1 import search_v1

router = APIRouter(tags=["v1"])

SEARCH_RESPONSES: dict[int | str, dict[str, Any]] = {
    **V1_RESPONSES,
    502: {
        "model": ErrorResponse,
        "description": "The search index (`search_index_failed`) or the reranker "
        "(`rerank_failed`) did not answer usably; the floor fails closed (ASK-06).",
    },
}


@router.post(
    "/v1/search",
    response_model=V1SearchResponse,
    responses=SEARCH_RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="Hybrid search over the caller's documents (no synthesis)",
)
def v1_search(
    body: V1SearchRequest,
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
) -> V1SearchResponse:
    return search_v1(current_runtime(request), principal, body)
