"""``POST /v1/ask`` (ASK-01 … ASK-13): retrieve, then synthesise one answer citing ``[S#]``."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import Field

from tanda.contract.common import WireModel
from tanda.contract.request_body import VisibleText
from tanda.contract.v1_search import V1ScopedRequest

AskLang = Literal["tr", "id", "en"]
CitationKind = Literal["passage", "entity", "table", "claim"]


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
        description="`passage` for a chunk; `entity`, `table`, `claim` for evidence items "
        "(ASK-08, not yet produced)."
    )


class EvidenceTrail(WireModel):
    """ASK-08: what kinds of sources the answer cites. Not built yet: ``evidence_trail`` is null."""

    identity: bool
    passages: int = Field(ge=0)
    entities: int = Field(ge=0)
    tables: int = Field(ge=0)
    claims: int = Field(ge=0)


class AskUsage(WireModel):
    credits_charged: Decimal = Field(
        description="Credits taken from the tenant's balance for this answer, a decimal string "
        "(`0.00` for a `dip_test_` key, ASK-12)."
    )
    test_key: bool = Field(description="A `dip_test_` key: metered, never charged.")
    model_calls: int = Field(
        ge=0, description="Synthesis calls: 0 without sources, 2 with a continuation."
    )
    sources_shown: int = Field(ge=0, description="Sources `[S1]…` the model was shown.")
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
        default=None, description="ASK-08 evidence layers: null until they are built."
    )
    truncated: bool = Field(
        description="The answer hit its output budget even after one continuation (ASK-10)."
    )
    proof: dict[str, Any] | None = Field(
        default=None, description="ASK-11 proof chain: null until it is built."
    )
    lang: AskLang = Field(description="The language the answer was written in (ASK-07).")
    usage: AskUsage
