"""The ``/query/v2`` steps chained in-process under one deadline (DESIGN §3, §4):
scope → agent ⇄ tools → compose → [judge ∥ framing check] → aggregate → guard.

Each step takes and returns plain models so a Step Functions runner can cut between them; the
deadline and model-call budget travel in the ``ModelLedger``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tanda.agent.run import run_agent
from tanda.agent.tools import AgentTools, unreadable_call
from tanda.annotate.aggregate import (
    Annotation,
    Route,
    SegmentOutcome,
    aggregate,
    refusal_annotation,
    route_segment,
)
from tanda.annotate.compose import compose
from tanda.contract.common import Citation, FallbackReason, StageStatus, Verdict, WireModel
from tanda.contract.proof import Proof
from tanda.contract.query import QueryV2Request
from tanda.contract.response import ModelCallRecord, ToolCallAudit
from tanda.contract.segments import Segment
from tanda.conversations.history import History
from tanda.errors import NotFound
from tanda.guard.run import guard_blocks
from tanda.judge.reader_context import reader_contexts
from tanda.judge.run import JudgeItem, check_framing, judge_claims
from tanda.model_calls import ChatModel
from tanda.model_calls.budget import ModelLedger, RequestBudget
from tanda.passages import Passage
from tanda.pipeline.notices import NOTICES, refusal_for
from tanda.pipeline.proof import prove_answer
from tanda.ports import Embedder, Reranker, SearchIndex
from tanda.records.documents import SearchScope
from tanda.settings import Settings


class NothingReadable(NotFound):
    """V2-19: the tools ran and none returned anything readable — an empty result, a failed
    search, or one stopped at the tool deadline. The body carries the last tool and its status."""

    code = "no_readable_result"
    message = "The tool that ran returned nothing readable."
    _WHY: ClassVar[dict[str, str]] = {
        "error": "The {tool} tool that ran failed; nothing readable was returned.",
        "timeout": "The {tool} tool that ran was stopped at its deadline; nothing readable was "
        "returned.",
    }

    def __init__(self, tool: str | None = None, tool_status: str | None = None) -> None:
        why = self._WHY.get(tool_status or "")
        super().__init__(why.format(tool=tool) if why and tool else None)
        self.tool = tool
        self.tool_status = tool_status

    def detail(self) -> dict[str, Any]:
        return {"tool": self.tool, "tool_status": self.tool_status}

    @classmethod
    def after(cls, tools: AgentTools) -> NothingReadable | None:
        """The 404 for ``tools``, or ``None`` when no tool ran or one returned something."""
        call = unreadable_call(tools)
        if call is None:
            return None
        return cls(call.tool, call.status)


@dataclass
class AnswerDeps:
    index: SearchIndex
    model: ChatModel
    settings: Settings
    embedder: Embedder | None = None
    reranker: Reranker | None = None
    clock: Callable[[], float] = time.monotonic


@dataclass
class AnswerOutcome:
    """Everything a v2 route publishes or stores about one answer."""

    answer: str
    annotation: Annotation
    segments: list[Segment] = field(default_factory=list)
    outcomes: list[SegmentOutcome] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    passages: dict[str, Passage] = field(default_factory=dict)
    fallback: FallbackReason | None = None
    tool: str | None = None
    tool_executed: bool = False
    tool_audit: list[ToolCallAudit] = field(default_factory=list)
    model_calls: list[ModelCallRecord] = field(default_factory=list)
    proof: Proof | None = None
    """Built only on request (``include_proof``, ASK-11)."""

    @property
    def fallback_used(self) -> bool:
        return self.fallback is not None


def refusal(reason: FallbackReason, **extra: Any) -> AnswerOutcome:
    text, annotation = refusal_for(reason)
    return AnswerOutcome(answer=text, annotation=annotation, fallback=reason, **extra)


def resolve_scope(
    index: SearchIndex, tenant_id: str, body: QueryV2Request
) -> SearchScope | FallbackReason:
    """Step 1 (V2-20): the caller's scope, or the refusal that ends the request before any tool
    or model call."""
    if body.sources and "portal" in body.sources:
        return FallbackReason.source_scope_unavailable  # no portal source is configured here
    if body.mcp_servers:
        return FallbackReason.mcp_source_unavailable  # no MCP server is configured here
    scope = SearchScope(
        tenant_id=tenant_id,
        document_ids=tuple(body.document_ids) if body.document_ids else None,
        selection=body.selection,
    )
    if body.selection is not None or body.document_ids:
        found = {d.document_id for d in index.documents(scope)}
        if body.selection is not None and not found:
            return FallbackReason.source_scope_empty
        if body.document_ids and not set(body.document_ids) <= found:
            return FallbackReason.source_out_of_scope
    return scope


@dataclass
class AgentPhase:
    """What the agent step leaves for the checks: the ledger (budgets), the tools (keys shown),
    the segments, and the check deadlines."""

    ledger: ModelLedger
    tools: AgentTools
    segments: list[Segment]
    judge_until: float

    def tool_info(self) -> dict[str, Any]:
        return {
            "tool": self.tools.audit[-1].tool if self.tools.audit else None,
            "tool_executed": bool(self.tools.audit),
            "tool_audit": self.tools.audit,
            "passages": self.tools.passages,
            "model_calls": self.ledger.records,
        }


def run_agent_phase(
    deps: AnswerDeps,
    tenant_id: str,
    body: QueryV2Request,
    *,
    scenario: str | None = None,
    editorial_prompt: str | None = None,
    instructions: str = "agent_segments",
    history: History | None = None,
    progress: Callable[[WireModel], None] | None = None,
) -> AgentPhase | AnswerOutcome:
    """Steps 1–2: scope, then the agent under the request's budgets. A refusal comes back as an
    ``AnswerOutcome``; nothing readable from the tools raises 404."""
    settings = deps.settings
    scope = resolve_scope(deps.index, tenant_id, body)
    if isinstance(scope, FallbackReason):
        return refusal(scope)

    budget = RequestBudget.starting_now(
        settings.request_deadline_s, settings.model_call_budget, clock=deps.clock
    )
    ledger = ModelLedger(deps.model, budget, scenario=scenario)
    start = deps.clock()
    total = settings.request_deadline_s
    # V2-23: the agent stops early enough that the checks keep their share of time and calls.
    agent_until = start + total * (1 - settings.judge_share)
    guard_reserve_s = min(5.0, total * 0.1)
    reserve_calls = max(3, round(settings.model_call_budget * settings.judge_share))

    tools = AgentTools(
        deps.index,
        scope,
        embedder=deps.embedder,
        reranker=deps.reranker,
        rerank_min_score=settings.rerank_min_score,
        top_k=settings.search_top_k,
        context_chars=settings.agent_context_chars,
        preferred_documents=history.preferred_documents if history else (),
        on_event=progress,
        call_timeout_s=settings.tool_deadline_s,
        until=agent_until,
        clock=deps.clock,
    )
    if history is not None:
        tools.follow_up(history.passages, history.read_whole)
    result = run_agent(
        ledger,
        tools,
        body.query,
        editorial_prompt=editorial_prompt,
        instructions=instructions,
        until=agent_until,
        reserve_calls=reserve_calls,
        max_tool_rounds=settings.agent_max_tool_rounds,
        history=history.messages if history else None,
    )
    phase = AgentPhase(ledger, tools, result.segments, budget.deadline - guard_reserve_s)
    if result.fallback is not None:
        return refusal(result.fallback, **phase.tool_info())
    unreadable = NothingReadable.after(tools)
    if unreadable is not None:
        raise unreadable
    return phase


def check_segments(
    phase: AgentPhase, question: str, *, batch_size: int
) -> tuple[list[SegmentOutcome], StageStatus]:
    """Step 4–5: citation rules, then the judge and the framing check in parallel."""
    segments, tools, ledger = phase.segments, phase.tools, phase.ledger
    shown = set(tools.passages)
    contexts = reader_contexts(segments)
    outcomes: dict[int, SegmentOutcome] = {}
    judge_items: list[JudgeItem] = []
    framing_items: list[tuple[int, Segment]] = []
    invalid: dict[int, tuple[str, ...]] = {}
    for index, segment in enumerate(segments):
        routing = route_segment(segment, shown, tools.conversation_keys)
        invalid[index] = routing.invalid_keys
        if routing.route is Route.final:
            assert routing.outcome is not None
            outcomes[index] = routing.outcome
        elif routing.route is Route.judge:
            passages = [tools.passages[k] for k in routing.judge_keys]
            judge_items.append(JudgeItem(index, segment, passages, contexts[index]))
        else:
            framing_items.append((index, segment))

    # One worker per judge batch plus the framing check: batches overlap fully (bench/pipeline).
    workers = min(32, max(2, -(-len(judge_items) // max(1, batch_size)) + 1))
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tanda-judge")
    try:
        framing_future = executor.submit(
            check_framing, ledger, question, framing_items, until=phase.judge_until
        )
        outcomes.update(
            judge_claims(
                ledger,
                judge_items,
                invalid_keys=invalid,
                until=phase.judge_until,
                executor=executor,
                batch_size=batch_size,
            )
        )
        checkable, framing_status = framing_future.result()
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
    for index, _ in framing_items:
        # V2-06: checkable framing is an uncited claim; the rest is framing (no verdict).
        outcomes[index] = (
            SegmentOutcome(Verdict.uncited) if index in checkable else SegmentOutcome.framing()
        )
    if not framing_items:
        framing_status = StageStatus.skipped
    return [outcomes[i] for i in range(len(segments))], framing_status


def cited_citations(annotation: Annotation) -> list[Citation]:
    cited: dict[str, Citation] = {}
    for claim in annotation.claims:
        for citation in claim.citations:
            cited.setdefault(citation.citation_key, citation.citation)
    return list(cited.values())


def answer_v2(
    deps: AnswerDeps,
    tenant_id: str,
    body: QueryV2Request,
    *,
    scenario: str | None = None,
    editorial_prompt: str | None = None,
    history: History | None = None,
    progress: Callable[[WireModel], None] | None = None,
) -> AnswerOutcome:
    phase = run_agent_phase(
        deps,
        tenant_id,
        body,
        scenario=scenario,
        editorial_prompt=editorial_prompt,
        history=history,
        progress=progress,
    )
    if isinstance(phase, AnswerOutcome):
        return phase
    composed = compose(phase.segments)
    ordered, framing_status = check_segments(
        phase, body.query, batch_size=deps.settings.judge_batch_size
    )
    proof = None
    if body.include_proof:
        proof, ordered = prove_answer(composed, phase.segments, ordered, phase.tools.passages)
    annotation = aggregate(
        composed,
        phase.segments,
        ordered,
        {k: p.citation for k, p in phase.tools.passages.items()},
        framing_check=framing_status,
    )
    if guard_blocks(phase.ledger, composed.answer):
        text = NOTICES[FallbackReason.policy_blocked]
        return AnswerOutcome(
            answer=text,
            annotation=refusal_annotation(text, checked_before=annotation),
            fallback=FallbackReason.policy_blocked,
            **phase.tool_info(),
        )
    return AnswerOutcome(
        answer=composed.answer,
        annotation=annotation,
        segments=phase.segments,
        outcomes=ordered,
        citations=cited_citations(annotation),
        proof=proof,
        **phase.tool_info(),
    )
