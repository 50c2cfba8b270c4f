"""The steps of one answer (DESIGN §3, §4) — the only implementation of each, chained by both
runners (``tanda.pipeline.runners``) over the states of ``tanda.pipeline.states``::

    agent_step ─┬─ done (a refusal) ──────────────────────────────────────────► the outcome
                ├─ nothing_readable (V2-19: a 404 with the tool's status) ─────────► NothingReadable
                └─ work ─► [ judge_batch_step per batch ∥ framing_check_step ] ─► guard_step

Every step takes its state and its dependencies (ports, settings, clock) and returns its state,
and enforces the request deadline itself: its model calls go through a ``ModelLedger`` whose
deadline is the request's and whose calls are the step's allotment. The model-call budget is one
split, the same on both runners (docs/pipeline.md "Budgets"): the agent stops with
``max(3, share × budget)`` calls left; what it left goes one call to the guard, one to the
framing check (if there is framing to examine), the rest in equal shares to the judge batches
(the remainder to the first). A check never borrows another's calls.

Each step imports the stages it runs when it first runs (issue 24): a step's Lambda imports this
module, so the judge batch's does not pay for the agent, its tools and retrieval, nor the guard's
for the judge. ``tanda.snapstart`` primes them all before a snapshot.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from tanda.contract.common import Citation, FallbackReason, StageStatus, WireModel
from tanda.contract.response import ClaimMapEntry
from tanda.errors import NotFound
from tanda.model_calls.budget import ModelLedger, RequestBudget
from tanda.pipeline.states import (
    AgentStepOutput,
    AnswerMode,
    AnswerOutcome,
    ChecksState,
    ChecksWork,
    FramingOutput,
    GateOutcome,
    GuardInput,
    JudgeBatchInput,
    JudgeBatchOutput,
    NothingReadableState,
    guard_reserve_s,
    step_timeouts,
)

if TYPE_CHECKING:
    from tanda.agent.source_tools import SourceTools
    from tanda.agent.tool_loop import AgentInstructions
    from tanda.annotate.compose import SegmentSpan
    from tanda.annotate.outcome import Annotation, SegmentOutcome
    from tanda.contract.response import ModelCallRecord
    from tanda.contract.segments import Segment
    from tanda.model_calls import ChatModel
    from tanda.pipeline.request import AnswerRequest
    from tanda.ports import Embedder, Reranker, SearchIndex
    from tanda.records.documents import SearchScope
    from tanda.settings import Settings
    from tanda.sources import SourceConnector

Clock = Callable[[], float]
ProgressSink = Callable[[WireModel], None]
"""Where the agent step sends its ``tool.started`` / ``tool.finished`` frames (V2-21)."""

GUARD_CALLS = 1
FRAMING_CALLS = 1
INSTRUCTIONS: dict[AnswerMode, AgentInstructions] = {
    "annotate-v2": "agent_segments",
    "v1-gate": "agent_sentences",
}


@dataclass(frozen=True)
class StepDeps:
    """What every step needs: the model, the settings and the clock (epoch seconds: the states
    carry times across Lambda boundaries)."""

    model: ChatModel
    settings: Settings
    clock: Clock = time.time


@dataclass(frozen=True)
class AgentPorts:
    """What only the agent step reads through: the search index, the embedder and the reranker
    (ASK-06 floor) its tools use, and where its tool frames go (``None``: nowhere)."""

    index: SearchIndex
    embedder: Embedder | None = None
    reranker: Reranker | None = None
    progress: ProgressSink | None = None
    sources: SourceConnector | None = None
    """Issue 25: the tenants' portals and MCP servers (``None``: none configured)."""


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
    def of(cls, state: NothingReadableState) -> NothingReadable:
        return cls(state.tool, state.tool_status)


# --- the budget, split once ----------------------------------------------------------------------


def agent_reserve_calls(settings: Settings) -> int:
    """V2-23: the calls the agent leaves for the checks and the guard."""
    return max(3, round(settings.model_call_budget * settings.judge_share))


def call_allotments(calls_left: int, batches: int, *, framing: bool) -> tuple[int, list[int]]:
    """What the agent left, split before the checks run: the guard's call, the framing check's
    (when there is framing to examine), and equal shares for the judge batches, the remainder to
    the first ones. Returns the framing check's calls and each batch's."""
    pool = max(0, calls_left - GUARD_CALLS)
    framing_calls = min(FRAMING_CALLS, pool) if framing else 0
    pool -= framing_calls
    if not batches:
        return framing_calls, []
    share, extra = divmod(pool, batches)
    return framing_calls, [share + (1 if n < extra else 0) for n in range(batches)]


def ledger_for(deps: StepDeps, *, deadline: float, calls: int, scenario: str | None) -> ModelLedger:
    """A step's ledger: the request's deadline, the step's calls."""
    budget = RequestBudget(deadline=deadline, calls_total=calls, clock=deps.clock)
    return ModelLedger(deps.model, budget, scenario=scenario)


# --- the agent -----------------------------------------------------------------------------------


def agent_step(request: AnswerRequest, deps: StepDeps, ports: AgentPorts) -> AgentStepOutput:
    """Scope → agent ⇄ tools → routing: the refusal, the 404 of V2-19, or the checks' work. The
    tenant's portal and MCP servers the turn asked for are open while the agent runs (issue 25)."""
    from tanda.agent.source_tools import open_source_tools
    from tanda.conversations.scope import resolve_scope

    settings = deps.settings
    asked = request.scope
    scope = resolve_scope(ports.index, request.tenant_id, asked, ports.sources)
    if isinstance(scope, FallbackReason):
        return AgentStepOutput(done=AnswerOutcome.refusal(scope))
    sources = open_source_tools(
        ports.sources,
        request.tenant_id,
        portal=bool(asked.sources and "portal" in asked.sources),
        servers=asked.mcp_servers or (),
        timeout=min(settings.tool_deadline_s, agent_deadline(request, settings) - deps.clock()),
    )
    if isinstance(sources, FallbackReason):
        return AgentStepOutput(done=AnswerOutcome.refusal(sources))
    try:
        return _agent_output(request, deps, ports, scope, sources)
    finally:
        if sources is not None:
            sources.close()


def agent_deadline(request: AnswerRequest, settings: Settings) -> float:
    """V2-23: the agent stops early enough that the checks keep their share of time and calls."""
    return request.started_at + request.deadline_ms / 1000 * (1 - settings.judge_share)


def _agent_output(
    request: AnswerRequest,
    deps: StepDeps,
    ports: AgentPorts,
    scope: SearchScope,
    sources: SourceTools | None,
) -> AgentStepOutput:
    from tanda.agent.tool_loop import Agent
    from tanda.agent.tools import AgentTools, unreadable_call
    from tanda.pipeline.routing import route_segments
    from tanda.retrieval.question import analyze_question

    settings = deps.settings
    asked = request.scope
    total = request.deadline_ms / 1000
    ledger = ledger_for(
        deps,
        deadline=request.deadline_at,
        calls=settings.model_call_budget,
        scenario=request.scenario,
    )
    agent_until = agent_deadline(request, settings)
    history = request.history
    question = analyze_question(request.query)  # issue 22: the question, read once
    tools = AgentTools(
        ports.index,
        scope,
        question=question,
        embedder=ports.embedder,
        reranker=ports.reranker,
        rerank_min_score=settings.rerank_min_score,
        top_k=settings.search_top_k,
        context_chars=settings.agent_context_chars,
        preferred_documents=history.preferred_documents if history else (),
        on_event=ports.progress,
        call_timeout_s=settings.tool_deadline_s,
        until=agent_until,
        clock=deps.clock,
        sources=sources,
        documents=not asked.sources or "documents" in asked.sources,
    )
    if history is not None:
        tools.follow_up(history.passages, history.read_whole)
    agent = Agent(
        instructions=INSTRUCTIONS[request.mode], max_tool_rounds=settings.agent_max_tool_rounds
    )
    result = agent.run(
        ledger,
        tools,
        question,
        editorial_prompt=request.editorial_prompt,
        history=history.messages if history else (),
        until=agent_until,
        reserve_calls=agent_reserve_calls(settings),
    )
    if result.fallback is not None:
        refused = AnswerOutcome.refusal(
            result.fallback,
            passages=tools.passages,
            tool_audit=tools.audit,
            model_calls=ledger.records,
        )
        return AgentStepOutput(done=refused)
    unreadable = unreadable_call(tools)
    if unreadable is not None:
        # V2-19: the 404 crosses the Lambda boundary as an output (the ASL ends the execution
        # with it), so its tool and status reach the route; a Fail state would lose them.
        found = NothingReadableState(tool=unreadable.tool, tool_status=unreadable.status)
        return AgentStepOutput(nothing_readable=found)

    routing = route_segments(result.segments, tools.passages)
    size = settings.judge_batch_size
    chunks = [routing.judge[i : i + size] for i in range(0, len(routing.judge), size)]
    framing_calls, allotments = call_allotments(
        ledger.budget.calls_left, len(chunks), framing=bool(routing.framing)
    )
    timeouts = step_timeouts(request.deadline_at - deps.clock(), settings.judge_share)
    checks_until = request.deadline_at - guard_reserve_s(total)
    batches = [
        JudgeBatchInput(
            batch_index=number,
            items=chunk,
            passages={key: tools.passages[key] for item in chunk for key in item.passage_keys},
            invalid_keys={item.index: routing.invalid_keys[item.index] for item in chunk},
            scenario=request.scenario,
            deadline_at=request.deadline_at,
            checks_until=checks_until,
            calls=allotments[number],
            timeout_s=timeouts.checks_s,
        )
        for number, chunk in enumerate(chunks)
    ]
    work = ChecksWork(
        mode=request.mode,
        question=request.query,
        scenario=request.scenario,
        deadline_at=request.deadline_at,
        checks_until=checks_until,
        timeouts=timeouts,
        segments=result.segments,
        passages=tools.passages,
        tool_audit=tools.audit,
        model_calls=ledger.records,
        final_outcomes=routing.final,
        framing_items=routing.framing,
        framing_calls=framing_calls,
        judge_batches=batches,
        include_proof=request.include_proof,
    )
    return AgentStepOutput(work=work)


# --- the checks ----------------------------------------------------------------------------------


def judge_batch_step(batch: JudgeBatchInput, deps: StepDeps) -> JudgeBatchOutput:
    """One batch through the strict judge with its re-checks (V2-07 … V2-10), on the batch's
    allotment of calls."""
    from tanda.judge.strict_judge import Judge

    ledger = ledger_for(
        deps, deadline=batch.deadline_at, calls=batch.calls, scenario=batch.scenario
    )
    outcomes = Judge(batch_size=max(1, len(batch.items))).run(
        ledger,
        batch.items,
        batch.passages,
        invalid_keys=batch.invalid_keys,
        until=batch.checks_until,
    )
    return JudgeBatchOutput(
        batch_index=batch.batch_index, outcomes=outcomes, model_calls=ledger.records
    )


def framing_check_step(state: ChecksState, deps: StepDeps) -> FramingOutput:
    """V2-06: the one framing-check call over the uncited framing segments."""
    from tanda.judge.framing_check import FramingCheck

    work = state.work
    ledger = ledger_for(
        deps, deadline=work.deadline_at, calls=work.framing_calls, scenario=work.scenario
    )
    checkable, status = FramingCheck().run(
        ledger, work.question, work.framing_items, until=work.checks_until
    )
    return FramingOutput(checkable=sorted(checkable), status=status, model_calls=ledger.records)


# --- the guard and what is published -------------------------------------------------------------


def guard_step(state: GuardInput, deps: StepDeps) -> AnswerOutcome:
    """Every verdict in answer order, aggregated; then the policy guard over what would be
    published (fails closed, V2-13). In ``v1-gate`` mode the gate comes first: the guard reads
    the kept sentences only, and an answer with too few of them is never guarded (CV-2)."""
    from tanda.annotate.aggregate import aggregate, refusal_annotation
    from tanda.annotate.compose import compose
    from tanda.guard.policy_guard import PolicyGuard
    from tanda.pipeline.notices import NOTICES
    from tanda.pipeline.proof import prove_answer
    from tanda.pipeline.routing import collect_outcomes

    work = state.work
    judged, framing = state.checks
    ordered, framing_status = collect_outcomes(
        len(work.segments),
        work.final_outcomes,
        work.judge_batches,
        judged,
        work.framing_items,
        framing,
    )
    checked_calls = [
        *work.model_calls,
        *(call for result in judged for call in result.model_calls),
        *framing.model_calls,
    ]
    citations = {key: p.citation for key, p in work.passages.items()}
    composed = compose(work.segments)
    proof = None
    if work.include_proof:  # ASK-11: only withholds — a refuted computation is not supported
        proof, ordered = prove_answer(composed, work.segments, ordered, work.passages)
    checked = aggregate(composed, work.segments, ordered, citations, framing_check=framing_status)
    ledger = ledger_for(deps, deadline=work.deadline_at, calls=GUARD_CALLS, scenario=work.scenario)
    if work.mode == "v1-gate":
        return _gated(
            work, ordered, checked, citations, framing_status, ledger, checked_calls, deps
        )

    blocked = PolicyGuard().run(ledger, composed.answer)
    common: dict[str, Any] = {
        "passages": work.passages,
        "tool_audit": work.tool_audit,
        "model_calls": [*checked_calls, *ledger.records],
    }
    if blocked:
        text = NOTICES[FallbackReason.policy_blocked]
        return AnswerOutcome(
            answer=text,
            annotation=refusal_annotation(text, checked_before=checked),
            fallback=FallbackReason.policy_blocked,
            **common,
        )
    return AnswerOutcome(
        answer=composed.answer,
        annotation=checked,
        segments=work.segments,
        outcomes=ordered,
        citations=cited_citations(checked),
        proof=proof,
        **common,
    )


def _gated(
    work: ChecksWork,
    ordered: list[SegmentOutcome],
    checked: Annotation,
    citations: Mapping[str, Citation],
    framing_status: StageStatus,
    ledger: ModelLedger,
    checked_calls: list[ModelCallRecord],
    deps: StepDeps,
) -> AnswerOutcome:
    """CV-2: publish only the sentences the judge confirmed; reject the whole answer when too
    few remain (no guard call: nothing would be published); else the guard reads the kept
    sentences. ``annotation`` stays the report of every checked claim, withheld ones included."""
    from tanda.annotate.aggregate import aggregate
    from tanda.annotate.gate import compose_kept, gate
    from tanda.guard.policy_guard import PolicyGuard
    from tanda.pipeline.notices import INSUFFICIENT_GROUNDING_NOTICE, NOTICES

    decision = gate(ordered, min_supported_ratio=deps.settings.v1_min_supported_ratio)

    def outcome(answer: str, gated: GateOutcome, **fields: Any) -> AnswerOutcome:
        return AnswerOutcome(
            answer=answer,
            annotation=checked,
            segments=work.segments,
            outcomes=ordered,
            passages=work.passages,
            tool_audit=work.tool_audit,
            model_calls=[*checked_calls, *ledger.records],
            gate=gated,
            **fields,
        )

    withheld = claim_map(work.segments, ordered, {})
    if decision.rejected:
        rejected = GateOutcome(claim_map=withheld, dropped_reasons=decision.reasons, rejected=True)
        return outcome(INSUFFICIENT_GROUNDING_NOTICE, rejected)
    kept_segments, composed = compose_kept([work.segments[i] for i in decision.kept])
    kept_outcomes = [ordered[i] for i in decision.kept]
    published = aggregate(
        composed, kept_segments, kept_outcomes, citations, framing_check=framing_status
    )
    if PolicyGuard().run(ledger, composed.answer):
        blocked = GateOutcome(claim_map=withheld, dropped_reasons=decision.reasons)
        return outcome(
            NOTICES[FallbackReason.policy_blocked], blocked, fallback=FallbackReason.policy_blocked
        )
    spans = {index: composed.spans[n] for n, index in enumerate(decision.kept)}
    kept = GateOutcome(
        published=published,
        claim_map=claim_map(work.segments, ordered, spans),
        dropped_reasons=decision.reasons,
        provenance_complete=all(c.citations for c in published.claims),
    )
    return outcome(composed.answer, kept, citations=cited_citations(published))


def cited_citations(annotation: Annotation) -> list[Citation]:
    """The citations the published claims open, once each, in order of first citation."""
    cited: dict[str, Citation] = {}
    for claim in annotation.claims:
        for citation in claim.citations:
            cited.setdefault(citation.citation_key, citation.citation)
    return list(cited.values())


def claim_map(
    segments: Sequence[Segment],
    outcomes: Sequence[SegmentOutcome],
    spans: Mapping[int, SegmentSpan],
) -> list[ClaimMapEntry]:
    """CV-2: every claim with its verdict, and where it stands in the published answer if kept."""
    entries: list[ClaimMapEntry] = []
    for index, (segment, outcome) in enumerate(zip(segments, outcomes, strict=True)):
        if outcome.verdict is None:
            continue
        span = spans.get(index)
        entries.append(
            ClaimMapEntry(
                text=segment.text,
                citation_keys=list(dict.fromkeys(segment.cites)),
                verdict=outcome.verdict,
                unverified_reason=outcome.unverified_reason,
                kept=span is not None,
                start=span.start if span else None,
                end=span.end if span else None,
            )
        )
    return entries
