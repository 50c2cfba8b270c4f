"""``POST /v1/batches/{batch_id}/import`` (issue 26): a bulk import on AWS — the Distributed Map
over a prefix of the tenant's imports folder or the keys of a manifest there; its documents are
the batch's uploads (``GET /v1/batches/{batch_id}``). Free. docs/documents.md "Bulk imports"."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request

from tanda.api.security import AUTH_RESPONSES, V1_SECURITY, current_runtime, v1_principal
from tanda.auth import Principal
from tanda.contract.errors import ErrorResponse
from tanda.contract.v1_imports import V1ImportRequest, V1ImportStarted
from tanda.service.imports import start_import

router = APIRouter(tags=["v1"])

RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    409: {
        "model": ErrorResponse,
        "description": "`import_already_started`: this batch's import of that source was "
        "started with other selections.",
    },
    503: {
        "model": ErrorResponse,
        "description": "`bulk_import_unavailable`: bulk imports run on AWS only.",
    },
}
BatchId = Annotated[str, Path(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9._-]+$")]


@router.post(
    "/v1/batches/{batch_id}/import",
    response_model=V1ImportStarted,
    status_code=202,
    responses=RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="Import a prefix or a manifest of the tenant's imports folder into a batch (AWS)",
)
def post_import(
    batch_id: BatchId,
    body: V1ImportRequest,
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
) -> V1ImportStarted:
    return start_import(
        current_runtime(request).bulk_imports,
        principal.tenant_id,
        batch_id,
        prefix=body.prefix,
        manifest=body.manifest,
        selections=tuple(body.selections),
    )
