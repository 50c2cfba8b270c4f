"""Ingestion on AWS (issue 26; docs/documents.md "On AWS"): what ``IngestFunction`` does with
what it is given, always through :func:`tanda.service.uploads.process_upload` — the per-document
handler the embedded worker pool runs too.

* **An upload's bytes arrived** (S3 Object Created → EventBridge → SQS; a batch of messages,
  Powertools' batch processing, each failed message reported alone so only it is delivered
  again): :func:`arrived` moves the upload from ``awaiting_upload`` to ``queued`` — taking the
  tenant's claim on the bytes' SHA-256 in that same conditional write; the same bytes held by
  another upload make this one a duplicate, deleted with its object — then processes it. A
  message delivered twice finds the upload finished and does nothing — the document is indexed
  once — or claimed under another worker's live lease: then it is reported failed
  (:class:`DocumentBusy`) and comes back after the visibility timeout, to find it finished or
  take it over from a worker that died. An object whose upload does not exist (erased, or
  never created) is deleted.
* **An object of a bulk import** (a Distributed Map child): :func:`import_object` makes it an
  upload (its bytes' SHA-256 first: the same bytes already held by the tenant are that
  document), copies it to the upload's key, queues and processes it. A document that ends
  ``failed`` raises :class:`DocumentFailed`, so the child execution fails and counts against
  the map's tolerated failure percentage. Run again (Step Functions' retry, or the same import
  started again), it continues the document it made the first time.

A Lambda stopped mid-document (timeout, crash) leaves the upload ``processing`` under a lease
that runs out; the message comes back after the queue's visibility timeout and the upload is
taken again — or, taken ``TANDA_XC_MAX_ATTEMPTS`` times already, failed with a reason. The index
write is atomic and ``indexed`` comes after it: never half-indexed and ``indexed``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mimetypes
import time
import uuid
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from urllib.parse import unquote_plus

from tanda import observability
from tanda.records.imports import ImportItem, parse_upload_key
from tanda.records.uploads import (
    DocumentUpload,
    DuplicateContent,
    UploadStatus,
    new_document_id,
)
from tanda.service.uploads import AWAITING, UploadPorts, process_upload, queue_received

if TYPE_CHECKING:
    from tanda.service.runtime import Runtime

log = logging.getLogger(__name__)

IMPORT_HOLD_S = 3600.0
"""How long an imported object's upload holds its bytes before it is queued (it is queued
within the same invocation; this only bounds a crash between the two writes)."""
CONTINUED: tuple[UploadStatus, ...] = ("awaiting_upload", "queued", "processing")
BULK_OWNER = "bulk:"
"""Lease owners of bulk-import children: Step Functions retries a child whose run died, so an
upload event (the copy's) finding one of them at work may be acknowledged."""


@runtime_checkable
class ImportObjects(Protocol):
    """Originals that can also read a tenant's import objects (S3: ``tenants/<t>/imports/``)."""

    def read_import(self, tenant_id: str, key: str) -> bytes | None: ...


class DocumentBusy(Exception):
    """The document is being ingested under another worker's live lease (a redelivered message,
    or a retried child whose first run died moments ago): this delivery does not finish it, so
    it is reported failed — the queue delivers it again after its visibility timeout, Step
    Functions retries the child after the lease — and then finds it finished, or takes it over
    once the lease ran out. Never acknowledged while nobody may be working on it."""


class DocumentFailed(Exception):
    """A bulk-import document ended ``failed``: its child execution fails with this (the
    reason, never the file's text)."""


def handle(event: dict[str, Any], context: Any, runtime: Runtime) -> dict[str, Any]:
    """``IngestFunction``'s one entry: an SQS batch of upload events, or one import item."""
    invocation = str(getattr(context, "aws_request_id", "") or uuid.uuid4())
    if "Records" in event:
        return queue_batch(event, context, runtime.upload_ports, invocation=invocation)
    if "import_item" in event:
        item = ImportItem.model_validate(event["import_item"])
        return import_object(runtime.upload_ports(), item, owner=invocation)
    raise ValueError("IngestFunction takes an SQS batch or an import item")


def queue_batch(
    event: dict[str, Any],
    context: Any,
    ports: Callable[[], UploadPorts],
    *,
    invocation: str,
) -> dict[str, Any]:
    """Each SQS record on its own (Powertools ``BatchProcessor``); the response lists the
    records that failed (``batchItemFailures``), which alone the queue delivers again."""
    from aws_lambda_powertools.utilities.batch import (
        BatchProcessor,
        EventType,
        process_partial_response,
    )

    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    built: list[UploadPorts] = []

    def record_handler(record: Any) -> None:
        if not built:
            built.append(ports())
        found = upload_of_event(json.loads(record.body))
        if found is None:
            log.warning("ingest: an event for no upload key (message %s)", record.message_id)
            return
        tenant_id, document_id = found
        arrived(built[0], tenant_id, document_id, owner=f"{invocation}:{record.message_id}")

    answer = process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
    return dict(answer)


def upload_of_event(message: dict[str, Any]) -> tuple[str, str] | None:
    """``(tenant, document id)`` of an EventBridge S3 Object Created event's key."""
    key = str(((message.get("detail") or {}).get("object") or {}).get("key") or "")
    return parse_upload_key(key) or parse_upload_key(unquote_plus(key))


def _timed(
    path: str, tenant_id: str, document_id: str, work: Callable[[], DocumentUpload | None]
) -> DocumentUpload | None:
    started = time.perf_counter()
    status, reason = "error", None
    try:
        try:
            done = work()
        except DocumentBusy:
            status = "busy"
            raise
        status = done.status if done is not None else "gone"
        reason = done.reason if done is not None else None
        return done
    finally:
        observability.record_ingest(
            path=path,
            tenant_id=tenant_id,
            document_id=document_id,
            status="failed" if status == "error" else status,
            reason=reason,
            latency_ms=(time.perf_counter() - started) * 1000,
        )


def arrived(
    ports: UploadPorts, tenant_id: str, document_id: str, *, owner: str
) -> DocumentUpload | None:
    """An upload's bytes are in the originals store: queue it (once) and process it (module
    docstring). ``None`` when there is no such upload (its object is deleted)."""

    def work() -> DocumentUpload | None:
        upload = ports.store.upload(tenant_id, document_id)
        if upload is None:
            # Erased before its bytes came, or never created: keep nothing of it.
            ports.originals.delete(tenant_id, document_id)
            return None
        if upload.status == "awaiting_upload":
            queued = _queue(ports, upload)
            if queued is None:
                return ports.store.upload(tenant_id, document_id)
        done = process_upload(ports, tenant_id, document_id, owner=owner)
        if done is not None and (done.lease_owner or "").startswith(BULK_OWNER):
            return done  # a bulk-import child at work: the map retries it if it dies
        return _unbusy(done)

    return _timed("queue", tenant_id, document_id, work)


def _unbusy(done: DocumentUpload | None) -> DocumentUpload | None:
    """``done``, unless another worker still holds it (:class:`DocumentBusy`)."""
    if done is not None and done.status in ("queued", "processing"):
        raise DocumentBusy(f"{done.document_id}: being ingested under another worker's lease")
    return done


def _queue(ports: UploadPorts, upload: DocumentUpload) -> DocumentUpload | None:
    """``awaiting_upload`` → ``queued`` with the bytes' SHA-256; a duplicate of bytes another
    upload holds is deleted, its object with it (``None``)."""
    sha256: str | None = None
    if upload.sha256 is None:
        data = ports.originals.read(upload.tenant_id, upload.document_id)
        if data is not None:
            sha256 = hashlib.sha256(data).hexdigest()
    try:
        return queue_received(
            ports.store, ports.originals, upload, sha256=sha256, now=ports.clock()
        )
    except DuplicateContent as duplicate:
        log.info("upload %s duplicates %s", upload.document_id, duplicate.document_id)
        return None


def import_object(ports: UploadPorts, item: ImportItem, *, owner: str) -> dict[str, Any]:
    """One object of a bulk import (module docstring): what became of it, as the map's result
    (ids, status and reason — never the file's text or name)."""
    source = ports.originals
    if not isinstance(source, ImportObjects):
        raise TypeError("bulk imports read S3: set TANDA_UPLOADS_BUCKET")
    data = source.read_import(item.tenant_id, item.key)
    if data is None:
        raise FileNotFoundError("the import object is gone")
    sha256 = hashlib.sha256(data).hexdigest()
    now = ports.clock()
    filename = PurePosixPath(item.key).name
    upload = DocumentUpload(
        tenant_id=item.tenant_id,
        document_id=new_document_id(now),
        filename=filename,
        content_type=mimetypes.guess_type(filename)[0] or "application/octet-stream",
        size_bytes=len(data),
        sha256=sha256,
        batch_id=item.batch_id,
        selections=item.selections,
        created_at=now,
        updated_at=now,
        expires_at=now + IMPORT_HOLD_S,
    )
    try:
        ports.store.create_upload(upload, now=now)
    except DuplicateContent as duplicate:
        held = ports.store.upload(item.tenant_id, duplicate.document_id)
        if held is None or held.status not in CONTINUED or held.batch_id != item.batch_id:
            return {"document_id": duplicate.document_id, "status": "duplicate"}
        upload = held  # this import's own document, left midway by an earlier attempt

    def work() -> DocumentUpload | None:
        current = ports.store.upload(upload.tenant_id, upload.document_id)
        if current is not None and current.status == "awaiting_upload":
            ports.originals.put(upload.tenant_id, upload.document_id, [data], size_bytes=len(data))
            ports.store.transition_upload(
                upload.tenant_id,
                upload.document_id,
                expected=AWAITING,
                changes={"status": "queued"},
                now=ports.clock(),
            )
        return _unbusy(
            process_upload(
                ports, upload.tenant_id, upload.document_id, owner=f"{BULK_OWNER}{owner}"
            )
        )

    done = _timed("bulk", upload.tenant_id, upload.document_id, work)
    if done is None:
        return {"document_id": upload.document_id, "status": "erased"}
    if done.status == "failed":
        raise DocumentFailed(f"{done.document_id}: {done.reason or 'failed'}")
    return {"document_id": done.document_id, "status": done.status, "reason": done.reason}
