"""The one search every reader runs (the agent's search tool, ``/v1/search``, ``/v1/ask``, the
knowledge tools; ``tanda.retriever`` until issue 24, renamed apart from the pure
``tanda.retrieval`` package it builds on): embed the query when an embedder is configured,
search the index (the adapter fuses the arms with RRF and applies the tenant filter), then apply
the reranker floor (ASK-06, :func:`tanda.retrieval.rerank.rerank_floor`) when a reranker is
configured.

Asked for the definition of a term (``definition_of``, issue 22), the chunks holding the
documents' own definitions of it (definition records, looked up by
:func:`tanda.retrieval.analysis.term_key` inside the query's scope) lead the hits: "what is X" is
answered where the document says what X is, even when a search ranks other passages naming X
higher.

Asked about an article of a statute the question names (``articles``: ``Pasal 33``, ``Madde 5``),
the chunks of that article lead: an article's text rarely repeats its own number, while the
amendment lists and the "Mengingat" clauses citing it do — a search for the number finds those.
The article is looked up by its section path in the documents the search ranked first (at most
:data:`ARTICLE_DOCUMENTS`; a question naming its statute ranks that statute first), in the first
of them that has it."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tanda.ports import Embedder, Reranker, SearchIndex
from tanda.records.documents import Chunk, SearchHit, SearchQuery
from tanda.records.structure import DefinitionRecord, RecordQuery
from tanda.retrieval.analysis import term_key
from tanda.retrieval.question import in_article, inline_articles
from tanda.retrieval.rerank import rerank_floor
from tanda.retrieval.spelling import near_term_keys

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Retrieved:
    hits: list[SearchHit]
    mode: str
    """``lexical`` or ``hybrid``: what actually ran."""
    reranked: bool = False
    below_floor: int = 0
    """Hits the search found that the reranker floor dropped (ASK-06)."""
    definition_chunks: tuple[str, ...] = ()
    """With ``definition_of``: the chunks among ``hits`` that hold a definition of the term (they
    come first, in this order)."""
    article_chunks: tuple[str, ...] = ()
    """With ``articles``: the chunks among ``hits`` that are the article named (they lead)."""


ARTICLE_DOCUMENTS = 2
"""How many of the search's first documents an article named is looked up in."""
ARTICLE_CHUNKS = 4
"""At most this many chunks of one article lead (its body first, in document order)."""


def retrieve(
    index: SearchIndex,
    query: SearchQuery,
    *,
    embedder: Embedder | None = None,
    reranker: Reranker | None = None,
    min_score: float = 0.0,
    definition_of: str | None = None,
    articles: Sequence[str] = (),
) -> Retrieved:
    """The hits for ``query``; with ``definition_of`` (a term as the question writes it), the
    chunks defining that term come first — then the search's own hits, without repeats, cut to
    ``top_k`` — and the reranker floor is applied to the whole list as always (a definition chunk
    holds the term, so it passes a floor the question's words set). With ``articles`` (the article
    numbers a question names), that article's chunks come before everything: the question names
    the place it asks about; the floor never drops them."""
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
    defining: tuple[str, ...] = ()
    if definition_of is not None:
        hits, defining = _definitions_first(index, query, definition_of, hits)
    named: tuple[str, ...] = ()
    if articles:
        hits, named = _articles_first(index, query, articles, hits)
    if reranker is None:
        return Retrieved(hits, mode, definition_chunks=defining, article_chunks=named)
    # ASK-06: candidates under the floor never reach synthesis. A reranker outage raises: the
    # floor fails closed (unlike the embedder, whose outage only loses the vector arm's recall).
    # The article the question names is what it asks about, whatever its score.
    kept = rerank_floor(reranker, query.text, hits, min_score=min_score, keep=frozenset(named))
    if defining:  # a reordering reranker does not move a definition from the lead
        lead = {chunk_id: position for position, chunk_id in enumerate(defining)}
        kept.sort(key=lambda hit: lead.get(hit.chunk.chunk_id, len(lead)))
        kept_ids = {hit.chunk.chunk_id for hit in kept}
        defining = tuple(chunk_id for chunk_id in defining if chunk_id in kept_ids)
    if named:  # nor an article named, in its document order, from before everything
        order = {chunk_id: position for position, chunk_id in enumerate(named)}
        kept.sort(key=lambda hit: order.get(hit.chunk.chunk_id, len(order)))
    return Retrieved(
        kept,
        mode,
        reranked=True,
        below_floor=len(hits) - len(kept),
        definition_chunks=defining,
        article_chunks=named,
    )


def _definitions_first(
    index: SearchIndex, query: SearchQuery, term: str, hits: Sequence[SearchHit]
) -> tuple[list[SearchHit], tuple[str, ...]]:
    """``hits`` with the chunks defining ``term`` in front (inside ``query.scope``, at most
    ``top_k`` in all), and those chunks' ids. Definitions of the term itself lead those that
    name it as an alias (``yang selanjutnya disebut …``); then the ones the search ranked
    higher; then document order. A definition chunk the search did not find joins with the
    list's best score (the order says it leads)."""
    key = term_key(term)
    if not key:
        return list(hits), ()

    def definitions(keys: tuple[str, ...]) -> list[DefinitionRecord]:
        found = index.records(RecordQuery(scope=query.scope, kinds=("definition",), terms=keys))
        return [record for record in found if isinstance(record, DefinitionRecord)]

    records = definitions((key,))
    if not records:
        # The term mistyped by one letter (issue 22, V2-19): ``data pribadii`` is looked up as
        # the terms one edit from it that the documents define — in one lookup, and only when
        # the term as written is defined nowhere.
        near = near_term_keys(key)
        records = definitions(near) if near else []
        if records:
            # The near term the documents define most often (ties: the first in document order).
            counts = Counter(k for record in records for k in record.keys if k in near)
            key = max(counts, key=counts.__getitem__)
            records = [record for record in records if key in record.keys]
    if not records:
        return list(hits), ()
    searched = {hit.chunk.chunk_id: rank for rank, hit in enumerate(hits)}
    best: dict[str, tuple[int, int, int]] = {}
    for order, record in enumerate(records):
        place = (record.term_key != key, searched.get(record.chunk_id, len(hits)), order)
        best[record.chunk_id] = min(place, best.get(record.chunk_id, place))
    chosen = sorted(best, key=best.__getitem__)[: query.top_k]
    known = {hit.chunk.chunk_id: hit.chunk for hit in hits}
    missing = [chunk_id for chunk_id in chosen if chunk_id not in known]
    if missing:  # a definition the search did not find is read in (scope-filtered)
        known.update((c.chunk_id, c) for c in index.chunks(query.scope, missing))
    leading = [known[chunk_id] for chunk_id in chosen if chunk_id in known]
    defining = tuple(chunk.chunk_id for chunk in leading)
    return _led_by(hits, leading, query.top_k, past=best), defining


def _articles_first(
    index: SearchIndex, query: SearchQuery, articles: Sequence[str], hits: Sequence[SearchHit]
) -> tuple[list[SearchHit], tuple[str, ...]]:
    """``hits`` with the chunks of the named article in front (its first
    :data:`ARTICLE_CHUNKS`, in document order), and those chunks' ids: looked up by section path
    — or by a line of the text opening with the article's heading (``Madde 2 – …``, a statute
    whose articles are no sections) — in the search's first :data:`ARTICLE_DOCUMENTS`
    documents, the first having it (:func:`_led_by`)."""
    documents = list(dict.fromkeys(hit.chunk.document_id for hit in hits))[:ARTICLE_DOCUMENTS]
    chosen: list[Chunk] = []
    for document_id in documents:
        chosen = [
            chunk
            for chunk in index.document_chunks(query.scope, document_id)
            if in_article(chunk.section, articles)
            or any(number in articles for _, number in inline_articles(chunk.text))
        ][:ARTICLE_CHUNKS]
        if chosen:
            break
    if not chosen:
        return list(hits), ()
    return _led_by(hits, chosen, query.top_k), tuple(chunk.chunk_id for chunk in chosen)


def _led_by(
    hits: Sequence[SearchHit], chunks: Sequence[Chunk], top_k: int, *, past: Iterable[str] = ()
) -> list[SearchHit]:
    """``hits`` with ``chunks`` in front, in their order — a chunk the search found keeps its
    hit, at no lower score than the list's best; one it did not joins with that score (the order
    says it leads) — then the search's other hits, once each and none of ``past``, ``top_k`` in
    all."""
    found = {hit.chunk.chunk_id: hit for hit in hits}
    top = max((hit.score for hit in hits), default=0.0)
    leading = [
        found[chunk.chunk_id].model_copy(update={"score": max(found[chunk.chunk_id].score, top)})
        if chunk.chunk_id in found
        else SearchHit(chunk=chunk, score=top)
        for chunk in chunks
    ]
    ahead = {chunk.chunk_id for chunk in chunks}.union(past)
    rest = [hit for hit in hits if hit.chunk.chunk_id not in ahead]
    return [*leading, *rest][:top_k]
