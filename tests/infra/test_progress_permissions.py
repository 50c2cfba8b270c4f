"""The progress events cross from the agent step to the stream functions through ``TandaTable``:
each side holds exactly the permissions and settings it needs (issue 7, least privilege)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from samtranslator.yaml_helper import yaml_parse

from tanda.adapters.dynamodb_progress import PK_PREFIX

REPO = Path(__file__).resolve().parents[2]
STREAM_FUNCTIONS = ["QueryV2StreamFunction", "QueryV1StreamFunction"]


def template() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
    return loaded


def statements(function: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for policy in template()["Resources"][function]["Properties"]["Policies"]:
        found += policy.get("Statement", [])
    return found


def test_the_agent_step_may_only_write_and_query_progress_items() -> None:
    # Given the agent step's policies,
    policies = template()["Resources"]["AgentStepFunction"]["Properties"]["Policies"]

    # then no SAM CRUD template touches the table, and its one DynamoDB statement is PutItem and
    # Query on TandaTable, for partition keys under the adapter's PROG# prefix only.
    assert not [p for p in policies if "DynamoDBCrudPolicy" in p]
    dynamo = [
        s for s in statements("AgentStepFunction") if "dynamodb:PutItem" in s.get("Action", ())
    ]
    assert len(dynamo) == 1
    (statement,) = dynamo
    assert sorted(statement["Action"]) == ["dynamodb:PutItem", "dynamodb:Query"]
    assert statement["Resource"] == {"Fn::GetAtt": ["TandaTable", "Arn"]}
    leading = statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
    assert leading == [f"{PK_PREFIX}*"]


@pytest.mark.parametrize("function", STREAM_FUNCTIONS)
def test_a_stream_function_reads_the_progress_table_and_starts_executions(function: str) -> None:
    properties = template()["Resources"][function]["Properties"]
    tables = [
        p["DynamoDBCrudPolicy"]["TableName"]
        for p in properties["Policies"]
        if "DynamoDBCrudPolicy" in p
    ]
    assert {"Ref": "TandaTable"} in tables  # includes dynamodb:Query
    assert any(s.get("Action") == "states:StartSyncExecution" for s in statements(function))


def test_every_function_is_told_the_table_the_progress_adapter_uses() -> None:
    variables = template()["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["TANDA_DYNAMODB_TABLE"] == {"Ref": "TandaTable"}
    assert variables["TANDA_STORE"] == "dynamodb"  # wiring picks DynamoProgress beside it
