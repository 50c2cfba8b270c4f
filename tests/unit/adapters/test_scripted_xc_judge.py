"""The scripted model's ``xc_judge`` role (docs/scenarios.md): verdicts by statement substrings,
a reply naming an unknown claim, failures."""

from __future__ import annotations

import json

import pytest

from tanda.adapters.scripted import Scenario, ScriptedModel, XcJudgeScript
from tanda.model_calls import ChatMessage, ChatRequest, ModelRole, ModelUnavailable


def ask(script: XcJudgeScript, a: str, b: str) -> dict[str, str]:
    model = ScriptedModel({"default": Scenario(xc_judge=script)})
    request = ChatRequest(
        role=ModelRole.xc_judge,
        messages=[ChatMessage(role="user", content="…")],
        items=[
            {
                "lang": "id",
                "a": {"id": "d1:c0", "statement": a},
                "b": {"id": "d2:c0", "statement": b},
            }
        ],
    )
    reply: dict[str, str] = json.loads(model.complete(request).content or "")
    return reply


SCRIPT = XcJudgeScript(contradiction=["12 (dua belas)"], support=["6 (enam)"], none=["Disahkan"])


@pytest.mark.parametrize(
    ("a", "b", "verdict"),
    [
        ("paling lama 12 (dua belas) tahun", "paling lama 4 (empat) tahun", "contradiction"),
        ("paling lama 4 (empat) tahun", "paling lama 6 (enam) tahun", "support"),
        ("Disahkan di Jakarta", "paling lama 6 (enam) tahun", "support"),  # first list wins
        ("Disahkan di Jakarta", "Diundangkan", "none"),
        ("Tidak ada", "Yang cocok", "none"),  # default
    ],
)
def test_the_first_list_holding_a_substring_of_either_statement_decides(
    a: str, b: str, verdict: str
) -> None:
    reply = ask(SCRIPT, a, b)
    assert reply == {
        "verdict": verdict,
        "explanation": f"Scripted {verdict} (id).",
        "a": "d1:c0",
        "b": "d2:c0",
    }


def test_unknown_ids_name_a_claim_the_judge_was_not_shown() -> None:
    reply = ask(XcJudgeScript(default="contradiction", unknown_ids=["hantu"]), "hantu", "x")
    assert reply["b"] == "d2:c0-unknown"


def test_fail_raises_the_model_error() -> None:
    with pytest.raises(ModelUnavailable):
        ask(XcJudgeScript(fail="http_500"), "a", "b")
