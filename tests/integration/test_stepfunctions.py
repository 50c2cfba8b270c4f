"""The query state machine executed by moto's Step Functions interpreter (``mock_aws`` with
``execute_state_machine``), offline.

What moto can and cannot do here: it parses and interprets the ASL (Choice, Parallel, Map,
Pass, InputPath/TimeoutSecondsPath), but its Lambda backend without Docker does not run our
code: an invoked function echoes its input back, and it never fails or times out (even a
function that does not exist echoes). So these tests script the task results through the input
and prove the *routing*: a refusal ends at ``Finished``; work fans out into one Map iteration per
judge batch and the framing check, and reaches ``Guard`` with both results. The Catch → fallback
paths cannot be driven under moto; they are checked on the definition
(``tests/infra/test_statemachine.py``), and the fallback outputs are fed to the real steps in
``tests/unit/test_steps.py``, which also proves the chained steps answer like the in-process
runner.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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
