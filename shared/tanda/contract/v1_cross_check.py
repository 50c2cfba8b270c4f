"""``/v1/cross-check`` (XC-1 … XC-6): contradictions and support between documents, as a
background job (docs/cross-check.md).

``POST`` queues a job and answers 202 at once (:class:`V1CrossCheckAccepted`); ``GET /{id}``
polls it (:class:`V1CrossCheckJob`): ``queued → running → completed | failed``. A completed job
adds ``findings``, ``stats``, ``version`` and ``cost``; a failed one adds ``error``. ``GET``
without an id lists the tenant's jobs, newest first (``?scheduled=true``: those a schedule
started).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Final, Literal

from pydantic import AfterValidator, ConfigDict, Field

from tanda.contract.common import WireModel, omitted_when_none
from tanda.contract.request_body import DocumentId, RequestBody, unique_items

CROSS_CHECK_VERSION: Final = "xchk-v4"
"""XC-2: the ``version`` of a completed job's findings."""

JobStatus = Literal["queued", "running", "completed", "failed"]
FINISHED: Final[frozenset[JobStatus]] = frozenset({"completed", "failed"})
FindingKind = Literal["contradiction", "support"]
SimilarityMethod = Literal["embeddings", "lexical"]

CrossCheckDocumentIds = Annotated[
    list[DocumentId],
    AfterValidator(unique_items),
    # XC-1: at least two, no upper bound (the body's size limit is the only one).
    Field(min_length=2, json_schema_extra={"uniqueItems": True}),
]


class V1CrossCheckRequest(RequestBody):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"document_ids": ["qanun-2023", "qanun-2024"]}]}
    )

    document_ids: CrossCheckDocumentIds = Field(
        description="The documents to compare: at least two, distinct, of the caller's tenant "
        "(XC-1). No upper bound: with many documents each is represented by its most important "
        "claims within a shared budget (XC-6)."
    )
    lang: str | None = Field(
        default=None,
        max_length=16,
        description="Language of each finding's `explanation` only: `tr`, `id` or `en`, with the "
        "/v1/ask precedence (request > tenant default > `tr`; unknown codes fall through "
        "silently). Statements and quotes stay verbatim (XC-6).",
    )


class CrossCheckDocument(WireModel):
    document_id: str
    label: str = Field(description="The document's title as ingested (its id when untitled).")


class ClaimSpan(WireModel):
    """``[start, end)`` in code points of the stored text the claim's quote was read from."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class FindingSide(WireModel):
    """One side of a finding: a claim record of the server (XC-3), never the model's echo."""

    document_id: str
    node_id: str = Field(description="The claim's id (`<document_id>:c<n>`).")
    statement: str = Field(description="The claim as recorded at ingest, verbatim.")
    quote: str = Field(description="The document's own words at `span`, verbatim.")
    page_no: int | None
    span: ClaimSpan
    erased: bool | None = omitted_when_none(
        "`true`: the document was erased after the job (issue 26) — its statement and quote are "
        "empty, its span `[0, 0)`."
    )


class CrossCheckFinding(WireModel):
    kind: FindingKind = Field(
        description="`contradiction`: the two claims cannot both hold; `support`: one confirms "
        "or fulfils the other."
    )
    explanation: str = Field(description="Why, in the job's `lang` (the model's words).")
    a: FindingSide
    b: FindingSide = Field(description="A claim of another document than `a`'s.")


class ChannelCounts(WireModel):
    """Candidate pairs each deterministic channel proposed, before they were merged (XC-4)."""

    similarity: int = Field(ge=0, description="Nearest claims of the other documents.")
    shared_tokens: int = Field(
        ge=0, description="Pairs sharing a distinctive token: reference number, amount, date."
    )
    rule_violation: int = Field(
        ge=0, description="A rule of one document against statements of another that break it."
    )
    entities: int = Field(ge=0, description="Claims naming same-type entities of two documents.")


class VerdictCounts(WireModel):
    contradiction: int = Field(ge=0)
    support: int = Field(ge=0)
    none: int = Field(ge=0)
    failed: int = Field(ge=0, description="Judge calls that failed or timed out.")


class CrossCheckStats(WireModel):
    documents: int = Field(ge=0)
    claims: int = Field(ge=0, description="Claims that took part.")
    claims_available: int = Field(ge=0, description="Claims the documents hold in all.")
    claims_by_document: dict[str, int] = Field(
        description="Claims of each document that took part (XC-6: within the shared budget)."
    )
    similarity: SimilarityMethod = Field(
        description="How the similarity channel compared claims: `embeddings` when an embedder "
        "is configured, else `lexical`."
    )
    channels: ChannelCounts
    entity_candidates: int = Field(
        ge=0, description="Distinct pairs the entity channel found (XC-4)."
    )
    candidates: int = Field(ge=0, description="Distinct candidate pairs, channels merged.")
    all_pairs: int = Field(
        ge=0, description="Pairs of claims of different documents: what comparing all would take."
    )
    candidates_judged: int = Field(ge=0)
    candidates_capped: int = Field(
        ge=0,
        description="Candidates over the judging cap (`TANDA_XC_MAX_CANDIDATES`), lowest "
        "priority first: not judged.",
    )
    verdicts: VerdictCounts
    dropped: int = Field(
        ge=0,
        description="Judge replies dropped: unreadable, or naming anything but the two claims "
        "it was shown (XC-3).",
    )
    model_calls: int = Field(ge=0)


class CrossCheckCost(WireModel):
    credits_charged: Decimal = Field(
        description="Credits taken when the job was created: one ask (XC-2); `0.00` for a "
        "`dip_test_` key."
    )
    test_key: bool


class JobError(WireModel):
    code: str = Field(description="Stable: e.g. `judge_unavailable`, `interrupted`.")
    message: str


Coverage = Literal["complete", "partial"]


class V1CrossCheckAccepted(WireModel):
    """The 202 answer of ``POST /v1/cross-check``."""

    id: str = Field(description="`xc_…`: poll `GET /v1/cross-check/{id}`.")
    status: JobStatus
    documents: list[CrossCheckDocument]


class V1CrossCheckJob(V1CrossCheckAccepted):
    """A job as ``GET /v1/cross-check/{id}`` shows it."""

    version: str | None = omitted_when_none("`xchk-v4`; completed jobs only.")
    findings: list[CrossCheckFinding] | None = omitted_when_none(
        "Completed jobs only: contradictions first, then support; the same documents give the "
        "same findings in the same order (XC-4). Empty is a valid result."
    )
    stats: CrossCheckStats | None = omitted_when_none("Completed jobs only.")
    coverage: Coverage | None = omitted_when_none(
        "Completed jobs only: `complete` when every candidate pair the channels produced was "
        "judged, `partial` when some were over the judging cap (`stats.candidates_capped`, "
        "`TANDA_XC_MAX_CANDIDATES`) and never judged — findings may be missing (XC-4, XC-6)."
    )
    warnings: list[str] | None = omitted_when_none(
        "Completed jobs only, when there is something to warn of: e.g. a partial coverage, in "
        "the language of the explanations."
    )
    cost: CrossCheckCost | None = omitted_when_none("Completed jobs only.")
    error: JobError | None = omitted_when_none("Failed jobs only: what happened (XC-2).")


class CrossCheckJobSummary(WireModel):
    id: str
    status: JobStatus
    documents: list[CrossCheckDocument]
    created_at: float = Field(description="Epoch seconds.")
    finished_at: float | None
    schedule: str | None = Field(description="The schedule that started it; null: on demand.")


class V1CrossCheckList(WireModel):
    jobs: list[CrossCheckJobSummary] = Field(description="Newest first.")
    next_cursor: str | None = Field(
        description="Pass as `cursor` for the next page; null on the last page."
    )
