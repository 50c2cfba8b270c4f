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
  Catch and timeout paths executable, and lets every answering route run on the machine: the
  Step Functions runner must give the same body as the in-process runner, for every scenario on
  every route (/query/v2 and its stream, /query and its stream, /playground).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from httpx_sse import connect_sse

from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.corpus import QUESTION
from tests.unit.pipeline.conftest import clock, deps, index, model

from .credentials import ADMIN, API_KEY, partner_headers, settings_for, sign

__all__ = ["clock", "deps", "index", "model"]  # the pipeline tests' corpus and scripted model

REPO = Path(__file__).resolve().parents[2]
ASL = REPO / "infra" / "statemachines" / "query.asl.json"
SCENARIOS = REPO / "tests" / "scenarios"
REGION = "us-east-1"
STEPS = {
    "AgentStepArn": "agent",
    "JudgeBatchStepArn": "judge_batch",
    "FramingCheckStepArn": "framing_check",
    "GuardStepArn": "guard",
}


@contextmanager
def mocked_aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
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


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    with mocked_aws(monkeypatch) as clients:
        yield clients


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


def run(
    aws: dict[str, Any], machine: str, state: dict[str, Any], name: str | None = None
) -> dict[str, Any]:
    sfn = aws["sfn"]
    started = sfn.start_execution(
        stateMachineArn=machine, input=json.dumps(state), name=name or uuid.uuid4().hex
    )
    deadline = time.monotonic() + 30
    while True:
        described: dict[str, Any] = sfn.describe_execution(executionArn=started["executionArn"])
        if described["status"] != "RUNNING" or time.monotonic() > deadline:
            return described
        time.sleep(0.02)


class SyncClient:
    """``StartSyncExecution`` on moto's interpreter: start, then wait for the end."""

    def __init__(self, aws: dict[str, Any]) -> None:
        self.aws = aws

    def start_sync_execution(self, **request: Any) -> dict[str, Any]:
        state = json.loads(request["input"])
        return run(self.aws, request["stateMachineArn"], state, request.get("name"))


def checks_work(batches: int) -> dict[str, Any]:
    """An agent result with ``batches`` judge batches and a framing check to run."""
    timeouts = {"agent_s": 5, "checks_s": 5, "guard_s": 2}
    return {
        "done": None,
        "timeouts": timeouts,
        "work": {
            "question": "q",
            "judge_batches": [{"batch_index": b, "timeout_s": 5} for b in range(batches)],
            "timeouts": timeouts,
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
    assert framing["work"]["question"] == "q"  # the framing task gets the whole state
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


def step_runtime(
    settings: Settings,
    index: Any,
    model: Any,
    reranker: Any = None,
    clock: Callable[[], float] = time.time,
) -> Runtime:
    """The runtime a step Lambda builds, on the given adapters (its Progress port in memory) and
    ``clock`` (the pipeline tests' manual clock: their scripted latencies spend it)."""
    from tanda.adapters.memory_progress import MemoryProgress

    runtime = Runtime(settings=settings, clock=clock)
    runtime.__dict__.update(
        search_index=index,
        model=model,
        embedder=None,
        reranker=reranker,
        progress=MemoryProgress(),
    )
    return runtime


def serve_steps(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """moto's Lambda invokes the real step handlers, on ``runtime``."""
    from moto.awslambda_simple.models import LambdaSimpleBackend

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


@pytest.fixture
def real_steps(
    aws: dict[str, Any], deps: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """moto's Lambda invokes the real step handlers over the test corpus and scripted model."""
    runtime = step_runtime(deps.settings, deps.index, deps.model, deps.reranker, deps.clock)
    serve_steps(runtime, monkeypatch)
    yield {"runtime": runtime, "machine": deploy(aws)}


def first_turn(deps: Any, scenario: str = "default") -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(deps.request(QUESTION, scenario=scenario).model_dump_json())
    return loaded


def test_real_handlers_answer_on_the_machine(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any
) -> None:
    # Given the real handlers behind the machine, when a first turn runs,
    from tanda.pipeline.runners.stepfunctions import execution_output

    execution = run(aws, real_steps["machine"], first_turn(deps))

    # then it succeeds with a judged, guarded answer.
    assert execution["status"] == "SUCCEEDED", execution
    answer = execution_output(execution["output"])
    assert answer.fallback is None
    assert answer.annotation.claims and all(c.verdict for c in answer.annotation.claims)


@pytest.mark.parametrize(("fault", "status"), [("fail", "error"), ("hang", "timeout")])
def test_a_failed_or_late_search_ends_the_execution_as_the_404_with_its_status(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any, fault: str, status: str
) -> None:
    # Given the agent step's index failing (or hanging past a 50 ms tool deadline),
    from tanda.pipeline.runners.stepfunctions import execution_output
    from tanda.pipeline.steps import NothingReadable
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
        execution_output(execution["output"])
    assert (raised.value.tool, raised.value.tool_status) == ("search", status)


def test_a_judge_batch_that_raises_ends_as_unverified_judge_unavailable(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a judge batch task that fails (the Lambda raises),
    from tanda.pipeline import steps
    from tanda.pipeline.runners.stepfunctions import execution_output

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("judge crashed")

    monkeypatch.setattr(steps, "judge_batch_step", crash)

    # when the answer runs, then the Catch builds JudgeBatchUnavailable, and the guard publishes
    # the answer with every judged segment unverified(judge_unavailable) (V2-10).
    execution = run(aws, real_steps["machine"], first_turn(deps))
    assert execution["status"] == "SUCCEEDED", execution
    answer = execution_output(execution["output"])
    assert answer.fallback is None
    judged = [o for o in answer.outcomes if o.unverified_reason is not None]
    assert judged, answer.outcomes
    assert {(o.verdict, o.unverified_reason) for o in judged} == {
        ("unverified", "judge_unavailable")
    }
    assert {c.verdict for c in answer.annotation.claims} <= {"unverified", "uncited"}


def test_an_agent_past_its_timeout_ends_as_the_model_timeout_refusal(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an agent step that outlives its state's TimeoutSecondsPath (1 s here),
    import threading

    from tanda.pipeline import steps
    from tanda.pipeline.runners.stepfunctions import execution_output

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
    assert execution_output(execution["output"]).fallback == "model_timeout"


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
    from tanda.agent.tool_loop import AgentUnavailable
    from tanda.guard.policy_guard import GuardUnavailable
    from tanda.pipeline import steps
    from tanda.pipeline.runners.stepfunctions import failure_for
    from tanda.pipeline.steps import NothingReadable

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
    assert (
        type(mapped)
        is {
            "UpstreamFailed": AgentUnavailable,
            "NothingReadable": NothingReadable,
            "GuardUnavailable": GuardUnavailable,
        }[expected]
    )


def test_a_follow_up_answers_on_the_machine_like_the_in_process_runner(
    aws: dict[str, Any], real_steps: dict[str, Any], deps: Any
) -> None:
    # Given a conversation follow-up (history with a verified earlier answer and a memory) and
    # a scenario citing the conversation,
    from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner
    from tests.unit.pipeline.conftest import follow_up_history, with_follow_ups

    with_follow_ups(deps.model, deps.index)
    channel = real_steps["runtime"].progress
    runner = StepFunctionsRunner(SyncClient(aws), real_steps["machine"], channel)

    # when the runner answers it on the machine with its history, and in-process,
    def turn() -> Any:
        history = follow_up_history("several_documents")
        return deps.request(QUESTION, scenario="follow_up", history=history)

    on_machine = runner.run(turn())
    local = deps.runner().run(turn())

    # then both answer the same (wall times aside), C2 alone from_conversation.
    def seen(outcome: Any) -> Any:
        return (
            outcome.model_dump(exclude={"model_calls", "tool_audit"}),
            [(c.role, c.outcome) for c in outcome.model_calls],
            [(a.tool, a.arguments, a.status, a.result_count) for a in outcome.tool_audit],
        )

    assert seen(on_machine) == seen(local)
    claims = [(c.text, c.verdict) for c in on_machine.annotation.claims]
    assert ("Anggaran pendidikan 2023 adalah Rp 5 miliar.", "from_conversation") in claims


# --- every answering route: the same body on the state machine as in-process --------------------

ROUTES = ("query_v2", "query_v2_stream", "query_v1", "query_v1_stream", "playground")
SCENARIO_NAMES = sorted(p.stem for p in SCENARIOS.glob("*.json"))
EDITORIAL = "Jawab dengan jelas dan ringkas dalam Bahasa Indonesia."


@dataclass(frozen=True)
class Deployments:
    """The same app twice over the same corpus and scripted model: answering in-process, and on
    the state machine (moto, the real step handlers)."""

    in_process: str
    state_machine: str
    key: ed25519.Ed25519PrivateKey


@pytest.fixture(scope="module")
def deployments(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployments]:
    from tanda.api.app import create_app
    from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner
    from tests.corpus import add_qanun
    from tests.fakes import InMemorySearchIndex, scripted_model
    from tests.servers import serving

    key = ed25519.Ed25519PrivateKey.generate()
    index = InMemorySearchIndex()
    add_qanun(index, "acme")
    model = scripted_model()  # its latencies on a clock of its own: they cost no wall time

    def settings() -> Settings:
        # The pipeline tests' deadline and budget: judge_deadline's 5 s judge times out at once.
        return settings_for(
            tmp_path_factory.mktemp("home"),
            key,
            model=f"scripted:{SCENARIOS}",
            request_deadline_s=2.0,
            model_call_budget=12,
            admin_rate_per_minute=10_000,
            admin_rate_burst=10_000,
        )

    def runtime(**adapters: Any) -> Runtime:
        built = Runtime(settings=settings())
        built.__dict__.update(search_index=index, model=model, embedder=None, **adapters)
        return built

    with (
        pytest.MonkeyPatch.context() as monkeypatch,
        mocked_aws(monkeypatch) as clients,
    ):
        steps_runtime = step_runtime(settings(), index, model)
        serve_steps(steps_runtime, monkeypatch)
        runner = StepFunctionsRunner(SyncClient(clients), deploy(clients), steps_runtime.progress)
        with (
            serving(create_app(runtime())) as in_process,
            serving(create_app(runtime(runner=runner))) as state_machine,
        ):
            yield Deployments(in_process, state_machine, key)


def answer(base_url: str, key: ed25519.Ed25519PrivateKey, route: str, scenario: str) -> Any:
    """The route's response to the question under ``scenario``, its ids and timings replaced."""
    opt_ins = {"include_grounding": True, "include_provenance": True}
    user = {**partner_headers(key), "X-Tanda-Scenario": scenario}
    admin = {**user, "X-API-Key": API_KEY, "Authorization": f"Bearer {sign(key, ADMIN)}"}
    path, headers, body = {
        "query_v2": ("/query/v2", user, {**opt_ins, "include_proof": True}),
        "query_v2_stream": ("/query/v2/stream", user, {}),
        "query_v1": ("/query", user, opt_ins),
        "query_v1_stream": ("/query/stream", user, {}),
        "playground": ("/playground", admin, {"editorial_prompt": EDITORIAL, **opt_ins}),
    }[route]
    payload = {"query": QUESTION, **body}
    with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
        if not route.endswith("_stream"):
            response = client.post(path, json=payload)
            return {"status": response.status_code, "body": without_ids(response.json())}
        with connect_sse(client, "POST", path, json=payload) as source:
            status = source.response.status_code
            frames = [(e.event, without_ids(json.loads(e.data))) for e in source.iter_sse()]
        return {"status": status, "frames": frames}


IDS = ("conversation_id", "message_id", "trace_id", "playground_run_id")


def without_ids(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with its per-request ids and wall times out of the way. Model calls are compared
    by role and outcome, those still out at the deadline left out: a call cut off by the deadline
    is logged when its thread gives up, which may be after the answer was returned (either
    runner)."""
    kept = {k: ("…" if k in IDS and v else v) for k, v in data.items() if k != "latency_ms"}
    calls = kept.pop("model_call_log", None)
    if calls is not None:
        kept["model_calls"] = [
            (c["role"], c["outcome"]) for c in calls if c["outcome"] != "deadline"
        ]
    for audit in kept.get("tool_call_audit") or []:
        audit.pop("latency_ms")
    return kept


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_the_state_machine_answers_every_route_with_the_in_process_body(
    deployments: Deployments, scenario: str, route: str
) -> None:
    # Given the same app, corpus and scripted model, answering in-process and on the machine,
    # when the route answers the scenario on each (at once),
    from concurrent.futures import ThreadPoolExecutor

    urls = (deployments.in_process, deployments.state_machine)
    with ThreadPoolExecutor(max_workers=2) as pool:
        bodies = list(pool.map(lambda url: answer(url, deployments.key, route, scenario), urls))

    # then the bodies (or frames) are the same.
    in_process, state_machine = bodies
    assert state_machine == in_process
