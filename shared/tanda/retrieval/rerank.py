"""The reranker floor (ASK-06) and the embedded reranker.

:func:`rerank_floor` is the one place the floor is applied: ``retrieve`` calls it for
``/v1/search`` and the agent's ``search`` tool, and ``/v1/ask`` calls it from its own retrieval.
It scores every hit with a :class:`~tanda.ports.Reranker`, drops the hits scoring under
``TANDA_RERANK_MIN_SCORE`` and returns the rest, each carrying its ``rerank_score``.

:class:`LexicalReranker` is the embedded default (``TANDA_RERANKER=lexical``): no model, no
network. Its score is the **share of the query's content terms that the passage contains**,
0–1, both sides analyzed exactly as the embedded index analyzes them (docs/retrieval.md
"Reranker floor"): a floor of ``0.5`` keeps a passage only when it holds at least half of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from tanda.lang import DEFAULT_LANG, Lang, fold, guess_lang
from tanda.ports import Reranker
from tanda.records.documents import Chunk, SearchHit
from tanda.retrieval.analysis import query_terms, stem, tokenize


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
) -> list[SearchHit]:
    """The ``hits`` that ``reranker`` scores at or above ``min_score`` for ``query``, each with
    its ``rerank_score``: best rerank score first when the reranker ``reorders`` (ties keep the
    retrieval order), else in the retrieval order. ``min_score`` 0 keeps every hit.

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
        if scores[i] >= min_score
    ]


class LexicalReranker:
    """The embedded default: the share (0–1) of the query's distinct content terms found in the
    passage.

    Both sides go through :mod:`tanda.retrieval.analysis` in the language guessed from the
    query, else Indonesian (one stemmer for both, so they meet on the same stems): tokenized,
    lowercased for the language, Snowball-stemmed, folded; the query drops its function words
    (unless it is made of nothing else) and repeats. A passage holding every such term scores
    1.0, none 0.0; a query with no term at all scores every passage 0.0. It knows nothing of
    meaning: a synonym or a paraphrase scores 0, so a vector-only hit usually falls under a
    floor above 0.
    """

    name = "lexical"
    reorders = False
    """Measured: ordering by this coarse score lowered nDCG@10 on both dev sets (docs/retrieval.md),
    so the floor keeps the fused order."""

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        lang = guess_lang(query) or DEFAULT_LANG  # as the embedded index guesses a query's
        wanted = set(query_terms(query, lang))
        if not wanted:
            return [0.0 for _ in passages]
        return [len(wanted & _passage_terms(p, lang)) / len(wanted) for p in passages]


def _passage_terms(text: str, lang: Lang) -> set[str]:
    """The distinct terms :func:`~tanda.retrieval.analysis.index_terms` gives ``text``, each
    distinct token stemmed once (most of the floor's cost is stemming)."""
    return {fold(term) for term in stem(list(dict.fromkeys(tokenize(text, lang))), lang)}
