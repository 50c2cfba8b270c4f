"""retrieve(): embedder → index → reranker floor (ASK-02, ASK-06)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from tanda.contract.v1_search import V1SearchRequest
from tanda.records.documents import Chunk, SearchHit, SearchQuery, SearchScope
from tanda.retriever import retrieve


def chunk(i: int, text: str) -> Chunk:
    return Chunk(chunk_id=f"c{i}", document_id="d", tenant_id="t", ordinal=i, title="T", text=text)


class RecordingIndex:
    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits
        self.queries: list[SearchQuery] = []

    def search(self, query: SearchQuery) -> list[SearchHit]:
        self.queries.append(query)
        return self.hits


class FixedEmbedder:
    dimensions = 2

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        if self.fail:
            raise TimeoutError("embedding service down")
        return [(1.0, 0.0) for _ in texts]


class LengthReranker:
    """Scores a passage by its length in hundreds of characters (a long passage scores high)."""

    name = "length"
    reorders = True

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        return [min(1.0, len(p) / 100) for p in passages]


QUERY = SearchQuery(text="anggaran", scope=SearchScope(tenant_id="t"))
HITS = [
    SearchHit(chunk=chunk(1, "pendek"), score=0.9),
    SearchHit(chunk=chunk(2, "jauh lebih panjang"), score=0.5),
]


def test_without_an_embedder_search_is_lexical_and_says_so() -> None:
    index = RecordingIndex(HITS)
    result = retrieve(index, QUERY)  # type: ignore[arg-type]
    assert result.mode == "lexical"
    assert index.queries[0].vector is None


def test_with_an_embedder_the_query_carries_a_vector() -> None:
    index = RecordingIndex(HITS)
    result = retrieve(index, QUERY, embedder=FixedEmbedder())  # type: ignore[arg-type]
    assert result.mode == "hybrid"
    assert index.queries[0].vector == (1.0, 0.0)


def test_an_embedder_outage_degrades_to_lexical_instead_of_failing() -> None:
    index = RecordingIndex(HITS)
    result = retrieve(index, QUERY, embedder=FixedEmbedder(fail=True))  # type: ignore[arg-type]
    assert result.mode == "lexical"
    assert result.hits == HITS


def test_reranker_reorders_and_the_floor_drops_weak_candidates() -> None:
    # "T\npendek" scores 0.08, "T\njauh lebih panjang" 0.2: a floor of 0.1 drops the first.
    result = retrieve(RecordingIndex(HITS), QUERY, reranker=LengthReranker(), min_score=0.1)  # type: ignore[arg-type]
    assert [h.chunk.chunk_id for h in result.hits] == ["c2"]
    assert result.hits[0].rerank_score == pytest.approx(0.2)
    assert (result.reranked, result.below_floor) == (True, 1)


def test_without_a_reranker_there_is_no_floor_and_no_rerank_score() -> None:
    result = retrieve(RecordingIndex(HITS), QUERY, min_score=0.9)  # type: ignore[arg-type]
    assert result.hits == HITS
    assert (result.reranked, result.below_floor) == (False, 0)


def test_v1_search_rejects_document_and_batch_together_and_top_k_above_20() -> None:
    with pytest.raises(ValidationError, match="not both"):
        V1SearchRequest(query="q", document_id="d", batch_id="b")
    with pytest.raises(ValidationError):
        V1SearchRequest(query="q", top_k=21)
    assert V1SearchRequest(query="q").top_k == 5


def test_scope_cannot_name_documents_and_a_batch() -> None:
    with pytest.raises(ValidationError):
        SearchScope(tenant_id="t", document_ids=("d",), batch_id="b")
