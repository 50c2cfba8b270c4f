"""The runners' own paths (DESIGN §4): the in-process runner takes the state machine's fallbacks
when a check fails or is late, and stops an abandoned turn; the Step Functions runner reads an
execution's output and failures back as the in-process outcome and errors."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace
from typing import Any

import pytest

from tanda.agent.tool_loop import AgentUnavailable
from tanda.errors import TurnAbandoned, UpstreamFailed
from tanda.guard.policy_guard import GuardUnavailable
from tanda.model_calls import ChatRequest, ChatResponse
from tanda.pipeline.runners import in_process
from tanda.pipeline.runners.in_process import InProcessRunner
from tanda.pipeline.runners.stepfunctions import ExecutionFailed, execution_output, failure_for
from tanda.pipeline.steps import NothingReadable
from tests.corpus import QUESTION
from tests.fakes import ManualClock
from tests.unit.pipeline.conftest import PipelineDeps


def verdicts(outcome: Any) -> list[tuple[str, str | None]]:
    return [(c.verdict, c.unverified_reason) for c in outcome.annotation.claims]


def test_a_judge_batch_that_raises_leaves_its_segments_unverified_judge_unavailable(
    deps: PipelineDeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a judge batch step that fails as a whole (the ASL's JudgeBatchUnavailable)
    def crash(*args: object) -> None:
        raise RuntimeError("judge crashed")

    monkeypatch.setattr(in_process, "judge_batch_step", crash)
    # then the answer is still published, its judged segment unverified(judge_unavailable)
    outcome = deps.answer(QUESTION, scenario="default")
    assert outcome.fallback is None
    assert verdicts(outcome) == [("unverified", "judge_unavailable")]


def test_a_framing_check_that_raises_is_unavailable(
    deps: PipelineDeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*args: object) -> None:
        raise RuntimeError("framing crashed")

    monkeypatch.setattr(in_process, "framing_check_step", crash)
    outcome = deps.answer(QUESTION, scenario="framing_checkable")
    report = outcome.annotation.faithfulness
    assert report.framing_check == "unavailable"
    assert verdicts(outcome)[0] == ("uncited", None)  # every examined segment is checkable


class HeldFraming:
    """The scripted model, its framing-check call held until released (a call that ignores its
    timeout) after spending ``spend`` seconds of the manual clock."""

    name = "held"

    def __init__(self, inner: Any, clock: ManualClock, spend: float) -> None:
        self.inner, self.clock, self.spend = inner, clock, spend
        self.holding: Future[None] = Future()
        self.release = threading.Event()
        self.returned = threading.Event()

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.role == "framing_check":
            self.clock.advance(self.spend)
            self.holding.set_result(None)
            self.release.wait(30)
            self.returned.set()
        return self.inner.complete(request)  # type: ignore[no-any-return]


class CallsBeforeWait(ThreadPoolExecutor):
    """A pool whose ``submit`` returns once the step has returned or its call is held: when the
    runner starts waiting for the checks, the held call has spent the request's time, whatever
    the machine's load (no test waits for a deadline, issue 12)."""

    def __init__(self, model: HeldFraming) -> None:
        super().__init__(max_workers=4)
        self.model = model

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        wait([future, self.model.holding], return_when=FIRST_COMPLETED)
        return future


def test_a_check_that_never_returns_cannot_hold_the_answer_past_its_deadline(
    deps: PipelineDeps, clock: ManualClock
) -> None:
    # Given a request whose framing check spends all of its time, then ignores its deadline and
    # never returns on its own
    held = HeldFraming(deps.model, clock, spend=deps.settings.request_deadline_s)
    deps = replace(deps, model=held)
    try:
        with CallsBeforeWait(held) as pool:
            runner = InProcessRunner(deps.step_deps(), deps.agent_ports(), executor=pool)
            # when it is answered, then the runner stops waiting at the deadline and the guard,
            # with no time left, fails closed: nothing unguarded is published (V2-13)
            with pytest.raises(GuardUnavailable):
                runner.run(deps.request(QUESTION, scenario="framing_checkable"))
            # while the framing check's call is still held: the answer did not wait for it
            assert not held.returned.is_set()
            held.release.set()
    finally:
        held.release.set()


class Abandoning:
    """The scripted model; the turn counts as abandoned once ``after`` calls were made."""

    name = "abandoning"

    def __init__(self, inner: Any, after: int) -> None:
        self.inner, self.after = inner, after
        self.roles: list[str] = []

    def abandoned(self) -> bool:
        return len(self.roles) >= self.after

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.roles.append(request.role.value)
        return self.inner.complete(request)  # type: ignore[no-any-return]


@pytest.mark.parametrize("after", [0, 1, 2])
def test_an_abandoned_turn_makes_no_further_model_call_and_ends(
    deps: PipelineDeps, after: int
) -> None:
    # Given a turn whose client leaves after `after` model calls (issue 11)
    model = Abandoning(deps.model, after)
    runner = replace(deps, model=model).runner()
    # when it runs, then it ends with TurnAbandoned and no call was made after that point
    with pytest.raises(TurnAbandoned):
        runner.run(deps.request(QUESTION, scenario="default"), abandoned=model.abandoned)
    assert model.roles == ["agent", "agent"][:after]


def test_the_agent_s_progress_goes_to_the_runner_s_callback(deps: PipelineDeps) -> None:
    frames: list[Any] = []
    deps.answer(QUESTION, scenario="default", progress=frames.append)
    assert [type(f).__name__ for f in frames] == ["ToolStartedFrame", "ToolFinishedFrame"]


# --- the Step Functions runner reading an execution ----------------------------------------------


def test_the_agent_timeout_fallback_reads_as_the_model_timeout_refusal() -> None:
    # Given the ASL's AgentTimedOut output, then it reads as refusal(model_timeout).
    outcome = execution_output('{"refusal": "model_timeout"}')
    assert outcome.fallback == "model_timeout"
    assert outcome.answer and outcome.annotation.claims == []


def test_nothing_readable_reads_as_the_404_with_its_tool_and_status() -> None:
    with pytest.raises(NothingReadable) as raised:
        execution_output('{"nothing_readable": {"tool": "search", "tool_status": "timeout"}}')
    assert (raised.value.tool, raised.value.tool_status) == ("search", "timeout")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        ("NothingReadable", NothingReadable),
        ("GuardUnavailable", GuardUnavailable),
        ("UpstreamFailed", AgentUnavailable),
        ("States.Runtime", ExecutionFailed),
        (None, ExecutionFailed),
    ],
)
def test_a_failed_execution_raises_what_the_in_process_runner_raises(
    error: str | None, expected: type
) -> None:
    raised = failure_for(error)
    assert type(raised) is expected
    assert isinstance(raised, NothingReadable | UpstreamFailed)
