"""``POST /query`` and ``/query/stream``: the v1 gate (CV-2). Unconfirmed sentences are
withheld, so the answer carries a claim map instead of annotations."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from tanda.contract.common import Citation, WireModel, omitted_when_none
from tanda.contract.frames import STREAM_FRAMES
from tanda.contract.query import GroundingPassage, QueryV2Request, UsedDoc
from tanda.contract.response import ClaimMapEntry, ModelCallRecord, ToolCallAudit

V1FallbackReason = Literal[
    "policy_blocked",
    "query_budget_exhausted",
    "model_timeout",
    "agent_output_limit",
    "mcp_source_unavailable",
    "source_out_of_scope",
    "source_scope_unavailable",
    "unparseable_completion",
    "source_scope_empty",
    "insufficient_grounding",
]


class QueryV1Request(QueryV2Request):
    offer_artifacts: bool = Field(  # type: ignore[assignment]
        default=False, description="Accepted; this deployment makes no files."
    )


class QueryV1Response(WireModel):
    answer: str
    conversation_id: str
    message_id: str
    trace_id: str
    history_truncated: bool = False
    history_exchanges_in_view: int = 0
    citations: list[Citation] = Field(default_factory=list)
    tool: str | None = None
    tool_executed: bool = False
    fallback_used: bool = False
    fallback_reason: V1FallbackReason | None = None
    claim_map: list[ClaimMapEntry]
    dropped_claims_count: int = Field(ge=0)
    dropped_claim_reasons: dict[str, int]
    provenance_complete: bool = Field(
        description="Every published claim carries at least one resolvable citation."
    )
    claims_supported: int = Field(ge=0)
    claims_total: int = Field(ge=0)
    grounding_rate: float | None
    grounding: list[GroundingPassage] | None = omitted_when_none("Opt-in (`include_grounding`).")
    used_docs: list[UsedDoc] | None = omitted_when_none("Opt-in (`include_provenance`).")
    tool_call_audit: list[ToolCallAudit] | None = omitted_when_none("Opt-in.")
    model_call_log: list[ModelCallRecord] | None = omitted_when_none("Opt-in.")


class V1MessageStartFrame(WireModel):
    conversation_id: str
    message_id: str


class V1FaithfulnessFrame(WireModel):
    """The v1 stream's own ``faithfulness`` frame: it counts *withheld* sentences. It is not the
    v2 ``annotations`` frame, which has no dropped count."""

    model_config = ConfigDict(extra="forbid")

    claims_supported: int
    claims_total: int
    grounding_rate: float | None
    dropped_claims_count: int
    dropped_claim_reasons: dict[str, int]
    provenance_complete: bool
    fallback_used: bool
    fallback_reason: V1FallbackReason | None


V1_STREAM_FRAMES: dict[str, type[WireModel]] = {
    **{event: model for event, model in STREAM_FRAMES.items() if event != "annotations"},
    "message.start": V1MessageStartFrame,
    "faithfulness": V1FaithfulnessFrame,
}
"""SSE event name → model of ``/query/stream``: the v2 frames, with its own ``message.start``
(no ``schema``) and ``faithfulness`` (withheld sentences counted) in place of ``annotations``."""
