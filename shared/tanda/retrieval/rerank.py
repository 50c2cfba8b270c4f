"""The reranker floor (ASK-06) and the embedded reranker.

:func:`rerank_floor` is the one place the floor is applied: ``retrieve`` calls it for
``/v1/search`` and the agent's ``search`` tool, and ``/v1/ask`` calls it from its own retrieval.
It scores every hit with a :class:`~tanda.ports.Reranker`, drops the hits scoring under
``TANDA_RERANK_MIN_SCORE`` and returns the rest, each carrying its ``rerank_score``.

:class:`LexicalReranker` is the embedded default (``TANDA_RERANKER=lexical``): no model, no
network. Its score, 0–1, is how well a passage answers the query as the offline reader reads it
(docs/retrieval.md "Reranker floor").
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from tanda.ports import Reranker
from tanda.records.documents import Chunk, SearchHit
from tanda.retrieval.question import analyze_question
from tanda.retrieval.reading import ReadPassage, passage_relevance


def rerank_text(chunk: Chunk) -> str:
    """What a reranker reads of a chunk: its title, section path and text — what the lexical
    arm indexes too, so a passage is judged with the heading that names what it is about."""
    return "\n".join(part for part in (chunk.title, chunk.section, chunk.text) if part)


def rerank_floor(
    reranker: Reranker,
    query: str,
    hits: Sequence[SearchHit],
    *,
    min_score: float,
    keep: Container[str] = frozenset(),
) -> list[SearchHit]:
    """The ``hits`` that ``reranker`` scores at or above ``min_score`` for ``query``, each with
    its ``rerank_score``: best rerank score first when the reranker ``reorders`` (ties keep the
    retrieval order), else in the retrieval order. ``min_score`` 0 keeps every hit; so does a
    chunk id in ``keep``, whatever its score (the article a question names, issue 22).

    ASK-06: a hit under the floor never reaches synthesis, the agent or a ``/v1/search`` caller.
    A reranker that fails raises (its adapter's ``UpstreamFailed``): the floor fails closed
    rather than letting unscored candidates through (docs/retrieval.md).
    """
    if not hits:
        return []
    scores = reranker.score(query, [rerank_text(hit.chunk) for hit in hits])
    if len(scores) != len(hits):
        raise ValueError(f"the reranker scored {len(scores)} of {len(hits)} passages")
    order = list(range(len(hits)))
    if reranker.reorders:
        order.sort(key=lambda i: -scores[i])  # stable: ties keep the fused order
    return [
        hits[i].model_copy(update={"rerank_score": scores[i]})
        for i in order
        if scores[i] >= min_score or hits[i].chunk.chunk_id in keep
    ]


class LexicalReranker:
    """The embedded default: how well a passage answers the query, 0–1, as the offline reader
    reads it (:func:`tanda.retrieval.reading.passage_relevance`): the query read once
    (:func:`~tanda.retrieval.question.analyze_question`: its language, the kind of answer it
    asks for, its focus terms weighted — a name or number 2, an attribute word ½), then each
    passage's best sentence or table row scored on what it holds of the focus (0.3), what its
    place holds (0.4: its passage, title and section) and whether it holds an answer of the
    asked kind (0.3); a passage whose best unit answers scores at least 0.75.

    Calibrated across queries (issue 22): five passages that each hold every query word no
    longer all score 1.00 — only one that also holds an answer of the kind asked does. It knows
    nothing of meaning: a synonym or a paraphrase scores 0 for its word.
    """

    name = "lexical"
    reorders = False
    """The floor keeps the fused order (docs/retrieval.md): the search's ranking is measured
    better than this score's on both dev sets."""

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        question = analyze_question(query)
        if not question.focus:
            return [0.0 for _ in passages]
        readable = [ReadPassage(str(n), text) for n, text in enumerate(passages)]
        return [round(score, 4) for score in passage_relevance(question, readable)]
