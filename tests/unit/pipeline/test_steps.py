"""The steps and the states they hand on (DESIGN §3, §4): every state crosses a Lambda boundary
as JSON unchanged and within Step Functions' size limit; the budget is split once; the agent
step keeps the checks' share of the deadline."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from tanda.adapters.scripted import ScriptedModel
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract import QueryV2Request
from tanda.contract.common import StageStatus, UnverifiedReason, Verdict
from tanda.conversations.history import build_history
from tanda.errors import TandaError
from tanda.pipeline import states, steps
from tanda.pipeline.request import AnswerRequest
from tanda.pipeline.routing import collect_outcomes
from tanda.pipeline.states import AnswerMode, AnswerOutcome
from tanda.records.conversations import MemoryItem, StoredMessage
from tests.corpus import QUESTION
from tests.fakes import ManualClock
from tests.unit.pipeline.conftest import (
    HISTORIES,
    SCENARIOS,
    PipelineDeps,
    follow_up_history,
    with_follow_ups,
)

SCENARIO_NAMES = sorted(p.stem for p in SCENARIOS.glob("*.json"))
MODES: tuple[AnswerMode, ...] = ("annotate-v2", "v1-gate")
STATE_LIMIT = 256 * 1024  # bytes: Step Functions' limit on a state's input and output
State = TypeVar("State", bound=BaseModel)


def across(state: State) -> State:
    """What the next Lambda gets: the state as JSON, within the limit, read back — unchanged."""
    text = state.model_dump_json()
    assert len(text.encode()) < STATE_LIMIT
    back = type(state).model_validate(json.loads(text))
    assert back == state
    return back


def chained(deps: PipelineDeps, request: AnswerRequest) -> AnswerOutcome:
    """The steps in the state machine's order, every state crossing a JSON boundary; the checks
    one after the other (framing first), so a manual clock reads the same every run."""
    step_deps = deps.step_deps()
    agent = across(steps.agent_step(across(request), step_deps, deps.agent_ports()))
    if agent.done is not None:
        return agent.done
    if agent.nothing_readable is not None:
        raise steps.NothingReadable.of(agent.nothing_readable)
    assert agent.work is not None
    checks = across(states.ChecksState(work=agent.work))
    framing = across(steps.framing_check_step(checks, step_deps))
    judged = [across(steps.judge_batch_step(b, step_deps)) for b in agent.work.judge_batches]
    guard_input = across(states.GuardInput(work=agent.work, checks=(judged, framing)))
    return across(steps.guard_step(guard_input, step_deps))


def on_manual_clock(deps: PipelineDeps) -> PipelineDeps:
    """Scripted latencies spend request time on a manual clock, no wall time."""
    clock = ManualClock()
    model = ScriptedModel(deps.model.scenarios, sleep=clock.advance)
    return replace(deps, model=model, clock=clock)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_every_state_of_every_scenario_crosses_a_lambda_boundary_unchanged(
    deps: PipelineDeps, scenario: str, mode: AnswerMode
) -> None:
    # Given a scenario, when its steps run with every state crossing JSON as between Lambdas,
    # then every state reads back equal and within the size limit (a 404 or 502 ends early).
    timed = on_manual_clock(deps)
    request = timed.request(QUESTION, scenario=scenario, mode=mode)
    with contextlib.suppress(TandaError):
        chained(timed, request)


@pytest.mark.parametrize("history", HISTORIES)
def test_a_follow_up_s_states_carry_its_history_unchanged(deps: PipelineDeps, history: str) -> None:
    with_follow_ups(deps.model, deps.index)
    request = deps.request(QUESTION, scenario="follow_up", history=follow_up_history(history))
    outcome = chained(deps, request)
    assert across(request).history == follow_up_history(history)
    assert outcome.fallback is None


def test_a_full_history_keeps_the_request_far_under_the_state_limit(deps: PipelineDeps) -> None:
    # Given the most build_history lets through: 6,000 characters of turns (each shown twice,
    # as messages and as C passages) and five memories, in a script JSON escapes,
    turns = [
        StoredMessage(
            message_id=f"m-{i}",
            conversation_id="c-1",
            tenant_id="acme",
            route="query",
            question="\u201cpertanyaan\u201d \n" * 20,
            answer='\u00e9"' * 200,
            trace_id="t",
            created_at=0.0,
            cited_documents=[f"d-{i}"],
        )
        for i in range(20)
    ]
    memories = [
        MemoryItem(
            memory_id=f"x-{i}",
            tenant_id="acme",
            issuer="https://idp.partner.example",
            subject="u",
            text='\u00e9"' * 500,
            conversation_id="c-0",
            message_id="m",
            created_at=0.0,
        )
        for i in range(10)
    ]
    history = build_history(turns, memories=memories)
    assert history.truncated
    request = deps.request(QUESTION, history=history)
    assert len(request.model_dump_json().encode()) < 64 * 1024


# --- the budget, split once (docs/pipeline.md "Budgets") -----------------------------------------


def test_step_timeouts_keep_the_checks_share_and_the_guard_reserve() -> None:
    timeouts = states.step_timeouts(25.0, judge_share=0.4)
    assert (timeouts.agent_s, timeouts.checks_s, timeouts.guard_s) == (15, 23, 3)
    assert states.step_timeouts(0.2, judge_share=0.4).guard_s == 1  # ASL minimum


@pytest.mark.parametrize(
    ("calls_left", "batches", "framing", "expected"),
    [
        (10, 2, True, (1, [4, 4])),
        (10, 3, True, (1, [3, 3, 2])),  # the remainder goes to the first batches
        (10, 2, False, (0, [5, 4])),  # no framing to examine: its call goes to the judge
        (3, 2, True, (1, [1, 0])),
        (2, 3, True, (1, [0, 0, 0])),
        (1, 1, True, (0, [0])),  # the guard's call is kept first
        (5, 0, True, (1, [])),
    ],
)
def test_what_the_agent_left_is_split_guard_first_then_framing_then_equal_batches(
    calls_left: int, batches: int, framing: bool, expected: tuple[int, list[int]]
) -> None:
    split = steps.call_allotments(calls_left, batches, framing=framing)
    assert split == expected
    framing_calls, allotments = split
    assert framing_calls + sum(allotments) <= max(0, calls_left - steps.GUARD_CALLS)


def test_judge_batches_spend_only_their_own_allotment(deps: PipelineDeps) -> None:
    # Given two cited segments judged one a batch and a budget that leaves the checks 5 calls
    # (guard 1, framing 1, batches 2 + 1): the second batch's re-check has no call of its own
    settings = deps.settings.model_copy(update={"model_call_budget": 7, "judge_batch_size": 1})
    tight = replace(deps, settings=settings)
    outcome = tight.answer(QUESTION, scenario="seed_example")
    # then its segment is unverified(budget), though the first batch left a call unspent
    assert [(c.verdict, c.unverified_reason) for c in outcome.annotation.claims] == [
        ("supported", None),
        ("unverified", "budget"),
    ]
    assert [c.role for c in outcome.model_calls].count("guard") == 1


def test_the_agent_step_stops_the_agent_at_its_share_of_the_deadline(deps: PipelineDeps) -> None:
    # Given agent calls of 3.5 s each in a 10 s request whose checks keep 40 % (V2-23), on a
    # manual clock so the figures are exact whatever the machine's load
    clock = ManualClock()
    default = deps.model.scenarios["default"]
    slow = default.model_copy(update={"latency_ms": {"agent": 3500}})
    model = ScriptedModel({"default": slow}, sleep=clock.advance)
    settings = deps.settings.model_copy(update={"request_deadline_s": 10.0, "judge_share": 0.4})
    timed = replace(deps, model=model, settings=settings, clock=clock)
    request = timed.request(QUESTION)

    # when the agent step runs
    output = steps.agent_step(request, timed.step_deps(), timed.agent_ports())

    # then the answer call is cut at 6 s: the model_timeout refusal, the checks' 4 s unspent
    assert output.done is not None and output.done.fallback == "model_timeout"
    assert clock() - request.started_at == pytest.approx(6.0)
    assert [(c.role, c.outcome, c.latency_ms) for c in output.done.model_calls] == [
        ("agent", "ok", 3500),
        ("agent", "deadline", 2500),
    ]


# --- the verdict routing back (tanda.pipeline.routing) -------------------------------------------


def batch_of(*indexes: int, invalid: dict[int, tuple[str, ...]] | None = None) -> Any:
    from tanda.contract.segments import Segment
    from tanda.judge.items import JudgeItem
    from tanda.judge.reader_context import ReaderContext

    items = [
        JudgeItem(i, Segment(text=f"F{i}", kind="fact", cites=["P1"]), ("P1",), ReaderContext())
        for i in indexes
    ]
    return states.JudgeBatchInput(
        batch_index=0,
        items=items,
        passages={},
        invalid_keys=invalid or {},
        deadline_at=10.0,
        checks_until=9.0,
        calls=1,
        timeout_s=1,
    )


@pytest.mark.parametrize("failed", ["deadline", "judge_unavailable"])
def test_a_batch_that_failed_as_a_whole_leaves_its_segments_unverified_with_their_keys(
    failed: str,
) -> None:
    # Given the fallback output of a batch whose task failed (or was late)
    batch = batch_of(1, 3, invalid={3: ("P9",)})
    result = states.JudgeBatchOutput.model_validate({"batch_index": 0, "failed": failed})
    skipped = states.FramingOutput(status=StageStatus.skipped)
    final = {0: SegmentOutcome(Verdict.uncited), 2: SegmentOutcome(Verdict.uncited)}

    # then each of its segments is unverified for that reason, invalid keys kept (V2-10)
    ordered, status = collect_outcomes(4, final, [batch], [result], [], skipped)
    reason = UnverifiedReason(failed)
    assert ordered[1] == SegmentOutcome(Verdict.unverified, reason)
    assert ordered[3] == SegmentOutcome(Verdict.unverified, reason, ("P9",))
    assert (ordered[0], ordered[2], status) == (final[0], final[2], StageStatus.skipped)


def test_a_failed_framing_check_leaves_every_examined_segment_an_uncited_claim() -> None:
    from tanda.contract.segments import Segment

    framing = [
        (0, Segment(text="Berikut.", kind="framing")),
        (1, Segment(text="Ya.", kind="framing")),
    ]
    unavailable = states.FramingOutput(checkable=None, status=StageStatus.unavailable)
    ordered, status = collect_outcomes(2, {}, [], [], framing, unavailable)
    assert ordered == [SegmentOutcome(Verdict.uncited)] * 2
    assert status is StageStatus.unavailable
    checked = states.FramingOutput(checkable=[1], status=StageStatus.complete)
    ordered, _ = collect_outcomes(2, {}, [], [], framing, checked)
    assert ordered == [SegmentOutcome.framing(), SegmentOutcome(Verdict.uncited)]


def test_with_no_framing_to_examine_the_framing_check_is_skipped_whatever_its_step_said() -> None:
    # Given an answer with no uncited framing, whose framing step the runner read as failed or
    # late (the in-process runner's and the state machine's fallback: unavailable),
    unavailable = states.FramingOutput(checkable=None, status=StageStatus.unavailable)
    final = {0: SegmentOutcome(Verdict.uncited)}
    # then the report says skipped: there was nothing for it to examine (V2-06)
    ordered, status = collect_outcomes(1, final, [], [], [], unavailable)
    assert ordered == [SegmentOutcome(Verdict.uncited)]
    assert status is StageStatus.skipped


def test_an_answer_with_no_segment_of_a_kind_keeps_its_routing_empty(deps: PipelineDeps) -> None:
    request = deps.request(QueryV2Request(query=QUESTION), scenario="uncited_and_invalid")
    output = steps.agent_step(request, deps.step_deps(), deps.agent_ports())
    assert output.work is not None
    assert output.work.framing_items == [] and output.work.framing_calls == 0
