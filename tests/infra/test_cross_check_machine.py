"""The cross-check jobs in ``template.yaml`` (XC-2, XC-5): the STANDARD state machine of
``infra/statemachines/cross_check.asl.json`` wired to real step handlers with a way out of every
failure, the EventBridge Scheduler schedule (parameterised, disabled by default), and what each
function may touch (least privilege)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from samtranslator.yaml_helper import yaml_parse

from tanda.adapters.dynamodb_store import (
    JOB_PK_PREFIX,
    KEYS_PK,
    OPEN_JOBS_PK,
    RATE_PREFIX,
    TENANT_PREFIX,
)
from tanda.pipeline.cross_check import XcBatchResult, XcPlan, XcScheduleInput

REPO = Path(__file__).resolve().parents[2]
ASL = REPO / "infra" / "statemachines" / "cross_check.asl.json"
THROTTLING = "Lambda.TooManyRequestsException"
STEP_FUNCTIONS = [
    "CrossCheckOpenStepFunction",
    "CrossCheckPrepareStepFunction",
    "CrossCheckJudgeBatchStepFunction",
    "CrossCheckFinishStepFunction",
    "CrossCheckFailStepFunction",
]


def template() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
    return loaded


def resources() -> dict[str, Any]:
    found: dict[str, Any] = template()["Resources"]
    return found


def definition() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(ASL.read_text(encoding="utf-8"))
    return loaded


def all_states(states: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    for name, state in states.items():
        yield name, state, states
        for key in ("Iterator", "ItemProcessor"):
            if key in state:
                yield from all_states(state[key]["States"])


def statements(function: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for policy in resources()[function]["Properties"].get("Policies", []):
        if isinstance(policy, dict):
            found += policy.get("Statement", [])
    return found


def actions(statement: dict[str, Any]) -> list[str]:
    action = statement.get("Action", [])
    return [action] if isinstance(action, str) else list(action)


def dynamodb_keys(function: str) -> set[str]:
    keys: set[str] = set()
    for statement in statements(function):
        if any(a.startswith("dynamodb:") for a in actions(statement)):
            assert statement["Resource"] == {"Fn::GetAtt": ["TandaTable", "Arn"]}
            keys |= set(statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"])
    return keys


# --- the state machine -----------------------------------------------------------------------


def test_the_template_deploys_this_definition_as_a_standard_machine_without_data_in_logs() -> None:
    properties = resources()["CrossCheckStateMachine"]["Properties"]
    assert properties["Type"] == "STANDARD"
    assert (REPO / properties["DefinitionUri"]).resolve() == ASL.resolve()
    assert properties["Logging"]["IncludeExecutionData"] is False


def test_every_task_resolves_to_the_live_alias_of_a_step_function_with_a_handler() -> None:
    substitutions = resources()["CrossCheckStateMachine"]["Properties"]["DefinitionSubstitutions"]
    tasks = [s for _, s, _ in all_states(definition()["States"]) if s["Type"] == "Task"]
    assert len(tasks) == 5
    for task in tasks:
        found = re.fullmatch(r"\$\{(\w+)\}", task["Resource"])
        assert found, task["Resource"]
        function, _, attribute = substitutions[found.group(1)]["Ref"].partition(".")
        assert attribute == "Alias"
        code = resources()[function]["Properties"]["CodeUri"]
        assert code.startswith("functions/steps/xc_") and (REPO / code / "app.py").is_file()
    assert set(substitutions) == {
        m for t in tasks for m in re.findall(r"\$\{(\w+)\}", t["Resource"])
    }
    invoked = {
        p["LambdaInvokePolicy"]["FunctionName"]["Ref"]
        for p in resources()["CrossCheckStateMachine"]["Properties"]["Policies"]
        if "LambdaInvokePolicy" in p
    }
    assert invoked == set(STEP_FUNCTIONS)


def test_every_task_retries_throttling_and_every_failure_ends_the_job() -> None:
    states = {name: state for name, state, _ in all_states(definition()["States"])}
    for name, state in states.items():
        if state["Type"] != "Task":
            continue
        assert any(THROTTLING in r["ErrorEquals"] for r in state["Retry"]), name
        if name == "MarkFailed":
            # the last resort retries anything, then ends failed
            assert any(r["ErrorEquals"] == ["States.ALL"] for r in state["Retry"])
            assert states[state["Next"]]["Type"] == "Fail"
            continue
        catchers = state["Catch"]
        assert catchers[-1]["ErrorEquals"] == ["States.ALL"], name
        assert catchers[-1]["Next"] in {"MarkFailed", "ScheduleFailed", "BatchFailed"}, name
    assert states["JudgeBatches"]["Catch"][-1]["Next"] == "MarkFailed"
    assert states["Prepare"]["Catch"][0] == {
        "ErrorEquals": ["JobAlreadyFinished"],
        "Next": "AlreadyFinished",
    }


def test_every_next_names_a_state_of_the_same_scope_and_states_all_stands_alone() -> None:
    for name, state, siblings in all_states(definition()["States"]):
        targets = [state.get("Next"), state.get("Default")]
        targets += [c["Next"] for c in state.get("Choices", []) + state.get("Catch", [])]
        for target in filter(None, targets):
            assert target in siblings, (name, target)
        for rule in state.get("Catch", []) + state.get("Retry", []):
            if "States.ALL" in rule["ErrorEquals"]:
                assert rule["ErrorEquals"] == ["States.ALL"], name


def test_the_map_reads_its_concurrency_from_the_plan_and_a_failed_batch_is_a_batch_result() -> None:
    states = {name: state for name, state, _ in all_states(definition()["States"])}
    judge = states["JudgeBatches"]
    assert judge["ItemsPath"] == "$.batches"
    assert judge["MaxConcurrencyPath"] == "$.max_concurrency"
    assert {"batches", "max_concurrency", "stats", "job"} <= set(XcPlan.model_fields)
    # BatchFailed builds what tanda.pipeline.cross_check.failed_batch builds.
    built = {k.removesuffix(".$") for k in states["BatchFailed"]["Parameters"]}
    assert built == set(XcBatchResult.model_fields)
    assert states["BatchFailed"]["Parameters"]["verdicts"]["failed.$"] == (
        "States.ArrayLength($.pairs)"
    )


# --- the schedule (XC-5) ---------------------------------------------------------------------


def test_the_schedule_is_parameterised_and_disabled_by_default() -> None:
    parameters = template()["Parameters"]
    schedule = resources()["CrossCheckSchedule"]
    properties = schedule["Properties"]
    assert schedule["Condition"] == "HasCrossCheckSchedule"
    assert template()["Conditions"]["HasCrossCheckSchedule"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "CrossCheckScheduleTenant"}, ""]}]
    }
    assert properties["State"] == {"Ref": "CrossCheckScheduleState"}
    assert parameters["CrossCheckScheduleState"]["Default"] == "DISABLED"
    assert properties["ScheduleExpression"] == {"Ref": "CrossCheckScheduleExpression"}
    assert parameters["CrossCheckScheduleExpression"]["Default"].startswith("cron(")
    assert properties["Target"]["Arn"] == {"Ref": "CrossCheckStateMachine"}
    role = resources()[properties["Target"]["RoleArn"]["Fn::GetAtt"][0]]["Properties"]
    (policy,) = role["Policies"]
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert statement == {
        "Effect": "Allow",
        "Action": "states:StartExecution",
        "Resource": {"Ref": "CrossCheckStateMachine"},
    }


def test_the_schedules_input_is_what_the_machine_reads_for_any_parameters() -> None:
    text = resources()["CrossCheckSchedule"]["Properties"]["Target"]["Input"]["Fn::Sub"]
    values = {
        "AWS::StackName": "tanda-prod",
        "CrossCheckScheduleTenant": "acme",
        "CrossCheckScheduleDocumentIds": "doc_a, doc_b",
        "CrossCheckScheduleBatch": "",
        "CrossCheckScheduleSelection": "",
    }
    rendered = re.sub(r"\$\{([\w:]+)\}", lambda m: values[m.group(1)], text)
    schedule = XcScheduleInput.model_validate_json(rendered).schedule
    assert (schedule.name, schedule.tenant_id) == ("tanda-prod-cross-check", "acme")
    assert schedule.document_ids == ["doc_a", "doc_b"]
    assert schedule.batch_id is None and schedule.selection is None
    values["CrossCheckScheduleDocumentIds"] = ""
    values["CrossCheckScheduleBatch"] = "b1"
    rendered = re.sub(r"\$\{([\w:]+)\}", lambda m: values[m.group(1)], text)
    schedule = XcScheduleInput.model_validate_json(rendered).schedule
    assert schedule.document_ids == [] and schedule.batch_id == "b1"


# --- least privilege --------------------------------------------------------------------------


@pytest.mark.parametrize("function", ["V1CrossCheckFunction", "McpFunction"])
def test_the_route_starts_only_this_machine_and_touches_only_its_items(function: str) -> None:
    # McpFunction: its cross_check tool is the POST of the route (XC-5).
    every = [a for s in statements(function) for a in actions(s)]
    assert [a for a in every if a.startswith("states:")] == ["states:StartExecution"]
    (start,) = [s for s in statements(function) if "states:StartExecution" in actions(s)]
    assert start["Resource"] == {"Ref": "CrossCheckStateMachine"}
    assert dynamodb_keys(function) == {
        f"{TENANT_PREFIX}*",
        f"{RATE_PREFIX}*",
        f"{JOB_PK_PREFIX}*",
        OPEN_JOBS_PK,
        KEYS_PK,  # issue 27: the keys it authenticates with
    }
    variables = resources()[function]["Properties"]["Environment"]["Variables"]
    assert variables["TANDA_CROSS_CHECK_STATE_MACHINE_ARN"] == {"Ref": "CrossCheckStateMachine"}


@pytest.mark.parametrize("function", STEP_FUNCTIONS)
def test_a_step_touches_only_job_items_and_ledgers_and_the_judge_none(function: str) -> None:
    keys = dynamodb_keys(function)
    if function == "CrossCheckJudgeBatchStepFunction":
        assert keys == set()
    else:
        assert keys == {f"{JOB_PK_PREFIX}*", OPEN_JOBS_PK, f"{TENANT_PREFIX}*"}


def test_every_function_that_reads_the_index_may_read_the_collection() -> None:
    policy = str(resources()["SearchAccessPolicy"]["Properties"]["Policy"])
    for function in [*STEP_FUNCTIONS[:4], "V1CrossCheckFunction", "McpFunction"]:
        assert f"{function}Role.Arn" in policy, function
    assert "CrossCheckFailStepFunctionRole" not in policy
