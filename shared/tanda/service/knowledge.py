"""Knowledge queries for agent hosts (KB-01 … KB-07): the use cases behind the MCP tools
(``tanda.mcp``, docs/mcp.md).

Every use case here but :func:`kb_ask` only reads (KB-07): no throttle window, no metering, no
log row — nothing is written to the Store or the index to serve a read-only query. ``kb_ask`` is
``/v1/ask`` as a tool and is throttled and charged exactly like the route (ASK-12, ASK-13).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from tanda.contract.knowledge import (
    NODE_TYPES,
    AnswerValidation,
    Budget,
    BudgetProfile,
    Candidate,
    ComponentStatus,
    GoverningRule,
    IndexInfo,
    KnowledgeNode,
    KnowledgeScope,
    KnowledgeWarning,
    Neighbour,
    NeighbourRequest,
    Neighbours,
    NodeResult,
    NodeType,
    PendingSource,
    QuoteCitation,
    QuoteVerification,
    RulesResult,
    SearchFilters,
    SearchResult,
    ServiceStatus,
    SourceInfo,
    SourcesResult,
    Span,
    StructuredAnswer,
)
from tanda.contract.v1_ask import V1AskRequest, V1AskResponse
from tanda.contract.v1_cross_check import V1CrossCheckJob, V1CrossCheckRequest
from tanda.contract.v1_search import Identity
from tanda.errors import BadRequest, NotFound
from tanda.knowledge import freshness
from tanda.knowledge.answers import validate_answer
from tanda.knowledge.cursors import context_binding, encode_cursor, resume_offset
from tanda.knowledge.governing_rules import GOVERNING_RULES
from tanda.knowledge.nodes import passage_node, rank_records, record_kinds, record_node
from tanda.knowledge.paging import ResultT, RowT, fit_page
from tanda.knowledge.quotes import check_quote
from tanda.records.documents import Chunk, SearchQuery, SearchScope
from tanda.records.structure import EntityRecord, RecordQuery, StructureRecord
from tanda.records.uploads import UPLOAD_STATUSES, UploadStatus, iso
from tanda.search import retrieve
from tanda.service.ask_v1 import ask_v1
from tanda.service.cross_check import start_cross_check, wait_for_cross_check

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.service.runtime import Runtime

TOOLS = (
    "service_status",
    "search",
    "list_sources",
    "get_node",
    "verify_quote",
    "validate_answer",
    "list_rules",
    "ask",
    "cross_check",
)
"""The tools of the MCP server; ``ask`` and ``cross_check`` are the only ones that write (KB-07)."""
CROSS_CHECK_POLL_S = 0.5
"""How often ``cross_check`` reads its job while it waits (XC-5)."""
SIMILAR_QUERY_CHARS = 500
"""A node's suggestions are searched with its text's first characters (KB-04)."""

Clock = Callable[[], float]


class UnknownNode(NotFound):
    code = "unknown_node"
    message = "No node with this id in the caller's documents."


class AskScopeError(BadRequest):
    code = "ask_scope"
    message = "ask reads one document or one batch (ASK-02): give one document id or a batch_id."


# --- scope, freshness, index metadata --------------------------------------------------------


def search_scope(principal: Principal, scope: KnowledgeScope) -> SearchScope:
    """The caller's scope inside the caller's tenant (the tenant never comes from the request)."""
    return SearchScope(
        tenant_id=principal.tenant_id,
        document_ids=tuple(scope.document_ids) if scope.document_ids is not None else None,
        batch_id=scope.batch_id,
        selection=scope.selection,
    )


class _Freshness:
    """The documents of a scope, read once, with what each result reports about them."""

    def __init__(self, runtime: Runtime, scope: SearchScope, now: datetime) -> None:
        self.documents = runtime.search_index.documents(scope)
        horizon = runtime.settings.kb_stale_after_days
        self.by_id = {d.document_id: d for d in self.documents}
        self.stale = {
            d.document_id: reason
            for d in self.documents
            if (reason := freshness.stale_reason(d, now, horizon)) is not None
        }

    def index_info(self, runtime: Runtime, mode: str | None) -> IndexInfo:
        """``mode``: what this result's search ran; ``None`` (a tool that does not search): what
        a search on this server runs — so every tool reports one mode (KB-01, issue 23)."""
        retrieval_mode = _retrieval_mode(runtime) if mode is None else mode
        return IndexInfo(
            backend=runtime.settings.index.split(":", 1)[0],
            retrieval_mode="hybrid" if retrieval_mode == "hybrid" else "lexical",
            degraded=retrieval_mode != "hybrid",
            generation=freshness.generation(self.documents),
            documents_in_scope=len(self.documents),
            newest_indexed_at=freshness.newest_indexed_at(self.documents),
            stale_documents=len(self.stale),
        )

    def warnings(self, runtime: Runtime) -> list[KnowledgeWarning]:
        warnings: list[KnowledgeWarning] = []
        if not self.documents:
            warnings.append(
                KnowledgeWarning(
                    code="EMPTY_SCOPE",
                    message="No document of the caller is in this scope: nothing can be found "
                    "in it (check the scope with list_sources).",
                )
            )
        if self.stale:
            days = runtime.settings.kb_stale_after_days
            warnings.append(
                KnowledgeWarning(
                    code="STALE_DOCUMENTS",
                    message=f"{len(self.stale)} document(s) in scope were indexed more than "
                    f"{days} days ago: state their as-of date (list_sources, stale_only).",
                )
            )
        return warnings


def _now(clock: Clock) -> datetime:
    return datetime.fromtimestamp(clock(), UTC)


def _degraded_warning(embedder_configured: bool) -> KnowledgeWarning:
    why = "the embedder did not answer" if embedder_configured else "no embedder is configured"
    return KnowledgeWarning(
        code="DEGRADED_MODE",
        message=f"Lexical-only retrieval ({why}): recall is lower than hybrid search; a missing "
        "candidate is not evidence of absence.",
    )


def _budget(runtime: Runtime, budget: Budget | None) -> int:
    return budget.max_codepoints if budget is not None else runtime.settings.kb_default_budget


# --- nodes -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Found:
    """A node of the caller's and the passage its text is in."""

    passage: Chunk
    record: StructureRecord | None = None


def _find_nodes(
    runtime: Runtime, principal: Principal, node_ids: Sequence[str]
) -> dict[str, _Found]:
    """The caller's nodes among ``node_ids``: passages by chunk id, structure records by node
    id, each with its passage. Another tenant's node is not found, as an unknown id is not."""
    index = runtime.search_index
    tenant = SearchScope(tenant_id=principal.tenant_id)
    wanted = list(dict.fromkeys(node_ids))
    if not wanted:
        return {}
    found = {c.chunk_id: _Found(c) for c in index.chunks(tenant, wanted)}
    rest = tuple(i for i in wanted if i not in found)
    records = index.records(RecordQuery(scope=tenant, node_ids=rest)) if rest else []
    passages = {c.chunk_id: c for c in index.chunks(tenant, [r.chunk_id for r in records])}
    for record in records:
        passage = passages.get(record.chunk_id)
        if passage is not None:
            found[record.node_id] = _Found(passage, record)
    return found


# --- the tools -------------------------------------------------------------------------------


def kb_search(
    runtime: Runtime,
    principal: Principal,
    *,
    query: str,
    scope: KnowledgeScope,
    node_types: Sequence[NodeType] | None = None,
    stale_only: bool = False,
    limit: int,
    budget: Budget | None = None,
    cursor: str | None = None,
    clock: Clock = time.time,
) -> SearchResult:
    """KB-02, KB-03: accepted candidates with complete citation groups, in budgeted pages."""
    wanted = list(dict.fromkeys(node_types)) if node_types else list(NODE_TYPES)
    filters = SearchFilters(query=query, node_types=wanted, stale_only=stale_only, limit=limit)
    binding = context_binding(
        principal.tenant_id,
        "search",
        {"scope": scope.model_dump(mode="json"), "filters": filters.model_dump(mode="json")},
    )
    within = search_scope(principal, scope)
    docs = _Freshness(runtime, within, _now(clock))
    if stale_only:
        # The stale-only facet narrows the scope to its stale documents (all inside it already).
        within = within.model_copy(update={"document_ids": tuple(docs.stale), "batch_id": None})
    retrieved = retrieve(
        runtime.search_index,
        SearchQuery(text=query, scope=within, top_k=limit),
        embedder=runtime.embedder,
        reranker=runtime.reranker,
        min_score=runtime.settings.rerank_min_score,
    )
    warnings = docs.warnings(runtime)
    if retrieved.mode == "lexical":
        warnings.append(_degraded_warning(runtime.embedder is not None))
    if retrieved.below_floor:
        warnings.append(
            KnowledgeWarning(
                code="BELOW_RERANK_FLOOR",
                message=f"{retrieved.below_floor} candidate(s) scored under the reranker floor "
                "and are not accepted (ASK-06).",
            )
        )
    kinds = record_kinds(wanted)
    unbuilt = sum(1 for d in docs.documents if d.structure_version is None)
    if kinds and unbuilt:
        warnings.append(
            KnowledgeWarning(
                code="NODE_TYPES_MISSING",
                message=f"{unbuilt} document(s) in scope have no structure records (entity, "
                "table, claim, rule, line item, definition): only their passages can be found. "
                "Absence of such nodes is not absence from the documents.",
            )
        )
    records: dict[str, list[StructureRecord]] = {}
    if kinds and retrieved.hits:
        chunk_ids = tuple(dict.fromkeys(h.chunk.chunk_id for h in retrieved.hits))
        for record in runtime.search_index.records(
            RecordQuery(scope=within, chunk_ids=chunk_ids, kinds=kinds)
        ):
            records.setdefault(record.chunk_id, []).append(record)
    candidates: list[Candidate] = []
    for hit in retrieved.hits:
        # Each accepted passage, then the structure records read from it (document order).
        document = docs.by_id.get(hit.chunk.document_id)
        stale = hit.chunk.document_id in docs.stale
        nodes = [passage_node(hit.chunk, document, stale)] if "passage" in wanted else []
        read = rank_records(records.get(hit.chunk.chunk_id, []), query)
        nodes += [record_node(r, hit.chunk, document, stale) for r in read]
        candidates += [
            Candidate(
                **node.model_dump(),
                rank=len(candidates) + offset,
                score=hit.score,
                rerank_score=hit.rerank_score,
            )
            for offset, node in enumerate(nodes, start=1)
        ]
    index = docs.index_info(runtime, retrieved.mode)

    def render(rows: list[Candidate], profile: BudgetProfile) -> SearchResult:
        return SearchResult(
            scope=scope,
            filters=filters,
            index=index,
            warnings=warnings,
            candidates=rows,
            budget=profile,
        )

    def abbreviate(profile: BudgetProfile) -> SearchResult:
        return SearchResult(
            scope=None, filters=None, index=None, warnings=None, candidates=[], budget=profile
        )

    keys = [c.node_id for c in candidates]
    return _paged(candidates, keys, binding, cursor, (render, abbreviate), runtime, budget)


def kb_list_sources(
    runtime: Runtime,
    principal: Principal,
    *,
    scope: KnowledgeScope,
    budget: Budget | None = None,
    cursor: str | None = None,
    clock: Clock = time.time,
) -> SourcesResult:
    """KB-02: the documents under the same explicit scope, with their freshness, in pages."""
    binding = context_binding(
        principal.tenant_id, "list_sources", {"scope": scope.model_dump(mode="json")}
    )
    docs = _Freshness(runtime, search_scope(principal, scope), _now(clock))
    sources = [
        SourceInfo(
            document_id=d.document_id,
            title=d.title,
            source=d.source,
            identity=Identity.model_validate(d.identity.model_dump()),
            batch_id=d.batch_id,
            selections=list(d.selections),
            lang=d.lang,
            pages=d.pages,
            indexed_at=d.indexed_at,
            stale=d.document_id in docs.stale,
            stale_reason=docs.stale.get(d.document_id),
            structure_version=d.structure_version,
        )
        for d in sorted(docs.documents, key=lambda d: d.document_id)
    ]
    index = docs.index_info(runtime, None)
    warnings = docs.warnings(runtime)
    pending = _pending_uploads(runtime, search_scope(principal, scope)) if cursor is None else None

    def render(rows: list[SourceInfo], profile: BudgetProfile) -> SourcesResult:
        return SourcesResult(
            scope=scope,
            index=index,
            warnings=warnings,
            sources=rows,
            pending=pending,
            budget=profile,
        )

    def abbreviate(profile: BudgetProfile) -> SourcesResult:
        return SourcesResult(scope=None, index=None, warnings=None, sources=[], budget=profile)

    keys = [s.document_id for s in sources]
    return _paged(sources, keys, binding, cursor, (render, abbreviate), runtime, budget)


PENDING_SHOWN = 20
NOT_INDEXED: tuple[UploadStatus, ...] = tuple(s for s in UPLOAD_STATUSES if s != "indexed")


def _pending_uploads(runtime: Runtime, scope: SearchScope) -> list[PendingSource]:
    """Issue 26: the scope's uploads the index does not hold (yet), newest first."""
    wanted = set(scope.document_ids) if scope.document_ids is not None else None
    found: list[PendingSource] = []
    after: str | None = None
    while len(found) < PENDING_SHOWN:
        page = runtime.store.uploads(
            scope.tenant_id,
            limit=PENDING_SHOWN,
            after=after,
            batch_id=scope.batch_id,
            statuses=NOT_INDEXED,
        )
        for upload in page.uploads:
            if wanted is not None and upload.document_id not in wanted:
                continue
            if scope.selection is not None and scope.selection not in upload.selections:
                continue
            found.append(
                PendingSource(
                    document_id=upload.document_id,
                    status=upload.status,
                    reason=upload.reason,
                    filename=upload.filename,
                    batch_id=upload.batch_id,
                    selections=list(upload.selections),
                    created_at=iso(upload.created_at),
                )
            )
        if page.next_after is None:
            break
        after = page.next_after
    return found[:PENDING_SHOWN]


def _paged(
    rows: Sequence[RowT],
    keys: list[str],
    binding: str,
    cursor: str | None,
    renderers: tuple[
        Callable[[list[RowT], BudgetProfile], ResultT], Callable[[BudgetProfile], ResultT]
    ],
    runtime: Runtime,
    budget: Budget | None,
) -> ResultT:
    """KB-03: the page after ``cursor`` (bound to ``binding``) that fits the budget, envelope
    included: ``renderers`` build the full page and the abbreviated one."""
    offset = resume_offset(cursor, binding, keys)
    render, abbreviate = renderers
    return fit_page(
        rows,
        offset=offset,
        max_codepoints=_budget(runtime, budget),
        render=render,
        abbreviate=abbreviate,
        cursor_after=lambda end: encode_cursor(binding, end, keys[end - 1]),
    )


def kb_get_node(
    runtime: Runtime,
    principal: Principal,
    *,
    node_id: str,
    neighbours: NeighbourRequest | None = None,
    clock: Clock = time.time,
) -> NodeResult:
    """KB-04: the decisive node and a bounded set of typed neighbours: established relationships
    (its passage and the passages around it, its section, the records read from it, the claims
    quoting it, a table and its line items) apart from suggestions (similar text elsewhere, the
    same entity in another document)."""
    request = neighbours or NeighbourRequest()
    types = list(dict.fromkeys(request.types)) if request.types else list(NODE_TYPES)
    found = _find_nodes(runtime, principal, [node_id]).get(node_id)
    if found is None:
        raise UnknownNode()
    tenant = SearchScope(tenant_id=principal.tenant_id)
    docs = _Freshness(runtime, tenant, _now(clock))
    graph = _Graph(runtime, tenant, docs)
    if found.record is None:
        node = graph.passage(found.passage)
        established = graph.around_passage(found.passage, types)
    else:
        node = graph.record(found.record, found.passage)
        established = graph.around_record(found.record, found.passage, types)
    established = established[: request.limit]
    listed = {node_id, *(n.node.node_id for n in established)}
    suggested: list[Neighbour] = []
    if found.record is not None and found.record.kind == "entity" and "entity" in types:
        suggested += graph.same_entity_elsewhere(found.record, request.limit)
    if "passage" in types:
        listed |= {n.node.node_id for n in suggested}
        suggested += _similar(runtime, graph, found.passage, listed, request.limit)
    return NodeResult(
        node=node,
        neighbours=Neighbours(
            established=established,
            suggested=suggested[: request.limit],
            types=types,
            limit=request.limit,
        ),
        index=docs.index_info(runtime, None),
    )


class _Graph:
    """The typed neighbours of a node, read from the index (KB-04)."""

    def __init__(self, runtime: Runtime, tenant: SearchScope, docs: _Freshness) -> None:
        self.index = runtime.search_index
        self.tenant = tenant
        self.docs = docs

    def passage(self, chunk: Chunk) -> KnowledgeNode:
        document_id = chunk.document_id
        return passage_node(chunk, self.docs.by_id.get(document_id), document_id in self.docs.stale)

    def record(self, record: StructureRecord, passage: Chunk | None) -> KnowledgeNode:
        document_id = record.document_id
        return record_node(
            record, passage, self.docs.by_id.get(document_id), document_id in self.docs.stale
        )

    def around_passage(self, chunk: Chunk, types: list[NodeType]) -> list[Neighbour]:
        found: list[Neighbour] = []
        if "passage" in types:
            ordered = self.index.document_chunks(self.tenant, chunk.document_id)
            at = next(i for i, c in enumerate(ordered) if c.chunk_id == chunk.chunk_id)
            if at > 0:
                found.append(
                    Neighbour(relation="previous_passage", node=self.passage(ordered[at - 1]))
                )
            if at + 1 < len(ordered):
                found.append(Neighbour(relation="next_passage", node=self.passage(ordered[at + 1])))
            listed = {chunk.chunk_id, *(n.node.node_id for n in found)}
            if chunk.section:
                found += [
                    Neighbour(relation="same_section", node=self.passage(c))
                    for c in ordered
                    if c.section == chunk.section and c.chunk_id not in listed
                ]
        kinds = record_kinds(types)
        if kinds:
            query = RecordQuery(scope=self.tenant, chunk_ids=(chunk.chunk_id,), kinds=kinds)
            found += [
                Neighbour(
                    relation="quoted_by_claim" if r.kind == "claim" else "record_in_passage",
                    node=self.record(r, chunk),
                )
                for r in self.index.records(query)
            ]
        return found

    def around_record(
        self, record: StructureRecord, passage: Chunk, types: list[NodeType]
    ) -> list[Neighbour]:
        found: list[Neighbour] = []
        if "passage" in types:
            found.append(Neighbour(relation="passage_of", node=self.passage(passage)))
        kinds = record_kinds(types)
        if not kinds:
            return found
        if record.parent_id is not None:
            parents = self.index.records(
                RecordQuery(scope=self.tenant, node_ids=(record.parent_id,), kinds=kinds)
            )
            found += [Neighbour(relation="part_of", node=self.record(p, None)) for p in parents]
        children = self.index.records(
            RecordQuery(scope=self.tenant, parent_ids=(record.node_id,), kinds=kinds)
        )
        found += [Neighbour(relation="contains", node=self.record(c, None)) for c in children]
        if "claim" in types and record.kind != "claim":
            # The claims whose quote overlaps this record's quote in the same passage.
            claims = self.index.records(
                RecordQuery(scope=self.tenant, chunk_ids=(record.chunk_id,), kinds=("claim",))
            )
            found += [
                Neighbour(relation="quoted_by_claim", node=self.record(c, passage))
                for c in claims
                if c.span.start < record.span.end and record.span.start < c.span.end
            ]
        return found

    def same_entity_elsewhere(self, entity: StructureRecord, limit: int) -> list[Neighbour]:
        """Entities of the same type and name in the caller's other documents, differing values
        first: a match of names, not a relationship the documents state (a suggestion)."""
        assert isinstance(entity, EntityRecord)
        others = [
            other
            for other in self.index.records(RecordQuery(scope=self.tenant, kinds=("entity",)))
            if isinstance(other, EntityRecord)
            and other.document_id != entity.document_id
            and (other.entity_type, other.canonical) == (entity.entity_type, entity.canonical)
        ]
        others.sort(key=lambda other: other.value == entity.value)
        return [
            Neighbour(relation="same_entity_elsewhere", node=self.record(other, None))
            for other in others[:limit]
        ]


def _similar(
    runtime: Runtime, graph: _Graph, chunk: Chunk, listed: set[str], limit: int
) -> list[Neighbour]:
    """Suggestions: passages elsewhere in the caller's documents whose text is like the node's.
    Similarity is not a relationship the documents state; it stays apart (KB-04)."""
    retrieved = retrieve(
        runtime.search_index,
        SearchQuery(
            text=chunk.text[:SIMILAR_QUERY_CHARS],
            scope=graph.tenant,
            top_k=min(limit + len(listed), 20),
        ),
        embedder=runtime.embedder,
    )
    return [
        Neighbour(relation="similar_text", node=graph.passage(h.chunk), score=h.score)
        for h in retrieved.hits
        if h.chunk.chunk_id not in listed
    ][:limit]


def kb_verify_quote(
    runtime: Runtime, principal: Principal, citation: QuoteCitation
) -> QuoteVerification:
    """KB-05: true only if ``quote`` is the complete normalised text at ``[start, end)`` of the
    node's passage."""
    found = _find_nodes(runtime, principal, [citation.node_id]).get(citation.node_id)
    return _verify(citation, found.passage if found is not None else None)


def _verify(citation: QuoteCitation, chunk: Chunk | None) -> QuoteVerification:
    if chunk is None:
        return QuoteVerification(
            node_id=citation.node_id,
            start=citation.start,
            end=citation.end,
            verified=False,
            reason="unknown_node",
            message="No node with this id in the caller's documents.",
            text_at_span=None,
            verified_span=None,
        )
    check = check_quote(chunk.text, citation.start, citation.end, citation.quote)
    return QuoteVerification(
        node_id=citation.node_id,
        start=citation.start,
        end=citation.end,
        verified=check.verified,
        reason=check.reason,
        message=check.message,
        text_at_span=check.text_at_span,
        verified_span=(
            Span(start=check.verified_span[0], end=check.verified_span[1])
            if check.verified_span is not None
            else None
        ),
    )


def kb_validate_answer(
    runtime: Runtime, principal: Principal, answer: StructuredAnswer
) -> AnswerValidation:
    """KB-05, KB-06: the binding verifier (``tanda.knowledge.answers``)."""
    found = _find_nodes(runtime, principal, [c.node_id for c in answer.citations])

    def verify(citation: QuoteCitation) -> QuoteVerification:
        node = found.get(citation.node_id)
        return _verify(citation, node.passage if node is not None else None)

    return validate_answer(answer, verify)


def kb_rules() -> RulesResult:
    """KB-06: the registered governing rules with their exact texts."""
    return RulesResult(
        rules=[GoverningRule(rule_id=rid, quote=text) for rid, text in GOVERNING_RULES.items()]
    )


def kb_ask(
    runtime: Runtime,
    principal: Principal,
    *,
    query: str,
    scope: KnowledgeScope,
    lang: str | None = None,
    scenario: str | None = None,
) -> V1AskResponse:
    """``/v1/ask`` as a tool: the same use case, throttled and charged like the route."""
    if scope.selection is not None or (
        scope.document_ids is not None and len(scope.document_ids) != 1
    ):
        raise AskScopeError()
    body = V1AskRequest(
        query=query,
        document_id=scope.document_ids[0] if scope.document_ids else None,
        batch_id=scope.batch_id,
        lang=lang,
    )
    return ask_v1(runtime, principal, body, scenario=scenario)


def kb_cross_check(
    runtime: Runtime,
    principal: Principal,
    *,
    document_ids: Sequence[str],
    lang: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Clock = time.monotonic,
) -> V1CrossCheckJob:
    """XC-5: ``POST /v1/cross-check`` and its polling in one call — the job is started (throttled
    and charged once, like the route), then read until it is completed or failed, for at most
    ``TANDA_MCP_CROSS_CHECK_WAIT_S``; past that the job as it stands (id and status), which
    ``GET /v1/cross-check/{id}`` reads on later."""
    body = V1CrossCheckRequest(document_ids=list(document_ids), lang=lang)
    started = start_cross_check(runtime, principal, body)
    return wait_for_cross_check(
        runtime,
        principal,
        started.id,
        timeout_s=runtime.settings.mcp_cross_check_wait_s,
        poll_s=CROSS_CHECK_POLL_S,
        sleep=sleep,
        clock=clock,
    )


def kb_service_status(
    runtime: Runtime,
    principal: Principal,
    *,
    scope: KnowledgeScope | None = None,
    tools: Sequence[str] = TOOLS,
    clock: Clock = time.time,
) -> ServiceStatus:
    """KB-01: actual availability, checked now (the index is read, the embedder is called)."""
    settings = runtime.settings
    scope = scope or KnowledgeScope()
    docs: _Freshness | None
    try:
        docs = _Freshness(runtime, search_scope(principal, scope), _now(clock))
        index = ComponentStatus(
            status="available", detail=f"{settings.index.split(':', 1)[0]} index answered"
        )
    except Exception as exc:  # the status of the index is what is asked
        docs = None
        index = ComponentStatus(status="unavailable", detail=type(exc).__name__)
    embedder = _embedder_status(runtime)
    hybrid = embedder.status == "available"
    warnings = docs.warnings(runtime) if docs is not None else []
    if not hybrid:
        warnings.append(_degraded_warning(runtime.embedder is not None))
    return ServiceStatus(
        index=index,
        embedder=embedder,
        reranker=_reranker_status(runtime),
        model=_model_status(settings.model),
        ask_model=_ask_model_status(runtime),
        job_runner=runtime.job_runner_status(),
        retrieval_mode="hybrid" if hybrid else "lexical",
        degraded=not hybrid,
        scope=scope,
        index_info=(
            docs.index_info(runtime, "hybrid" if hybrid else "lexical")
            if docs is not None
            else None
        ),
        warnings=warnings,
        tools=list(tools),
    )


def _retrieval_mode(runtime: Runtime) -> Literal["hybrid", "lexical"]:
    """What a search on this server runs without calling anything: hybrid with an embedder,
    lexical (degraded mode) without. An embedder outage is seen by the calls that embed — a
    search (its own ``mode``) and ``service_status`` (its probe) — not by the other tools."""
    return "hybrid" if runtime.embedder is not None else "lexical"


def _embedder_status(runtime: Runtime) -> ComponentStatus:
    embedder = runtime.embedder
    if embedder is None:
        return ComponentStatus(status="not_configured", detail="lexical-only retrieval")
    try:
        embedder.embed(["status"])
    except Exception as exc:  # an outage is the answer, not an error
        return ComponentStatus(status="unavailable", detail=type(exc).__name__)
    return ComponentStatus(
        status="available", detail=runtime.settings.embedder.split(":", 1)[0] + " answered"
    )


def _reranker_status(runtime: Runtime) -> ComponentStatus:
    reranker = runtime.reranker
    if reranker is None:
        return ComponentStatus(status="not_configured", detail="no reranker floor")
    floor = f"floor {runtime.settings.rerank_min_score:g}"
    if reranker.name == "lexical":
        return ComponentStatus(status="available", detail=f"lexical (embedded), {floor}")
    return ComponentStatus(status="configured", detail=f"{reranker.name}, {floor}")


def _model_status(spec: str) -> ComponentStatus:
    kind = spec.split(":", 1)[0]
    if kind in {"offline", "scripted"}:
        return ComponentStatus(status="available", detail=f"{kind} (embedded)")
    return ComponentStatus(status="configured", detail=kind)


def _ask_model_status(runtime: Runtime) -> ComponentStatus:
    if runtime.ask_model is None:
        return ComponentStatus(status="not_configured", detail="ask answers 503 rag_unavailable")
    spec = (runtime.settings.ask_model or runtime.settings.model).strip()
    return _model_status(spec)
