"""``answer_v1``: the use case behind ``POST /query`` and ``/query/stream`` (CV-2): the turn on the
runner in ``v1-gate`` mode; the 413 for evidence that does not fit (V2-18) and the response are
this route's own."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tanda.annotate.aggregate import Annotation, refusal_annotation
from tanda.contract.common import FallbackReason
from tanda.contract.query import QueryV2Request
from tanda.contract.query_v1 import ClaimMapEntry, QueryV1Request, QueryV1Response
from tanda.contract.response import GroundingPassage
from tanda.conversations.storage import (
    PreparedTurn,
    abandoned_on_failure,
    build_message,
    prepare_turn,
    store_turn,
)
from tanda.errors import PayloadTooLarge
from tanda.pipeline.states import AnswerOutcome, AnswerRequest
from tanda.service.answer_v2 import observe, run_turn, turn_sources, unless_abandoned, used_docs
from tanda.service.conversations import owner_of

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.pipeline.steps import ProgressSink
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


PreparedV1 = PreparedTurn


def prepare_v1(runtime: Runtime, principal: Principal, body: QueryV1Request) -> PreparedTurn:
    """Claim (or create) the caller's conversation for ``query``: 404/409 happen here (V2-19,
    issue 11)."""
    return prepare_turn(
        runtime.store,
        owner_of(principal),
        body.conversation_id,
        "query",
        document_ids=body.document_ids,
        selection=body.selection,
        sources=body.sources,
        mcp_servers=body.mcp_servers,
    )


def complete_v1(
    runtime: Runtime,
    prepared: PreparedV1,
    body: QueryV1Request,
    *,
    scenario: str | None = None,
    progress: ProgressSink | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> tuple[QueryV1Response, V1Outcome]:
    """The v1 gate in the turn's scope (CV-1), the turn stored (CV-3); a failure before the turn
    is stored leaves nothing claimed, and an ``abandoned`` turn stores nothing (issue 11)."""
    started = time.perf_counter()
    with abandoned_on_failure(runtime.store, prepared):
        request = AnswerRequest.starting(
            prepared.conversation.tenant_id,
            # The pipeline reads the v2 body; v1's offer_artifacts is accepted and ignored.
            QueryV2Request.model_validate(body.model_dump(exclude={"offer_artifacts"})),
            runtime.settings,
            started_at=runtime.clock(),
            mode="v1-gate",
            scenario=scenario,
            history=prepared.history,
            trace_id=prepared.trace_id,
        )
        outcome = run_turn(runtime, request, prepared.scope, progress=progress, abandoned=abandoned)
        result = V1Outcome.of(outcome)
        unless_abandoned(abandoned)
        response = to_v1_response(result, body, prepared)
        published = result.published or refusal_annotation(result.answer)
        message = build_message(
            conversation=prepared.conversation,
            route="query",
            question=body.query,
            answer=result.answer,
            annotation=published,
            fallback_reason=result.fallback,
            citations=[c.model_dump(mode="json") for c in response.citations],
            message_id=prepared.message_id,
            trace_id=prepared.trace_id,
            **turn_sources(prepared, body),
        ).model_copy(
            # CV-3: the v2 report of every checked claim, withheld ones included.
            update={
                "v2_faithfulness": (result.checked or published).faithfulness.model_dump(
                    mode="json"
                )
            }
        )
        store_turn(runtime.store, prepared, message, published)
    observe("query", prepared.conversation.tenant_id, prepared.trace_id, started, outcome)
    return response, result


def answer_v1_request(
    runtime: Runtime, principal: Principal, body: QueryV1Request, *, scenario: str | None = None
) -> QueryV1Response:
    prepared = prepare_v1(runtime, principal, body)
    response, _ = complete_v1(runtime, prepared, body, scenario=scenario)
    return response


def to_v1_response(
    result: V1Outcome, body: QueryV1Request, prepared: PreparedV1
) -> QueryV1Response:
    outcome = result.outcome
    checked = result.checked
    grounding = (checked or refusal_annotation(result.answer)).grounding
    dropped = sum(result.dropped_reasons.values())
    extra: dict[str, Any] = {}
    if body.include_grounding:
        extra["grounding"] = [
            GroundingPassage(
                citation_key=p.key,
                chunk_id=p.citation.chunk_id,
                document_id=p.citation.document_id,
                text=p.text,
            )
            for p in outcome.passages.values()
        ]
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
