"""The annotate-v2 response of ``POST /query/v2`` (V2-14 and the seed's JSON example)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from tanda.contract.common import (
    Citation,
    FallbackReason,
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
from tanda.contract.proof import Proof


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


class GroundingPassage(WireModel):
    """Opt-in ``grounding``: a passage shown to the agent, by its key."""

    citation_key: str
    chunk_id: str | None = None
    document_id: str | None = None
    text: str


class UsedDoc(WireModel):
    document_id: str
    document_title: str | None = None
    cited: bool


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


class AnnotatedFields(WireModel):
    """The annotate-v2 fields every v2 answer carries (also the playground's)."""

    schema_: SchemaName = Field(default="annotate-v2", alias="schema")
    answer: str
    trace_id: str
    history_truncated: bool = False
    history_exchanges_in_view: int = Field(default=0, ge=0)
    citations: list[Citation] = Field(default_factory=list)
    tool: str | None = None
    tool_executed: bool = False
    fallback_used: bool = False
    fallback_reason: FallbackReason | None = None
    claims: list[Claim] = Field(default_factory=list)
    framing: list[FramingSpan] = Field(default_factory=list)
    faithfulness: Faithfulness
    claims_supported: int = Field(ge=0)
    claims_total: int = Field(ge=0)
    grounding_rate: float | None = Field(ge=0.0, le=1.0)
    grounding: list[GroundingPassage] | None = omitted_when_none(
        "Opt-in (`include_grounding`): the passages shown to the agent, by key."
    )
    used_docs: list[UsedDoc] | None = omitted_when_none("Opt-in (`include_provenance`).")
    tool_call_audit: list[ToolCallAudit] | None = omitted_when_none(
        "Opt-in (`include_provenance`)."
    )
    model_call_log: list[ModelCallRecord] | None = omitted_when_none(
        "Opt-in (`include_provenance`): every model call with role, latency and outcome."
    )
    proof: Proof | None = Field(
        default=None,
        description="Opt-in (`include_proof`): the answer's proof chain (ASK-11); `null` when "
        "the answer states no value, shows no operation and relies on no rule. Absent when not "
        "asked for.",
    )

    # No return annotation on purpose: pydantic would take it for the response's schema.
    @model_serializer(mode="wrap")
    def _proof_only_when_asked(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        # `proof: null` (asked, nothing to prove) differs from no `proof` (not asked).
        data: dict[str, Any] = handler(self)
        if "proof" not in self.model_fields_set:
            data.pop("proof", None)
        return data

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)


class QueryV2Response(AnnotatedFields):
    """``POST /query/v2`` 200 body. v1 gate fields (``claim_map``…) are absent by design."""

    conversation_id: str
    message_id: str
