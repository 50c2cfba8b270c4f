"""Retrieval as every route uses it: embed the query when an embedder is configured, search the
index (the adapter fuses arms with RRF and applies the tenant filter), then apply the reranker
floor (ASK-06) when a reranker is configured."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from tanda.ports import Embedder, Reranker, SearchIndex
from tanda.records.documents import SearchHit, SearchQuery

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Retrieved:
    hits: list[SearchHit]
    mode: str
    """``lexical`` or ``hybrid``: what actually ran."""
    reranked: bool = False


def retrieve(
    index: SearchIndex,
    query: SearchQuery,
    *,
    embedder: Embedder | None = None,
    reranker: Reranker | None = None,
    min_score: float | None = None,
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
    if reranker is None or not hits:
        return Retrieved(hits, mode)
    scores = reranker.score(query.text, [h.chunk.text for h in hits])
    ranked = sorted(zip(scores, hits, strict=True), key=lambda pair: -pair[0])
    # ASK-06: candidates under the floor never reach synthesis.
    kept = [hit for score, hit in ranked if min_score is None or score >= min_score]
    return Retrieved(kept, mode, reranked=True)
