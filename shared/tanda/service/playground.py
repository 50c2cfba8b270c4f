"""``run_playground`` (PG-1 … PG-5): the /query/v2 turn, on the same runner, with a candidate
editorial prompt for one request; nothing is published and only a receipt without text is
stored."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal

from tanda.auth.rate_limit import AdminRateLimited
from tanda.contract.playground import PlaygroundRequest, PlaygroundResponse
from tanda.conversations.history import build_history
from tanda.conversations.scope import bind_scope
from tanda.conversations.storage import new_id, read_conversation
from tanda.observability import record_playground_run
from tanda.records.conversations import PlaygroundReceipt
from tanda.service.conversations import owner_of
from tanda.service.publish import to_response
from tanda.service.turn import answer_request, run_turn

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.pipeline.states import AnswerOutcome
    from tanda.service.runtime import Runtime

WINDOW_S = 60.0


def admin_id(principal: Principal) -> str:
    return f"{principal.partner_id}|{principal.subject}"


def run_playground(
    runtime: Runtime,
    principal: Principal,
    body: PlaygroundRequest,
    *,
    scenario: str | None = None,
) -> PlaygroundResponse:
    store = runtime.store
    started = time.time()
    perf_started = time.perf_counter()
    # PG-1: the per-admin limit lives in the Store, so it holds across instances.
    decision = store.hit(
        f"playground:{admin_id(principal)}",
        limit=max(1, int(runtime.settings.admin_rate_per_minute)),
        window_s=WINDOW_S,
        now=started,
    )
    if not decision.allowed:
        raise AdminRateLimited(decision.retry_after_s)
    run_id = f"pg_{new_id()}"
    history = None
    conversation = None
    if body.conversation_id is not None:
        # Read-only: the playground sees the verified history of one of the admin's own
        # conversations (issue 11: anyone else's is 404), claims nothing, and answers within
        # its scope as a turn in it would (CV-1).
        conversation, messages = read_conversation(store, owner_of(principal), body.conversation_id)
        history = build_history(messages)
    outcome: AnswerOutcome | None = None
    try:
        # PG-3: the /query/v2 turn on the same runner; only the editorial prompt is replaced.
        request = answer_request(
            runtime,
            principal.tenant_id,
            body,
            scenario=scenario,
            editorial_prompt=body.editorial_prompt,
            history=history,
            trace_id=run_id,
        )
        outcome = run_turn(
            runtime, request, bind_scope(conversation, body.document_ids, body.selection)
        )
    finally:
        receipt = _receipt(runtime, run_id, principal, outcome, started)
        store.put_receipt(receipt)
        # PG-4: no answer analytics (no verdicts, calls, fallbacks) — an operational count only.
        record_playground_run(
            tenant_id=principal.tenant_id,
            trace_id=run_id,
            status=receipt.status,
            latency_ms=(time.perf_counter() - perf_started) * 1000,
        )
    # One id: the run's trace_id is its playground_run_id, the id its receipt and log line carry.
    response = to_response(outcome, body, conversation_id="", message_id="", trace_id=run_id)
    fields = response.model_dump(exclude={"conversation_id", "message_id"})
    return PlaygroundResponse(
        **fields,
        playground_run_id=run_id,
        latency_ms=round((time.time() - started) * 1000),
    )


def _receipt(
    runtime: Runtime,
    run_id: str,
    principal: Principal,
    outcome: AnswerOutcome | None,
    started: float,
) -> PlaygroundReceipt:
    """PG-5: identifiers, status, counts and times — never the prompt, question, answer or
    passage text."""
    finished = time.time()
    counts: dict[str, int] = {}
    if outcome is not None:
        report = outcome.annotation.faithfulness
        counts = {
            "claims_total": report.claims_total,
            "supported": report.supported,
            "unsupported": report.unsupported,
            "unverified": report.unverified,
            "uncited": report.uncited,
            "invalid_citation": report.invalid_citation,
            "from_conversation": report.from_conversation,
            "framing_total": report.framing_total,
            "model_calls": len(outcome.model_calls),
        }
    status: Literal["completed", "refused", "failed"] = "failed"
    if outcome is not None:
        status = "refused" if outcome.fallback else "completed"
    return PlaygroundReceipt(
        run_id=run_id,
        tenant_id=principal.tenant_id,
        admin_id=admin_id(principal),
        status=status,
        counts=counts,
        started_at=started,
        finished_at=finished,
        expires_at=finished + runtime.settings.playground_receipt_ttl_s,
    )
