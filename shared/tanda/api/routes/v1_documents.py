"""``/v1/documents`` and ``/v1/batches`` (issue 26): the caller's documents — ``POST`` starts an
upload (JSON: where to send the bytes; multipart: a small file in one request), ``PUT
/{id}/content`` receives the bytes at the signed URL ``POST`` gave (embedded), ``GET`` lists
them newest first in every status, ``GET /{id}`` reads one, ``DELETE /{id}`` erases it and
everything drawn from it (cancelling its ingestion) and answers with the erasure receipt, and
``GET /v1/batches/{id}`` counts a batch by status. Free, tenant-scoped: another tenant's id is a
404, as an unknown or erased one. docs/documents.md."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from tanda.api.body_gate import BODY_LIMIT_EXTENSION, is_json_media_type
from tanda.api.security import AUTH_RESPONSES, V1_SECURITY, current_runtime, v1_principal
from tanda.auth import Principal
from tanda.contract.errors import ErrorResponse
from tanda.contract.v1_documents import (
    ANY_TYPE,
    DocumentStatus,
    V1BatchProgress,
    V1Document,
    V1DocumentList,
    V1ErasureReceipt,
    V1UploadAccepted,
    V1UploadRequest,
)
from tanda.errors import UnsupportedMediaType, UploadTooLarge
from tanda.service.document_uploads import (
    MULTIPART_MAX_BYTES,
    batch_progress,
    receive_upload,
    start_upload,
    upload_file,
)
from tanda.service.documents import document_view, erase_document, list_documents
from tanda.settings import Settings

router = APIRouter(tags=["v1"])

MAX_PAGE = 200
MULTIPART_OVERHEAD = 64 * 1024
"""Room for the form around the file in a multipart ``POST``."""

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ErrorResponse,
        "description": "`document_not_found`: no such document of the caller (unknown, erased "
        "and another tenant's alike).",
    },
}


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorResponse, "description": description}


UPLOAD_RESPONSES: dict[int | str, dict[str, Any]] = {
    201: {
        "links": {
            "GetDocument": {
                "operationId": "get_document_v1_documents__document_id__get",
                "parameters": {"document_id": "$response.body#/document_id"},
                "description": "Watch its status by the `document_id` the 201 returned.",
            },
            "GetBatch": {
                "operationId": "get_batch_v1_batches__batch_id__get",
                "parameters": {"batch_id": "$request.body#/batch_id"},
                "description": "Its batch's progress, when the upload named one.",
            },
            "DeleteDocument": {
                "operationId": "delete_document_v1_documents__document_id__delete",
                "parameters": {"document_id": "$response.body#/document_id"},
                "description": "Erase it (cancels its ingestion).",
            },
        }
    },
    **AUTH_RESPONSES,
    200: {
        "model": V1UploadAccepted,
        "description": "The tenant holds these bytes already: `duplicate_of` names that "
        "document; nothing new was made.",
    },
    400: _error(
        "`sha256_mismatch` (multipart): the file part's bytes are not the `sha256` sent beside "
        "them. Nothing was kept."
    ),
    413: _error(
        "`upload_too_large`: over `TANDA_MAX_UPLOAD_BYTES` (or, multipart, over "
        f"{MULTIPART_MAX_BYTES} bytes); `payload_too_large`: the request body is too large."
    ),
    415: _error(
        "`unsupported_document_type`: not a type `tanda ingest` reads (`supported` lists "
        "them); `unsupported_media_type`: the body is neither JSON nor multipart/form-data."
    ),
    422: _error("`validation_error`: the body is not a valid upload request (`fields`)."),
}

CONTENT_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error(
        "`size_mismatch`: fewer bytes than declared; `sha256_mismatch`: not the declared "
        "SHA-256. Nothing was kept."
    ),
    403: _error(
        "`upload_url_invalid`: the URL's signature does not hold; `upload_url_expired`: its "
        "time ran out (start the upload again)."
    ),
    404: _error("`document_not_found`: no such upload (unknown or deleted)."),
    409: _error("`upload_not_awaited`: its bytes were received already, or it is deleting."),
    413: _error(
        "`larger_than_declared`: more bytes than declared; `payload_too_large`: over "
        "`TANDA_MAX_UPLOAD_BYTES`. Nothing was kept."
    ),
    415: _error("`content_type_mismatch`: not the media type declared."),
}


def _upload_request_schema() -> dict[str, Any]:
    return V1UploadRequest.model_json_schema()


UPLOAD_BODY: dict[str, Any] = {
    BODY_LIMIT_EXTENSION: f"`TANDA_MAX_BODY_BYTES` or {MULTIPART_MAX_BYTES + MULTIPART_OVERHEAD} "
    "bytes, whichever is larger",
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": _upload_request_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["file"],
                    "properties": {
                        "file": {
                            "type": "string",
                            "format": "binary",
                            "description": "The document: its part's filename and "
                            f"Content-Type are its own. At most {MULTIPART_MAX_BYTES} bytes.",
                        },
                        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                        "batch_id": {"type": "string", "minLength": 1, "maxLength": 200},
                        "selections": {"type": "array", "items": {"type": "string"}},
                        "label": {"type": "string", "minLength": 1, "maxLength": 500},
                    },
                }
            },
        },
    },
}


def _validated(data: dict[str, Any]) -> V1UploadRequest:
    try:
        return V1UploadRequest.model_validate(data)
    except ValidationError as error:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in error.errors()]
        ) from None


async def _multipart(request: Request) -> tuple[V1UploadRequest, bytes]:
    """The form of a one-request upload: ``file`` and the optional fields."""
    from starlette.datastructures import UploadFile

    try:
        form = await request.form(max_files=1, max_fields=64)
    except Exception:  # a form the parser cannot read
        raise RequestValidationError(
            [{"loc": ("body",), "msg": "not a readable multipart form", "type": "form"}]
        ) from None
    file = form.get("file")
    if not isinstance(file, UploadFile):
        raise RequestValidationError(
            [{"loc": ("body", "file"), "msg": "a file part is required", "type": "missing"}]
        )
    data = await file.read(MULTIPART_MAX_BYTES + 1)
    if len(data) > MULTIPART_MAX_BYTES:
        raise UploadTooLarge(
            f"One request takes {MULTIPART_MAX_BYTES} bytes at most; start an upload "
            "(POST /v1/documents with JSON) for a larger document. Nothing was kept."
        )
    fields: dict[str, Any] = {
        "filename": file.filename or "",
        # a part without a Content-Type: its extension and its bytes decide
        "content_type": file.content_type or ANY_TYPE,
        "size_bytes": len(data),
        "selections": [s for s in form.getlist("selections") if isinstance(s, str)],
    }
    for name in ("sha256", "batch_id", "label"):
        value = form.get(name)
        if isinstance(value, str):
            fields[name] = value
    unknown = set(form.keys()) - {"file", "selections", "sha256", "batch_id", "label"}
    if unknown:
        raise RequestValidationError(
            [
                {"loc": ("body", name), "msg": "unknown field", "type": "extra_forbidden"}
                for name in sorted(unknown)
            ]
        )
    return _validated(fields), data


@router.post(
    "/v1/documents",
    status_code=201,
    response_model=V1UploadAccepted,
    responses=UPLOAD_RESPONSES,
    openapi_extra={**V1_SECURITY, **UPLOAD_BODY},
    summary="Start an upload (JSON), or upload a small file in one request (multipart) (free)",
)
async def post_document(
    request: Request,
    response: Response,
    principal: Annotated[Principal, Depends(v1_principal)],
) -> V1UploadAccepted:
    runtime = current_runtime(request)
    content_type = request.headers.get("content-type", "")
    if content_type.lower().startswith("multipart/form-data"):
        body, data = await _multipart(request)
        accepted, created = await run_in_threadpool(
            upload_file, runtime, principal.tenant_id, body, data
        )
    elif is_json_media_type(content_type):
        try:
            raw = await request.json()
        except ValueError:
            raise RequestValidationError(
                [{"loc": ("body",), "msg": "not JSON", "type": "json_invalid"}]
            ) from None
        if not isinstance(raw, dict):
            raise RequestValidationError(
                [{"loc": ("body",), "msg": "a JSON object is required", "type": "dict_type"}]
            )
        body = _validated(raw)
        accepted, created = await run_in_threadpool(
            start_upload, runtime, principal.tenant_id, body, base_url=str(request.base_url)
        )
    else:
        raise UnsupportedMediaType("The body must be JSON or multipart/form-data.")
    if not created:
        response.status_code = 200
    return accepted


def _multipart_limit(settings: Settings) -> int:
    return max(settings.max_body_bytes, MULTIPART_MAX_BYTES + MULTIPART_OVERHEAD)


post_document.max_body_bytes = _multipart_limit  # type: ignore[attr-defined]


@router.put(
    "/v1/documents/{document_id}/content",
    response_model=V1UploadAccepted,
    responses=CONTENT_RESPONSES,
    openapi_extra={
        BODY_LIMIT_EXTENSION: "`TANDA_MAX_UPLOAD_BYTES`",
        "requestBody": {
            "required": True,
            "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
        },
    },
    summary="The bytes of an upload, sent to the URL `POST /v1/documents` gave (embedded)",
)
async def put_content(
    document_id: str,
    request: Request,
    tenant: Annotated[str, Query(min_length=1, max_length=200)],
    expires: Annotated[str, Query(max_length=20)],
    signature: Annotated[str, Query(max_length=128)],
) -> V1UploadAccepted:
    """No API key: the URL's signature is the credential, as an S3 presigned URL's is."""
    runtime = current_runtime(request)
    data = await request.body()
    return await run_in_threadpool(
        receive_upload,
        runtime,
        tenant,
        document_id,
        {"expires": expires, "signature": signature},
        content_type=request.headers.get("content-type"),
        body=data,
    )


def _upload_limit(settings: Settings) -> int:
    return settings.max_upload_bytes


put_content.max_body_bytes = _upload_limit  # type: ignore[attr-defined]


@router.get(
    "/v1/documents",
    response_model=V1DocumentList,
    responses=AUTH_RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="The caller's documents in every status, newest first, a page at a time (free)",
)
def get_documents(
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
    batch_id: Annotated[
        str | None, Query(min_length=1, max_length=200, description="Only this batch's.")
    ] = None,
    status: Annotated[DocumentStatus | None, Query(description="Only in this status.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    cursor: Annotated[
        str | None,
        Query(max_length=1024, description="The `next_cursor` of the previous page."),
    ] = None,
) -> V1DocumentList:
    runtime = current_runtime(request)
    return list_documents(
        runtime.search_index,
        principal.tenant_id,
        batch_id=batch_id,
        status=status,
        limit=limit,
        cursor=cursor,
        store=runtime.store,
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
    runtime = current_runtime(request)
    return document_view(
        runtime.search_index, principal.tenant_id, document_id, store=runtime.store
    )


@router.delete(
    "/v1/documents/{document_id}",
    response_model=V1ErasureReceipt,
    responses={**AUTH_RESPONSES, **NOT_FOUND},
    openapi_extra=V1_SECURITY,
    summary="Erase a document and everything drawn from it, cancelling its ingestion; the "
    "erasure receipt (free)",
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
        originals=runtime.originals,
    )


@router.get(
    "/v1/batches/{batch_id}",
    response_model=V1BatchProgress,
    responses={
        **AUTH_RESPONSES,
        404: _error("`batch_not_found`: the caller has no document in this batch."),
    },
    openapi_extra=V1_SECURITY,
    summary="A batch's documents counted by status, and its progress (free)",
)
def get_batch(
    batch_id: str,
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
) -> V1BatchProgress:
    return batch_progress(current_runtime(request), principal.tenant_id, batch_id)
