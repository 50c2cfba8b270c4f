"""The in-process runner: the steps chained in this process, the judge batches and the framing
check concurrently on one bounded pool shared by every answer (DESIGN §4). It follows the state
machine (``infra/statemachines/query.asl.json``) state for state, fallbacks included:

* the agent's refusal ends the answer; tools that returned nothing readable → ``NothingReadable``;
* a judge batch that raises → its segments ``unverified(judge_unavailable)``; a framing check
  that raises → ``unavailable``;
* the guard runs on the calling thread; ``GuardUnavailable`` fails the answer (V2-13).

The steps enforce the request deadline themselves (a check stops at ``checks_until``, the
guard's reserve before the deadline). The runner waits for the checks at most until the request
deadline, as ``TimeoutSecondsPath`` bounds a task from outside: a check still running then (one
that ignored its deadline) counts as late — ``unverified(deadline)``, ``unavailable`` — and the
guard, with no time left, fails closed.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future, wait
from dataclasses import replace
from typing import Any

from tanda.contract.common import StageStatus
from tanda.errors import TurnAbandoned
from tanda.model_calls import ChatModel, ChatRequest, ChatResponse
from tanda.pipeline.request import AnswerRequest
from tanda.pipeline.states import (
    AnswerOutcome,
    ChecksState,
    FramingOutput,
    GuardInput,
    JudgeBatchOutput,
)
from tanda.pipeline.steps import (
    AgentPorts,
    NothingReadable,
    ProgressSink,
    StepDeps,
    agent_step,
    framing_check_step,
    guard_step,
    judge_batch_step,
)
from tanda.threads import SharedPool

CHECK_WORKERS = 32
"""Threads shared by every in-process answer for its judge batches and framing checks: a burst of
answers queues here instead of starting threads of its own (each step still stops at its
deadline, so a batch that waited too long is ``unverified(deadline)``)."""

_check_pool = SharedPool(CHECK_WORKERS, "tanda-check").get


class AbandonableModel:
    """The request's model, refusing every call once the turn is abandoned (issue 11): a stream
    nobody will read makes no further model call. ``TurnAbandoned`` is no ``ModelError``: the
    agent and the guard let it through and the turn ends (a judge batch reads any failure as
    ``unverified``; the service checks ``abandoned()`` again before it stores anything)."""

    def __init__(self, model: ChatModel, abandoned: Callable[[], bool]) -> None:
        self.model = model
        self.abandoned = abandoned
        self.name = model.name

    def complete(self, request: ChatRequest) -> ChatResponse:
        if self.abandoned():
            raise TurnAbandoned()
        return self.model.complete(request)


class InProcessRunner:
    """``deps`` and ``ports`` are the process's adapters (``tanda.wiring``); ``executor`` runs
    the checks (default: the shared pool of ``CHECK_WORKERS``)."""

    def __init__(
        self, deps: StepDeps, ports: AgentPorts, *, executor: Executor | None = None
    ) -> None:
        self.deps = deps
        self.ports = ports
        self.executor = executor

    def run(
        self,
        request: AnswerRequest,
        *,
        progress: ProgressSink | None = None,
        abandoned: Callable[[], bool] | None = None,
    ) -> AnswerOutcome:
        deps = self.deps
        if abandoned is not None:
            deps = replace(deps, model=AbandonableModel(deps.model, abandoned))
        agent = agent_step(request, deps, replace(self.ports, progress=progress))
        if agent.done is not None:
            return agent.done
        if agent.nothing_readable is not None:
            raise NothingReadable.of(agent.nothing_readable)
        assert agent.work is not None  # exactly one of the three is set
        work = agent.work
        pool = self.executor or _check_pool()
        framing = pool.submit(framing_check_step, ChecksState(work=work), deps)
        batches = [pool.submit(judge_batch_step, batch, deps) for batch in work.judge_batches]
        checking: list[Future[Any]] = [framing, *batches]
        wait(checking, timeout=max(0.0, work.deadline_at - deps.clock()))
        judged = [
            _judged(future, batch.batch_index)
            for future, batch in zip(batches, work.judge_batches, strict=True)
        ]
        checks = (judged, _framing(framing))
        return guard_step(GuardInput(work=work, checks=checks), deps)


def _judged(future: Future[JudgeBatchOutput], batch_index: int) -> JudgeBatchOutput:
    """The batch's output, or the state machine's fallback for a batch that failed or is late."""
    if not future.done():
        future.cancel()
        return JudgeBatchOutput(batch_index=batch_index, failed="deadline")
    if future.exception() is not None:
        return JudgeBatchOutput(batch_index=batch_index, failed="judge_unavailable")
    return future.result()


def _framing(future: Future[FramingOutput]) -> FramingOutput:
    """The framing check's output, or ``unavailable`` (every examined segment checkable) when it
    failed or is late; an abandoned turn ends here."""
    if not future.done():
        future.cancel()
        return FramingOutput(checkable=None, status=StageStatus.unavailable)
    error = future.exception()
    if isinstance(error, TurnAbandoned):
        raise error
    if error is not None:
        return FramingOutput(checkable=None, status=StageStatus.unavailable)
    return future.result()
