"""``tanda eval judge`` and ``tanda eval numbers`` in the terminal (issue 17, docs/cli.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tanda.cli import main

SOURCE = "Anggaran pendidikan 2023 adalah Rp 5 miliar."


@pytest.fixture
def judge_set(tmp_path: Path) -> Path:
    rows = [
        {"pair_id": 1, "premise": SOURCE, "hypothesis": SOURCE, "label": "e"},
        {"pair_id": 2, "premise": SOURCE, "hypothesis": SOURCE.replace("5", "7"), "label": "c"},
    ]
    path = tmp_path / "tiny_indonli.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_eval_judge_prints_one_json_object_per_set(
    judge_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    details = tmp_path / "details.jsonl"

    code = main(["eval", "judge", str(judge_set), "--model", "offline", "--details", str(details)])

    assert code == 0
    (line,) = capsys.readouterr().out.splitlines()
    report = json.loads(line)
    assert report["set"] == "tiny_indonli"
    assert report["model"] == "offline"
    assert (report["n"], report["false_support_rate"], report["supported_recall"]) == (2, 0.0, 1.0)
    assert report["model_calls"]["by_role"]["judge"] == 1
    assert {"balanced_accuracy", "supported_precision", "confusion", "wall_s"} <= set(report)
    rows = [json.loads(r) for r in details.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["verdict"]) for r in rows] == [("1", "supported"), ("2", "unsupported")]


def test_eval_judge_reads_every_set_of_a_folder_and_limits_each(
    judge_set: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (judge_set.parent / "second.jsonl").write_text(judge_set.read_text(), encoding="utf-8")

    assert main(["eval", "judge", str(judge_set.parent), "--limit", "1"]) == 0

    reports = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["set"], r["n"]) for r in reports] == [("second", 1), ("tiny_indonli", 1)]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["missing.jsonl"], "cannot read the set"),
        (["{set}", "--model", "gpt:nothing"], "unknown model"),
    ],
)
def test_eval_judge_refuses_what_it_cannot_use_with_exit_code_2(
    judge_set: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    argv = [a.replace("{set}", str(judge_set)) for a in arguments]

    assert main(["eval", "judge", *argv]) == 2

    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""
    assert "Traceback" not in captured.err


def test_eval_judge_refuses_a_file_of_another_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tatqa.json"
    path.write_text('[{"table": {}, "questions": []}]', encoding="utf-8")

    assert main(["eval", "judge", str(path)]) == 2
    assert "unknown format" in capsys.readouterr().err


def test_a_limit_below_one_is_a_usage_error(
    judge_set: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "judge", str(judge_set), "--limit", "0"])

    assert exit_.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_eval_numbers_prints_the_share_correct(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = [
        {
            "table": {"table": [["", "2019"], ["Sales", "$1,496.5"]]},
            "questions": [{"uid": "q", "answer": ["$1,496.5"], "scale": "million"}],
        }
    ]
    path = tmp_path / "tatqa.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    assert main(["eval", "numbers", str(path)]) == 0

    report = json.loads(capsys.readouterr().out)
    assert (report["answers"], report["share_correct"], report["misses"]) == (1, 1.0, [])


@pytest.mark.parametrize("content", ["{not json", '{"table": {}}', "[1, 2]"])
def test_eval_numbers_refuses_what_is_not_tatqa_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")

    assert main(["eval", "numbers", str(path)]) == 2

    captured = capsys.readouterr()
    assert "cannot read" in captured.err
    assert "Traceback" not in captured.err
