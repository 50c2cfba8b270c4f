"""What retrieval stores and returns: documents, chunks with identity, scopes, hits (DESIGN §6).

Every read names a tenant: a ``SearchScope`` cannot be built without ``tenant_id``, and every
adapter applies it inside the query, so no route can forget the tenant filter.
"""

from collections.abc import Iterable
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

TOP_K_DEFAULT = 5
TOP_K_MAX = 20

ChunkKind = Literal["text", "table"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class LegalIdentity(_Model):
    """The identity the judge must see beside a passage (V2-07). Empty fields are unknown.

    A regulation fills the legal fields; a table its dataset and period; a commercial document
    (an invoice, issue 18) its type, ``number``, ``year`` and the invoice fields below."""

    legal_reference: str | None = Field(
        default=None, description="E.g. `Undang-Undang Republik Indonesia Nomor 27 Tahun 2022`."
    )
    regulation_type: str | None = Field(
        default=None, description="E.g. `Undang-Undang`, `Perpres`."
    )
    number: str | None = None
    year: int | None = None
    publisher: str | None = Field(default=None, description="Issuing body, e.g. `Presiden RI`.")
    section: str | None = Field(
        default=None, description="Document-level section, when the whole document is one."
    )
    dataset: str | None = Field(default=None, description="For tables/portal data: dataset name.")
    period: str | None = Field(default=None, description="For tables/portal data: e.g. `2023`.")
    document_type: str | None = Field(
        default=None, description="Commercial documents: e.g. `Invoice`, `Credit note`, `e-Fatura`."
    )
    issue_date: str | None = Field(default=None, description="Invoices: the issue date, ISO.")
    seller: str | None = Field(default=None, description="Invoices: the seller and its tax ids.")
    buyer: str | None = Field(default=None, description="Invoices: the buyer and its tax ids.")
    currency: str | None = Field(default=None, description="Invoices: the document currency.")


class Document(_Model):
    document_id: str
    tenant_id: str
    title: str
    source: str = Field(description="Where it came from: a path or a URI.")
    content_hash: str = Field(description="SHA-256 of the source bytes: same hash, same document.")
    identity: LegalIdentity = Field(default_factory=LegalIdentity)
    batch_id: str | None = None
    selections: tuple[str, ...] = ()
    lang: str | None = Field(default=None, description="`id`, `tr`, `en`, or unknown.")
    pages: int | None = None
    metadata: dict[str, str] = Field(default_factory=dict)
    indexed_at: str | None = Field(
        default=None,
        description="When the index stored this version (ISO 8601 UTC); set by the index, not "
        "by ingest. `None`: indexed before the index recorded it (KB-02 freshness).",
    )
    structure_version: str | None = Field(
        default=None,
        description="What built its structure records (`extraction/6`); `None`: none were built "
        "(ingested without the layers, or before them). A re-ingest of the same content rebuilds "
        "them when this differs from the current version (ASK-14).",
    )


class Chunk(_Model):
    chunk_id: str = Field(description="Stable: the same content of the same document, the same id.")
    document_id: str
    tenant_id: str
    ordinal: int = Field(ge=0, description="Position in the document.")
    title: str
    identity: LegalIdentity = Field(default_factory=LegalIdentity)
    page_no: int | None = None
    section: str | None = Field(
        default=None, description="Heading path, e.g. `BAB II > Pasal 5 > ayat (2)`."
    )
    kind: ChunkKind = "text"
    text: str
    batch_id: str | None = None
    selections: tuple[str, ...] = ()
    lang: str | None = None
    embedding: tuple[float, ...] | None = None


class SearchScope(_Model):
    """Which chunks a query may see. ``tenant_id`` always; the rest narrows."""

    tenant_id: str = Field(min_length=1)
    document_ids: tuple[str, ...] | None = None
    batch_id: str | None = None
    selection: str | None = None

    @model_validator(mode="after")
    def _document_xor_batch(self) -> Self:
        if self.document_ids is not None and self.batch_id is not None:
            raise ValueError("scope by document or by batch, not both (ASK-02)")
        return self


class SearchQuery(_Model):
    text: str = Field(min_length=1)
    scope: SearchScope
    top_k: int = Field(default=TOP_K_DEFAULT, ge=1, le=TOP_K_MAX)
    lang: str | None = Field(default=None, description="Analyzer hint; detected when absent.")
    vector: tuple[float, ...] | None = Field(
        default=None, description="Query embedding, when an embedder is configured."
    )


class SearchHit(_Model):
    chunk: Chunk
    score: float = Field(description="Fused score (RRF); higher is better.")
    lexical_rank: int | None = Field(default=None, description="1-based rank in the lexical arm.")
    vector_rank: int | None = Field(default=None, description="1-based rank in the vector arm.")
    rerank_score: float | None = Field(
        default=None, description="The reranker's score (0–1), when a reranker scored the hit."
    )


def scope_key(batch_id: str | None, selections: Iterable[str]) -> tuple[str | None, frozenset[str]]:
    """A document's scope, for comparing: its batch and the *set* of its selections (order and
    repeats of ``--selection`` do not make another scope)."""
    return batch_id, frozenset(selections)


def keeps_version(stored_hash: str, stored_structure: str | None, document: Document) -> bool:
    """Whether the index's version of a document (its content hash and the version of its
    structure records) stays for ``document``: same content, and either the same structure
    version or ``document`` brings no structure (ingested without the layers: what was built
    stays). A structure built by another version, or none, is rebuilt (ASK-14)."""
    if stored_hash != document.content_hash:
        return False
    return document.structure_version is None or stored_structure == document.structure_version


class IngestOutcome(_Model):
    """What one ``upsert_document`` / ``rescope_document`` did. ``rescoped``: same content, new
    batch or selections — written to the document and every chunk, nothing re-chunked or
    re-embedded (issue 11)."""

    document_id: str
    status: Literal["added", "replaced", "rescoped", "unchanged"]
    chunks: int


class DocumentErasure(_Model):
    """What ``SearchIndex.delete_document`` removed (issue 26): the document's record as it was
    indexed (id, title, scope — never its text) and how many chunks (each with its vector) and
    structure records went with it."""

    document: Document
    chunks: int
    records: int


class ErasureReceipt(_Model):
    """What erasing one document removed (issue 26), kept by the Store: ids, the document's
    title, file name and hash, counts by kind and when — never its text."""

    receipt_id: str
    tenant_id: str
    document_id: str
    title: str
    filename: str
    content_hash: str
    batch_id: str | None = None
    erased_at: float
    removed: dict[str, int] = Field(
        description="chunks (each with its vector), records, findings, citing_messages, memories"
    )
