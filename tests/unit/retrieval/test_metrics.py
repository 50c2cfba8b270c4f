"""Retrieval metrics on hand-computed cases (issue 3: nDCG@10, recall@5, MRR@10)."""

import math
from pathlib import Path

import pytest

from tanda.service.retrieval_eval import (
    load_beir,
    mrr_at,
    ndcg_at,
    percentile,
    recall_at,
    score_runs,
)


def test_ndcg_is_one_when_the_only_relevant_document_is_first() -> None:
    assert ndcg_at(["a", "b"], {"a": 1}) == 1.0


def test_ndcg_discounts_a_relevant_document_at_rank_three() -> None:
    assert ndcg_at(["x", "y", "a"], {"a": 1}) == pytest.approx(1 / math.log2(4))


def test_ndcg_with_two_graded_documents_in_the_wrong_order() -> None:
    # DCG = 1/log2(2) + 2/log2(3); ideal = 2/log2(2) + 1/log2(3)
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert ndcg_at(["b", "a"], {"a": 2, "b": 1}) == pytest.approx(expected)


def test_ndcg_ignores_anything_after_the_cutoff() -> None:
    assert ndcg_at([*"bcdefghijk", "a"], {"a": 1}) == 0.0


def test_recall_counts_relevant_documents_in_the_first_five() -> None:
    assert recall_at(["a", "x", "y", "z", "w", "b"], {"a": 1, "b": 1}) == 0.5


def test_recall_ignores_zero_grades() -> None:
    assert recall_at(["a"], {"a": 1, "b": 0}) == 1.0


def test_mrr_is_the_reciprocal_of_the_first_relevant_rank() -> None:
    assert mrr_at(["x", "a", "b"], {"a": 1, "b": 1}) == 0.5
    assert mrr_at(["x"], {"a": 1}) == 0.0


def test_percentile_interpolates_between_closest_ranks() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95) == pytest.approx(4.8)
    assert percentile([], 50) == 0.0


def test_a_judged_query_that_was_not_run_counts_as_a_miss() -> None:
    scores = score_runs({"q1": ["a"]}, {"q1": {"a": 1}, "q2": {"b": 1}}, [1.0, 3.0])
    assert scores.queries == 2
    assert scores.ndcg_at_10 == 0.5
    assert scores.mrr_at_10 == 0.5
    assert scores.as_json()["p50_ms"] == 2.0


def test_load_beir_reads_corpus_queries_and_qrels_with_header(tmp_path: Path) -> None:
    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_text(
        '{"_id": "d1", "title": "T", "text": "isi"}\n{"_id": "d2", "text": "dua"}\n'
    )
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "apa?"}\n')
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td2\t1\n")
    beir = load_beir(tmp_path)
    assert beir.corpus == [("d1", "T", "isi"), ("d2", "", "dua")]
    assert beir.queries == {"q1": "apa?"}
    assert beir.qrels == {"q1": {"d2": 1}}
