"""The Step Functions steps, chained in-process the way ``query.asl.json`` chains them (every
state crossing a JSON boundary, as between Lambdas), answer exactly like the in-process runner."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tanda.api.errors import error_body, status_for
from tanda.contract import QueryV2Request
from tanda.errors import TandaError
from tanda.pipeline import steps
from tanda.pipeline.answer_v2 import AnswerDeps, AnswerOutcome, answer_v2
from tanda.progress import MemoryProgress
from tanda.service.answer_v2 import to_response
from tests.corpus import QUESTION
from tests.unit.pipeline.conftest import deps, index, model

__all__ = ["deps", "index", "model"]  # the pipeline tests' fixtures: corpus, scripted model

SCENARIOS = sorted(p.stem for p in (Path(__file__).parents[1] / "scenarios").glob("*.json"))
DEADLINES = {"judge_deadline": 0.6}


def across_lambda(model: Any) -> dict[str, Any]:
    """What a Lambda returns to Step Functions: plain JSON."""
    loaded: dict[str, Any] = json.loads(model.model_dump_json())
    return loaded


def chained(deps: AnswerDeps, body: QueryV2Request, scenario: str) -> AnswerOutcome:
    """Agent → (done | Parallel[Map(JudgeBatch), FramingCheck] → Guard), as the ASL runs it."""
    state = steps.query_input(
        "acme", body, deps.settings, started_at=time.time(), scenario=scenario
    )
    agent = steps.agent_step(
        steps.QueryInput.model_validate(across_lambda(state)),
        index=deps.index,
        model=deps.model,
        settings=deps.settings,
    )
    output = across_lambda(agent)
    if output["done"] is not None:
        return steps.to_outcome(steps.execution_output(json.dumps(output["done"])))
    batches = [
        across_lambda(
            steps.judge_batch_step(steps.JudgeBatchInput.model_validate(b), model=deps.model)
        )
        for b in output["work"]["judge_batches"]
    ]
    framing = across_lambda(
        steps.framing_check_step(
            steps.FramingInput.model_validate(output["work"]["framing"]), model=deps.model
        )
    )
    guard_input = {**output, "checks": [batches, framing]}
    answer = steps.guard_step(steps.GuardInput.model_validate(guard_input), model=deps.model)
    return steps.to_outcome(steps.execution_output(answer.model_dump_json()))


def body_of(run: Any, deps: AnswerDeps, scenario: str) -> dict[str, Any]:
    seconds = DEADLINES.get(scenario, deps.settings.request_deadline_s)
    deps = replace(deps, settings=deps.settings.model_copy(update={"request_deadline_s": seconds}))
    request = QueryV2Request(query=QUESTION, include_grounding=True)
    try:
        outcome = run(deps, request, scenario)
    except TandaError as error:
        return {"status": status_for(error), "body": error_body(error.code, error.message)}
    response = to_response(outcome, request, conversation_id="c-1", message_id="m-1", trace_id="t")
    body = response.model_dump(mode="json")
    # Model-call latencies are wall time, and parallel steps log in completion order.
    calls = body.pop("model_call_log", None) or []
    body["model_calls"] = sorted((c["role"], c["outcome"]) for c in calls)
    return {"status": 200, "body": body}


def in_process(deps: AnswerDeps, body: QueryV2Request, scenario: str) -> AnswerOutcome:
    return answer_v2(deps, "acme", body, scenario=scenario)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_chained_steps_answer_like_the_in_process_runner(deps: AnswerDeps, scenario: str) -> None:
    # Given a scripted scenario, when it runs through the steps and in-process,
    # then the response bodies (or error bodies) are the same.
    assert body_of(chained, deps, scenario) == body_of(in_process, deps, scenario)


def test_a_late_judge_batch_is_unverified_by_deadline() -> None:
    # Given the output the ASL's JudgeBatchLate fallback builds for a batch that timed out,
    late = steps.JudgeBatchOutput.model_validate(
        {"batch_index": 0, "indexes": [1, 3], "failed": "deadline"}
    )

    # then every segment of that batch is unverified(deadline), invalid keys kept (V2-10).
    outcomes = steps.batch_outcomes(late, {3: ["P9"]})
    assert {i: (o.verdict, o.unverified_reason) for i, o in outcomes.items()} == {
        1: ("unverified", "deadline"),
        3: ("unverified", "deadline"),
    }
    assert outcomes[3].invalid_citation_keys == ["P9"]


def test_the_agent_timeout_fallback_is_the_model_timeout_refusal() -> None:
    # Given the ASL's AgentTimedOut output, then it reads as refusal(model_timeout).
    state = steps.execution_output('{"refusal": "model_timeout"}')
    assert state.fallback == "model_timeout"
    assert state.answer and state.claims == []


def test_step_timeouts_keep_the_checks_share_and_the_guard_reserve() -> None:
    timeouts = steps.step_timeouts(25.0, judge_share=0.4)
    assert (timeouts.agent_s, timeouts.checks_s, timeouts.guard_s) == (15, 23, 3)
    assert steps.step_timeouts(0.2, judge_share=0.4).guard_s == 1  # ASL minimum


def test_judge_batches_share_what_the_agent_left_after_guard_and_framing() -> None:
    assert steps.split_calls(10, batches=2, framing=True) == 4
    assert steps.split_calls(2, batches=3, framing=True) == 0
    assert steps.split_calls(5, batches=0, framing=False) == 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_agent_step_publishes_the_in_process_progress_frames(
    deps: AnswerDeps, scenario: str
) -> None:
    # Given a scenario run in-process with a progress callback (the stream route's emit),
    body = QueryV2Request(query=QUESTION)
    in_process_frames: list[Any] = []
    with contextlib.suppress(TandaError):
        answer_v2(deps, "acme", body, scenario=scenario, progress=in_process_frames.append)

    # when the agent step runs the same turn with a progress id and a Progress adapter,
    channel = MemoryProgress()
    state = steps.query_input(
        "acme", body, deps.settings, started_at=time.time(), scenario=scenario, progress_id="r1"
    )
    with contextlib.suppress(TandaError):
        steps.agent_step(
            steps.QueryInput.model_validate(across_lambda(state)),
            index=deps.index,
            model=deps.model,
            settings=deps.settings,
            progress=channel,
        )

    # then the frames a reader gets under that id are the in-process ones, in order.
    assert [e.frame for e in channel.read("r1")] == in_process_frames


def test_a_state_without_a_progress_id_publishes_nothing(deps: AnswerDeps) -> None:
    channel = MemoryProgress()
    body = QueryV2Request(query=QUESTION)
    state = steps.query_input("acme", body, deps.settings, started_at=time.time())
    assert state.progress_id is None
    steps.agent_step(
        state,
        index=deps.index,
        model=deps.model,
        settings=deps.settings,
        progress=channel,
    )
    assert channel._events == {}
