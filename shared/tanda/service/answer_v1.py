"""``answer_v1``: the use case behind ``POST /query`` and ``/query/stream`` (CV-2) — the one turn
(:mod:`tanda.service.turn`) in ``v1-gate`` mode, seen through the v1 view: the 413 for evidence
that does not fit (V2-18), the response, the stored message and the stream's frames are this
route's own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tanda.annotate.aggregate import refusal_annotation
from tanda.annotate.outcome import Annotation
from tanda.contract.common import FallbackReason
from tanda.contract.query_v1 import (
    QueryV1Request,
    QueryV1Response,
    V1FaithfulnessFrame,
    V1MessageStartFrame,
)
from tanda.contract.response import ClaimMapEntry
from tanda.errors import PayloadTooLarge
from tanda.service import turn
from tanda.service.publish import Kept, answer_frames, grounding_passages, used_docs
from tanda.service.turn import Published

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tanda.auth import Principal
    from tanda.conversations.storage import PreparedTurn
    from tanda.pipeline.states import AnswerMode, AnswerOutcome
    from tanda.records.conversations import Route
    from tanda.service.runtime import Runtime

CONTEXT_TOO_LARGE = "The source material needed for this question does not fit the model context."


class ContextTooLarge(PayloadTooLarge):
    message = CONTEXT_TOO_LARGE


@dataclass
class V1Outcome:
    """The v1 view of a turn's outcome: what was published and what the gate withheld."""

    answer: str
    outcome: AnswerOutcome
    """The checked answer (claims, tools, model calls) under the gate."""
    checked: Annotation | None
    claim_map: list[ClaimMapEntry] = field(default_factory=list)
    dropped_reasons: dict[str, int] = field(default_factory=dict)
    fallback: str | None = None
    provenance_complete: bool = True
    published: Annotation | None = None
    """The published answer's annotation (kept segments only)."""

    @classmethod
    def of(cls, outcome: AnswerOutcome) -> V1Outcome:
        """A refusal before the gate is published as it is, except that evidence too large for
        the model context is this route's 413 (V2-18)."""
        gated = outcome.gate
        if gated is None:
            if outcome.fallback is FallbackReason.context_budget_exhausted:
                raise ContextTooLarge()
            reason = outcome.fallback.value if outcome.fallback else None
            return cls(answer=outcome.answer, outcome=outcome, checked=None, fallback=reason)
        fallback = outcome.fallback.value if outcome.fallback else None
        return cls(
            answer=outcome.answer,
            outcome=outcome,
            checked=outcome.annotation,
            claim_map=gated.claim_map,
            dropped_reasons=gated.dropped_reasons,
            fallback="insufficient_grounding" if gated.rejected else fallback,
            provenance_complete=gated.provenance_complete,
            published=gated.published,
        )


class V1View:
    """``/query``: the v1 gate's view (CV-2) — the kept sentences published, the report of every
    checked claim stored beside them (CV-3)."""

    route: Route = "query"
    mode: AnswerMode = "v1-gate"

    def publish(
        self, outcome: AnswerOutcome, body: QueryV1Request, prepared: PreparedTurn
    ) -> Published[QueryV1Response]:
        result = V1Outcome.of(outcome)
        response = to_v1_response(result, body, prepared)
        published = result.published or refusal_annotation(result.answer)
        kept = Kept(
            answer=result.answer,
            annotation=published,
            fallback_reason=result.fallback,
            citations=[c.model_dump(mode="json") for c in response.citations],
            # CV-3: the v2 report of every checked claim, withheld ones included.
            v2_faithfulness=(result.checked or published).faithfulness.model_dump(mode="json"),
        )
        return Published(response, outcome, kept)

    def frames(self, published: Published[QueryV1Response]) -> list[BaseModel]:
        response = published.response
        return answer_frames(
            start=V1MessageStartFrame(
                conversation_id=response.conversation_id, message_id=response.message_id
            ),
            trace_id=response.trace_id,
            citations=response.citations,
            passages=published.outcome.passages,
            blocked=response.fallback_reason == "policy_blocked",
            counts=V1FaithfulnessFrame(
                claims_supported=response.claims_supported,
                claims_total=response.claims_total,
                grounding_rate=response.grounding_rate,
                dropped_claims_count=response.dropped_claims_count,
                dropped_claim_reasons=response.dropped_claim_reasons,
                provenance_complete=response.provenance_complete,
                fallback_used=response.fallback_used,
                fallback_reason=response.fallback_reason,
            ),
            answer=response.answer,
            fallback_used=response.fallback_used,
            history_truncated=response.history_truncated,
        )


QUERY_V1 = V1View()


def answer_v1_request(
    runtime: Runtime, principal: Principal, body: QueryV1Request, *, scenario: str | None = None
) -> QueryV1Response:
    return turn.answer(runtime, principal, body, QUERY_V1, scenario=scenario)


def to_v1_response(
    result: V1Outcome, body: QueryV1Request, prepared: PreparedTurn
) -> QueryV1Response:
    outcome = result.outcome
    checked = result.checked
    grounding = (checked or refusal_annotation(result.answer)).grounding
    dropped = sum(result.dropped_reasons.values())
    extra: dict[str, Any] = {}
    if body.include_grounding:
        extra["grounding"] = grounding_passages(outcome)
    if body.include_provenance:
        extra["used_docs"] = used_docs(outcome, {c.document_id for c in outcome.citations})
        extra["tool_call_audit"] = outcome.tool_audit
        extra["model_call_log"] = outcome.model_calls
    return QueryV1Response(
        answer=result.answer,
        conversation_id=prepared.conversation.conversation_id,
        message_id=prepared.message_id,
        trace_id=prepared.trace_id,
        history_truncated=prepared.history.truncated,
        history_exchanges_in_view=prepared.history.exchanges_in_view,
        citations=outcome.citations if result.fallback is None else [],
        tool=outcome.tool,
        tool_executed=outcome.tool_executed,
        fallback_used=result.fallback is not None,
        fallback_reason=result.fallback,  # type: ignore[arg-type]
        claim_map=result.claim_map,
        dropped_claims_count=dropped,
        dropped_claim_reasons=result.dropped_reasons,
        provenance_complete=result.provenance_complete,
        claims_supported=grounding.claims_supported,
        claims_total=grounding.claims_total,
        grounding_rate=grounding.grounding_rate,
        **extra,
    )
