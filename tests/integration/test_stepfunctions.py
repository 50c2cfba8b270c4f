"""The query state machine executed by moto's Step Functions interpreter (``mock_aws`` with
``execute_state_machine``), offline.

Two ways to run the tasks:

* the echo backend (moto's ``LambdaSimpleBackend``: an invoked function returns its input) - the
  task results are scripted through the input, which proves the *routing*: a refusal ends at
  ``Finished``; work fans out into one Map iteration per judge batch and the framing check, and
  reaches ``Guard`` with both results;
* the real handlers (``functions/steps/*/app.py``, loaded in-process and called by a patched
  ``LambdaSimpleBackend.invoke``; an exception becomes a Lambda function error whose
  ``errorType`` is the exception's name, as the Python runtime reports it) - which makes the
  Catch and timeout paths executable: a judge batch that raises ends as
  ``unverified(judge_unavailable)``, an agent past its ``TimeoutSecondsPath`` as the
  ``model_timeout`` refusal, and so on (moto enforces a state's timeout by waiting for it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.unit.pipeline.conftest import clock, deps, index, model

__all__ = ["clock", "deps", "index", "model"]  # the pipeline tests' corpus and scripted model

REPO = Path(__file__).resolve().parents[2]
ASL = REPO / "infra" / "statemachines" / "query.asl.json"
REGION = "us-east-1"
STEPS = {
    "AgentStepArn": "agent",
    "JudgeBatchStepArn": "judge_batch",
    "FramingCheckStepArn": "framing_check",
    "GuardStepArn": "guard",
}


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    import boto3
    from moto import mock_aws

    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(variable, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    config = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}
    with mock_aws(config=config):  # type: ignore[arg-type]
        iam = boto3.client("iam", region_name=REGION)
        role = iam.create_role(
            RoleName="steps",
            AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}),
        )["Role"]["Arn"]
        yield {
            "lambda": boto3.client("lambda", region_name=REGION),
            "sfn": boto3.client("stepfunctions", region_name=REGION),
            "role": role,
        }


def deploy(aws: dict[str, Any], missing: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """Create the step functions (echo Lambdas) except ``missing``, then the state machine with
    the template's substitutions."""
    arns = {}
    for key, step in STEPS.items():
        name = f"tanda-{step}"
        if step not in missing:
            aws["lambda"].create_function(
                FunctionName=name,
                Runtime="python3.12",
                Role=aws["role"],
                Handler="app.handler",
                Code={"ZipFile": b"echo"},
            )
        arns[key] = f"arn:aws:lambda:{REGION}:123456789012:function:{name}"
    definition = ASL.read_text(encoding="utf-8")
    for key, arn in arns.items():
        definition = definition.replace("${" + key + "}", arn)
    created = aws["sfn"].create_state_machine(
        name="query", definition=definition, roleArn=aws["role"], type="EXPRESS"
    )
    arn: str = created["stateMachineArn"]
    return arn


def run(aws: dict[str, Any], machine: str, state: dict[str, Any]) -> dict[str, Any]:
    sfn = aws["sfn"]
    started = sfn.start_execution(stateMachineArn=machine, input=json.dumps(state))
    deadline = time.monotonic() + 30
    while True:
        described: dict[str, Any] = sfn.describe_execution(executionArn=started["executionArn"])
        if described["status"] != "RUNNING" or time.monotonic() > deadline:
            return described
        time.sleep(0.05)


def checks_work(batches: int) -> dict[str, Any]:
    """An agent result with ``batches`` judge batches and a framing check to run."""
    return {
        "done": None,
        "timeouts": {"agent_s": 5, "checks_s": 5, "guard_s": 2},
        "work": {
            "judge_batches": [
                {"batch_index": b, "indexes": [b * 2, b * 2 + 1], "timeout_s": 5}
                for b in range(batches)
            ],
            "framing": {"question": "q", "items": [], "timeout_s": 5},
            "timeouts": {"agent_s": 5, "checks_s": 5, "guard_s": 2},
        },
    }


def test_a_refusal_from_the_agent_ends_the_execution_with_it(aws: dict[str, Any]) -> None:
    # Given an agent step that answers with a refusal (the echo returns the scripted output),
    machine = deploy(aws)
    refusal = {"answer": "notice", "fallback": "source_scope_empty"}
    state = {"timeouts": {"agent_s": 5}, "done": refusal, "work": None}

    # when the machine runs, then its output is the refusal itself.
    execution = run(aws, machine, state)
    assert execution["status"] == "SUCCEEDED", execution
    assert json.loads(execution["output"]) == refusal


def test_work_fans_out_to_every_batch_and_the_framing_check_then_the_guard(
    aws: dict[str, Any],
) -> None:
    # Given an agent result with three judge batches,
    machine = deploy(aws)

    # when the machine runs (each step echoes), then the guard receives one result per batch
    # in batch order and the framing task's result, beside the agent's work.
    execution = run(aws, machine, checks_work(batches=3))
    assert execution["status"] == "SUCCEEDED", execution
    guard_input = json.loads(execution["output"])
    batches, framing = guard_input["checks"]
    assert [b["batch_index"] for b in batches] == [0, 1, 2]
    assert framing["work"]["framing"]["question"] == "q"  # the framing task gets the state
    assert guard_input["work"]["judge_batches"] == checks_work(3)["work"]["judge_batches"]


# --- the real step handlers behind moto's Lambda -----------------------------------------------


@pytest.fixture
def request_deadline_s() -> float:
    """Far beyond what an answer takes: the handlers on moto's machine run on the wall clock (it
    waits out a state's timeout), so the 2 s of the in-process tests would make an answer depend
    on the machine's load. The test of a timeout sets its own."""
    return 60.0


def load_handler(step: str, runtime: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The step's Lambda handler, its runtime replaced by ``runtime``."""
    import importlib.util

    path = REPO / "functions" / "steps" / step / "app.py"
    spec = importlib.util.spec_from_file_location(f"tanda_step_{step}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "runtime", lambda: runtime)
    return module.handler


@pytest.fixture
def real_steps(
    aws: dict[str, Any], deps: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """moto's Lambda invokes the real step handlers over the test corpus and scripted model."""
    from types import SimpleNamespace

    from moto.awslambda_simple.models import LambdaSimpleBackend

    from tanda.adapters.memory_progress import MemoryProgress

    runtime = SimpleNamespace(
        search_index=deps.index,
        model=deps.model,
        settings=deps.settings,
        embedder=None,
        reranker=deps.reranker,
        progress=MemoryProgress(),
    )
    handlers = {step: load_handler(step, runtime, monkeypatch) for step in STEPS.values()}

    def invoke(
        self: Any, function_name: str, qualifier: Any, body: Any, headers: Any, response: Any
    ) -> bytes:
        step = function_name.rsplit(":", 1)[-1].removeprefix("tanda-")

        class Context:
            function_name = f"tanda-{step}"
            aws_request_id = "moto"

        try:
            result = handlers[step](json.loads(body), Context())
        except Exception as error:  # what the Lambda Python runtime reports
            response["x-amz-function-error"] = "Unhandled"
            return json.dumps(
                {"errorType": type(error).__name__, "errorMessage": str(error)}
            ).encode()
        return json.dumps(result).encode()

    monkeypatch.setattr(LambdaSimpleBackend, "invoke", invoke)
    yield {"runtime": runtime, "machine": deploy(aws)}


def first_turn(deps: Any, scenario: str = "default") -> dict[str, Any]:
    from tanda.contract import QueryV2Request
    from tanda.pipeline import steps
    from tests.corpus import QUESTION

    state = steps.query_input(
        "acme",
        QueryV2Request(query=QUESTION),
        deps.settings,
        started_at=time.time(),
        scenario=scenario,
    )
    loaded: dict[str, Any] = json.loads(state.model_dump_json())
    return loaded


def test_real_handlers_answer_on_the_machine_like_the_chained_steps(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any
) -> None:
    # Given the real handlers behind the machine, when a first turn runs,
    from tanda.pipeline import steps

    execution = run(aws, real_steps["machine"], first_turn(deps))

    # then it succeeds with a judged, guarded answer.
    assert execution["status"] == "SUCCEEDED", execution
    answer = steps.execution_output(execution["output"])
    assert answer.fallback is None
    assert answer.claims and all(c.verdict is not None for c in answer.claims)


@pytest.mark.parametrize(("fault", "status"), [("fail", "error"), ("hang", "timeout")])
def test_a_failed_or_late_search_ends_the_execution_as_the_404_with_its_status(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any, fault: str, status: str
) -> None:
    # Given the agent step's index failing (or hanging past a 50 ms tool deadline),
    from tanda.pipeline import steps
    from tanda.pipeline.answer_v2 import NothingReadable
    from tests.fakes import FaultySearchIndex

    index = FaultySearchIndex(deps.index, **{fault: True})
    runtime = real_steps["runtime"]
    runtime.search_index = index
    runtime.settings = deps.settings.model_copy(update={"tool_deadline_s": 0.05})
    try:
        execution = run(aws, real_steps["machine"], first_turn(deps))
    finally:
        index.release.set()

    # then the machine ends at NothingReadableEnd, and the runner raises the 404 with the
    # tool and its status (V2-19), as the in-process runner does.
    assert execution["status"] == "SUCCEEDED", execution
    with pytest.raises(NothingReadable) as raised:
        steps.execution_output(execution["output"])
    assert (raised.value.tool, raised.value.tool_status) == ("search", status)


def test_a_judge_batch_that_raises_ends_as_unverified_judge_unavailable(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a judge batch task that fails (the Lambda raises),
    from tanda.pipeline import steps

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("judge crashed")

    monkeypatch.setattr(steps, "judge_batch_step", crash)

    # when the answer runs, then the Catch builds JudgeBatchUnavailable, and the guard publishes
    # the answer with every judged segment unverified(judge_unavailable) (V2-10).
    execution = run(aws, real_steps["machine"], first_turn(deps))
    assert execution["status"] == "SUCCEEDED", execution
    answer = steps.execution_output(execution["output"])
    assert answer.fallback is None
    judged = [o for o in answer.outcomes if o.unverified_reason is not None]
    assert judged, answer.outcomes
    assert {(o.verdict, o.unverified_reason) for o in judged} == {
        ("unverified", "judge_unavailable")
    }
    assert {c.verdict for c in answer.claims} <= {"unverified", "uncited"}


def test_an_agent_past_its_timeout_ends_as_the_model_timeout_refusal(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an agent step that outlives its state's TimeoutSecondsPath (1 s here),
    import threading

    from tanda.pipeline import steps

    released = threading.Event()

    def stuck(*args: Any, **kwargs: Any) -> Any:
        released.wait(10)
        raise RuntimeError("too late")

    monkeypatch.setattr(steps, "agent_step", stuck)
    state = first_turn(deps)
    state["timeouts"]["agent_s"] = 1

    # when the answer runs, then States.Timeout is caught as AgentTimedOut: refusal(model_timeout).
    try:
        execution = run(aws, real_steps["machine"], state)
    finally:
        released.set()
    assert execution["status"] == "SUCCEEDED", execution
    assert steps.execution_output(execution["output"]).fallback == "model_timeout"


@pytest.mark.parametrize(
    ("step", "error", "expected"),
    [
        ("agent_step", "NothingReadable", "NothingReadable"),
        ("agent_step", "RuntimeError", "UpstreamFailed"),
        ("guard_step", "GuardUnavailable", "GuardUnavailable"),
        ("guard_step", "RuntimeError", "GuardUnavailable"),
    ],
)
def test_a_failing_step_fails_the_execution_with_the_error_the_runner_maps(
    aws: dict[str, Any],
    real_steps: dict[str, Any],
    deps: Any,
    monkeypatch: pytest.MonkeyPatch,
    step: str,
    error: str,
    expected: str,
) -> None:
    # Given a step whose handler raises,
    from tanda.guard.run import GuardUnavailable
    from tanda.pipeline import steps
    from tanda.pipeline.answer_v2 import NothingReadable
    from tanda.pipeline.runners.stepfunctions import failure_for

    raised = {
        "NothingReadable": NothingReadable,
        "GuardUnavailable": GuardUnavailable,
        "RuntimeError": RuntimeError,
    }[error]

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise raised()

    monkeypatch.setattr(steps, step, fail)

    # when the answer runs, then the execution fails with the Fail state's error, which the
    # runner turns back into the in-process exception (same HTTP status either way).
    execution = run(aws, real_steps["machine"], first_turn(deps))
    assert execution["status"] == "FAILED", execution
    assert execution.get("error") == expected
    mapped = failure_for(execution.get("error"))
    assert type(mapped).__name__ == {"UpstreamFailed": "ExecutionFailed"}.get(expected, expected)


def test_a_follow_up_answers_on_the_machine_like_the_in_process_runner(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any
) -> None:
    # Given a conversation follow-up (history with a verified earlier answer and a memory) and
    # a scenario citing the conversation,
    from tanda.contract import QueryV2Request
    from tanda.pipeline.answer_v2 import answer_v2
    from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner
    from tests.corpus import QUESTION, add_qanun
    from tests.unit.test_steps import FOLLOW_UP, follow_up_history

    deps.model.scenarios["follow_up"] = FOLLOW_UP
    add_qanun(deps.index, "acme", doc_id="earlier-doc", texts=["Laporan pendidikan daerah."])

    class SyncClient:
        """StartSyncExecution on moto's interpreter: start, then wait for the end."""

        def start_sync_execution(self, **request: Any) -> dict[str, Any]:
            return run(aws, request["stateMachineArn"], json.loads(request["input"]))

    runner = StepFunctionsRunner(SyncClient(), real_steps["machine"], deps.settings)
    body = QueryV2Request(query=QUESTION)

    # when the runner answers it on the machine with its history, and in-process,
    on_machine = runner.answer(
        "acme", body, scenario="follow_up", history=follow_up_history("several_documents")
    )
    local = answer_v2(
        deps, "acme", body, scenario="follow_up", history=follow_up_history("several_documents")
    )

    # then both see the conversation the same way (C2 alone: from_conversation).
    def seen(outcome: Any) -> Any:
        return (
            outcome.answer,
            [(c.text, c.verdict) for c in outcome.annotation.claims],
            list(outcome.passages),
        )

    assert seen(on_machine) == seen(local)
    assert ("Anggaran pendidikan 2023 adalah Rp 5 miliar.", "from_conversation") in seen(
        on_machine
    )[1]
