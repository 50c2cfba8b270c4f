"""Knowledge queries for agent hosts (KB-01 … KB-07): the input and output shapes of the MCP tools
(docs/mcp.md). The MCP server publishes them as each tool's input and output JSON schema.

Every result states its scope and index metadata (KB-02); a paged result carries a
:class:`BudgetProfile` whose unit is Unicode code points of the serialized JSON result (KB-03).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from tanda.contract.common import WireModel
from tanda.contract.request_body import (
    DocumentIds,
    JsonInteger,
    RequestBody,
)
from tanda.contract.v1_documents import STATUS_DESCRIPTION, DocumentStatus
from tanda.contract.v1_search import Identity

NodeType = Literal["passage", "entity", "table", "claim", "rule", "line_item", "definition"]
NODE_TYPES: tuple[NodeType, ...] = (
    "passage",
    "entity",
    "table",
    "claim",
    "rule",
    "line_item",
    "definition",
)

BUDGET_UNIT: Literal["codepoints_of_serialized_json"] = "codepoints_of_serialized_json"
MIN_BUDGET_CODEPOINTS = 500
MAX_BUDGET_CODEPOINTS = 1_000_000
SEARCH_LIMIT_DEFAULT = 10
SEARCH_LIMIT_MAX = 20
NEIGHBOUR_LIMIT_DEFAULT = 5
NEIGHBOUR_LIMIT_MAX = 20
MAX_QUOTE_CHARS = 20_000


# --- inputs --------------------------------------------------------------------------------


class KnowledgeScope(RequestBody):
    """KB-01: which of the caller's documents a query reads. Every part narrows; ``{}`` is every
    document of the caller's tenant. ``document_ids`` and ``batch_id`` never together (ASK-02)."""

    document_ids: DocumentIds | None = Field(
        default=None, description="Only these documents (1–100 ids)."
    )
    batch_id: str | None = Field(
        default=None, min_length=1, max_length=128, description="Only this ingest batch."
    )
    selection: str | None = Field(
        default=None, min_length=1, max_length=128, description="Only this named selection."
    )

    @model_validator(mode="after")
    def _document_xor_batch(self) -> KnowledgeScope:
        if self.document_ids is not None and self.batch_id is not None:
            raise ValueError("scope by document_ids or by batch_id, not both")
        return self


class Budget(RequestBody):
    """KB-03: the largest result the host wants, in code points of the serialized JSON result."""

    max_codepoints: JsonInteger = Field(
        ge=MIN_BUDGET_CODEPOINTS,
        le=MAX_BUDGET_CODEPOINTS,
        description="Unicode code points of the result serialized as compact JSON — not model "
        "tokens.",
    )


class NeighbourRequest(RequestBody):
    """KB-04: which typed neighbours of a node, and how many of each group."""

    types: list[NodeType] | None = Field(
        default=None, description="Neighbour node types to include; absent: every type."
    )
    limit: JsonInteger = Field(
        default=NEIGHBOUR_LIMIT_DEFAULT,
        ge=1,
        le=NEIGHBOUR_LIMIT_MAX,
        description="At most this many established and this many suggested neighbours.",
    )


class QuoteCitation(RequestBody):
    """A citation of a structured answer: ``quote`` is the complete text at ``[start, end)`` of
    the node's text (code points), normalised (KB-05)."""

    node_id: str = Field(min_length=1, max_length=512)
    start: JsonInteger = Field(ge=0)
    end: JsonInteger = Field(ge=0)
    quote: str = Field(min_length=1, max_length=MAX_QUOTE_CHARS)


class RuleQuote(RequestBody):
    rule_id: str = Field(min_length=1, max_length=200)
    quote: str = Field(min_length=1, max_length=MAX_QUOTE_CHARS)


class AnswerBasis(RequestBody):
    """KB-06: a citation-free answer based on governing rules of the procedure."""

    kind: Literal["governing_rule"]
    rules: list[RuleQuote] = Field(min_length=1, max_length=20)


class StructuredAnswer(RequestBody):
    """KB-06: an answer as a host delivers it, for the binding verifier."""

    answer: str = Field(default="", max_length=100_000, description="The answer's prose.")
    citations: list[QuoteCitation] = Field(default_factory=list, max_length=200)
    evidence_gap: bool = Field(
        default=False, description="A deliberate gap: the evidence does not answer the question."
    )
    answer_basis: AnswerBasis | None = None


# --- outputs -------------------------------------------------------------------------------


class BudgetProfile(WireModel):
    """KB-03: how the result was fitted into its budget. Inspect ``status`` before inferring an
    evidence gap: ``BUDGET_TRUNCATED`` means coverage is incomplete, never that the source lacks
    the answer."""

    unit: Literal["codepoints_of_serialized_json"] = Field(
        default=BUDGET_UNIT,
        description="Unicode code points of this result serialized as compact JSON (separators "
        "`,` `:`, non-ASCII written as itself) — not model tokens.",
    )
    max_codepoints: int
    used_codepoints: int = Field(description="The size of this whole result in that unit.")
    status: Literal["COMPLETE", "BUDGET_TRUNCATED"]
    offset: int = Field(ge=0, description="Position of this page's first row in the full result.")
    returned: int = Field(ge=0, description="Rows in this page.")
    total: int = Field(ge=0, description="Rows in the full result.")
    next_cursor: str | None = Field(
        description="Send it back (same tool, scope and query) for the next rows. Always advances; "
        "null when complete or when no row fit."
    )
    limit: Literal["response_budget"] | None = Field(
        default=None,
        description="`response_budget`: not even the next row fits this budget. The rows exist; "
        "raise `max_codepoints` to at least `next_row_codepoints` and resend the same cursor.",
    )
    next_row_codepoints: int | None = Field(
        default=None,
        description="With `limit`: the budget the next row needs (the result with it alone); "
        "on an abbreviated page of a result with no row left, the budget its envelope needs.",
    )
    abbreviated: bool = Field(
        default=False,
        description="true: not even this page's envelope (`scope`, `filters`, `index`, "
        "`warnings`) fits the budget, so they are null here — its warnings are not known to be "
        "absent. Never `COMPLETE`: raise `max_codepoints` to `next_row_codepoints` and resend.",
    )


class Span(WireModel):
    start: int = Field(ge=0, description="Code point offset, inclusive.")
    end: int = Field(ge=0, description="Code point offset, exclusive.")


class CitationGroup(WireModel):
    """KB-02: everything a host needs to cite a node exactly: copy it whole."""

    node_id: str
    document_id: str
    title: str
    identity: Identity
    page_no: int | None
    section: str | None
    passage_id: str = Field(
        description="The passage `span` is in: the node itself for a passage, the passage a "
        "structure record was read from otherwise."
    )
    span: Span = Field(description="Where `text` is in that passage's text (code points).")
    text: str = Field(description="The passage's text at `span`, verbatim: what to quote.")


class KnowledgeNode(WireModel):
    node_id: str
    node_type: NodeType
    citation: CitationGroup
    summary: str | None = Field(
        default=None,
        description="A structure record as one line of evidence (`AMOUNT: … = …`, `KALEM: …`, a "
        "claim's statement, a rule and its evaluation): the server's reading, not a quote.",
    )
    stale: bool = Field(description="Its document is stale (see `list_sources`).")


class Candidate(KnowledgeNode):
    """An accepted search candidate (KB-02): it passed the reranker floor when one is set."""

    rank: int = Field(ge=1)
    score: float | None = Field(description="Fused retrieval score of its passage.")
    rerank_score: float | None


class KnowledgeWarning(WireModel):
    """KB-02: a condition the host must keep with the answer."""

    code: Literal[
        "DEGRADED_MODE",
        "STALE_DOCUMENTS",
        "EMPTY_SCOPE",
        "BELOW_RERANK_FLOOR",
        "NODE_TYPES_MISSING",
    ]
    message: str


class IndexInfo(WireModel):
    """KB-01, KB-02: the index as this result saw it."""

    backend: str = Field(description="`sqlite` or `opensearch`.")
    retrieval_mode: Literal["hybrid", "lexical"] = Field(
        description="What retrieval runs: for `search`, what its search ran; for the other "
        "tools, what a search on this server runs (`hybrid` with an embedder configured). "
        "`lexical` = degraded mode."
    )
    degraded: bool = Field(description="Hybrid retrieval is not available (lexical only).")
    generation: str = Field(
        description="A fingerprint of the documents in scope (ids, content, index time): it "
        "changes whenever one is added, replaced or removed."
    )
    documents_in_scope: int = Field(ge=0)
    newest_indexed_at: str | None = Field(description="ISO 8601 UTC; null if unknown.")
    stale_documents: int = Field(ge=0, description="Documents in scope that are stale.")


class SearchFilters(WireModel):
    """The request context, echoed so a host can save and replay it (KB-02)."""

    query: str
    node_types: list[NodeType]
    stale_only: bool
    limit: int


_ABBREVIATED = "Null only on a page abbreviated to its budget (`budget.abbreviated`, KB-03)."


class SearchResult(WireModel):
    scope: KnowledgeScope | None = Field(description=_ABBREVIATED)
    filters: SearchFilters | None = Field(description=_ABBREVIATED)
    index: IndexInfo | None = Field(description=_ABBREVIATED)
    warnings: list[KnowledgeWarning] | None = Field(description=_ABBREVIATED)
    candidates: list[Candidate]
    budget: BudgetProfile


class SourceInfo(WireModel):
    document_id: str
    status: Literal["indexed"] = Field(
        default="indexed",
        description="`indexed`: searchable and readable (uploads not indexed yet: `pending`).",
    )
    title: str
    source: str
    identity: Identity
    batch_id: str | None
    selections: list[str]
    lang: str | None
    pages: int | None
    indexed_at: str | None = Field(description="When this version was indexed (ISO 8601 UTC).")
    stale: bool
    stale_reason: Literal["indexed_before_freshness_horizon", "structure_outdated"] | None = Field(
        description="`structure_outdated`: its structure records were built by another "
        "version of the extraction than this server's (a re-ingest rebuilds them)."
    )
    structure_version: str | None = Field(
        description="What built its structure records; null: none were built (no entity, "
        "table, claim, rule or line item nodes for it)."
    )


class PendingSource(WireModel):
    """An upload in the scope that the index does not hold (yet): nothing of it is readable
    (issue 26, docs/documents.md)."""

    document_id: str
    status: DocumentStatus = Field(description=STATUS_DESCRIPTION)
    reason: str | None = Field(description="Why it is `skipped` or `failed`.")
    filename: str
    batch_id: str | None
    selections: list[str]
    created_at: str | None = Field(description="When the upload started (ISO 8601 UTC).")


class SourcesResult(WireModel):
    scope: KnowledgeScope | None = Field(description=_ABBREVIATED)
    index: IndexInfo | None = Field(description=_ABBREVIATED)
    warnings: list[KnowledgeWarning] | None = Field(description=_ABBREVIATED)
    sources: list[SourceInfo]
    pending: list[PendingSource] | None = Field(
        default=None,
        description="Uploads in the scope not indexed (yet) — awaiting their bytes, queued, "
        "processing, skipped or failed — newest first, at most 20, on the first page; null on "
        "later pages and when abbreviated (issue 26).",
    )
    budget: BudgetProfile


class Neighbour(WireModel):
    relation: Literal[
        "previous_passage",
        "next_passage",
        "same_section",
        "passage_of",
        "record_in_passage",
        "quoted_by_claim",
        "part_of",
        "contains",
        "same_entity_elsewhere",
        "similar_text",
    ] = Field(
        description="Established: `previous_passage`, `next_passage`, `same_section`, "
        "`passage_of` (the passage a record was read from), `record_in_passage`, "
        "`quoted_by_claim`, `part_of` / `contains` (a table and its line items). Suggested: "
        "`same_entity_elsewhere` (an entity of the same type and name in another document), "
        "`similar_text`."
    )
    node: KnowledgeNode
    score: float | None = Field(default=None, description="Similarity, for a suggestion.")


class Neighbours(WireModel):
    """KB-04: established relationships (structure, quotes) apart from suggestions (similarity)."""

    established: list[Neighbour]
    suggested: list[Neighbour]
    types: list[NodeType]
    limit: int


class NodeResult(WireModel):
    node: KnowledgeNode
    neighbours: Neighbours
    index: IndexInfo


class QuoteVerification(WireModel):
    """KB-05: whether ``quote`` is the complete normalised text at ``[start, end)``."""

    node_id: str
    start: int
    end: int
    verified: bool
    reason: Literal[
        "exact", "quote_shortened", "quote_mismatch", "span_out_of_range", "unknown_node"
    ]
    message: str
    text_at_span: str | None = Field(
        description="The node's text at `[start, end)`, verbatim (null when out of range)."
    )
    verified_span: Span | None = Field(
        description="Where the quote does equal the node's text: a narrower (or other) span to "
        "cite instead. Null when the quote is nowhere in the node."
    )


class AnswerProblem(WireModel):
    code: Literal[
        "quote_not_verified",
        "citations_required",
        "unknown_rule",
        "rule_quote_mismatch",
        "governing_rule_with_citations",
        "governing_rule_states_facts",
    ]
    message: str
    index: int | None = Field(default=None, description="The citation or rule it is about.")


class AnswerValidation(WireModel):
    """KB-05, KB-06: the binding verifier's verdict. ``valid`` only with no problem."""

    valid: bool
    problems: list[AnswerProblem]
    citations: list[QuoteVerification]


class GoverningRule(WireModel):
    rule_id: str
    quote: str = Field(description="The rule's exact text: quote it whole in `answer_basis`.")


class RulesResult(WireModel):
    rules: list[GoverningRule]


class ComponentStatus(WireModel):
    status: Literal["available", "unavailable", "not_configured", "configured"] = Field(
        description="`configured`: set up but not probed (a remote model is not called just to "
        "check it)."
    )
    detail: str


class ServiceStatus(WireModel):
    """KB-01: actual availability, checked on this call."""

    index: ComponentStatus
    embedder: ComponentStatus
    reranker: ComponentStatus
    model: ComponentStatus
    ask_model: ComponentStatus
    job_runner: ComponentStatus
    retrieval_mode: Literal["hybrid", "lexical"] = Field(
        description="`lexical` = degraded mode: no embedder, or it does not answer."
    )
    degraded: bool
    scope: KnowledgeScope
    index_info: IndexInfo | None = Field(description="Null when the index does not answer.")
    warnings: list[KnowledgeWarning]
    tools: list[str] = Field(description="The tools this server offers.")
