"""``ask_v1``: the use case behind ``POST /v1/ask`` (ASK-01 … ASK-13; docs/ask.md).

throttle and balance (429, 402) → the answer's language (ASK-07) → sources: the named pages of
the one document in scope (ASK-09), else :func:`retrieve_for_ask` → the synthesis stage (no
source: the fixed answer without a model call, ASK-03; a failed synthesis: 503, nothing charged)
→ the charge (ASK-12) → only the cited sources as citations (ASK-05) → the proof chain
(ASK-11).

Beside the passages, the evidence items of the documents they come from (ASK-08,
:func:`tanda.ask.evidence.pick_evidence`; ``TANDA_ASK_EVIDENCE``) are numbered on into the same
``[S#]`` list; when any was shown, ``evidence_trail`` counts the cited sources by kind, and the
proof chain reads values in them too and carries the cited rules' results as its rule steps.
None shown → the response is exactly what it was without the layers.

Not an orchestration, so not on the Runner (issue 24; docs/pipeline.md "/v1/ask is not an
orchestration"): one synthesis call, no judge, nothing to run beside it — a state machine hop
would only add a second Lambda waiting on the first (2.1-2.2x the Lambda cost per answer,
``bench/results/ask_hop.json``) and a cold start. The MCP ``ask`` tool calls this same use case.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from tanda.ask.context import AskSource, number_sources
from tanda.ask.evidence import CITATION_KIND, PROOF_LAYER, pick_evidence
from tanda.ask.lang import answer_lang
from tanda.ask.run import AskOutcome, AskSynthesis
from tanda.contract.proof import Proof
from tanda.contract.v1_ask import (
    AskCitation,
    AskLang,
    AskUsage,
    EvidenceTrail,
    V1AskRequest,
    V1AskResponse,
)
from tanda.proof import ProofSource, RuleResult, build_proof
from tanda.records.documents import Chunk, Document, SearchQuery, SearchScope
from tanda.records.structure import RuleRecord
from tanda.retrieval.question import QuestionAnalysis, analyze_question
from tanda.search import retrieve
from tanda.service.metering import admit_v1_call, settle_v1_call

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.service.runtime import Runtime

SNIPPET_CHARS = 200
MAX_PAGE_SOURCES = 40
"""ASK-09: at most this many chunks of the named pages become sources (in page order)."""
EXTERNAL_REF_KEY = "external_item_ref"


def ask_v1(
    runtime: Runtime,
    principal: Principal,
    body: V1AskRequest,
    *,
    scenario: str | None = None,
    clock: Callable[[], float] = time.time,
) -> V1AskResponse:
    admit_v1_call(runtime, principal, "ask", clock=clock)
    lang = answer_lang(runtime.store, principal.tenant_id, body.lang)
    scope = SearchScope(
        tenant_id=principal.tenant_id,
        document_ids=(body.document_id,) if body.document_id else None,
        batch_id=body.batch_id,
    )
    settings = runtime.settings
    question = analyze_question(body.query)  # issue 22: read once, handed to every step below
    pages = question.pages if body.document_id is not None else None
    passages = sources_for_ask(runtime, scope, body, question, pages)
    evidence = (
        pick_evidence(runtime.search_index, scope, question, passages, pages=pages)
        if settings.ask_evidence
        else []
    )
    sources = number_sources(passages, evidence)
    outcome = AskSynthesis(
        runtime.ask_model,
        narrow_tokens=settings.ask_output_tokens,
        list_tokens=settings.ask_list_output_tokens,
        deadline_s=settings.request_deadline_s,
        scenario=scenario,
    ).run(question, sources, lang)
    # ASK-12: charged only now, on success (the no-source answer is one); a 402 here withholds
    # the answer of a call whose balance concurrent calls spent.
    charged = settle_v1_call(runtime, principal, "ask")
    cited, documents = cited_sources(runtime, scope, sources, outcome)
    return V1AskResponse(
        query=body.query,
        answer=outcome.answer,
        citations=cited,
        evidence_trail=evidence_trail(cited, documents) if evidence else None,
        truncated=outcome.truncated,
        proof=answer_proof(outcome.answer, sources, lang, outcome.cited),
        lang=lang,
        usage=AskUsage(
            credits_charged=charged,
            test_key=principal.is_test,
            model_calls=outcome.model_calls,
            sources_shown=len(sources),
            invalid_citations=outcome.invalid_citations,
            output_budget_tokens=outcome.output_budget,
        ),
    )


def answer_proof(
    answer: str, sources: Sequence[AskSource], lang: AskLang, cited: Collection[int]
) -> Proof | None:
    """ASK-11: the answer's proof chain over the sources it was shown, ``[S#]`` for ``[S#]``;
    ``null`` when it states no value and shows no operation (the no-source answer among them).
    An evidence item is a source of its layer, read as the model was shown it; each rule the
    answer cites (the violations the server reported among them, ASK-08) is a rule step carrying
    the rule engine's result."""
    return build_proof(
        answer,
        [
            ProofSource(
                s.source_no,
                s.text,
                page_no=s.page_no,
                layer=PROOF_LAYER[s.kind] if s.kind is not None else "passage",
                lang=s.chunk.lang,
            )
            for s in sources
        ],
        rules=[
            RuleResult.of(s.record, s.source_no)
            for s in sources
            if isinstance(s.record, RuleRecord) and s.source_no in cited
        ],
        lang=lang,
    )


def sources_for_ask(
    runtime: Runtime,
    scope: SearchScope,
    body: V1AskRequest,
    question: QuestionAnalysis,
    pages: tuple[int, ...] | None,
) -> list[Chunk]:
    """ASK-09: a question naming ``pages`` of the one document in scope gets exactly those pages'
    text, in page order; any other question gets the hybrid search's hits."""
    if pages is not None and body.document_id is not None:
        wanted = set(pages)
        chunks = runtime.search_index.document_chunks(scope, body.document_id)
        return [c for c in chunks if c.page_no in wanted][:MAX_PAGE_SOURCES]
    return retrieve_for_ask(runtime, scope, question, body.top_k)


def retrieve_for_ask(
    runtime: Runtime, scope: SearchScope, question: QuestionAnalysis, top_k: int
) -> list[Chunk]:
    """The same hybrid retrieval as ``/v1/search`` (ASK-02) under the same reranker floor
    (ASK-06): candidates under it never reach synthesis. A reranker outage fails closed with 502
    ``rerank_failed`` before any model call, and nothing is charged.

    The search reads the question in its own language (the analysis's), not the request's
    ``lang``, which is the answer's."""
    query_model = SearchQuery(text=question.text, scope=scope, top_k=top_k, lang=question.lang)
    retrieved = retrieve(
        runtime.search_index,
        query_model,
        embedder=runtime.embedder,
        reranker=runtime.reranker,
        min_score=runtime.settings.rerank_min_score,
        definition_of=question.defined_term,  # a definition question: the definition first
        articles=question.articles,  # an article named: that article first
    )
    return [hit.chunk for hit in retrieved.hits]


def cited_sources(
    runtime: Runtime, scope: SearchScope, sources: Sequence[AskSource], outcome: AskOutcome
) -> tuple[list[AskCitation], list[Document]]:
    """ASK-05: one citation per source the answer cites, by ``source_no``; none otherwise. An
    evidence item's citation keeps its text and the document's quote verbatim (ASK-08). Returned
    with the cited documents."""
    by_no = {source.source_no: source for source in sources}
    cited = [by_no[no] for no in outcome.cited]
    if not cited:
        return [], []
    documents = runtime.search_index.documents(
        scope.model_copy(
            update={
                "document_ids": tuple(dict.fromkeys(s.chunk.document_id for s in cited)),
                "batch_id": None,
                "selection": None,
            }
        )
    )
    references = {d.document_id: d.metadata.get(EXTERNAL_REF_KEY) for d in documents}
    citations = []
    for source in cited:
        citation = AskCitation(
            source_no=source.source_no,
            document_id=source.chunk.document_id,
            external_item_ref=references.get(source.chunk.document_id),
            page_no=source.page_no,
            section=source.section,
            chunk_id=source.chunk.chunk_id,
            snippet=source.text[:SNIPPET_CHARS],
            kind="passage",
        )
        record = source.record
        if record is not None:
            citation = citation.model_copy(
                update={
                    "kind": CITATION_KIND[record.kind],
                    "node_id": record.node_id,
                    "record_kind": record.kind,
                    "text": source.text,
                    "quote": record.quote,
                }
            )
        citations.append(citation)
    return citations, documents


def evidence_trail(
    citations: Sequence[AskCitation], documents: Sequence[Document]
) -> EvidenceTrail:
    """ASK-08: the cited sources by kind, and whether a cited document has a structural
    representation (``identity``)."""
    kinds = [citation.kind for citation in citations]
    return EvidenceTrail(
        identity=any(d.structure_version is not None for d in documents),
        passages=kinds.count("passage"),
        entities=kinds.count("entity"),
        tables=kinds.count("table"),
        claims=kinds.count("claim"),
    )
