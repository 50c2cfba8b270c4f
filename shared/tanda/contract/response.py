"""The annotation shapes of an answer (V2-04 … V2-16): claims, framing spans, the faithfulness
report and its grounding, the tool and model-call logs, ``/query``'s claim map. The pipeline's
state is made of them (``tanda.pipeline.states``); the route responses that carry them —
``QueryV2Response`` and its opt-in fields — live with their route (:mod:`tanda.contract.query`),
so a step handler does not build them (cold start, issue 24)."""

from typing import Any, Literal

from pydantic import Field

from tanda.contract.common import (
    Citation,
    Layout,
    SchemaName,
    SegmentKind,
    StageStatus,
    UnverifiedReason,
    Verdict,
    Verification,
    WireModel,
    omitted_when_none,
)


class ClaimCitation(WireModel):
    citation_key: str
    citation: Citation


class Claim(WireModel):
    """A located statement with its verdict. ``answer[start:end] == text`` always (V2-04)."""

    text: str
    citation_keys: list[str]
    citations: list[ClaimCitation] = Field(
        description="The resolvable citations, one per valid key; invalid keys have none."
    )
    verdict: Verdict
    unverified_reason: UnverifiedReason | None = Field(
        description="Set only when verdict is `unverified` (V2-10)."
    )
    invalid_citation_keys: list[str]
    kind: SegmentKind
    layout: Layout
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    start_utf16: int = Field(ge=0)
    end_utf16: int = Field(ge=0)


class FramingSpan(WireModel):
    """A located segment that states nothing (greeting, lead-in, table header): no verdict."""

    text: str
    layout: Layout
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    start_utf16: int = Field(ge=0)
    end_utf16: int = Field(ge=0)


class UnverifiedReasons(WireModel):
    deadline: int = 0
    budget: int = 0
    judge_unavailable: int = 0
    unparseable: int = 0
    disputed: int = 0


class Grounding(WireModel):
    """V2-15: the claim grounding rate, the same three keys on both routes."""

    claims_supported: int = Field(ge=0)
    claims_total: int = Field(ge=0, description="All claims except `from_conversation`.")
    grounding_rate: float | None = Field(
        ge=0.0, le=1.0, description="supported / total; `null` when total is 0."
    )


class FaithfulnessCounts(WireModel):
    """The counts shared by the JSON ``faithfulness`` report and the SSE ``annotations`` frame."""

    mechanism: SchemaName = "annotate-v2"
    judge_status: StageStatus
    framing_check: StageStatus
    claims_total: int = Field(ge=0, description="Equal to `grounding.claims_total`.")
    supported: int = Field(ge=0)
    unsupported: int = Field(ge=0)
    unverified: int = Field(ge=0)
    uncited: int = Field(ge=0)
    invalid_citation: int = Field(ge=0)
    from_conversation: int = Field(ge=0)
    unverified_reasons: UnverifiedReasons
    framing_total: int = Field(ge=0)
    unlocated_total: int = Field(
        ge=0, description="Pieces of answer text covered by no claim or framing span."
    )
    verification: Verification
    grounding: Grounding
    checked: Literal[False] | None = omitted_when_none(
        "Present only as `false`: nothing was checked (context_budget_exhausted). "
        "Its absence must not be read as a pass."
    )


class Faithfulness(FaithfulnessCounts):
    """The ``faithfulness`` report of the JSON response."""


class ToolCallAudit(WireModel):
    tool: str
    arguments: dict[str, Any]
    status: str
    result_count: int = Field(ge=0)
    latency_ms: int = Field(ge=0)


class ModelCallRecord(WireModel):
    role: str
    outcome: str
    latency_ms: int = Field(ge=0)
    input_tokens: int | None = None
    output_tokens: int | None = None


# ``/query``'s claim map (CV-2), here beside the other annotation shapes because the guard step
# builds it: no docstring, which would become its OpenAPI description.
class ClaimMapEntry(WireModel):
    text: str
    citation_keys: list[str]
    verdict: Verdict
    unverified_reason: UnverifiedReason | None
    kept: bool = Field(description="Published (confirmed by the judge) or withheld.")
    start: int | None = Field(description="Offset in `answer` when kept (code points).")
    end: int | None
