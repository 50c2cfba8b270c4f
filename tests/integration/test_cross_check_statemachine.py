"""A cross-check job on AWS, offline (XC-2, XC-5): ``POST /v1/cross-check`` through its Lambda
entry point stores the job in DynamoDB (moto, tables from template.yaml) and starts the STANDARD
state machine of ``infra/statemachines/cross_check.asl.json``, which moto's interpreter runs with
the real step handlers (``functions/steps/xc_*/app.py``, called by a patched
``LambdaSimpleBackend.invoke``; an exception becomes a Lambda function error named after it, as
the Python runtime reports it). ``GET`` through the same entry point reads the result: the same
findings as the embedded worker pool's run; failures end stored ``failed`` and refunded; a
schedule's input creates its job and the scheduled listing shows it."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tanda.auth.api_keys import hash_api_key
from tanda.settings import Settings, load_settings
from tanda.wiring import Runtime
from tests.aws import REGION, create_table_from_template
from tests.cross_check import ingest_statutes
from tests.infra.test_template import (
    FUNCTIONS,
    LambdaContext,
    handler_target,
    load_module_file,
    rest_api_event,
)

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
ASL = REPO / "infra" / "statemachines" / "cross_check.asl.json"
KEY = "dip_live_machine"
STEPS = {
    "OpenScheduledJobStepArn": "xc_open",
    "PrepareStepArn": "xc_prepare",
    "JudgeBatchStepArn": "xc_judge_batch",
    "FinishStepArn": "xc_finish",
    "FailStepArn": "xc_fail",
}


def load_step(step: str) -> Any:
    path = REPO / "functions" / "steps" / step / "app.py"
    spec = importlib.util.spec_from_file_location(f"tanda_step_{step}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.handler


class Deployment:
    def __init__(self, sfn: Any, machine: str, route: Any, home: Path) -> None:
        self.sfn, self.machine, self.route, self.home = sfn, machine, route, home

    def call(self, method: str, path: str, body: Any = None, **query: str) -> dict[str, Any]:
        """The route's Lambda handler with a REST proxy event, on a thread of its own."""
        event = rest_api_event(method, path)
        headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
        event["headers"].update(headers)
        event["multiValueHeaders"].update({k: [v] for k, v in headers.items()})
        if query:
            event["queryStringParameters"] = query
            event["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()}
        if body is not None:
            event["body"] = json.dumps(body)
        results: list[dict[str, Any]] = []

        def run() -> None:
            asyncio.set_event_loop(asyncio.new_event_loop())
            results.append(self.route(event, LambdaContext()))

        worker = threading.Thread(target=run)
        worker.start()
        worker.join(timeout=60)
        (response,) = results
        return response

    def executions(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = self.sfn.list_executions(stateMachineArn=self.machine)[
            "executions"
        ]
        return listed

    def finished_execution(self, arn: str | None = None) -> dict[str, Any]:
        limit = time.monotonic() + 60
        while True:
            arns = [arn] if arn else [e["executionArn"] for e in self.executions()]
            described = [self.sfn.describe_execution(executionArn=a) for a in arns]
            if described and all(d["status"] != "RUNNING" for d in described):
                return described[-1]
            assert time.monotonic() < limit, described
            time.sleep(0.05)

    def start(self, state: dict[str, Any]) -> dict[str, Any]:
        started = self.sfn.start_execution(stateMachineArn=self.machine, input=json.dumps(state))
        return self.finished_execution(started["executionArn"])

    @property
    def runtime(self) -> Runtime:
        return Runtime(settings=Settings(home=self.home))


@pytest.fixture
def documents(tmp_path: Path) -> list[str]:
    home = tmp_path / "home"
    return ingest_statutes(Runtime(settings=Settings(home=home)).search_index, tmp_path / "laws")


@pytest.fixture
def deployed(
    tmp_path: Path, documents: list[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Deployment]:
    import boto3
    from moto import mock_aws
    from moto.awslambda_simple.models import LambdaSimpleBackend

    home = tmp_path / "home"
    environment = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": REGION,
        "TANDA_HOME": str(home),
        "TANDA_STORE": "dynamodb",
        "TANDA_DYNAMODB_TABLE": "tanda-machine",
        "TANDA_INDEX": "sqlite",
        "TANDA_MODEL": "offline",
        "TANDA_RUNNER": "stepfunctions",
        "TANDA_V1_API_KEY_HASHES": json.dumps({hash_api_key(KEY): "acme"}),
        "TANDA_INITIAL_CREDITS": "1",
        "TANDA_XC_BATCH_SIZE": "2",
    }
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    config = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}
    with mock_aws(config=config):  # type: ignore[arg-type]
        create_table_from_template(
            boto3.client("dynamodb", region_name=REGION), "TandaTable", "tanda-machine"
        )
        iam = boto3.client("iam", region_name=REGION)
        role = iam.create_role(
            RoleName="xc", AssumeRolePolicyDocument=json.dumps({"Statement": []})
        )["Role"]["Arn"]
        functions = boto3.client("lambda", region_name=REGION)
        definition = ASL.read_text(encoding="utf-8")
        for key, step in STEPS.items():
            functions.create_function(
                FunctionName=f"tanda-{step}",
                Runtime="python3.12",
                Role=role,
                Handler="app.handler",
                Code={"ZipFile": b"steps"},
            )
            arn = f"arn:aws:lambda:{REGION}:123456789012:function:tanda-{step}"
            definition = definition.replace("${" + key + "}", arn)
        sfn = boto3.client("stepfunctions", region_name=REGION)
        machine = sfn.create_state_machine(
            name="cross-check", definition=definition, roleArn=role, type="STANDARD"
        )["stateMachineArn"]
        monkeypatch.setenv("TANDA_CROSS_CHECK_STATE_MACHINE_ARN", machine)
        load_settings.cache_clear()

        handlers = {step: load_step(step) for step in STEPS.values()}

        def invoke(
            self: Any, function_name: str, qualifier: Any, body: Any, headers: Any, response: Any
        ) -> bytes:
            step = function_name.rsplit(":", 1)[-1].removeprefix("tanda-")
            try:
                result = handlers[step](json.loads(body), LambdaContext())
            except Exception as error:  # what the Lambda Python runtime reports
                response["x-amz-function-error"] = "Unhandled"
                return json.dumps(
                    {"errorType": type(error).__name__, "errorMessage": str(error)}
                ).encode()
            return json.dumps(result).encode()

        monkeypatch.setattr(LambdaSimpleBackend, "invoke", invoke)
        entry, attribute = handler_target(FUNCTIONS["V1CrossCheckFunction"])
        route = getattr(load_module_file(entry, "tanda_entry_v1_cross_check"), attribute)
        yield Deployment(sfn, machine, route, home)
    load_settings.cache_clear()


def body_of(response: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(response["body"])
    return loaded


def embedded_findings(tmp_path: Path, documents: list[str]) -> list[dict[str, Any]]:
    """The same documents cross-checked by the embedded runner (SQLite store, in-process)."""
    from tanda.auth import Principal
    from tanda.contract.v1_cross_check import V1CrossCheckRequest
    from tanda.pipeline.cross_check import XcJobRef
    from tanda.pipeline.runners.cross_check import run_cross_check
    from tanda.service.cross_check import cross_check_status, start_cross_check

    runtime = Runtime(settings=Settings(home=tmp_path / "home", store="sqlite", runner="inprocess"))
    caller = Principal(tenant_id="acme", partner_id="t", subject="t", is_test=True)
    body = V1CrossCheckRequest(document_ids=documents)
    job_id = start_cross_check(runtime, caller, body, launch=False).id
    run_cross_check(runtime.cross_check_ports(), XcJobRef(tenant_id="acme", job_id=job_id))
    return [
        f.model_dump(mode="json")
        for f in cross_check_status(runtime, caller, job_id).findings or []
    ]


def test_a_job_runs_through_the_state_machine_with_the_findings_of_the_embedded_run(
    deployed: Deployment, documents: list[str], tmp_path: Path
) -> None:
    # When the route's Lambda is posted two documents,
    posted = deployed.call("POST", "/v1/cross-check", {"document_ids": documents})

    # then it answers 202 and one execution of the machine, named after the job, runs it
    assert posted["statusCode"] == 202, posted
    job_id = body_of(posted)["id"]
    execution = deployed.finished_execution()
    assert execution["status"] == "SUCCEEDED", execution
    assert execution["name"] == job_id
    assert json.loads(execution["output"]) == {"tenant_id": "acme", "job_id": job_id}

    # to the same findings as the embedded worker pool finds, charged once in DynamoDB.
    view = body_of(deployed.call("GET", f"/v1/cross-check/{job_id}"))
    assert view["status"] == "completed" and view["version"] == "xchk-v4"
    assert view["findings"] == embedded_findings(tmp_path, documents)
    assert [f["kind"] for f in view["findings"]] == ["contradiction", "support"]
    assert view["cost"] == {"credits_charged": "0.20", "test_key": False}
    account = deployed.runtime.store.credit_account("acme", opening=Decimal(1))
    assert account.balance == Decimal("0.80")


def test_a_failing_step_ends_in_mark_failed_the_job_failed_and_refunded(
    deployed: Deployment, documents: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tanda.pipeline import cross_check

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise cross_check.DocumentsUnavailable()

    monkeypatch.setattr(cross_check, "prepare_cross_check", broken)
    job_id = body_of(deployed.call("POST", "/v1/cross-check", {"document_ids": documents}))["id"]

    execution = deployed.finished_execution()
    assert (execution["status"], execution.get("error")) == ("FAILED", "CrossCheckFailed")
    view = body_of(deployed.call("GET", f"/v1/cross-check/{job_id}"))
    assert view["status"] == "failed" and view["error"]["code"] == "documents_unavailable"
    account = deployed.runtime.store.credit_account("acme", opening=Decimal(1))
    assert account.balance == Decimal("1.00") and account.usage_of("cross_check").refunded == 1


def test_a_batch_that_fails_counts_its_pairs_failed_and_the_job_completes(
    deployed: Deployment, documents: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tanda.pipeline import cross_check

    judge = cross_check.judge_cross_check_batch

    def first_fails(ports: Any, batch: Any, **kwargs: Any) -> Any:
        if batch.index == 0:
            raise RuntimeError("the batch's Lambda died")
        return judge(ports, batch, **kwargs)

    monkeypatch.setattr(cross_check, "judge_cross_check_batch", first_fails)
    job_id = body_of(deployed.call("POST", "/v1/cross-check", {"document_ids": documents}))["id"]

    assert deployed.finished_execution()["status"] == "SUCCEEDED"
    view = body_of(deployed.call("GET", f"/v1/cross-check/{job_id}"))
    assert view["status"] == "completed"
    assert view["stats"]["verdicts"]["failed"] == 2  # the first batch's two pairs (BatchFailed)


def test_a_repeated_start_of_a_finished_job_changes_nothing(
    deployed: Deployment, documents: list[str]
) -> None:
    job_id = body_of(deployed.call("POST", "/v1/cross-check", {"document_ids": documents}))["id"]
    deployed.finished_execution()
    before = deployed.runtime.store.job("acme", job_id)

    again = deployed.start({"job": {"tenant_id": "acme", "job_id": job_id}})

    assert again["status"] == "SUCCEEDED"
    assert deployed.runtime.store.job("acme", job_id) == before


def test_a_scheduled_run_stores_its_job_like_any_other_and_is_listed_as_scheduled(
    deployed: Deployment, documents: list[str]
) -> None:
    # Given the input the template's schedule sends (ids as one comma-separated string, unset
    # parameters as ""),
    schedule = {
        "name": "stack-cross-check",
        "tenant_id": "acme",
        "document_ids": ",".join(documents),
        "batch_id": "",
        "selection": "",
    }

    # when the schedule starts the machine, then the job is created, charged and completed,
    execution = deployed.start({"schedule": schedule})
    assert execution["status"] == "SUCCEEDED", execution
    job_id = json.loads(execution["output"])["job_id"]
    view = body_of(deployed.call("GET", f"/v1/cross-check/{job_id}"))
    assert view["status"] == "completed" and len(view["findings"]) == 2

    # and the scheduled listing shows it.
    listed = body_of(deployed.call("GET", "/v1/cross-check", scheduled="true"))
    assert [(j["id"], j["schedule"]) for j in listed["jobs"]] == [(job_id, "stack-cross-check")]
    assert body_of(deployed.call("GET", "/v1/cross-check", scheduled="false"))["jobs"] == []


def test_a_schedule_whose_documents_are_gone_stores_a_failed_job_that_paid_nothing(
    deployed: Deployment, documents: list[str]
) -> None:
    schedule = {"name": "nightly", "tenant_id": "acme", "document_ids": f"{documents[0]},gone"}
    execution = deployed.start({"schedule": schedule})
    # The job is stored failed at once; Prepare finds it finished (AlreadyFinished).
    assert execution["status"] == "SUCCEEDED", execution
    (job,) = body_of(deployed.call("GET", "/v1/cross-check", scheduled="true"))["jobs"]
    view = body_of(deployed.call("GET", f"/v1/cross-check/{job['id']}"))
    assert view["error"]["code"] == "too_few_documents"
    usage = deployed.runtime.store.credit_account("acme", opening=Decimal(1)).usage_of(
        "cross_check"
    )
    assert (usage.charged, usage.refunded) == (0, 0)
