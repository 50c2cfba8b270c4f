"""Which runner answers (DESIGN §4): Step Functions for every turn when configured (follow-ups
carry their history into the execution input), in-process otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tanda.adapters.scripted import ScriptedModel
from tanda.contract import QueryV2Request
from tanda.contract.common import FallbackReason
from tanda.conversations.history import History
from tanda.model_calls import ChatMessage
from tanda.pipeline.answer_v2 import AnswerOutcome, refusal
from tanda.service.answer_v2 import run_answer
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.corpus import QUESTION
from tests.fakes import InMemorySearchIndex


class FakeRunner:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def answer(self, tenant_id: str, body: QueryV2Request, **kwargs: Any) -> AnswerOutcome:
        self.calls.append({"tenant_id": tenant_id, **kwargs})
        return refusal(FallbackReason.model_timeout)


def runtime(tmp_path: Path, model: ScriptedModel) -> tuple[Runtime, FakeRunner]:
    runtime = Runtime(settings=Settings(home=tmp_path, runner="stepfunctions"))
    runner = FakeRunner()
    runtime.__dict__.update(
        runner=runner, search_index=InMemorySearchIndex(), model=model, embedder=None
    )
    return runtime, runner


def test_a_first_turn_runs_on_the_state_machine_with_the_editorial_prompt(
    tmp_path: Path, model: ScriptedModel
) -> None:
    rt, runner = runtime(tmp_path, model)
    outcome = run_answer(
        rt, "acme", QueryV2Request(query=QUESTION), editorial_prompt="P", trace_id="t1"
    )
    assert outcome.fallback == "model_timeout"
    assert runner.calls == [
        {
            "tenant_id": "acme",
            "scenario": None,
            "editorial_prompt": "P",
            "trace_id": "t1",
            "history": None,
            "progress": None,
            "channel": None,
        }
    ]


def test_a_follow_up_runs_on_the_state_machine_with_its_history(
    tmp_path: Path, model: ScriptedModel
) -> None:
    rt, runner = runtime(tmp_path, model)
    history = History(
        messages=[ChatMessage(role="user", content="sebelumnya")], read_whole="qanun-2023"
    )
    outcome = run_answer(
        rt, "acme", QueryV2Request(query=QUESTION, selection="kosong"), history=history
    )
    assert outcome.fallback == "model_timeout"  # the runner's answer, not the in-process one
    (call,) = runner.calls
    assert call["history"] is history


def test_without_a_runner_a_follow_up_runs_in_process(tmp_path: Path, model: ScriptedModel) -> None:
    rt, runner = runtime(tmp_path, model)
    rt.__dict__["runner"] = None
    history = History(messages=[ChatMessage(role="user", content="sebelumnya")])
    outcome = run_answer(
        rt, "acme", QueryV2Request(query=QUESTION, selection="kosong"), history=history
    )
    assert runner.calls == []
    assert outcome.fallback == "source_scope_empty"  # answered by the in-process pipeline


def test_a_first_turn_stream_runs_on_the_state_machine_with_its_progress_channel(
    tmp_path: Path, model: ScriptedModel
) -> None:
    rt, runner = runtime(tmp_path, model)
    channel = object()
    rt.__dict__["progress"] = channel

    def emit(frame: object) -> None:
        pass

    run_answer(rt, "acme", QueryV2Request(query=QUESTION), progress=emit, trace_id="t2")
    (call,) = runner.calls
    assert call["progress"] is emit and call["channel"] is channel
