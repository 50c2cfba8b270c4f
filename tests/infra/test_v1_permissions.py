"""The /v1 functions hold exactly what metering, retrieval and synthesis need (issue 13, least
privilege): the tenant's throttle window and credit ledger items, the API keys they authenticate
with (issue 27), the index, Bedrock — no other table item, no state machine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from samtranslator.yaml_helper import yaml_parse

from tanda.adapters.dynamodb_store import KEYS_PK, RATE_PREFIX, TENANT_PREFIX

REPO = Path(__file__).resolve().parents[2]
V1_FUNCTIONS = ["V1SearchFunction", "V1AskFunction"]
JOB_STARTERS = ["V1CrossCheckFunction", "McpFunction"]
"""They also hold the job items and start the cross-check machine (test_cross_check_machine)."""


def template() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
    return loaded


def statements(function: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for policy in template()["Resources"][function]["Properties"]["Policies"]:
        found += policy.get("Statement", [])
    return found


def actions(statement: dict[str, Any]) -> list[str]:
    action = statement.get("Action", [])
    return [action] if isinstance(action, str) else list(action)


@pytest.mark.parametrize("function", V1_FUNCTIONS)
def test_a_v1_function_touches_only_tenant_rate_and_key_items(function: str) -> None:
    policies = template()["Resources"][function]["Properties"]["Policies"]
    assert not [p for p in policies if "DynamoDBCrudPolicy" in p]
    dynamo = [s for s in statements(function) if any(a.startswith("dynamodb:") for a in actions(s))]
    (statement,) = dynamo
    # Put: a charge's ledger entry is written in its transaction; Query: whether the KEYS
    # partition holds any key (issue 27).
    assert sorted(actions(statement)) == [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
    ]
    assert statement["Resource"] == {"Fn::GetAtt": ["TandaTable", "Arn"]}
    leading = statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
    assert sorted(leading) == sorted([f"{TENANT_PREFIX}*", f"{RATE_PREFIX}*", KEYS_PK])


def test_the_ask_function_starts_no_state_machine_and_may_read_the_index() -> None:
    every = [a for s in statements("V1AskFunction") for a in actions(s)]
    assert not [a for a in every if a.startswith("states:")]
    assert "bedrock:InvokeModel" in every
    policy = template()["Resources"]["SearchAccessPolicy"]["Properties"]["Policy"]
    assert "V1AskFunctionRole.Arn" in str(policy)


def test_every_function_opens_ledgers_with_one_balance_and_shares_one_throttle() -> None:
    variables = template()["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["TANDA_INITIAL_CREDITS"] == {"Ref": "InitialCredits"}
    assert variables["TANDA_V1_RATE_PER_MINUTE"] == {"Ref": "V1RatePerMinute"}
    for function in V1_FUNCTIONS + JOB_STARTERS:
        own = template()["Resources"][function]["Properties"]["Environment"]["Variables"]
        assert "TANDA_INITIAL_CREDITS" not in own and "TANDA_V1_RATE_PER_MINUTE" not in own
