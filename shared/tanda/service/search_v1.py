"""``search_v1``: the use case behind ``POST /v1/search`` (ASK-02); billed, cheaper than an ask,
under the throttle every /v1 route shares (ASK-13, ``tanda.service.metering``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tanda.contract.v1_search import (
    Identity,
    RetrievalInfo,
    SearchResult,
    V1SearchRequest,
    V1SearchResponse,
)
from tanda.lang import LANGS
from tanda.records.documents import SearchQuery, SearchScope
from tanda.retrieval.question import analyze_question
from tanda.search import retrieve
from tanda.service.metering import admit_v1_call, settle_v1_call

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.service.runtime import Runtime

SNIPPET_CHARS = 200


def search_v1(
    runtime: Runtime,
    principal: Principal,
    body: V1SearchRequest,
    *,
    clock: Callable[[], float] = time.time,
) -> V1SearchResponse:
    admit_v1_call(runtime, principal, "search", clock=clock)
    scope = SearchScope(
        tenant_id=principal.tenant_id,
        document_ids=(body.document_id,) if body.document_id else None,
        batch_id=body.batch_id,
    )
    lang = body.lang.lower() if body.lang and body.lang.lower() in LANGS else None
    question = analyze_question(body.query, lang)  # issue 22: read once
    query = SearchQuery(text=body.query, scope=scope, top_k=body.top_k, lang=question.lang)
    reranker = runtime.reranker
    min_score = runtime.settings.rerank_min_score
    # ASK-06: the floor applies to /v1/search as to /v1/ask and the agent (docs/retrieval.md).
    retrieved = retrieve(
        runtime.search_index,
        query,
        embedder=runtime.embedder,
        reranker=reranker,
        min_score=min_score,
        definition_of=question.defined_term,
        articles=question.articles,
    )
    results = [
        SearchResult(
            rank=rank,
            chunk_id=hit.chunk.chunk_id,
            document_id=hit.chunk.document_id,
            title=hit.chunk.title,
            score=hit.score,
            rerank_score=hit.rerank_score,
            lexical_rank=hit.lexical_rank,
            vector_rank=hit.vector_rank,
            page_no=hit.chunk.page_no,
            section=hit.chunk.section,
            kind=hit.chunk.kind,
            identity=Identity.model_validate(hit.chunk.identity.model_dump()),
            snippet=hit.chunk.text[:SNIPPET_CHARS],
            text=hit.chunk.text,
        )
        for rank, hit in enumerate(retrieved.hits, start=1)
    ]
    hybrid = retrieved.mode == "hybrid"
    settle_v1_call(runtime, principal, "search")
    return V1SearchResponse(
        query=body.query,
        top_k=body.top_k,
        results=results,
        retrieval=RetrievalInfo(
            mode="hybrid" if hybrid else "lexical",
            embedder=runtime.settings.embedder.split(":", 1)[0] if hybrid else "none",
            reranked=retrieved.reranked,
            reranker=reranker.name if reranker is not None else "none",
            rerank_min_score=min_score if reranker is not None else None,
            below_floor=retrieved.below_floor,
        ),
    )
