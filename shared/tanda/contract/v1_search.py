"""``POST /v1/search`` (ASK-01, ASK-02): ranked chunks, the retrieval primitive."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, model_validator
from pydantic.config import JsonDict

from tanda.contract.common import WireModel
from tanda.contract.request_body import (
    MAX_DOCUMENT_ID_CHARS,
    JsonInteger,
    RequestBody,
    VisibleText,
)

SEARCH_TOP_K_DEFAULT = 5
SEARCH_TOP_K_MAX = 20


_BOTH_SCOPES: JsonDict = {
    "required": ["document_id", "batch_id"],
    "properties": {"document_id": {"type": "string"}, "batch_id": {"type": "string"}},
}


class V1ScopedRequest(RequestBody):
    """What the /v1 bodies share (ASK-02): ``top_k`` and a ``document_id`` or ``batch_id``."""

    # ASK-02: `document_id` or `batch_id`, never both — said in the schema too (`not` both set).
    model_config = ConfigDict(json_schema_extra={"not": _BOTH_SCOPES})

    top_k: JsonInteger = Field(default=SEARCH_TOP_K_DEFAULT, ge=1, le=SEARCH_TOP_K_MAX)
    document_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_DOCUMENT_ID_CHARS,
        description="Only this document. Not together with `batch_id`.",
    )
    batch_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Only this ingest batch. Not together with `document_id`.",
    )

    @model_validator(mode="after")
    def _document_xor_batch(self) -> V1ScopedRequest:
        if self.document_id is not None and self.batch_id is not None:
            raise ValueError("give document_id or batch_id, not both")
        return self


class V1SearchRequest(V1ScopedRequest):
    query: VisibleText = Field(min_length=1, max_length=2000)
    lang: str | None = Field(
        default=None,
        max_length=16,
        description="Analyzer hint (`id`, `tr`, `en`); an unknown code falls back to detection.",
    )


class Identity(WireModel):
    """The document identity shown beside a passage (V2-07); unknown parts are null."""

    legal_reference: str | None = None
    regulation_type: str | None = None
    number: str | None = None
    year: int | None = None
    publisher: str | None = None
    section: str | None = None
    dataset: str | None = None
    period: str | None = None
    document_type: str | None = Field(
        default=None, description="Invoices: `Invoice (380)`, `Credit note (381)`, `e-Fatura (…)`."
    )
    issue_date: str | None = Field(default=None, description="Invoices: the issue date (ISO).")
    seller: str | None = Field(default=None, description="Invoices: the seller and its tax ids.")
    buyer: str | None = Field(default=None, description="Invoices: the buyer and its tax ids.")
    currency: str | None = Field(default=None, description="Invoices: the document currency.")


class SearchResult(WireModel):
    rank: int = Field(ge=1)
    chunk_id: str
    document_id: str
    title: str
    score: float = Field(description="Fused reciprocal-rank score; comparable within one response.")
    rerank_score: float | None = Field(
        description="The reranker's score (0–1), at or above the floor; null when no reranker "
        "is configured (ASK-06)."
    )
    lexical_rank: int | None
    vector_rank: int | None
    page_no: int | None
    section: str | None
    kind: Literal["text", "table"]
    identity: Identity
    snippet: str = Field(description="The first 200 characters of the chunk.")
    text: str


class RetrievalInfo(WireModel):
    mode: Literal["lexical", "hybrid"] = Field(
        description="`lexical` when no embedder is configured (or it failed), else `hybrid`."
    )
    embedder: str = Field(description="The embedder used for the query, or `none`.")
    reranked: bool = Field(
        default=False, description="Whether a reranker scored the hits (the floor applied)."
    )
    reranker: str = Field(
        default="none", description="`lexical`, `tei`, `cohere`, `bedrock`, or `none`."
    )
    rerank_min_score: float | None = Field(
        default=None,
        description="The floor the results passed (ASK-06); null when no reranker ran.",
    )
    below_floor: int = Field(
        default=0,
        ge=0,
        description="Hits the search found that scored under the floor and are not shown.",
    )


class V1SearchResponse(WireModel):
    query: str
    top_k: int
    results: list[SearchResult]
    retrieval: RetrievalInfo
