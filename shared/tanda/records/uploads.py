"""Documents a partner uploads (issue 26), as the Store keeps them. docs/documents.md.

An upload is one document-to-be of one tenant, addressed by ``(tenant_id, document_id)``. Its
``status`` moves

    awaiting_upload → queued → processing → indexed | skipped | failed
    (any of them)   → deleting → (the record is deleted, an erasure receipt kept)

and every move is ONE conditional write (``Store.transition_upload``, ``Store.claim_upload``):
from the statuses a caller expects to a new one, so a redelivered queue message, a second worker
or a delete racing an ingest each find the status already moved and do nothing.

``processing`` is held under a *lease* (``lease_owner`` until ``lease_until``, renewed while the
worker works, as cross-check jobs are): when the worker's process dies, the lease runs out and the
next worker takes the upload again (``attempts`` counts the takes); after
``TANDA_XC_MAX_ATTEMPTS`` takes it is failed with a reason, never left ``processing``.

**Same bytes, one document.** A tenant's ``sha256`` is *held* by at most one upload at a time:
one whose status is in :data:`HOLDS_CONTENT` (an ``awaiting_upload`` only until its
``expires_at``). A create or a transition that would make a second holder raises
:class:`DuplicateContent` naming the holder, and writes nothing (the route answers 200
``duplicate_of``). ``failed`` and ``deleting`` release the bytes; so does deleting the record.

**Versions.** An upload whose filename (in the same batch) names an indexed upload with other
bytes replaces it once it is itself indexed: ``replaces`` names the earlier version's
``document_id``, erased only after the new version is searchable.
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

UploadStatus = Literal[
    "awaiting_upload", "queued", "processing", "indexed", "skipped", "failed", "deleting"
]
UPLOAD_STATUSES: tuple[UploadStatus, ...] = (
    "awaiting_upload",
    "queued",
    "processing",
    "indexed",
    "skipped",
    "failed",
    "deleting",
)
OPEN_UPLOAD: tuple[UploadStatus, ...] = ("queued", "processing")
"""What a worker pool picks up (``Store.open_uploads``)."""
FINISHED_UPLOAD: tuple[UploadStatus, ...] = ("indexed", "skipped", "failed")
HOLDS_CONTENT: tuple[UploadStatus, ...] = (
    "awaiting_upload",
    "queued",
    "processing",
    "indexed",
    "skipped",
)
"""Statuses whose upload holds its tenant's ``sha256`` (an ``awaiting_upload`` only until its
``expires_at``): a second upload of the same bytes is a duplicate of it."""

DOCUMENT_ID_PREFIX = "doc_"
DOCUMENT_ID_RE = re.compile(r"^doc_[0-9a-f]{24}$")
"""An uploaded document's id (and an ingested one's: ``document_id_for`` has the same shape)."""

_last_millis = 0
_last_random = 0


def new_document_id(now: float) -> str:
    """``doc_`` + the creation time in milliseconds (12 hex digits) + 48 random bits: upload ids
    sort by creation (``Store.uploads`` lists by id, newest first). A later id of the same
    millisecond in this process is the earlier one's random part plus one, so it sorts after it."""
    global _last_millis, _last_random
    millis = int(now * 1000)
    if millis == _last_millis:
        _last_random += 1
    else:
        _last_millis, _last_random = millis, int.from_bytes(os.urandom(6), "big") >> 1
    return f"{DOCUMENT_ID_PREFIX}{millis:012x}{_last_random:012x}"


def iso(epoch_s: float | None) -> str | None:
    """Epoch seconds as the API writes times: ISO 8601 UTC, milliseconds (as ``indexed_at``)."""
    if epoch_s is None:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="milliseconds")


def id_bound(epoch_s: float) -> str:
    """The smallest upload id created after ``epoch_s``'s millisecond: every upload created at
    or before it has a smaller id (a listing position, ``Store.uploads(after=...)``)."""
    return f"{DOCUMENT_ID_PREFIX}{int(epoch_s * 1000) + 1:012x}{0:012x}"


class DuplicateContent(Exception):
    """The tenant already holds these bytes (same ``sha256``): ``document_id`` is the holder's.
    Raised by ``Store.create_upload`` and ``Store.transition_upload``; nothing was written."""

    def __init__(self, document_id: str) -> None:
        super().__init__(document_id)
        self.document_id = document_id


class UploadExists(ValueError):
    """``Store.create_upload`` of an id that exists; nothing was written."""


class DocumentUpload(BaseModel):
    """One upload (module docstring). Times are epoch seconds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tenant_id: str = Field(min_length=1)
    document_id: str = Field(min_length=1)
    status: UploadStatus = "awaiting_upload"
    reason: str | None = Field(
        default=None, description="Why it is `skipped` or `failed` (or what cancelled it)."
    )
    filename: str = Field(min_length=1, description="The file's name, no folder.")
    content_type: str
    size_bytes: int = Field(ge=0, description="Declared at creation; the bytes must match it.")
    sha256: str | None = Field(
        default=None, description="Hex; declared at creation, else set when the bytes arrive."
    )
    batch_id: str | None = None
    selections: tuple[str, ...] = ()
    label: str | None = Field(default=None, description="The partner's own name for it.")
    created_at: float
    updated_at: float
    expires_at: float = Field(description="When the upload URL stops accepting the bytes.")
    indexed_at: float | None = None
    attempts: int = Field(default=0, ge=0, description="Workers that took it (claims).")
    lease_owner: str | None = None
    lease_until: float | None = None
    replaces: str | None = Field(
        default=None, description="The earlier version (same filename, other bytes) it replaced."
    )
    title: str | None = Field(default=None, description="Read from the document once indexed.")
    pages: int | None = None
    chunks: int | None = None
    records: dict[str, int] = Field(
        default_factory=dict, description="Structure records written, by kind."
    )

    def changed(self, **changes: Any) -> DocumentUpload:
        """This upload with ``changes`` (validated): what a transition writes."""
        return DocumentUpload.model_validate({**self.model_dump(), **changes})

    def holds_content(self, now: float) -> bool:
        """Whether it holds its tenant's ``sha256`` at ``now`` (module docstring)."""
        if self.sha256 is None or self.status not in HOLDS_CONTENT:
            return False
        return self.status != "awaiting_upload" or self.expires_at > now

    def lease_expired(self, now: float) -> bool:
        """A ``processing`` upload whose worker stopped renewing its lease (its process died)."""
        return self.status == "processing" and (self.lease_until is None or self.lease_until <= now)

    def claimable(self, now: float) -> bool:
        """What ``Store.claim_upload`` takes: ``queued``, or ``processing`` under a lease that
        ran out."""
        return self.status == "queued" or self.lease_expired(now)


class UploadPage(BaseModel):
    """One page of a tenant's uploads, newest first; ``next_after`` continues the listing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    uploads: tuple[DocumentUpload, ...]
    next_after: str | None = None


class UploadTarget(BaseModel):
    """Where and how the partner sends the bytes of one upload (``Originals.upload_target``):
    embedded a ``PUT`` of the raw body to ``tanda serve`` (``headers`` to send); on AWS an S3
    presigned ``POST`` (a multipart form: ``fields`` first, then the file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str
    method: Literal["PUT", "POST"]
    headers: dict[str, str] = Field(default_factory=dict)
    fields: dict[str, str] = Field(default_factory=dict)
    expires_at: float


class StoredOriginal(BaseModel):
    """What ``Originals.put`` stored: the bytes' count and SHA-256 (hex)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    size_bytes: int
    sha256: str


class OriginalRefused(Exception):
    """``Originals.put`` stored nothing: the body was not the declared size (``too_large``: more
    bytes than declared), or the place to write it was not a regular file the store made."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large
