"""Reading the public judge sets (issue 17): IndoNLI, WiCE and SummEdits records become statements
with the passages they cite and a gold label; anything else is refused with a clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tanda.service.judge_sets import JudgeSetError, load_judge_set, passages_of, set_files


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_indonli_hypothesis_is_the_statement_and_only_entailment_is_supported(
    tmp_path: Path,
) -> None:
    rows = [
        {
            "pair_id": 1,
            "premise": "Budi membeli buku.",
            "hypothesis": "Budi membeli.",
            "label": label,
        }
        for label in ("e", "n", "c")
    ]
    judge_set = load_judge_set(write_jsonl(tmp_path / "indonli_val.jsonl", rows))

    assert judge_set.name == "indonli_val"
    assert judge_set.format == "indonli"
    assert [c.supported for c in judge_set.cases] == [True, False, False]
    assert [c.label for c in judge_set.cases] == ["e", "n", "c"]
    assert judge_set.cases[0].statement == "Budi membeli."
    assert judge_set.cases[0].passages == ("Budi membeli buku.",)


def test_wice_partially_supported_counts_as_not_supported_and_the_heading_is_the_article(
    tmp_path: Path,
) -> None:
    def row(label: str) -> dict[str, object]:
        return {
            "label": label,
            "claim": "Arnold is the publisher.",
            "evidence": ["Arnold is the publisher of Media Play News.", "He joined in 1991."],
            "meta": {"id": "dev1", "claim_title": "Roger Hedgecock", "claim_section": "Career."},
        }

    judge_set = load_judge_set(
        write_jsonl(
            tmp_path / "wice.jsonl",
            [row("supported"), row("partially_supported"), row("not_supported")],
        )
    )

    assert judge_set.format == "wice"
    assert [c.supported for c in judge_set.cases] == [True, False, False]
    case = judge_set.cases[0]
    assert case.heading == "Roger Hedgecock > Career."
    # every evidence sentence is kept, one a line, in one passage when they fit
    assert case.passages == ("Arnold is the publisher of Media Play News.\nHe joined in 1991.",)


def test_summedits_label_one_is_supported_and_edit_types_are_kept(tmp_path: Path) -> None:
    rows = [
        {"id": "a_og", "doc": "Ann buys butter.", "summary": "Ann buys butter.", "label": 1,
         "edit_types": []},
        {"id": "a_0", "doc": "Ann buys butter.", "summary": "Mike buys butter.", "label": 0,
         "edit_types": ["entity_modification"]},
    ]  # fmt: skip
    path = tmp_path / "summedits_samsum.json"
    path.write_text(json.dumps(rows), encoding="utf-8")

    judge_set = load_judge_set(path)

    assert judge_set.format == "summedits"
    assert [(c.case_id, c.supported, c.edit_types) for c in judge_set.cases] == [
        ("a_og", True, ()),
        ("a_0", False, ("entity_modification",)),
    ]


def test_a_long_document_is_cut_into_passages_as_ingest_cuts_plain_text() -> None:
    paragraph = " ".join(f"Sentence number {n} says something about the budget." for n in range(40))
    text = f"{paragraph}\n\n{paragraph}"

    passages = passages_of(text)

    assert len(passages) >= 4
    assert all(len(p) <= 1200 for p in passages)
    # nothing is lost: every sentence is in some passage
    assert " ".join(passages).count("Sentence number 39") == 2


def test_limit_keeps_the_first_records(tmp_path: Path) -> None:
    rows = [{"premise": "A b c.", "hypothesis": f"H{n}.", "label": "e"} for n in range(5)]

    judge_set = load_judge_set(write_jsonl(tmp_path / "s.jsonl", rows), limit=2)

    assert [c.statement for c in judge_set.cases] == ["H0.", "H1."]


def test_a_folder_gives_its_json_and_jsonl_files_sorted(tmp_path: Path) -> None:
    for name in ("b.jsonl", "a.json", "LICENSE.md", "notes.txt"):
        (tmp_path / name).write_text("[]", encoding="utf-8")

    assert [p.name for p in set_files(tmp_path)] == ["a.json", "b.jsonl"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"question": "x", "answer": "y"}\n', "unknown format"),
        ('{"premise": "p", "hypothesis": "h", "label": "x"}\n', "line 1: not a indonli record"),
        ('{"premise": "p", "hypothesis": "h", "label": "e"}\n{oops\n', "line 2: not JSON"),
        ('{"premise": "p", "hypothesis": "", "label": "e"}\n', "`hypothesis` must be a non-empty"),
        ('[{"doc": "d", "summary": "s", "label": 1}, 7]', "record 2: expected a JSON object"),
        ('{"claim": "c", "evidence": "not a list", "label": "supported"}\n', "list of sentences"),
        ("", "no records"),
    ],
)
def test_a_file_that_breaks_its_format_is_refused_with_where_and_why(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(JudgeSetError, match=message):
        load_judge_set(path)
