"""``/v1/documents`` (issue 26): the caller's indexed documents — ``GET`` lists them newest first,
``GET /{id}`` reads one with its counts, ``DELETE /{id}`` erases it and everything drawn from it
and answers with the erasure receipt. Free, tenant-scoped: another tenant's id is a 404, as an
unknown or erased one. docs/documents.md."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from tanda.api.security import AUTH_RESPONSES, V1_SECURITY, current_runtime, v1_principal
from tanda.auth import Principal
from tanda.contract.errors import ErrorResponse
from tanda.contract.v1_documents import V1Document, V1DocumentList, V1ErasureReceipt
from tanda.service.documents import document_view, erase_document, list_documents

router = APIRouter(tags=["v1"])

MAX_PAGE = 200

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ErrorResponse,
        "description": "`document_not_found`: no such document of the caller (unknown, erased "
        "and another tenant's alike).",
    },
}


@router.get(
    "/v1/documents",
    response_model=V1DocumentList,
    responses=AUTH_RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="The caller's documents, newest first, a page at a time (free)",
)
def get_documents(
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
    batch_id: Annotated[
        str | None, Query(min_length=1, max_length=200, description="Only this batch's.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    cursor: Annotated[
        str | None,
        Query(max_length=1024, description="The `next_cursor` of the previous page."),
    ] = None,
) -> V1DocumentList:
    return list_documents(
        current_runtime(request).search_index,
        principal.tenant_id,
        batch_id=batch_id,
        limit=limit,
        cursor=cursor,
    )


@router.get(
    "/v1/documents/{document_id}",
    response_model=V1Document,
    responses={**AUTH_RESPONSES, **NOT_FOUND},
    openapi_extra=V1_SECURITY,
    summary="One of the caller's documents: status, file, scope and counts (free)",
)
def get_document(
    document_id: str,
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
) -> V1Document:
    return document_view(current_runtime(request).search_index, principal.tenant_id, document_id)


@router.delete(
    "/v1/documents/{document_id}",
    response_model=V1ErasureReceipt,
    responses={**AUTH_RESPONSES, **NOT_FOUND},
    openapi_extra=V1_SECURITY,
    summary="Erase a document and everything drawn from it; the erasure receipt (free)",
)
def delete_document(
    document_id: str,
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
) -> V1ErasureReceipt:
    runtime = current_runtime(request)
    return erase_document(
        runtime.search_index,
        runtime.store,
        principal.tenant_id,
        document_id,
        now=runtime.clock(),
    )
