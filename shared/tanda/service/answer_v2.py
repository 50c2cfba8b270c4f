"""``answer_v2``: the use case behind ``POST /query/v2`` and its stream (V2-01 … V2-23); the turn
runs on the runner (``run_turn``), as every answering route's does."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tanda.contract.common import StageStatus
from tanda.contract.response import GroundingPassage, QueryV2Response, UsedDoc
from tanda.conversations.scope import TurnScope
from tanda.conversations.storage import (
    PreparedTurn,
    abandoned_on_failure,
    build_message,
    prepare_turn,
    store_turn,
)
from tanda.errors import TurnAbandoned
from tanda.pipeline.states import AnswerOutcome, AnswerRequest
from tanda.service.conversations import owner_of

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.contract import QueryV2Request
    from tanda.pipeline.steps import ProgressSink
    from tanda.service.runtime import Runtime


def unless_abandoned(abandoned: Callable[[], bool] | None) -> None:
    """Raise ``TurnAbandoned`` before anything of an abandoned turn is stored (a step may have
    absorbed the refused call: a judge batch reads it as ``unverified``)."""
    if abandoned is not None and abandoned():
        raise TurnAbandoned()


def run_turn(
    runtime: Runtime,
    request: AnswerRequest,
    scope: TurnScope,
    *,
    progress: ProgressSink | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> AnswerOutcome:
    """``request`` on the runner (DESIGN §4: every answering route) within the turn's ``scope``
    (CV-1): a turn that reaches outside its conversation's scope is refused before any tool or
    model call. Once ``abandoned()`` (a stream nobody reads) the in-process runner stops the
    turn before its next model call; an execution on the state machine runs to its end."""
    if scope.refusal is not None:
        return AnswerOutcome.refusal(scope.refusal)
    scoped = request.model_copy(update={"body": scope.apply(request.body)})
    return runtime.runner.run(scoped, progress=progress, abandoned=abandoned)


PreparedAnswer = PreparedTurn


def prepare_v2(runtime: Runtime, principal: Principal, body: QueryV2Request) -> PreparedTurn:
    """Claim (or create) the caller's conversation for ``query_v2``: 404/409 happen here (V2-19,
    issue 11)."""
    return prepare_turn(
        runtime.store,
        owner_of(principal),
        body.conversation_id,
        "query_v2",
        document_ids=body.document_ids,
        selection=body.selection,
        sources=body.sources,
        mcp_servers=body.mcp_servers,
    )


def complete_v2(
    runtime: Runtime,
    prepared: PreparedAnswer,
    body: QueryV2Request,
    *,
    scenario: str | None = None,
    progress: ProgressSink | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> tuple[QueryV2Response, AnswerOutcome]:
    """Run the turn in its scope (CV-1), store it (CV-3), return the response and the outcome.
    A failure before the turn is stored leaves nothing claimed (issue 11). Once ``abandoned()``
    (a stream nobody reads) the turn stops with ``TurnAbandoned`` and stores nothing."""
    conversation, history = prepared.conversation, prepared.history
    started = time.perf_counter()
    with abandoned_on_failure(runtime.store, prepared):
        request = AnswerRequest.starting(
            conversation.tenant_id,
            body,
            runtime.settings,
            started_at=runtime.clock(),
            scenario=scenario,
            history=history,
            trace_id=prepared.trace_id,
        )
        outcome = run_turn(runtime, request, prepared.scope, progress=progress, abandoned=abandoned)
        unless_abandoned(abandoned)
        response = to_response(
            outcome,
            body,
            conversation_id=conversation.conversation_id,
            message_id=prepared.message_id,
            trace_id=prepared.trace_id,
        ).model_copy(
            update={
                "history_truncated": history.truncated,
                "history_exchanges_in_view": history.exchanges_in_view,
            }
        )
        message = build_message(
            conversation=conversation,
            route="query_v2",
            question=body.query,
            answer=outcome.answer,
            annotation=outcome.annotation,
            fallback_reason=outcome.fallback.value if outcome.fallback else None,
            citations=[c.model_dump(mode="json") for c in outcome.citations],
            message_id=prepared.message_id,
            trace_id=prepared.trace_id,
            **turn_sources(prepared, body),
        )
        store_turn(runtime.store, prepared, message, outcome.annotation)
    observe("query_v2", conversation.tenant_id, prepared.trace_id, started, outcome)
    return response, outcome


def turn_sources(prepared: PreparedTurn, body: QueryV2Request) -> dict[str, list[str] | None]:
    """Issue 25: the sources the turn used, stored with it for the conversation's next turns."""
    used = prepared.scope.apply(body)
    kinds = [str(kind) for kind in used.sources] if used.sources is not None else None
    return {"sources": kinds, "mcp_servers": used.mcp_servers}


def observe(
    route: str, tenant_id: str, trace_id: str, started: float, outcome: AnswerOutcome
) -> None:
    """Metrics and one structured log line per answer (Lambda only; never any text)."""
    from tanda.observability import record_answer

    claims = outcome.annotation.claims
    faithfulness = outcome.annotation.faithfulness
    judged = faithfulness.judge_status is not StageStatus.skipped
    record_answer(
        route=route,
        tenant_id=tenant_id,
        trace_id=trace_id,
        latency_ms=(time.perf_counter() - started) * 1000,
        verdicts=[c.verdict.value for c in claims],
        fallback=outcome.fallback.value if outcome.fallback else None,
        model_calls=outcome.model_calls,
        verification=faithfulness.verification.value,
        judge_failures=(
            [c.unverified_reason.value for c in claims if c.unverified_reason is not None]
            if judged
            else None
        ),
    )


def answer_v2(
    runtime: Runtime,
    principal: Principal,
    body: QueryV2Request,
    *,
    scenario: str | None = None,
) -> QueryV2Response:
    prepared = prepare_v2(runtime, principal, body)
    response, _ = complete_v2(runtime, prepared, body, scenario=scenario)
    return response


def to_response(
    outcome: AnswerOutcome,
    body: QueryV2Request,
    *,
    conversation_id: str,
    message_id: str,
    trace_id: str,
) -> QueryV2Response:
    annotation = outcome.annotation
    grounding = annotation.grounding
    cited_docs = {c.document_id for c in outcome.citations}
    response = QueryV2Response(
        answer=outcome.answer,
        conversation_id=conversation_id,
        message_id=message_id,
        trace_id=trace_id,
        citations=outcome.citations,
        tool=outcome.tool,
        tool_executed=outcome.tool_executed,
        fallback_used=outcome.fallback_used,
        fallback_reason=outcome.fallback,
        claims=annotation.claims,
        framing=annotation.framing,
        faithfulness=annotation.faithfulness,
        claims_supported=grounding.claims_supported,
        claims_total=grounding.claims_total,
        grounding_rate=grounding.grounding_rate,
        grounding=[
            GroundingPassage(
                citation_key=p.key,
                chunk_id=p.citation.chunk_id,
                document_id=p.citation.document_id,
                text=p.text,
            )
            for p in outcome.passages.values()
        ]
        if body.include_grounding
        else None,
        used_docs=used_docs(outcome, cited_docs) if body.include_provenance else None,
        tool_call_audit=outcome.tool_audit if body.include_provenance else None,
        model_call_log=outcome.model_calls if body.include_provenance else None,
    )
    if body.include_proof:
        # Set even when null: asked and nothing to prove is `proof: null`, not asked is absent.
        response = response.model_copy(update={"proof": outcome.proof})
    return response


def used_docs(outcome: AnswerOutcome, cited: set[str | None]) -> list[UsedDoc]:
    docs: dict[str, UsedDoc] = {}
    for passage in outcome.passages.values():
        doc_id = passage.citation.document_id
        if doc_id and doc_id not in docs:
            docs[doc_id] = UsedDoc(
                document_id=doc_id,
                document_title=passage.citation.document_title,
                cited=doc_id in cited,
            )
    return list(docs.values())
