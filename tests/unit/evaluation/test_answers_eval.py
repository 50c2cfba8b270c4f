"""``tanda eval answers`` figures (issue 22): reading the sets, drawing questions, and what counts
as answering, holding back and a verified non-answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tanda.not_found import ASK_NOT_FOUND, NOT_FOUND_NOTICE, says_not_found
from tanda.service.answers_eval import (
    AnswerRecord,
    AnswerSetError,
    EvalQuestion,
    answer_sentences,
    holds_answer,
    load_answer_set,
    pick_questions,
    score_records,
)

ANSWERABLE = EvalQuestion("q1", "Kapan Hydatius lahir?", ("400",))
UNANSWERABLE = EvalQuestion("q2", "Kapan Hydatius meninggal?", ())

PARAGRAPHS = [
    {
        "context": "Hydatius dilahirkan sekitar tahun 400.",
        "qas": [
            {
                "id": "a",
                "question": "Kapan Hydatius lahir?",
                "is_impossible": False,
                "answers": [{"text": "400", "answer_start": 33}],
            },
            {"id": "u", "question": "Kapan Hydatius wafat?", "is_impossible": True, "answers": []},
        ],
    }
]


def test_a_squad_file_is_read_as_a_bare_list_of_paragraphs_or_under_data(tmp_path: Path) -> None:
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(PARAGRAPHS), encoding="utf-8")
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps({"data": [{"title": "T", "paragraphs": PARAGRAPHS}]}), "utf-8")
    for path in (bare, nested):
        answer_set = load_answer_set(path)
        assert [q.answerable for q in answer_set.questions] == [True, False]
        assert [d[2] for d in answer_set.documents] == ["Hydatius dilahirkan sekitar tahun 400."]


def test_a_beir_folder_keeps_the_queries_that_carry_answers(tmp_path: Path) -> None:
    (tmp_path / "corpus.jsonl").write_text(
        json.dumps({"_id": "d1", "title": "", "text": "Teks."}) + "\n", encoding="utf-8"
    )
    (tmp_path / "queries.jsonl").write_text(
        json.dumps({"_id": "q1", "text": "Apa?", "answers": ["Teks"]})
        + "\n"
        + json.dumps({"_id": "q2", "text": "Siapa?"})
        + "\n",
        encoding="utf-8",
    )
    assert [q.question_id for q in load_answer_set(tmp_path).questions] == ["q1"]


@pytest.mark.parametrize("content", ["{", "[]", '{"data": 3}'])
def test_what_is_not_an_answer_set_is_refused_with_a_reason(tmp_path: Path, content: str) -> None:
    path = tmp_path / "set.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(AnswerSetError):
        load_answer_set(path)


def test_a_limit_draws_that_many_of_each_kind_the_same_way_every_time() -> None:
    questions = [EvalQuestion(f"a{n}", "?", ("x",)) for n in range(10)]
    questions += [EvalQuestion(f"u{n}", "?", ()) for n in range(10)]
    drawn = pick_questions(questions, 3, seed=1)
    assert sum(q.answerable for q in drawn) == 3 and len(drawn) == 6
    assert drawn == pick_questions(questions, 3, seed=1)
    assert pick_questions(questions, None) == questions


def test_a_gold_answer_is_found_whatever_its_case_and_spacing() -> None:
    assert holds_answer("Ia lahir  sekitar Tahun 400 M.", ["tahun 400"])
    assert not holds_answer("Ia lahir sekitar tahun 410.", ["tahun 400"])


def test_an_answer_with_the_notice_never_counts_as_answering() -> None:
    records = [
        AnswerRecord(ANSWERABLE, verified=("tahun 400",)),
        AnswerRecord(ANSWERABLE, verified=("tahun 400",), not_found=True),
        AnswerRecord(UNANSWERABLE, verified=("tahun 400",)),
        AnswerRecord(UNANSWERABLE, not_found=True),
        AnswerRecord(UNANSWERABLE, error="upstream_failed"),
    ]
    scores = score_records(records)
    assert (scores.answer_in_supported, scores.answer_in_first) == (0.5, 0.5)
    assert scores.held_back_answerable == 0.5
    assert scores.verified_non_answer == pytest.approx(1 / 3)
    assert scores.held_back == pytest.approx(1 / 3)
    assert scores.errors == 1


def test_the_first_verified_statement_is_the_one_that_counts_as_first() -> None:
    scores = score_records([AnswerRecord(ANSWERABLE, verified=("lain", "tahun 400"))])
    assert (scores.answer_in_supported, scores.answer_in_first) == (1.0, 0.0)


def test_a_set_without_unanswerable_questions_has_no_holding_back_figures() -> None:
    scores = score_records([AnswerRecord(ANSWERABLE, verified=("400",))])
    assert scores.verified_non_answer is None and scores.held_back is None


def test_a_v1_answer_is_read_sentence_by_sentence_with_the_markers_that_close_them() -> None:
    answer = "Lead:\n- A b. [S1]\n- C d [S12] e f. G h. [S2] [S3]"
    assert answer_sentences(answer) == [
        "Lead:",
        "- A b. [S1]",
        "- C d [S12] e f.",
        "G h. [S2] [S3]",
    ]


@pytest.mark.parametrize("text", [*NOT_FOUND_NOTICE.values(), *ASK_NOT_FOUND.values()])
def test_every_not_found_sentence_is_recognised_in_any_answer(text: str) -> None:
    spread = text.replace(" ", "\n  ")
    assert says_not_found(f"Catatan.\n\n{spread}  ")
    assert not says_not_found("Anggaran pendidikan 2023 adalah Rp 5 miliar.")
