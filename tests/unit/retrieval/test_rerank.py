"""The reranker floor (ASK-06) and the embedded lexical reranker."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tanda.records.documents import Chunk, SearchHit
from tanda.retrieval.rerank import LexicalReranker, rerank_floor, rerank_text


def hit(i: int, text: str, *, title: str = "T", section: str | None = None) -> SearchHit:
    chunk = Chunk(
        chunk_id=f"c{i}",
        document_id="d",
        tenant_id="t",
        ordinal=i,
        title=title,
        section=section,
        text=text,
    )
    return SearchHit(chunk=chunk, score=1.0 / (60 + i), lexical_rank=i)


class FixedScores:
    """Answers the scores it was given, and records what it was asked."""

    name = "fixed"

    def __init__(self, scores: Sequence[float], *, reorders: bool = True) -> None:
        self.scores = list(scores)
        self.reorders = reorders
        self.calls: list[tuple[str, list[str]]] = []

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls.append((query, list(passages)))
        return self.scores


class Unavailable:
    name = "down"
    reorders = True

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        raise TimeoutError("reranker down")


HITS = [hit(1, "satu"), hit(2, "dua"), hit(3, "tiga"), hit(4, "empat")]


def ids(hits: Sequence[SearchHit]) -> list[str]:
    return [h.chunk.chunk_id for h in hits]


# --- the floor ---------------------------------------------------------------------------------


def test_hits_under_the_floor_are_dropped_and_a_hit_at_the_floor_is_kept() -> None:
    kept = rerank_floor(FixedScores([0.9, 0.49, 0.5, 0.1]), "q", HITS, min_score=0.5)
    assert ids(kept) == ["c1", "c3"]
    assert [h.rerank_score for h in kept] == [0.9, 0.5]


def test_a_floor_of_zero_keeps_every_hit_with_its_score() -> None:
    reranker = FixedScores([0.0, 0.2, 0.0, 0.1], reorders=False)
    kept = rerank_floor(reranker, "q", HITS, min_score=0.0)
    assert [h.rerank_score for h in kept] == [0.0, 0.2, 0.0, 0.1]


def test_a_reordering_reranker_puts_its_best_first_and_ties_keep_the_fused_order() -> None:
    kept = rerank_floor(FixedScores([0.3, 0.8, 0.3, 0.9]), "q", HITS, min_score=0.0)
    assert ids(kept) == ["c4", "c2", "c1", "c3"]


def test_a_reranker_that_does_not_reorder_only_filters() -> None:
    kept = rerank_floor(FixedScores([0.3, 0.8, 0.1, 0.9], reorders=False), "q", HITS, min_score=0.2)
    assert ids(kept) == ["c1", "c2", "c4"]


def test_the_floor_keeps_everything_else_of_a_hit() -> None:
    (kept,) = rerank_floor(FixedScores([0.7]), "q", HITS[:1], min_score=0.5)
    assert kept.model_copy(update={"rerank_score": None}) == HITS[0]


def test_the_reranker_reads_title_section_and_text_of_each_hit_in_order() -> None:
    reranker = FixedScores([1.0, 1.0])
    hits = [hit(1, "isi", title="UU 27/2022", section="Pasal 5"), hit(2, "lain", title="Qanun")]
    rerank_floor(reranker, "data pribadi", hits, min_score=0.0)
    assert reranker.calls == [("data pribadi", ["UU 27/2022\nPasal 5\nisi", "Qanun\nlain"])]
    assert rerank_text(hits[1].chunk) == "Qanun\nlain"


def test_no_hits_ask_the_reranker_nothing() -> None:
    reranker = FixedScores([])
    assert rerank_floor(reranker, "q", [], min_score=0.5) == []
    assert reranker.calls == []


def test_a_reranker_that_fails_fails_the_retrieval_instead_of_passing_unscored_hits() -> None:
    # Fail closed (docs/retrieval.md): never let candidates through that nobody scored.
    with pytest.raises(TimeoutError):
        rerank_floor(Unavailable(), "q", HITS, min_score=0.5)


def test_a_reranker_that_scores_too_few_passages_is_an_error() -> None:
    with pytest.raises(ValueError, match="scored 2 of 4"):
        rerank_floor(FixedScores([0.9, 0.9]), "q", HITS, min_score=0.5)


# --- the lexical reranker ----------------------------------------------------------------------


LEXICAL = LexicalReranker()


DEFINITION_QUESTION = "Apa yang dimaksud dengan data pribadi?"
HOLDING_THE_WORDS = [
    "Pemrosesan Data Pribadi dilaksanakan sesuai ketentuan Undang-Undang ini.",
    "Pengendali Data Pribadi wajib menjaga kerahasiaan Data Pribadi.",
    "Data Pribadi anak diproses secara khusus.",
    "Subjek Data Pribadi berhak mendapatkan informasi.",
    "Data Pribadi adalah data tentang orang perseorangan yang teridentifikasi.",
]


def test_passages_holding_every_query_word_do_not_all_score_one() -> None:
    # Issue 22: five passages that each hold "data pribadi" scored 1.00 alike; calibrated, only
    # the one that answers the definition question scores in the answering band.
    scores = LEXICAL.score(DEFINITION_QUESTION, HOLDING_THE_WORDS)
    assert scores[-1] >= 0.75
    assert all(score < 0.75 for score in scores[:-1])
    assert all(0.0 < score <= 1.0 for score in scores)


def test_a_passage_sharing_nothing_with_the_question_scores_zero() -> None:
    (shares, nothing) = LEXICAL.score(
        "Berapa anggaran pendidikan Aceh tahun 2023?",
        ["Anggaran pendidikan Aceh tahun 2023 adalah Rp 5 miliar.", "Jalan provinsi."],
    )
    assert shares >= 0.75 and nothing == 0.0


def test_a_passage_holding_the_words_without_the_kind_of_answer_scores_lower() -> None:
    # "Berapa …" asks for a number: the passage stating one answers, the one naming it does not.
    (states, names) = LEXICAL.score(
        "Berapa anggaran pendidikan Aceh?",
        ["Anggaran pendidikan Aceh adalah Rp 5 miliar.", "Anggaran pendidikan Aceh dibahas."],
    )
    assert states > names


def test_lexical_terms_meet_on_stems_and_folded_letters() -> None:
    # Indonesian "pendidikan" / "didik" share the stem; Turkish "ışık" is found typed as "isik".
    assert LEXICAL.score("pendidikan", ["peserta didik"])[0] > 0.0
    assert LEXICAL.score("isik hizi kac", ["Işığın hızı saniyede kaç kilometredir?"])[0] > 0.5


def test_a_passage_one_letter_off_a_mistyped_question_word_is_kept_by_the_floor() -> None:
    # Issue 22 (V2-19): "stalakmit" is in no passage; the passage defining "Stalagmit" answers
    # the question and scores in the answering band, the other one does not.
    (defines, other) = LEXICAL.score(
        "Apa itu stalakmit?",
        [
            "Stalagmit adalah pembentukan gua secara vertikal (tumbuh dari bawah ke atas).",
            "Gua kapur terbentuk oleh air hujan yang melarutkan batuan.",
        ],
    )
    assert defines >= 0.75 > other


def test_a_repeated_query_term_counts_once() -> None:
    assert LEXICAL.score("pajak pajak pajak daerah", ["pajak"]) == LEXICAL.score(
        "pajak daerah", ["pajak"]
    )


def test_a_query_without_any_term_scores_every_passage_zero() -> None:
    assert LEXICAL.score("?!", ["apa saja", ""]) == [0.0, 0.0]


def test_the_lexical_reranker_keeps_the_fused_order() -> None:
    # Measured: ordering by its score is not better than the fused order on both dev sets.
    assert LEXICAL.reorders is False
    hits = [hit(1, "anggaran"), hit(2, "anggaran pendidikan")]
    kept = rerank_floor(LEXICAL, "anggaran pendidikan", hits, min_score=0.0)
    assert ids(kept) == ["c1", "c2"]
    first, second = (h.rerank_score or 0.0 for h in kept)
    assert first < second
