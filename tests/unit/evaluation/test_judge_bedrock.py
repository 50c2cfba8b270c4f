"""``tanda eval judge`` on the Bedrock adapter: a real botocore client whose Converse replies are
stubbed (issue 17). The judge's structured output comes back as the forced tool's input."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from tanda.adapters.bedrock import BedrockModel
from tanda.service.judge_eval import JudgeBudget, run_set, score
from tanda.service.judge_sets import JudgeCase
from tanda.settings import Settings
from tests.fakes import ManualClock

MODEL_ID = "anthropic.claude-3-5-haiku-20241022-v1:0"
SOURCE = "Anggaran pendidikan 2023 adalah Rp 5 miliar."


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    return boto3.client("bedrock-runtime", region_name="us-east-1")


@pytest.fixture
def stubber(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stub:
        yield stub
        stub.assert_no_pending_responses()


def verdicts_reply(*pairs: tuple[str, str]) -> dict[str, Any]:
    verdicts = {"verdicts": [{"id": i, "verdict": v} for i, v in pairs]}
    return {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"toolUse": {"toolUseId": "o1", "name": "verdicts", "input": verdicts}}
                ],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 300, "outputTokens": 25, "totalTokens": 325},
        "metrics": {"latencyMs": 90},
    }


def judge_call() -> dict[str, Any]:
    """The Converse request of a judge or re-check call: the verdict schema as a forced tool."""
    return {
        "modelId": MODEL_ID,
        "system": ANY,
        "messages": [{"role": "user", "content": [{"text": ANY}]}],
        "inferenceConfig": ANY,
        "toolConfig": {
            "tools": [{"toolSpec": {"name": "verdicts", "description": ANY, "inputSchema": ANY}}],
            "toolChoice": {"tool": {"name": "verdicts"}},
        },
    }


def test_eval_judge_runs_on_bedrock_with_the_recheck(client: Any, stubber: Stubber) -> None:
    cases = [
        JudgeCase("1", SOURCE, (SOURCE,), supported=True, label="e"),
        JudgeCase("2", SOURCE.replace("5", "7"), (SOURCE,), supported=False, label="c"),
    ]
    # the batch: s0 supported, s1 unsupported; the re-check of s1 alone confirms it (V2-09)
    stubber.add_response(
        "converse", verdicts_reply(("s0", "supported"), ("s1", "unsupported")), judge_call()
    )
    stubber.add_response("converse", verdicts_reply(("s1", "unsupported")), judge_call())
    model = BedrockModel(MODEL_ID, client=client)

    run = run_set(
        model, cases, JudgeBudget.from_settings(Settings()), workers=1, clock=ManualClock()
    )

    figures = score(run.results)
    assert figures["confusion"] == {"c": {"unsupported": 1}, "e": {"supported": 1}}
    assert (figures["supported_recall"], figures["false_support_rate"]) == (1.0, 0.0)
    assert [(r.role, r.outcome, r.input_tokens) for r in run.model_calls] == [
        ("judge", "ok", 300),
        ("recheck", "ok", 300),
    ]


def test_a_throttled_bedrock_judge_leaves_statements_unverified(
    client: Any, stubber: Stubber
) -> None:
    stubber.add_client_error("converse", service_error_code="ThrottlingException")
    model = BedrockModel(MODEL_ID, client=client)
    cases = [JudgeCase("1", SOURCE, (SOURCE,), supported=False, label="c")]

    run = run_set(model, cases, JudgeBudget.from_settings(Settings()), clock=ManualClock())

    assert score(run.results)["confusion"] == {"c": {"unverified:judge_unavailable": 1}}
    assert [r.outcome for r in run.model_calls] == ["unavailable"]
