"""``/v1/documents`` and ``/v1/batches`` (issue 26): a partner's documents — uploads and their
statuses, one read, a list newest first, a batch's progress, and erasure with a receipt.
docs/documents.md."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tanda.contract.common import WireModel, omitted_when_none

DocumentStatus = Literal[
    "awaiting_upload", "queued", "processing", "indexed", "skipped", "failed", "deleting"
]
STATUS_DESCRIPTION = (
    "`awaiting_upload` (its bytes not sent yet), `queued`, `processing`, `indexed` (searchable "
    "and readable), `skipped` (read, nothing to index), `failed` (see `reason`), `deleting`."
)


class V1DocumentSummary(WireModel):
    document_id: str
    status: DocumentStatus = Field(description=STATUS_DESCRIPTION)
    reason: str | None = omitted_when_none("Why it is `skipped` or `failed`.")
    title: str = Field(description="Read from the document; before that its label or filename.")
    filename: str = Field(description="The name of the file it was read from (no folder).")
    label: str | None = omitted_when_none("The label given at upload.")
    batch_id: str | None
    selections: list[str]
    pages: int | None = Field(description="Pages, for a paged document (PDF); else null.")
    created_at: str | None = omitted_when_none("Uploads: when the upload started (ISO 8601).")
    indexed_at: str | None = Field(description="ISO 8601 UTC; null: not indexed (yet).")


class V1Document(V1DocumentSummary):
    sha256: str | None = Field(description="SHA-256 of the source bytes, hex; null until known.")
    replaces: str | None = omitted_when_none(
        "The earlier version (same filename and batch, other bytes) this upload replaced."
    )
    size_bytes: int | None = omitted_when_none("Size of the source file, when it was recorded.")
    chunks: int = Field(ge=0, description="Passages it is searched and cited by.")
    records: dict[str, int] = Field(
        description="Structure records read from it, by kind (`claim`, `definition`, …)."
    )


class V1DocumentList(WireModel):
    documents: list[V1DocumentSummary] = Field(description="Newest first (`indexed_at`).")
    next_cursor: str | None = Field(
        description="Pass as `cursor` for the next page; null on the last page."
    )


class ErasureCounts(WireModel):
    chunks: int = Field(ge=0, description="Passages removed, each with its vector.")
    records: int = Field(ge=0, description="Structure records removed.")
    findings: int = Field(
        ge=0, description="Cross-check findings whose side from it is now an `erased` marker."
    )
    citing_messages: int = Field(
        ge=0, description="Stored answers whose citations of it now say `erased: true`."
    )
    memories: int = Field(ge=0, description="Conversation memory items drawn from it, removed.")


class V1ErasureReceipt(WireModel):
    """What the erasure removed — kept by tanda; never the document's text."""

    receipt_id: str
    document_id: str
    title: str
    filename: str
    sha256: str
    erased_at: float = Field(description="Epoch seconds.")
    removed: ErasureCounts


# --- uploads (issue 26) -------------------------------------------------------------------------

FILENAME_PATTERN = r"^[^/\\\x00-\x1f\x7f]+$"
UPLOAD_TYPES: dict[str, tuple[str, ...]] = {
    ".pdf": ("application/pdf",),
    ".txt": ("text/plain",),
    ".text": ("text/plain",),
    ".md": ("text/markdown", "text/x-markdown", "text/plain"),
    ".markdown": ("text/markdown", "text/x-markdown", "text/plain"),
    ".csv": ("text/csv", "application/csv", "text/plain", "application/vnd.ms-excel"),
    ".jsonl": (
        "application/jsonl",
        "application/x-ndjson",
        "application/jsonlines",
        "application/json-lines",
        "text/plain",
    ),
    ".xml": ("application/xml", "text/xml"),
}
"""What an upload may be: the types ``tanda ingest`` reads (by extension, either case) and the
media types each is sent as (``application/octet-stream`` too: the extension and the bytes
decide). Anything else is 415 ``unsupported_document_type``."""
ANY_TYPE = "application/octet-stream"
MEDIA_TYPES = tuple(sorted({t for types in UPLOAD_TYPES.values() for t in types} | {ANY_TYPE}))


def _either_case(suffix: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in suffix.lstrip("."))


UPLOAD_FILENAME_PATTERN = (
    r"^[^/\\\x00-\x1f\x7f]*\.(" + "|".join(_either_case(s) for s in UPLOAD_TYPES) + ")$"
)
"""What the document says a filename is (one of :data:`UPLOAD_TYPES`); the server refuses other
extensions with 415 ``unsupported_document_type`` rather than 422, and says which are taken."""


class V1UploadRequest(WireModel):
    """``POST /v1/documents`` (JSON): start an upload."""

    filename: str = Field(
        min_length=1,
        max_length=255,
        pattern=FILENAME_PATTERN,
        description="The file's name, no folder; its extension says its type (another "
        "extension is 415 `unsupported_document_type`).",
        json_schema_extra={"pattern": UPLOAD_FILENAME_PATTERN},
    )
    content_type: str = Field(
        min_length=1,
        max_length=200,
        description="The media type the bytes are sent as (another is 415).",
        json_schema_extra={"enum": [*MEDIA_TYPES]},
    )
    size_bytes: int = Field(
        ge=0, description="The exact size of the bytes to send (an empty file ends `skipped`)."
    )
    sha256: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="SHA-256 of the bytes, lowercase hex: the bytes are checked against it, and "
        "bytes the tenant holds already are answered with `duplicate_of` at once.",
    )
    batch_id: str | None = Field(default=None, min_length=1, max_length=200)
    selections: list[str] = Field(
        default_factory=list, max_length=32, description="Selections it joins (`/v1/ask`)."
    )
    label: str | None = Field(
        default=None, min_length=1, max_length=500, description="Your own name for it."
    )


class V1UploadTarget(WireModel):
    """Where and how to send the bytes: a ``PUT`` of the raw body with ``headers`` (embedded),
    or an S3 presigned ``POST``: a multipart form of ``fields``, then the file (AWS)."""

    url: str
    method: Literal["PUT", "POST"]
    headers: dict[str, str] = Field(description="Headers to send with the bytes.")
    fields: dict[str, str] = Field(description="Form fields to send before the file (POST).")
    expires_at: str = Field(description="ISO 8601 UTC; after it the URL refuses the bytes.")


class V1UploadAccepted(WireModel):
    """An upload started (201, with ``upload``), its bytes received (``queued``), or bytes the
    tenant holds already (200, ``duplicate_of``: that document)."""

    document_id: str
    status: DocumentStatus = Field(description=STATUS_DESCRIPTION)
    upload: V1UploadTarget | None = omitted_when_none("Where to send the bytes (201).")
    duplicate_of: str | None = omitted_when_none(
        "The tenant's document with the same bytes (200): no second document was made."
    )


class V1BatchProgress(WireModel):
    """``GET /v1/batches/{batch_id}``: the batch's documents by status."""

    batch_id: str
    total: int = Field(ge=0)
    counts: dict[str, int] = Field(description="Documents by status (those with none absent).")
    done: int = Field(ge=0, description="`indexed`, `skipped` and `failed` ones.")
    progress: float = Field(ge=0, le=1, description="`done / total` (1 for an empty batch).")
