"""Retrieval as every route uses it: embed the query when an embedder is configured, search the
index (the adapter fuses the arms with RRF and applies the tenant filter), then apply the
reranker floor (ASK-06, :func:`tanda.retrieval.rerank.rerank_floor`) when a reranker is
configured."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from tanda.ports import Embedder, Reranker, SearchIndex
from tanda.records.documents import SearchHit, SearchQuery
from tanda.retrieval.rerank import rerank_floor

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Retrieved:
    hits: list[SearchHit]
    mode: str
    """``lexical`` or ``hybrid``: what actually ran."""
    reranked: bool = False
    below_floor: int = 0
    """Hits the search found that the reranker floor dropped (ASK-06)."""


def retrieve(
    index: SearchIndex,
    query: SearchQuery,
    *,
    embedder: Embedder | None = None,
    reranker: Reranker | None = None,
    min_score: float = 0.0,
) -> Retrieved:
    mode = "lexical"
    if embedder is not None and query.vector is None:
        try:
            (vector,) = embedder.embed([query.text])
        except Exception:  # an embedder outage degrades to lexical search, and says so
            log.warning("query embedding failed; searching lexically", exc_info=True)
        else:
            query = query.model_copy(update={"vector": tuple(vector)})
            mode = "hybrid"
    elif query.vector is not None:
        mode = "hybrid"
    hits = index.search(query)
    if reranker is None:
        return Retrieved(hits, mode)
    # ASK-06: candidates under the floor never reach synthesis. A reranker outage raises: the
    # floor fails closed (unlike the embedder, whose outage only loses the vector arm's recall).
    kept = rerank_floor(reranker, query.text, hits, min_score=min_score)
    return Retrieved(kept, mode, reranked=True, below_floor=len(hits) - len(kept))
