"""One answering turn, written once (issue 24): prepare → run → publish → store → observe.

Every answering route (``/query/v2``, ``/query`` and their streams) runs its turn here; it
supplies only its :class:`TurnView` — its route name and answer mode, how an outcome becomes its
response and the message its conversation keeps, and its stream frames. The playground runs the
same turn (:func:`answer_request`, :func:`run_turn`) without claiming or storing anything.

1. **prepare** (:func:`prepare`): claim (or create) the caller's conversation for the view's
   route — 404/409 happen here (V2-19, issue 11) — bind the turn's scope to the conversation's
   (CV-1) and build its verified-only history (V2-22).
2. **run** (:func:`run_turn`): the pipeline's own request, built from the body
   (:func:`answer_request`), on the runner (DESIGN §4) within the bound scope.
3. **publish** (the view, with :mod:`tanda.service.publish`): the response and what is kept.
4. **store** (:func:`tanda.service.publish.store_published`): unless the turn was abandoned (a
   stream nobody reads); a failure before the turn is stored leaves nothing claimed.
5. **observe** (:func:`observe`): metrics and one log line, never any text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from pydantic import BaseModel

from tanda.contract.common import StageStatus
from tanda.contract.query import QueryV2Request
from tanda.conversations.scope import Scope
from tanda.conversations.storage import (
    PreparedTurn,
    abandon,
    abandoned_on_failure,
    prepare_turn,
)
from tanda.errors import TurnAbandoned
from tanda.pipeline.request import AnswerRequest
from tanda.pipeline.states import AnswerMode, AnswerOutcome
from tanda.service.conversations import owner_of
from tanda.service.publish import Kept, store_published

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.conversations.history import History
    from tanda.conversations.scope import TurnScope
    from tanda.pipeline.steps import ProgressSink
    from tanda.records.conversations import Route
    from tanda.service.runtime import Runtime

Body = TypeVar("Body", bound=QueryV2Request, contravariant=True)
Response = TypeVar("Response", bound=BaseModel)


@dataclass(frozen=True)
class Published(Generic[Response]):
    """A route's view of a finished turn: its response, the outcome it was made from, and what
    the conversation keeps."""

    response: Response
    outcome: AnswerOutcome
    kept: Kept


class TurnView(Protocol[Body, Response]):
    """What an answering route supplies to the one turn: everything else is shared."""

    @property
    def route(self) -> Route: ...

    @property
    def mode(self) -> AnswerMode: ...

    def publish(
        self, outcome: AnswerOutcome, body: Body, prepared: PreparedTurn
    ) -> Published[Response]:
        """The response and what is kept. May raise the route's own error (v1's 413)."""
        ...

    def frames(self, published: Published[Response]) -> list[BaseModel]:
        """The stream's frames of the published turn, in the order of V2-21."""
        ...


# --- the turn, in the pipeline's words ---------------------------------------------------------


def answer_request(
    runtime: Runtime,
    tenant_id: str,
    body: QueryV2Request,
    *,
    mode: AnswerMode = "annotate-v2",
    scenario: str | None = None,
    editorial_prompt: str | None = None,
    history: History | None = None,
    trace_id: str | None = None,
) -> AnswerRequest:
    """The pipeline's request of a turn asked by ``body`` (any answering route's: they share the
    fields the pipeline reads), starting now; its scope is still the body's own."""
    return AnswerRequest.starting(
        tenant_id,
        body.query,
        runtime.settings,
        started_at=runtime.clock(),
        scope=asked_scope(body),
        include_proof=body.include_proof,
        mode=mode,
        scenario=scenario,
        editorial_prompt=editorial_prompt,
        history=history,
        trace_id=trace_id,
    )


def asked_scope(body: QueryV2Request) -> Scope:
    """The scope ``body`` names, before its conversation binds it."""
    return Scope(
        document_ids=body.document_ids,
        selection=body.selection,
        sources=body.sources,
        mcp_servers=body.mcp_servers,
    )


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
    scoped = request.model_copy(update={"scope": scope.apply(request.scope)})
    return runtime.runner.run(scoped, progress=progress, abandoned=abandoned)


def unless_abandoned(abandoned: Callable[[], bool] | None) -> None:
    """Raise ``TurnAbandoned`` before anything of an abandoned turn is stored (a step may have
    absorbed the refused call: a judge batch reads it as ``unverified``)."""
    if abandoned is not None and abandoned():
        raise TurnAbandoned()


# --- the lifecycle -------------------------------------------------------------------------------


def prepare(
    runtime: Runtime,
    principal: Principal,
    body: QueryV2Request,
    view: TurnView[Body, Response],
) -> PreparedTurn:
    """Claim (or create) the caller's conversation for the view's route: 404/409 happen here
    (V2-19, issue 11). A turn naming no sources keeps its conversation's (issue 25)."""
    return prepare_turn(
        runtime.store,
        owner_of(principal),
        body.conversation_id,
        view.route,
        document_ids=body.document_ids,
        selection=body.selection,
        sources=body.sources,
        mcp_servers=body.mcp_servers,
    )


def complete(
    runtime: Runtime,
    prepared: PreparedTurn,
    body: Body,
    view: TurnView[Body, Response],
    *,
    scenario: str | None = None,
    progress: ProgressSink | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> Published[Response]:
    """Run the prepared turn in its scope (CV-1), publish it through ``view``, store it (CV-3)
    and observe it. A failure before the turn is stored leaves nothing claimed (issue 11); once
    ``abandoned()`` (a stream nobody reads) the turn stops with ``TurnAbandoned`` and stores
    nothing."""
    conversation = prepared.conversation
    started = time.perf_counter()
    with abandoned_on_failure(runtime.store, prepared):
        request = answer_request(
            runtime,
            conversation.tenant_id,
            body,
            mode=view.mode,
            scenario=scenario,
            history=prepared.history,
            trace_id=prepared.trace_id,
        )
        outcome = run_turn(runtime, request, prepared.scope, progress=progress, abandoned=abandoned)
        published = view.publish(outcome, body, prepared)
        unless_abandoned(abandoned)
        used = prepared.scope.apply(request.scope)
        store_published(runtime.store, prepared, body.query, published.kept, used)
    observe(view.route, conversation.tenant_id, prepared.trace_id, started, outcome)
    return published


def answer(
    runtime: Runtime,
    principal: Principal,
    body: Body,
    view: TurnView[Body, Response],
    *,
    scenario: str | None = None,
) -> Response:
    """One JSON answer: prepare, then complete."""
    prepared = prepare(runtime, principal, body, view)
    return complete(runtime, prepared, body, view, scenario=scenario).response


def stream(
    runtime: Runtime,
    prepared: PreparedTurn,
    body: Body,
    view: TurnView[Body, Response],
    *,
    scenario: str | None,
    emit: Callable[[BaseModel], None],
    abandoned: Callable[[], bool],
) -> list[BaseModel]:
    """V2-21: progress (``emit``) while the agent works; then every frame of the finished,
    judged and guarded answer, in order."""
    published = complete(
        runtime, prepared, body, view, scenario=scenario, progress=emit, abandoned=abandoned
    )
    return view.frames(published)


def give_back(runtime: Runtime, prepared: PreparedTurn) -> None:
    """What a turn that could not start leaves behind: nothing claimed (issue 11)."""
    abandon(runtime.store, prepared)


def observe(
    route: str, tenant_id: str, trace_id: str, started: float, outcome: AnswerOutcome
) -> None:
    """Metrics and one structured log line per answer (Lambda only; never any text): the
    verdicts, the fallback, the model calls, the answer's verification and why its checked claims
    stayed unverified when the judge ran (issue 27)."""
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
