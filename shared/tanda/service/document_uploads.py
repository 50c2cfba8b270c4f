"""Uploading documents over the API (issue 26; docs/documents.md): ``POST /v1/documents`` starts
an upload (or takes a small file in one request), ``PUT /v1/documents/{id}/content`` receives its
bytes (embedded), ``GET /v1/batches/{id}`` counts a batch. What happens to the bytes then is
:func:`tanda.service.uploads.process_upload`'s.

Checks come before anything is kept: the type (415, the list of what is taken), the size (413
over ``TANDA_MAX_UPLOAD_BYTES``), the body (422). Bytes the tenant holds already (same SHA-256)
are answered with that document (200 ``duplicate_of``), never a second one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tanda.contract.v1_documents import (
    MEDIA_TYPES,
    UPLOAD_TYPES,
    V1BatchProgress,
    V1UploadAccepted,
    V1UploadRequest,
    V1UploadTarget,
)
from tanda.errors import DocumentNotFound
from tanda.records.uploads import (
    FINISHED_UPLOAD,
    DocumentUpload,
    DuplicateContent,
    UploadStatus,
    iso,
    new_document_id,
)

if TYPE_CHECKING:
    from tanda.service.runtime import Runtime


UPLOAD_URL_TTL_S = 900.0
"""How long an upload URL accepts the bytes (15 minutes)."""
MULTIPART_MAX_BYTES = 4 * 1024 * 1024
"""The largest file one multipart ``POST /v1/documents`` takes (4 MiB): with the form around it
and base64 on the way through API Gateway, it stays under Lambda's 6 MB payload limit."""


def supported_types() -> list[str]:
    return [f"{suffix} ({', '.join(types)})" for suffix, types in UPLOAD_TYPES.items()]


def media_type(content_type: str) -> str:
    return content_type.partition(";")[0].strip().lower()


def check_upload(filename: str, content_type: str, size_bytes: int, max_bytes: int) -> None:
    """415 for a type uploads do not take (the list in the error), 413 over ``max_bytes``."""
    from pathlib import PurePosixPath

    from tanda.errors import UnsupportedDocumentType, UploadTooLarge

    suffix = PurePosixPath(filename).suffix.lower()
    allowed = UPLOAD_TYPES.get(suffix)
    if allowed is None:
        raise UnsupportedDocumentType(
            supported_types(),
            f"Documents named {suffix or '(no extension)'} cannot be uploaded.",
        )
    if media_type(content_type) not in MEDIA_TYPES:
        raise UnsupportedDocumentType(
            supported_types(),
            f"A document cannot be sent as {media_type(content_type) or '(no type)'}.",
        )
    if size_bytes > max_bytes:
        raise UploadTooLarge(
            f"The document is {size_bytes} bytes; uploads may be {max_bytes} bytes at most. "
            "Nothing was kept."
        )


def _new_upload(
    tenant_id: str, body: V1UploadRequest, *, now: float, status: UploadStatus
) -> DocumentUpload:
    return DocumentUpload(
        tenant_id=tenant_id,
        document_id=new_document_id(now),
        status=status,
        filename=body.filename,
        content_type=body.content_type,
        size_bytes=body.size_bytes,
        sha256=body.sha256,
        batch_id=body.batch_id,
        selections=tuple(dict.fromkeys(body.selections)),
        label=body.label,
        created_at=now,
        updated_at=now,
        expires_at=float(int(now + UPLOAD_URL_TTL_S)),  # a whole second: the URL's own
    )


def _duplicate(runtime: Runtime, tenant_id: str, holder: str) -> V1UploadAccepted:
    found = runtime.store.upload(tenant_id, holder)
    return V1UploadAccepted(
        document_id=holder,
        status=found.status if found is not None else "indexed",
        duplicate_of=holder,
    )


def start_upload(
    runtime: Runtime, tenant_id: str, body: V1UploadRequest, *, base_url: str
) -> tuple[V1UploadAccepted, bool]:
    """``POST /v1/documents`` (JSON): the type and size checked (415, 413) before anything is
    kept, the upload stored ``awaiting_upload`` and where to send its bytes — or, when the
    tenant holds the declared ``sha256`` already, that document (``False``: not created)."""
    check_upload(
        body.filename, body.content_type, body.size_bytes, runtime.settings.max_upload_bytes
    )
    now = runtime.clock()
    upload = _new_upload(tenant_id, body, now=now, status="awaiting_upload")
    try:
        runtime.store.create_upload(upload, now=now)
    except DuplicateContent as duplicate:
        return _duplicate(runtime, tenant_id, duplicate.document_id), False
    target = runtime.originals.upload_target(
        tenant_id,
        upload.document_id,
        content_type=upload.content_type,
        size_bytes=upload.size_bytes,
        expires_at=upload.expires_at,
        base_url=base_url,
    )
    return (
        V1UploadAccepted(
            document_id=upload.document_id,
            status=upload.status,
            upload=V1UploadTarget(
                url=target.url,
                method=target.method,
                headers=target.headers,
                fields=target.fields,
                expires_at=iso(target.expires_at) or "",
            ),
        ),
        True,
    )


def receive_upload(
    runtime: Runtime,
    tenant_id: str,
    document_id: str,
    query: Mapping[str, str],
    *,
    content_type: str | None,
    body: bytes,
) -> V1UploadAccepted:
    """``PUT /v1/documents/{id}/content`` (embedded): the bytes of an upload, sent to its
    signed URL. Refused, nothing kept: an unknown (or deleted) upload (404), a URL whose
    signature does not hold or whose time ran out (403), an upload not awaiting its bytes
    (409), another media type than declared (415), more bytes than declared (413), fewer or
    another SHA-256 (400). Received: ``queued`` for the worker pool — or, when the tenant holds
    these bytes already, that document (``duplicate_of``) and this upload is gone."""
    from tanda.errors import (
        UnsupportedMediaType,
        UploadMismatch,
        UploadNotAwaited,
        UploadTooLarge,
        UploadUrlRefused,
    )

    store = runtime.store
    upload = store.upload(tenant_id, document_id)
    if upload is None:
        raise DocumentNotFound()
    now = runtime.clock()
    if now >= upload.expires_at:
        raise UploadUrlRefused(
            "This upload URL has expired; start the upload again.", code="upload_url_expired"
        )
    signed = runtime.originals.verify_target(
        tenant_id,
        document_id,
        query,
        content_type=upload.content_type,
        size_bytes=upload.size_bytes,
        now=now,
    )
    if not signed:
        raise UploadUrlRefused()
    if upload.status != "awaiting_upload":
        raise UploadNotAwaited()
    if media_type(content_type or "") != media_type(upload.content_type):
        raise UnsupportedMediaType(
            f"The bytes must be sent as {upload.content_type}, as declared.",
            code="content_type_mismatch",
        )
    if len(body) > upload.size_bytes:
        raise UploadTooLarge(
            f"{len(body)} bytes sent; {upload.size_bytes} were declared. Nothing was kept.",
            code="larger_than_declared",
        )
    if len(body) < upload.size_bytes:
        raise UploadMismatch(
            f"{len(body)} bytes sent; {upload.size_bytes} were declared. Nothing was kept."
        )
    return _keep_bytes(runtime, upload, body)


def _keep_bytes(
    runtime: Runtime, upload: DocumentUpload, body: bytes, *, wake: bool = True
) -> V1UploadAccepted:
    """Store the bytes of an awaiting upload and queue it (see :func:`receive_upload`)."""
    from tanda.errors import UploadMismatch
    from tanda.service.uploads import queue_received  # the ingest code: not for every route

    tenant_id, document_id = upload.tenant_id, upload.document_id
    stored = runtime.originals.put(tenant_id, document_id, [body], size_bytes=upload.size_bytes)
    if upload.sha256 is not None and stored.sha256 != upload.sha256:
        runtime.originals.delete(tenant_id, document_id)
        raise UploadMismatch(
            "The bytes sent are not the SHA-256 declared. Nothing was kept.",
            code="sha256_mismatch",
        )
    try:
        queued = queue_received(
            runtime.store, runtime.originals, upload, sha256=stored.sha256, now=runtime.clock()
        )
    except DuplicateContent as duplicate:
        return _duplicate(runtime, tenant_id, duplicate.document_id)
    if queued is None:  # deleted (or received by a racing call) meanwhile
        current = runtime.store.upload(tenant_id, document_id)
        if current is None or current.status == "deleting":
            runtime.originals.delete(tenant_id, document_id)
            raise DocumentNotFound()
        return V1UploadAccepted(document_id=document_id, status=current.status)
    if wake:
        runtime.upload_queued(queued)
    return V1UploadAccepted(document_id=document_id, status=queued.status)


def upload_file(
    runtime: Runtime, tenant_id: str, body: V1UploadRequest, data: bytes, *, wake: bool = True
) -> tuple[V1UploadAccepted, bool]:
    """A small file in one request (multipart ``POST /v1/documents``, ``tanda documents
    upload``): the checks of :func:`start_upload`, then the bytes kept and queued as
    :func:`receive_upload` keeps them. ``False``: the tenant holds these bytes already.
    ``wake=False`` leaves it queued without waking a worker pool (the CLI ingests it itself)."""
    import hashlib

    check_upload(body.filename, body.content_type, len(data), runtime.settings.max_upload_bytes)
    digest = hashlib.sha256(data).hexdigest()
    if body.sha256 is not None and body.sha256 != digest:
        from tanda.errors import UploadMismatch

        raise UploadMismatch(
            "The bytes sent are not the SHA-256 declared. Nothing was kept.",
            code="sha256_mismatch",
        )
    now = runtime.clock()
    declared = body.model_copy(update={"size_bytes": len(data), "sha256": digest})
    upload = _new_upload(tenant_id, declared, now=now, status="awaiting_upload")
    try:
        runtime.store.create_upload(upload, now=now)
    except DuplicateContent as duplicate:
        return _duplicate(runtime, tenant_id, duplicate.document_id), False
    accepted = _keep_bytes(runtime, upload, data, wake=wake)
    return accepted, accepted.duplicate_of is None


def batch_progress(runtime: Runtime, tenant_id: str, batch_id: str) -> V1BatchProgress:
    """``GET /v1/batches/{batch_id}``: the batch's uploads by status, with the documents
    ``tanda ingest`` put in it counted ``indexed``; 404 when the tenant has none in it."""
    from tanda.errors import BatchNotFound
    from tanda.records.documents import SearchScope

    counts: dict[str, int] = {
        str(status): n for status, n in runtime.store.upload_counts(tenant_id, batch_id).items()
    }
    ingested = sum(
        1
        for document in runtime.search_index.documents(
            SearchScope(tenant_id=tenant_id, batch_id=batch_id)
        )
        if document.metadata.get("origin") != "upload"
    )
    if ingested:
        counts["indexed"] = counts.get("indexed", 0) + ingested
    total = sum(counts.values())
    if not total:
        raise BatchNotFound()
    done = sum(counts.get(status, 0) for status in FINISHED_UPLOAD)
    return V1BatchProgress(
        batch_id=batch_id,
        total=total,
        counts=dict(sorted(counts.items())),
        done=done,
        progress=round(done / total, 4),
    )
