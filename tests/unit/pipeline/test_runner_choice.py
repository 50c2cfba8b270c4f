"""Which runner answers (DESIGN §4): ``tanda.wiring`` chooses one per process, and every answering
use case — /query/v2 and its stream, /query and its stream, the playground — hands its turn to it
as one request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tanda.auth import Principal
from tanda.contract import QueryV2Request
from tanda.contract.common import FallbackReason
from tanda.contract.playground import PlaygroundRequest
from tanda.contract.query_v1 import QueryV1Request
from tanda.pipeline.request import AnswerRequest
from tanda.pipeline.runners.cross_check import StepFunctionsJobs
from tanda.pipeline.runners.in_process import InProcessRunner
from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner
from tanda.pipeline.states import AnswerOutcome
from tanda.service import turn
from tanda.service.answer_v1 import QUERY_V1, answer_v1_request
from tanda.service.answer_v2 import QUERY_V2, answer_v2
from tanda.service.playground import run_playground
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.corpus import QUESTION
from tests.fakes import InMemorySearchIndex, ManualClock

ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:query"
USER = Principal(tenant_id="acme", partner_id="https://idp.partner.example", subject="u")


class FakeRunner:
    """Records each request (and its callbacks) and answers a fixed refusal."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def run(self, request: AnswerRequest, **callbacks: Any) -> AnswerOutcome:
        self.calls.append({"request": request, **callbacks})
        return AnswerOutcome.refusal(FallbackReason.model_timeout)


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    runtime = Runtime(
        settings=Settings(home=tmp_path, admin_rate_per_minute=10), clock=ManualClock()
    )
    runtime.__dict__.update(runner=FakeRunner(), search_index=InMemorySearchIndex(), embedder=None)
    return runtime


def recorded(runtime: Runtime) -> dict[str, Any]:
    runner = runtime.runner
    assert isinstance(runner, FakeRunner)
    (call,) = runner.calls
    return call


@pytest.mark.parametrize(
    ("runner", "expected"),
    [("inprocess", InProcessRunner), ("stepfunctions", StepFunctionsRunner)],
)
def test_the_factory_builds_the_runner_the_settings_name(
    tmp_path: Path, runner: str, expected: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable, value in {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }.items():
        monkeypatch.setenv(variable, value)  # a client is built, nothing is sent
    settings = Settings(home=tmp_path, runner=runner, query_state_machine_arn=ARN)
    runtime = Runtime(settings=settings)
    runtime.__dict__.update(search_index=InMemorySearchIndex(), embedder=None)
    assert isinstance(runtime.runner, expected)


def test_an_unknown_runner_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="TANDA_RUNNER"):
        _ = Runtime(settings=Settings(home=tmp_path, runner="celery")).runner


def test_a_v2_turn_is_one_request_on_the_runner(runtime: Runtime) -> None:
    response = answer_v2(runtime, USER, QueryV2Request(query=QUESTION), scenario="default")
    request = recorded(runtime)["request"]
    assert response.fallback_reason == "model_timeout"  # the runner's answer
    assert (request.tenant_id, request.mode, request.scenario) == ("acme", "annotate-v2", "default")
    assert request.trace_id == response.trace_id
    assert request.started_at == runtime.clock() and request.deadline_ms == 60_000


def test_a_v1_turn_runs_in_the_gate_mode_on_the_runner(runtime: Runtime) -> None:
    body = QueryV1Request(query=QUESTION, offer_artifacts=True)
    response = answer_v1_request(runtime, USER, body)
    request = recorded(runtime)["request"]
    assert request.mode == "v1-gate"
    assert response.fallback_reason == "model_timeout"
    # offer_artifacts is v1's own (accepted, ignored): the pipeline's request speaks no wire body
    # (issue 24), only what a turn asks.
    assert request.query == QUESTION and "offer_artifacts" not in request.model_dump()


def test_the_playground_turn_carries_its_editorial_prompt_to_the_runner(runtime: Runtime) -> None:
    admin = Principal(tenant_id="acme", partner_id="https://idp.admin.example", subject="a")
    body = PlaygroundRequest(query=QUESTION, editorial_prompt="Jawab singkat.")
    response = run_playground(runtime, admin, body)
    request = recorded(runtime)["request"]
    assert (request.mode, request.editorial_prompt) == ("annotate-v2", "Jawab singkat.")
    assert request.trace_id == response.playground_run_id


@pytest.mark.parametrize("route", ["v2", "v1"])
def test_a_stream_turn_hands_its_progress_and_abandonment_to_the_runner(
    runtime: Runtime, route: str
) -> None:
    def emit(frame: object) -> None:
        pass

    def abandoned() -> bool:
        return False

    if route == "v2":
        body = QueryV2Request(query=QUESTION, selection="anggaran")
        prepared = turn.prepare(runtime, USER, body, QUERY_V2)
        turn.complete(runtime, prepared, body, QUERY_V2, progress=emit, abandoned=abandoned)
    else:
        body = QueryV1Request(query=QUESTION, selection="anggaran")
        prepared = turn.prepare(runtime, USER, body, QUERY_V1)
        turn.complete(runtime, prepared, body, QUERY_V1, progress=emit, abandoned=abandoned)
    call = recorded(runtime)
    assert call["progress"] is emit and call["abandoned"] is abandoned
    assert call["request"].scope.selection == "anggaran"  # the turn's scope (CV-1)


def test_a_turn_outside_its_conversation_s_scope_never_reaches_the_runner(
    runtime: Runtime,
) -> None:
    from tanda.contract.conversations import CreateConversationRequest
    from tanda.service.conversations import start_conversation

    bound = start_conversation(runtime, USER, CreateConversationRequest(document_ids=["a"]))
    body = QueryV2Request(query=QUESTION, conversation_id=bound.conversation_id, document_ids=["b"])
    response = answer_v2(runtime, USER, body)
    assert response.fallback_reason == "source_out_of_scope"
    runner = runtime.runner
    assert isinstance(runner, FakeRunner) and runner.calls == []


def test_a_step_lambda_publishes_the_frames_the_in_process_runner_hands_its_callback(
    tmp_path: Path,
) -> None:
    from tanda.adapters.scripted import ScriptedModel
    from tanda.pipeline.steps import agent_step
    from tests.corpus import add_qanun
    from tests.unit.pipeline.conftest import SCENARIOS

    # Given a runtime as a step Lambda builds it (its Progress port: memory here, DynamoDB on AWS)
    runtime = Runtime(settings=Settings(home=tmp_path))
    index = InMemorySearchIndex()
    add_qanun(index, "acme")
    runtime.__dict__.update(
        search_index=index, embedder=None, model=ScriptedModel.from_dir(SCENARIOS)
    )
    request = AnswerRequest.starting("acme", QUESTION, runtime.settings, started_at=runtime.clock())
    in_process: list[object] = []
    runtime.runner.run(request, progress=in_process.append)

    # when its agent step runs the turn under a progress id, and under none,
    agent_step(request, runtime.step_deps(), runtime.agent_ports("r1"))
    assert runtime.agent_ports(None).progress is None

    # then a reader of that id gets the frames the in-process callback got, in order.
    assert [event.frame for event in runtime.progress.read("r1")] == in_process
    assert len(in_process) == 2


# --- the deployment mode stays in the factory (issue 24) ---------------------------------------


@pytest.fixture
def aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable, value in {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }.items():
        monkeypatch.setenv(variable, value)  # clients are built, nothing is sent


@pytest.mark.parametrize(
    ("runner", "store", "expected"),
    [
        ("stepfunctions", "dynamodb", "DynamoProgress"),
        ("stepfunctions", "sqlite", "DynamoProgress"),
        ("inprocess", "dynamodb", "MemoryProgress"),
        ("inprocess", "sqlite", "MemoryProgress"),
    ],
)
def test_the_progress_channel_is_where_the_runner_s_steps_and_the_stream_meet(
    tmp_path: Path, aws_credentials: None, runner: str, store: str, expected: str
) -> None:
    # On the state machine the agent step and the stream are different Lambdas: the frames
    # travel through DynamoDB whatever the store; in one process they stay in its memory.
    settings = Settings(home=tmp_path, runner=runner, store=store)
    assert type(Runtime(settings=settings).progress).__name__ == expected


@pytest.mark.parametrize(
    ("runner", "here", "status"),
    [("inprocess", True, "available"), ("stepfunctions", False, "configured")],
)
def test_the_runtime_says_where_cross_check_jobs_run(
    tmp_path: Path, runner: str, here: bool, status: str
) -> None:
    runtime = Runtime(settings=Settings(home=tmp_path, runner=runner))
    assert runtime.runs_jobs_here is here
    reported = runtime.job_runner_status()
    assert (reported.status, reported.detail) == (status, f"{runner} runner of cross-check jobs")


def test_an_answer_start_is_never_retried_and_a_job_start_keeps_the_sdk_retries(
    tmp_path: Path, aws_credentials: None
) -> None:
    # A retried StartSyncExecution would answer twice; a job's StartExecution is named after
    # the job, so Step Functions starts it once however often it is sent.
    settings = Settings(
        home=tmp_path,
        runner="stepfunctions",
        query_state_machine_arn=ARN,
        cross_check_state_machine_arn=ARN.replace("query", "xc"),
    )
    runtime = Runtime(settings=settings)
    runtime.__dict__.update(search_index=InMemorySearchIndex(), embedder=None)
    answers, jobs = runtime.runner, runtime.cross_check_jobs
    assert isinstance(answers, StepFunctionsRunner) and isinstance(jobs, StepFunctionsJobs)
    answer_client: Any = answers.client
    job_client: Any = jobs.client
    assert answer_client.meta.config.retries["total_max_attempts"] == 1  # the first call only
    assert "total_max_attempts" not in job_client.meta.config.retries  # the SDK's default
