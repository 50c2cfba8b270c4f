"""``tanda eval judge`` against an OpenAI-compatible endpoint: the local fake server over real HTTP
(issue 17). The fake reads the judge prompt as a model would — the statements and their cited
passages — and answers in the verdict schema."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.openai_compat import OpenAICompatModel
from tanda.cli import main
from tanda.service.judge_eval import JudgeBudget, run_set, score
from tanda.service.judge_sets import load_judge_set
from tanda.settings import Settings
from tests.openai_fake import Failure, Reply, Step, running_fake

pytestmark = pytest.mark.integration

SOURCE = "Anggaran pendidikan 2023 adalah Rp 5 miliar."
_STATEMENT = re.compile(r"^(s\d+)\n(.*?)\n.*?Cited passages:\n(.*)$", re.S)


def strict_reader(body: dict[str, Any]) -> Step:
    """Supported when the statement is written in its own cited passages, else unsupported."""
    verdicts = []
    for block in body["messages"][-1]["content"].split("### Statement ")[1:]:
        match = _STATEMENT.match(block)
        assert match is not None, block
        sid, text, passages = match.groups()
        verdicts.append({"id": sid, "verdict": "supported" if text in passages else "unsupported"})
    return Reply(content=json.dumps({"verdicts": verdicts}), usage=(120, 20))


@pytest.fixture
def judge_set(tmp_path: Path) -> Path:
    rows = [
        {"pair_id": 1, "premise": SOURCE, "hypothesis": SOURCE, "label": "e"},
        {"pair_id": 2, "premise": SOURCE, "hypothesis": "Anggaran pendidikan naik.", "label": "n"},
        {"pair_id": 3, "premise": SOURCE, "hypothesis": SOURCE.replace("5", "7"), "label": "c"},
    ]
    path = tmp_path / "indonli_mini.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_eval_judge_runs_against_an_openai_compatible_endpoint(
    judge_set: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_fake() as fake:
        fake.responder = strict_reader

        code = main(["eval", "judge", str(judge_set), "--model", f"openai:{fake.base_url}#judge-m"])
        bodies = fake.bodies

    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "openai:judge-m"
    assert (report["supported_recall"], report["false_support_rate"]) == (1.0, 0.0)
    # one batch of three, then the two unsupported statements each re-checked alone (V2-09)
    calls = report["model_calls"]
    assert calls["by_role"] == {"judge": 1, "recheck": 2}
    assert (calls["input_tokens"], calls["output_tokens"]) == (360, 60)
    first = bodies[0]
    assert first["model"] == "judge-m"
    assert first["response_format"]["type"] == "json_schema"
    assert SOURCE in first["messages"][-1]["content"]
    assert "Question" not in json.dumps(first)


def test_an_endpoint_that_fails_leaves_every_statement_unverified(judge_set: Path) -> None:
    judge_set_loaded = load_judge_set(judge_set)
    with running_fake() as fake:
        fake.default = Failure("http_500")
        model = OpenAICompatModel(fake.base_url, "m", sleep=lambda s: None, max_retries=1)
        try:
            run = run_set(model, judge_set_loaded.cases, JudgeBudget.from_settings(Settings()))
        finally:
            model.close()

    figures = score(run.results)
    assert figures["confusion"] == {
        "c": {"unverified:judge_unavailable": 1},
        "e": {"unverified:judge_unavailable": 1},
        "n": {"unverified:judge_unavailable": 1},
    }
    assert figures["false_support_rate"] == 0.0
    assert {r.outcome for r in run.model_calls} == {"unavailable"}
