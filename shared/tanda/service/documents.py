"""The documents of a tenant as a resource (issue 26): read one, list them newest first, erase
one — behind ``/v1/documents`` and ``tanda documents``. docs/documents.md.

Erasure, in this order: the cross-check findings quoting the document become ``erased`` markers,
stored answers' citations of it say ``erased`` and the memory items drawn from them go, then the
index erases the document (chunks, vectors, records, lexical terms), then the receipt is kept. A
failure midway leaves the document listed: erasing it again finishes the work (each step is
idempotent), so the receipt is written only for a complete erasure."""

from __future__ import annotations

import uuid
from collections import Counter
from pathlib import PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING

from tanda.contract.v1_documents import (
    DocumentStatus,
    ErasureCounts,
    V1Document,
    V1DocumentList,
    V1DocumentSummary,
    V1ErasureReceipt,
)
from tanda.errors import DocumentNotFound
from tanda.records.documents import Document, ErasureReceipt, SearchScope
from tanda.records.jobs import erase_findings
from tanda.records.structure import RecordQuery
from tanda.records.uploads import UPLOAD_STATUSES, DocumentUpload, UploadStatus, id_bound, iso

if TYPE_CHECKING:
    from tanda.ports import Originals, SearchIndex, Store

JOB_PAGE = 100
REPLACE_ATTEMPTS = 5
"""A job being run is written by its runner too: a lost race reads the job again."""


def filename(document: Document) -> str:
    """The file name the document was read from, never the folder (an operator's path)."""
    source = document.source
    if "://" in source:
        return source.rstrip("/").rsplit("/", 1)[-1] or source
    return PureWindowsPath(PurePosixPath(source).name).name or source


def _one(index: SearchIndex, tenant_id: str, document_id: str) -> Document:
    found = index.documents(SearchScope(tenant_id=tenant_id, document_ids=(document_id,)))
    if not found:
        raise DocumentNotFound()
    return found[0]


def uploaded(document: Document) -> bool:
    """A document an upload made (issue 26): listed and shown through its upload record."""
    return document.metadata.get("origin") == "upload"


def _summary(document: Document) -> V1DocumentSummary:
    return V1DocumentSummary(
        document_id=document.document_id,
        status="indexed",
        title=document.title,
        filename=filename(document),
        batch_id=document.batch_id,
        selections=list(document.selections),
        pages=document.pages,
        indexed_at=document.indexed_at,
    )


def _upload_summary(upload: DocumentUpload) -> V1DocumentSummary:
    return V1DocumentSummary(
        document_id=upload.document_id,
        status=upload.status,
        reason=upload.reason,
        title=upload.title or upload.label or upload.filename,
        filename=upload.filename,
        label=upload.label,
        batch_id=upload.batch_id,
        selections=list(upload.selections),
        pages=upload.pages,
        created_at=iso(upload.created_at),
        indexed_at=iso(upload.indexed_at),
    )


def document_view(
    index: SearchIndex, tenant_id: str, document_id: str, *, store: Store | None = None
) -> V1Document:
    """One document of the tenant, with its counts — an upload in whatever status it is (with
    ``store``), or a document ``tanda ingest`` wrote; another tenant's id is not found."""
    upload = store.upload(tenant_id, document_id) if store is not None else None
    if upload is not None:
        return V1Document(
            **_upload_summary(upload).model_dump(),
            sha256=upload.sha256,
            size_bytes=upload.size_bytes,
            replaces=upload.replaces,
            chunks=upload.chunks or 0,
            records=dict(sorted(upload.records.items())),
        )
    document = _one(index, tenant_id, document_id)
    scope = SearchScope(tenant_id=tenant_id, document_ids=(document_id,))
    kinds = Counter(record.kind for record in index.records(RecordQuery(scope=scope)))
    size = document.metadata.get("size_bytes")
    return V1Document(
        **_summary(document).model_dump(),
        sha256=document.content_hash,
        size_bytes=int(size) if size is not None and size.isdecimal() else None,
        chunks=len(index.document_chunks(scope, document_id)),
        records=dict(sorted(kinds.items())),
    )


def _after(cursor: str) -> tuple[str, str]:
    """A position in the listing, not a token: every string is one (what comes before it in
    the descending order of ``(time, document_id)`` is listed next)."""
    at, _, document_id = cursor.partition("|")
    return at, document_id


def _upload_bound(at: str) -> str | None:
    """The upload ids that may sort before position ``at`` lie below this one (ids sort by
    creation); ``None`` when ``at`` is no time: every upload is then compared."""
    from datetime import datetime

    try:
        return id_bound(datetime.fromisoformat(at).timestamp())
    except ValueError:
        return None


def _listed_uploads(
    store: Store,
    tenant_id: str,
    *,
    batch_id: str | None,
    statuses: tuple[UploadStatus, ...] | None,
    limit: int,
    after: tuple[str, str] | None,
) -> list[tuple[tuple[str, str], V1DocumentSummary]]:
    """Up to ``limit`` of the tenant's uploads before ``after``, newest first, keyed."""
    rows: list[tuple[tuple[str, str], V1DocumentSummary]] = []
    bound = _upload_bound(after[0]) if after else None
    while len(rows) < limit:
        page = store.uploads(
            tenant_id, limit=limit, after=bound, batch_id=batch_id, statuses=statuses
        )
        for upload in page.uploads:
            key = (iso(upload.created_at) or "", upload.document_id)
            if after is None or key < after:
                rows.append((key, _upload_summary(upload)))
        if page.next_after is None:
            break
        bound = page.next_after
    return rows[:limit]


def list_documents(
    index: SearchIndex,
    tenant_id: str,
    *,
    batch_id: str | None = None,
    status: DocumentStatus | None = None,
    limit: int = 50,
    cursor: str | None = None,
    store: Store | None = None,
) -> V1DocumentList:
    """The tenant's documents (in ``batch_id``, in ``status``), newest first, a page at a time;
    ``cursor`` is the previous page's ``next_cursor``. With ``store``, its uploads in every
    status (by when they started) beside the documents ``tanda ingest`` wrote (by when they
    were indexed)."""
    after = _after(cursor) if cursor else None
    rows: list[tuple[tuple[str, str], V1DocumentSummary]] = []
    if status in (None, "indexed"):
        for document in index.documents(SearchScope(tenant_id=tenant_id, batch_id=batch_id)):
            if store is not None and uploaded(document):
                continue
            key = (document.indexed_at or "", document.document_id)
            if after is None or key < after:
                rows.append((key, _summary(document)))
    if store is not None:
        rows += _listed_uploads(
            store,
            tenant_id,
            batch_id=batch_id,
            statuses=(status,) if status is not None else None,
            limit=limit + 1,
            after=after,
        )
    rows.sort(key=lambda row: row[0], reverse=True)
    page = rows[:limit]
    more = len(rows) > limit
    return V1DocumentList(
        documents=[summary for _, summary in page],
        next_cursor="|".join(page[-1][0]) if more and page else None,
    )


def _erase_findings(store: Store, tenant_id: str, document_id: str) -> int:
    changed = 0
    after: str | None = None
    while True:
        page = store.jobs(tenant_id, scheduled=None, limit=JOB_PAGE, after=after)
        for listed in page.jobs:
            job = store.job(tenant_id, listed.job_id) or listed
            for _ in range(REPLACE_ATTEMPTS):
                erased = erase_findings(job, document_id)
                if erased is None:
                    break
                if store.replace_job(erased[0]):
                    changed += erased[1]
                    break
                job = store.job(tenant_id, listed.job_id) or job
        if page.next_after is None:
            return changed
        after = page.next_after


def erase_document(
    index: SearchIndex,
    store: Store,
    tenant_id: str,
    document_id: str,
    *,
    now: float,
    originals: Originals | None = None,
) -> V1ErasureReceipt:
    """Erase one document of the tenant and everything drawn from it (module docstring); the
    receipt, also kept by the Store. Unknown, erased or another tenant's: not found.

    An uploaded document (issue 26) is first marked ``deleting`` — whatever status it had, so a
    worker ingesting it stops, or erases what it wrote — and its original file and its upload
    record go last, before the receipt."""
    upload = store.upload(tenant_id, document_id)
    if upload is not None:
        store.transition_upload(
            tenant_id,
            document_id,
            expected=UPLOAD_STATUSES,
            changes={"status": "deleting", "reason": "erasure requested"},
            now=now,
        )
    scope = SearchScope(tenant_id=tenant_id, document_ids=(document_id,))
    if upload is None and not index.documents(scope):
        raise DocumentNotFound()
    findings = _erase_findings(store, tenant_id, document_id)
    citing, memories = store.erase_document_traces(tenant_id, document_id)
    erasure = index.delete_document(tenant_id, document_id)
    if upload is not None:
        if originals is not None:
            originals.delete(tenant_id, document_id)
        if not store.delete_upload(tenant_id, document_id) and erasure is None:
            raise DocumentNotFound()  # erased meanwhile by another call: that one keeps it
    elif erasure is None:  # erased meanwhile by another call: that one keeps the receipt
        raise DocumentNotFound()
    removed = ErasureCounts(
        chunks=erasure.chunks if erasure else 0,
        records=erasure.records if erasure else 0,
        findings=findings,
        citing_messages=citing,
        memories=memories,
    )
    if erasure is not None:
        document = erasure.document
        title, name, digest = document.title, filename(document), document.content_hash
        batch_id = document.batch_id
    elif upload is None:  # not reached: without either it was not found above
        raise DocumentNotFound()
    else:
        title, name = upload.label or upload.filename, upload.filename
        digest, batch_id = upload.sha256 or "", upload.batch_id
    receipt = ErasureReceipt(
        receipt_id=f"er_{uuid.uuid4().hex}",
        tenant_id=tenant_id,
        document_id=document_id,
        title=title,
        filename=name,
        content_hash=digest,
        batch_id=batch_id,
        erased_at=now,
        removed=removed.model_dump(),
    )
    store.put_erasure_receipt(receipt)
    return receipt_view(receipt)


def receipt_view(receipt: ErasureReceipt) -> V1ErasureReceipt:
    return V1ErasureReceipt(
        receipt_id=receipt.receipt_id,
        document_id=receipt.document_id,
        title=receipt.title,
        filename=receipt.filename,
        sha256=receipt.content_hash,
        erased_at=receipt.erased_at,
        removed=ErasureCounts.model_validate(receipt.removed),
    )
