"""``answer_v1``: the use case behind ``POST /query`` and ``/query/stream`` (CV-2)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tanda.annotate.aggregate import refusal_annotation
from tanda.contract.common import WireModel
from tanda.contract.query_v1 import QueryV1Request, QueryV1Response
from tanda.contract.response import GroundingPassage
from tanda.conversations.service import (
    PreparedTurn,
    abandoned_on_failure,
    build_message,
    prepare_turn,
    store_turn,
)
from tanda.pipeline.answer_v1 import V1Outcome, answer_v1
from tanda.pipeline.answer_v2 import refusal
from tanda.service.answer_v2 import answer_deps, observe, unless_abandoned, used_docs
from tanda.service.conversations import owner_of

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.service.runtime import Runtime


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
    )


def complete_v1(
    runtime: Runtime,
    prepared: PreparedV1,
    body: QueryV1Request,
    *,
    scenario: str | None = None,
    progress: Callable[[WireModel], None] | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> tuple[QueryV1Response, V1Outcome]:
    """The v1 gate in the turn's scope (CV-1), the turn stored (CV-3); a failure before the turn
    is stored leaves nothing claimed, and an ``abandoned`` turn stores nothing (issue 11)."""
    started = time.perf_counter()
    with abandoned_on_failure(runtime.store, prepared):
        scope = prepared.scope
        if scope.refusal is not None:
            # CV-1: a turn outside its conversation's scope: refused before any tool or model.
            refused = refusal(scope.refusal)
            result = V1Outcome(
                answer=refused.answer, outcome=refused, checked=None, fallback=scope.refusal
            )
        else:
            result = answer_v1(
                answer_deps(runtime, abandoned),
                prepared.conversation.tenant_id,
                scope.apply(body),
                scenario=scenario,
                history=prepared.history,
                progress=progress,
            )
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
        ).model_copy(
            # CV-3: the v2 report of every checked claim, withheld ones included.
            update={
                "v2_faithfulness": (result.checked or published).faithfulness.model_dump(
                    mode="json"
                )
            }
        )
        store_turn(runtime.store, prepared, message, published)
    observe("query", prepared.conversation.tenant_id, prepared.trace_id, started, result.outcome)
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
