"""``POST /v1/ask`` (ASK-01 … ASK-13): retrieve, then synthesise one answer citing ``[S#]``."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from tanda.contract.common import WireModel, omitted_when_none
from tanda.contract.proof import Proof
from tanda.contract.request_body import VisibleText
from tanda.contract.v1_search import V1ScopedRequest

AskLang = Literal["tr", "id", "en"]
CitationKind = Literal["passage", "entity", "table", "claim"]
RecordKind = Literal[
    "entity", "table", "line_item", "line_item_summary", "claim", "rule", "definition"
]


class V1AskRequest(V1ScopedRequest):
    query: VisibleText = Field(min_length=1, max_length=4000)
    lang: str | None = Field(
        default=None,
        max_length=16,
        description="Language of the answer's own words: `tr`, `id` or `en` (ASK-07). Unset or "
        "unknown → the tenant's default → `tr`; never an error. Quotes, snippets, entity values "
        "and `[S#]` labels are never translated.",
    )


class AskCitation(WireModel):
    """A source the answer cites: ``[S<source_no>]`` appears in ``answer`` (ASK-05)."""

    source_no: int = Field(ge=1, description="The `#` of the `[S#]` markers that cite it.")
    document_id: str
    external_item_ref: str | None = Field(
        description="The document's own reference, when its ingest metadata gave "
        "`external_item_ref`; else null."
    )
    page_no: int | None
    section: str | None
    chunk_id: str
    snippet: str = Field(description="The first 200 code points of the cited text, verbatim.")
    kind: CitationKind = Field(
        description="`passage` for a chunk; for an evidence item (ASK-08) `entity`, `table` (a "
        "table, one of its line items or its KALEM ÖZETİ) or `claim` (a claim, or a rule the "
        "document imposes)."
    )
    node_id: str | None = omitted_when_none(
        "Evidence items only: the structure record's id (`<document_id>:e3`; docs/evidence.md)."
    )
    record_kind: RecordKind | None = omitted_when_none(
        "Evidence items only: the structure record's kind (`line_item`, `rule` …)."
    )
    text: str | None = omitted_when_none(
        "Evidence items only: the item as the model was shown it, whole and verbatim (`AMOUNT: "
        "denda paling banyak = Rp1.000.000.000,00`; a table's Markdown; a rule's evaluation and "
        "condition)."
    )
    quote: str | None = omitted_when_none(
        "Evidence items only: the document's stored text the record was read from, verbatim "
        "(`chunk_id`'s text at the record's span)."
    )


class EvidenceTrail(WireModel):
    """ASK-08: what kinds of sources the answer cites, when evidence items were shown."""

    identity: bool = Field(
        description="A document the answer cites has a structural representation (structure "
        "records built at ingest)."
    )
    passages: int = Field(ge=0, description="Cited sources of kind `passage`.")
    entities: int = Field(ge=0, description="Cited sources of kind `entity`.")
    tables: int = Field(ge=0, description="Cited sources of kind `table`.")
    claims: int = Field(ge=0, description="Cited sources of kind `claim`.")


class AskUsage(WireModel):
    credits_charged: Decimal = Field(
        description="Credits taken from the tenant's balance for this answer, a decimal string "
        "(`0.00` for a `dip_test_` key, ASK-12)."
    )
    test_key: bool = Field(description="A `dip_test_` key: metered, never charged.")
    model_calls: int = Field(
        ge=0, description="Synthesis calls: 0 without sources, 2 with a continuation."
    )
    sources_shown: int = Field(
        ge=0, description="Sources `[S1]…` the model was shown: passages and evidence items."
    )
    invalid_citations: int = Field(
        ge=0,
        description="`[S#]` markers naming no shown source: removed from `answer`, never listed "
        "as citations (ASK-05).",
    )
    output_budget_tokens: int | None = Field(
        description="The output budget chosen for this question (ASK-10); null without a call."
    )


class V1AskResponse(WireModel):
    query: str = Field(description="The question, echoed (ASK-13).")
    answer: str = Field(
        description="The answer; every `[S#]` in it names an entry of `citations`. A truncated "
        "answer ends with a visible warning in its language (ASK-10)."
    )
    citations: list[AskCitation] = Field(
        description="Only the sources the answer cites, by `source_no` (ASK-05); empty for an "
        "honest not-found answer."
    )
    evidence_trail: EvidenceTrail | None = Field(
        default=None,
        description="ASK-08: the cited sources counted by kind; null when no evidence item was "
        "shown (the answer is then exactly what it was without the evidence layers).",
    )
    truncated: bool = Field(
        description="The answer hit its output budget even after one continuation (ASK-10)."
    )
    proof: Proof | None = Field(
        default=None,
        description="ASK-11: the answer's proof chain — the values it states found in the "
        "sources, the operations it shows recomputed; null when it states no value and shows "
        "no operation (docs/evidence.md).",
    )
    lang: AskLang = Field(description="The language the answer was written in (ASK-07).")
    usage: AskUsage
