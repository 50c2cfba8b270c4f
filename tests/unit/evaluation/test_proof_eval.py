"""``tanda eval proof PATH`` (ASK-11, issue 14): TAT-QA's arithmetic answers written as their
derivations, run through the proof chain; the same answers perturbed must be refuted."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tanda.cli import main
from tanda.service.proof_eval import answer_for, evaluate_proofs, load_tatqa, written

TABLE = [
    ["", "2019", "2018"],
    ["Other", "44.1", "56.7"],
    ["Allowance for doubtful accounts", "(16)", "(15)"],
]


def question(uid: str, derivation: str, answer: Any, scale: str) -> dict[str, Any]:
    return {
        "uid": uid,
        "question": "?",
        "answer": answer,
        "derivation": derivation,
        "answer_type": "arithmetic",
        "scale": scale,
    }


def tatqa(tmp_path: Path, questions: list[dict[str, Any]]) -> Path:
    span = {"uid": "s", "question": "?", "answer": ["x"], "answer_type": "span", "scale": ""}
    item = {
        "table": {"uid": "t", "table": TABLE},
        "paragraphs": [{"uid": "p", "order": 1, "text": "Amounts are in millions."}],
        "questions": [span, *questions],
    }
    path = tmp_path / "tatqa.json"
    path.write_text(json.dumps([item]), encoding="utf-8")
    return path


def test_only_arithmetic_questions_are_read_with_the_table_and_paragraphs_as_sources(
    tmp_path: Path,
) -> None:
    path = tatqa(tmp_path, [question("a", " 44.1-56.7 ", -12.6, "million")])
    (only,) = load_tatqa(path)
    assert (only.derivation, only.gold, only.scale) == ("44.1-56.7", Decimal("-12.6"), "million")
    assert [(s.no, s.layer) for s in only.sources] == [(1, "table"), (2, "passage")]
    assert "Other | 44.1 | 56.7" in only.sources[0].text
    assert answer_for(only, only.gold) == "44.1-56.7 = -12.6 million [S1][S2]"


@pytest.mark.parametrize(
    ("value", "scale", "text"),
    [
        (Decimal("-12.6"), "million", "-12.6 million"),
        (Decimal("-22.22"), "percent", "-22.22%"),
        (Decimal("425855"), "", "425,855"),
        (Decimal("90494"), "thousand", "90,494 thousand"),
    ],
)
def test_a_result_is_written_as_an_english_answer_writes_it(
    value: Decimal, scale: str, text: str
) -> None:
    assert written(value, scale) == text


def test_right_answers_are_ok_and_grounded_and_their_perturbations_refuted(
    tmp_path: Path,
) -> None:
    path = tatqa(
        tmp_path,
        [
            question("diff", "44.1-56.7", -12.6, "million"),
            question("pct", "(44.1-56.7)/56.7", -22.22, "percent"),
            question("mean", "(16+15) / 2", 15.5, ""),
        ],
    )
    figures = evaluate_proofs(load_tatqa(path)).as_json()
    assert (figures["questions"], figures["arithmetic_ok"], figures["inputs_grounded"]) == (
        3,
        1.0,
        1.0,
    )
    assert figures["perturbed"]["answers"] == 12
    assert figures["perturbed"]["refuted"] == 1.0
    assert figures["perturbed"]["refuted_with_gold_recomputed"] == 1.0
    assert figures["misses"] == {"no_step": [], "arithmetic": [], "ungrounded": [], "perturbed": []}


def test_a_wrong_gold_and_an_input_in_no_source_are_listed_as_misses(tmp_path: Path) -> None:
    path = tatqa(
        tmp_path,
        [
            question("wrong", "44.1-56.7", -13.6, "million"),
            question("absent", "44.1-50.0", -5.9, "million"),
            question("zero", "44.1-44.1", 0, ""),
        ],
    )
    figures = evaluate_proofs(load_tatqa(path)).as_json()
    assert [m["uid"] for m in figures["misses"]["arithmetic"]] == ["wrong"]
    assert figures["misses"]["arithmetic"][0]["recomputed"] == "-12.6"
    assert [(m["uid"], m["not_found"]) for m in figures["misses"]["ungrounded"]] == [
        ("absent", ["50.0"])
    ]
    # A zero result has no perturbation that changes it.
    assert figures["perturbed"]["skipped_zero_results"] == 4


def test_the_command_prints_one_json_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tatqa(tmp_path, [question("diff", "44.1-56.7", -12.6, "million")])
    assert main(["eval", "proof", str(path), "--misses", "0"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["arithmetic_ok"] == 1.0
    assert figures["targets"] == {
        "arithmetic_ok": 0.98,
        "inputs_grounded": 0.95,
        "perturbed_refuted": 1.0,
    }


def test_an_unreadable_file_is_exit_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.json").write_text("[{]", encoding="utf-8")
    assert main(["eval", "proof", str(tmp_path / "bad.json")]) == 2
    assert "cannot read TAT-QA file" in capsys.readouterr().err
