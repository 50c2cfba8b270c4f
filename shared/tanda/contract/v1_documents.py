"""``/v1/documents`` (issue 26): a partner's indexed documents — one read, a list newest first,
and erasure with a receipt. docs/documents.md."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tanda.contract.common import WireModel, omitted_when_none

DocumentStatus = Literal["indexed"]
"""What a document the index holds is; upload statuses (issue 26) come with uploads."""


class V1DocumentSummary(WireModel):
    document_id: str
    status: DocumentStatus = Field(description="`indexed`: searchable and readable.")
    title: str
    filename: str = Field(description="The name of the file it was read from (no folder).")
    batch_id: str | None
    selections: list[str]
    pages: int | None = Field(description="Pages, for a paged document (PDF); else null.")
    indexed_at: str | None = Field(description="ISO 8601 UTC; null: indexed before it was kept.")


class V1Document(V1DocumentSummary):
    sha256: str = Field(description="SHA-256 of the source bytes, hex.")
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
