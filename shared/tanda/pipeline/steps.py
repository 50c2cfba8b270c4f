"""The ``/query/v2`` pipeline cut into Step Functions tasks (DESIGN §4): the same stage functions
as :func:`tanda.pipeline.answer_v2.answer_v2`, with pydantic models at every boundary so the state
crosses Lambda invocations as JSON.

``infra/statemachines/query.asl.json`` chains them::

    Agent ─┬─ done (a refusal) ───────────────────────────────────────► Finished
           ├─ nothing_readable (V2-19: a 404 with the tool's status) ──────► NothingReadableEnd
           └─ work ─► Checks: Parallel[ Map(JudgeBatch), FramingCheck ] ─► Guard

Differences from the in-process runner, by necessity:

* Time is wall-clock epoch seconds (``time.time``): a monotonic clock does not survive a Lambda
  boundary. ``deadline_at`` travels in the state; every step enforces it itself, and each state's
  ``TimeoutSecondsPath`` enforces it from outside.
* The model-call budget cannot be one shared counter across parallel Lambdas, so the agent step
  splits what it left into fixed allotments: one call kept for the guard, one for the framing
  check, the rest shared equally by the judge batches (a batch may not borrow another's).
* A state the Catch fallbacks build (``JudgeBatchLate``, ``FramingUnavailable``, ``AgentTimedOut``)
  has no model-call records of the step that failed.

* Live progress: with a ``progress_id`` in the input, the agent step publishes its tool frames to
  the ``Progress`` adapter (DynamoDB in Lambda) for the stream route to poll.
* Conversation follow-ups: the input carries what :func:`~tanda.conversations.history.
  build_history` let the next turn see (``HistoryState``: chat messages, ``C`` passages,
  preferred documents, the document read whole), and the agent step rebuilds the ``History``
  that :func:`~tanda.pipeline.answer_v2.run_agent_phase` takes. It is bounded by the history's
  character budget (6,000) plus ≤ 5 memories, well inside the 256 KB state limit.

Cold start (issue 7): at import only pydantic and the states' field types (``tanda.contract``,
``tanda.records.documents``); each step imports its stages when it runs, and the states build
their validators on first use (``defer_build``), so a step builds only the states it touches.
No web framework.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

# The field types of the states, and nothing else, at import (cold start: issue 7). The stages
# (annotate, judge, guard, agent) and the budget/ledger are imported by the step that runs them.
from tanda.contract.common import (
    Citation,
    FallbackReason,
    StageStatus,
    UnverifiedReason,
    Verdict,
)
from tanda.contract.proof import Proof
from tanda.contract.query import QueryV2Request
from tanda.contract.response import (
    Claim,
    Faithfulness,
    FramingSpan,
    ModelCallRecord,
    ToolCallAudit,
)
from tanda.contract.segments import Segment
from tanda.records.documents import Chunk, LegalIdentity

if TYPE_CHECKING:
    from tanda.annotate.aggregate import Annotation, SegmentOutcome
    from tanda.conversations.history import History
    from tanda.model_calls import ChatModel
    from tanda.passages import Passage
    from tanda.pipeline.answer_v2 import AnswerOutcome
    from tanda.ports import Embedder, Progress, Reranker, SearchIndex
    from tanda.settings import Settings

Clock = Callable[[], float]
GUARD_RESERVE_MAX_S = 5.0


class _State(BaseModel):
    # Validators are built on first use, so a step builds only the states it reads and writes.
    model_config = ConfigDict(extra="forbid", defer_build=True)


# --- what crosses the boundaries ------------------------------------------------------------


class StepTimeouts(_State):
    """Whole seconds per state, read by ``TimeoutSecondsPath`` (at least 1: ASL's minimum)."""

    agent_s: int = Field(ge=1)
    checks_s: int = Field(ge=1)
    guard_s: int = Field(ge=1)


class HistoryMessageState(_State):
    role: Literal["user", "assistant"]
    content: str


class ConversationPassageState(_State):
    """An earlier turn (or a memory) citable under its ``C`` key: all ``build_history`` sets."""

    key: str
    text: str
    source: str | None = None


class HistoryState(_State):
    """What a follow-up sees of its conversation (:class:`~tanda.conversations.history.History`
    without the response-only ``truncated`` / ``exchanges_in_view``)."""

    messages: list[HistoryMessageState] = Field(default_factory=list)
    passages: list[ConversationPassageState] = Field(default_factory=list)
    preferred_documents: list[str] = Field(default_factory=list)
    read_whole: str | None = None

    @classmethod
    def of(cls, history: History) -> HistoryState:
        state = cls(
            messages=[
                HistoryMessageState(role=m.role, content=m.content)  # type: ignore[arg-type]
                for m in history.messages
            ],
            passages=[
                ConversationPassageState(key=p.key, text=p.text, source=p.citation.source)
                for p in history.passages
            ],
            preferred_documents=list(history.preferred_documents),
            read_whole=history.read_whole,
        )
        rebuilt = state.history()
        if (rebuilt.messages, rebuilt.passages) != (history.messages, history.passages):
            # Never answer a follow-up from a history other than the one it was given.
            raise ValueError("the history has messages or passages build_history does not make")
        return state

    def history(self) -> History:
        from tanda.conversations.history import History
        from tanda.model_calls import ChatMessage
        from tanda.passages import Passage

        return History(
            messages=[ChatMessage(role=m.role, content=m.content) for m in self.messages],
            passages=[
                Passage(
                    key=p.key,
                    kind="conversation",
                    text=p.text,
                    citation=Citation(citation_key=p.key, source=p.source),
                    identity=LegalIdentity(),
                )
                for p in self.passages
            ],
            preferred_documents=list(self.preferred_documents),
            read_whole=self.read_whole,
        )


class QueryInput(_State):
    """The execution input: everything the steps need that is not a settings value."""

    tenant_id: str
    body: QueryV2Request
    scenario: str | None = None
    editorial_prompt: str | None = None
    started_at: float = Field(description="Epoch seconds when the route started the answer.")
    deadline_ms: int = Field(gt=0, description="The request deadline, from started_at.")
    timeouts: StepTimeouts
    progress_id: str | None = Field(
        default=None,
        description="Set by a stream route: the agent step publishes its tool frames under this "
        "id to the Progress adapter, which the route polls while the execution runs.",
    )
    history: HistoryState | None = Field(
        default=None,
        description="A conversation turn's history (follow-ups; a first turn may read its one "
        "selected document whole): the agent step uses it as run_agent_phase does.",
    )

    @property
    def deadline_at(self) -> float:
        return self.started_at + self.deadline_ms / 1000


class PassageState(_State):
    key: str
    kind: Literal["chunk", "tool", "conversation"]
    text: str
    citation: Citation
    identity: LegalIdentity
    chunk: Chunk | None = None
    producing_call: str | None = None

    @classmethod
    def of(cls, passage: Passage) -> PassageState:
        # Embeddings never cross a step boundary (256 KB state limit); the judge needs none.
        chunk = passage.chunk.model_copy(update={"embedding": None}) if passage.chunk else None
        return cls(
            key=passage.key,
            kind=passage.kind,
            text=passage.text,
            citation=passage.citation,
            identity=passage.identity,
            chunk=chunk,
            producing_call=passage.producing_call,
        )

    def passage(self) -> Passage:
        from tanda.passages import Passage

        return Passage(
            key=self.key,
            kind=self.kind,
            text=self.text,
            citation=self.citation,
            identity=self.identity,
            chunk=self.chunk,
            producing_call=self.producing_call,
        )


class OutcomeState(_State):
    verdict: Verdict | None
    unverified_reason: UnverifiedReason | None = None
    invalid_citation_keys: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: SegmentOutcome) -> OutcomeState:
        return cls(
            verdict=outcome.verdict,
            unverified_reason=outcome.unverified_reason,
            invalid_citation_keys=list(outcome.invalid_citation_keys),
        )

    def outcome(self) -> SegmentOutcome:
        from tanda.annotate.aggregate import SegmentOutcome

        return SegmentOutcome(
            self.verdict, self.unverified_reason, tuple(self.invalid_citation_keys)
        )


class JudgeItemState(_State):
    index: int
    segment: Segment
    passage_keys: list[str]
    heading: str | None = None
    list_lead_in: str | None = None
    table_header: str | None = None


class JudgeBatchInput(_State):
    """One Map iteration: a batch of cited segments and the passages they cite."""

    batch_index: int
    indexes: list[int] = Field(description="Segment positions in this batch (for fallbacks).")
    items: list[JudgeItemState]
    passages: dict[str, PassageState]
    invalid_keys: dict[int, list[str]] = Field(default_factory=dict)
    scenario: str | None = None
    deadline_at: float
    judge_until: float
    calls: int = Field(ge=0, description="Model calls this batch may make (its allotment).")
    timeout_s: int = Field(ge=1)


class JudgeBatchOutput(_State):
    batch_index: int
    indexes: list[int]
    outcomes: dict[int, OutcomeState] = Field(default_factory=dict)
    failed: Literal["deadline", "judge_unavailable"] | None = Field(
        default=None,
        description="Set by the ASL fallback when the task itself failed: every segment of the "
        "batch is unverified for this reason (V2-10).",
    )
    model_calls: list[ModelCallRecord] = Field(default_factory=list)


class FramingInput(_State):
    question: str
    items: list[tuple[int, Segment]]
    scenario: str | None = None
    deadline_at: float
    judge_until: float
    timeout_s: int = Field(ge=1)


class FramingOutput(_State):
    checkable: list[int] | None = Field(
        default=None, description="None when the check failed: every examined segment counts."
    )
    status: StageStatus
    model_calls: list[ModelCallRecord] = Field(default_factory=list)


class ToolInfo(_State):
    tool: str | None = None
    tool_executed: bool = False
    tool_audit: list[ToolCallAudit] = Field(default_factory=list)
    passages: dict[str, PassageState] = Field(default_factory=dict)


class AnswerState(_State):
    """The execution output: what :class:`~tanda.pipeline.answer_v2.AnswerOutcome` holds."""

    answer: str
    claims: list[Claim]
    framing: list[FramingSpan]
    faithfulness: Faithfulness
    segments: list[Segment] = Field(default_factory=list)
    outcomes: list[OutcomeState] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    fallback: FallbackReason | None = None
    tool_info: ToolInfo = Field(default_factory=ToolInfo)
    model_calls: list[ModelCallRecord] = Field(default_factory=list)
    proof: Proof | None = Field(default=None, description="Built on request (ASK-11).")

    def annotation(self) -> Annotation:
        from tanda.annotate.aggregate import Annotation

        return Annotation(claims=self.claims, framing=self.framing, faithfulness=self.faithfulness)


class ChecksWork(_State):
    """What the agent step hands to the checks and the guard."""

    question: str
    segments: list[Segment]
    final_outcomes: dict[int, OutcomeState]
    framing_indexes: list[int]
    tool_info: ToolInfo
    model_calls: list[ModelCallRecord]
    calls_left: int
    judge_batches: list[JudgeBatchInput]
    framing: FramingInput
    scenario: str | None = None
    deadline_at: float
    timeouts: StepTimeouts
    include_proof: bool = Field(
        default=False, description="The body asked for the proof chain (ASK-11)."
    )


class NothingReadableState(_State):
    """V2-19: the tools ran and none returned anything readable (→ 404 with this status)."""

    tool: str | None = None
    tool_status: str | None = None


class AgentOutput(_State):
    """Exactly one of ``done`` (the answer ends here: a refusal), ``nothing_readable`` (a 404)
    or ``work``."""

    done: AnswerState | None = None
    nothing_readable: NothingReadableState | None = None
    work: ChecksWork | None = None


class GuardInput(_State):
    work: ChecksWork
    checks: tuple[list[JudgeBatchOutput], FramingOutput]
    done: None = None
    nothing_readable: None = None


# --- pure helpers ---------------------------------------------------------------------------


def step_timeouts(seconds_left: float, judge_share: float) -> StepTimeouts:
    """Per-state timeouts for the time that is left: the agent stops at its share (V2-23), the
    checks leave the guard its reserve, the guard gets that reserve."""
    guard_reserve = min(GUARD_RESERVE_MAX_S, seconds_left * 0.1)
    return StepTimeouts(
        agent_s=max(1, math.ceil(seconds_left * (1 - judge_share))),
        checks_s=max(1, math.ceil(seconds_left - guard_reserve)),
        guard_s=max(1, math.ceil(guard_reserve)),
    )


def query_input(
    tenant_id: str,
    body: QueryV2Request,
    settings: Settings,
    *,
    started_at: float,
    scenario: str | None = None,
    editorial_prompt: str | None = None,
    progress_id: str | None = None,
    history: History | None = None,
) -> QueryInput:
    """The execution input a route builds (pure: the caller passes the clock reading)."""
    return QueryInput(
        tenant_id=tenant_id,
        body=body,
        scenario=scenario,
        editorial_prompt=editorial_prompt,
        started_at=started_at,
        deadline_ms=round(settings.request_deadline_s * 1000),
        timeouts=step_timeouts(settings.request_deadline_s, settings.judge_share),
        progress_id=progress_id,
        history=HistoryState.of(history) if history is not None else None,
    )


def refusal_state(reason: FallbackReason, **extra: object) -> AnswerState:
    """The same refusal as ``answer_v2.refusal`` (V2-18: context_budget_exhausted is unchecked)."""
    from tanda.pipeline.notices import refusal_for

    text, annotation = refusal_for(reason)
    return AnswerState(
        answer=text,
        claims=annotation.claims,
        framing=annotation.framing,
        faithfulness=annotation.faithfulness,
        fallback=reason,
        **extra,  # type: ignore[arg-type]
    )


def split_calls(calls_left: int, batches: int, framing: bool) -> int:
    """Calls each judge batch may make: what is left after the guard's and the framing check's."""
    pool = calls_left - 1 - (1 if framing else 0)
    return max(0, pool // batches) if batches else 0


# --- the steps ------------------------------------------------------------------------------


def agent_step(
    state: QueryInput,
    *,
    index: SearchIndex,
    model: ChatModel,
    settings: Settings,
    embedder: Embedder | None = None,
    reranker: Reranker | None = None,
    progress: Progress | None = None,
    clock: Clock = time.time,
) -> AgentOutput:
    """Scope → agent ⇄ tools → compose → routing: the refusal, or the checks' work. With a
    ``progress`` adapter and a ``progress_id`` in the state, every tool frame is published. With
    a history, the agent runs as :func:`~tanda.pipeline.answer_v2.run_agent_phase` runs it."""
    from tanda.agent.run import run_agent
    from tanda.agent.tools import AgentTools
    from tanda.annotate.aggregate import Route, route_segment
    from tanda.judge.reader_context import reader_contexts
    from tanda.model_calls.budget import ModelLedger, RequestBudget
    from tanda.pipeline.answer_v2 import NothingReadable, resolve_scope
    from tanda.pipeline.progress import publisher

    body = state.body
    scope = resolve_scope(index, state.tenant_id, body)
    if isinstance(scope, FallbackReason):
        return AgentOutput(done=refusal_state(scope))

    total = state.deadline_ms / 1000
    budget = RequestBudget(
        deadline=state.deadline_at, calls_total=settings.model_call_budget, clock=clock
    )
    ledger = ModelLedger(model, budget, scenario=state.scenario)
    agent_until = state.started_at + total * (1 - settings.judge_share)
    judge_until = state.deadline_at - min(GUARD_RESERVE_MAX_S, total * 0.1)
    reserve_calls = max(3, round(settings.model_call_budget * settings.judge_share))
    history = state.history.history() if state.history is not None else None
    tools = AgentTools(
        index,
        scope,
        embedder=embedder,
        reranker=reranker,
        rerank_min_score=settings.rerank_min_score,
        top_k=settings.search_top_k,
        context_chars=settings.agent_context_chars,
        preferred_documents=history.preferred_documents if history else (),
        on_event=publisher(progress, state.progress_id)
        if progress is not None and state.progress_id
        else None,
        call_timeout_s=settings.tool_deadline_s,
        until=agent_until,
        clock=clock,
    )
    if history is not None:
        tools.follow_up(history.passages, history.read_whole)
    result = run_agent(
        ledger,
        tools,
        body.query,
        editorial_prompt=state.editorial_prompt,
        until=agent_until,
        reserve_calls=reserve_calls,
        max_tool_rounds=settings.agent_max_tool_rounds,
        history=history.messages if history else None,
    )
    tool_info = ToolInfo(
        tool=tools.audit[-1].tool if tools.audit else None,
        tool_executed=bool(tools.audit),
        tool_audit=list(tools.audit),
        passages={k: PassageState.of(p) for k, p in tools.passages.items()},
    )
    if result.fallback is not None:
        return AgentOutput(
            done=refusal_state(
                result.fallback, model_calls=list(ledger.records), tool_info=tool_info
            )
        )
    unreadable = NothingReadable.after(tools)
    if unreadable is not None:
        # V2-19: the 404 crosses the Lambda boundary as an output (the ASL ends the execution
        # with it), so its tool and status reach the route; a Fail state would lose them.
        return AgentOutput(
            nothing_readable=NothingReadableState(
                tool=unreadable.tool, tool_status=unreadable.tool_status
            )
        )

    segments = result.segments
    shown = set(tools.passages)
    conversation_keys = tools.conversation_keys  # V2-12: C-only segments are from_conversation
    contexts = reader_contexts(segments)
    final: dict[int, OutcomeState] = {}
    judge_items: list[JudgeItemState] = []
    framing_items: list[tuple[int, Segment]] = []
    invalid: dict[int, list[str]] = {}
    for position, segment in enumerate(segments):
        routing = route_segment(segment, shown, conversation_keys)
        invalid[position] = list(routing.invalid_keys)
        if routing.route is Route.final:
            assert routing.outcome is not None
            final[position] = OutcomeState.of(routing.outcome)
        elif routing.route is Route.judge:
            context = contexts[position]
            judge_items.append(
                JudgeItemState(
                    index=position,
                    segment=segment,
                    passage_keys=list(routing.judge_keys),
                    heading=context.heading,
                    list_lead_in=context.list_lead_in,
                    table_header=context.table_header,
                )
            )
        else:
            framing_items.append((position, segment))

    size = settings.judge_batch_size
    chunks = [judge_items[i : i + size] for i in range(0, len(judge_items), size)]
    allotment = split_calls(budget.calls_left, len(chunks), bool(framing_items))
    timeouts = step_timeouts(state.deadline_at - clock(), settings.judge_share)
    batches = [
        JudgeBatchInput(
            batch_index=number,
            indexes=[item.index for item in chunk],
            items=chunk,
            passages={key: tool_info.passages[key] for item in chunk for key in item.passage_keys},
            invalid_keys={item.index: invalid[item.index] for item in chunk},
            scenario=state.scenario,
            deadline_at=state.deadline_at,
            judge_until=judge_until,
            calls=allotment,
            timeout_s=timeouts.checks_s,
        )
        for number, chunk in enumerate(chunks)
    ]
    return AgentOutput(
        work=ChecksWork(
            question=body.query,
            segments=segments,
            final_outcomes=final,
            framing_indexes=[i for i, _ in framing_items],
            tool_info=tool_info,
            model_calls=list(ledger.records),
            calls_left=budget.calls_left,
            judge_batches=batches,
            framing=FramingInput(
                question=body.query,
                items=framing_items,
                scenario=state.scenario,
                deadline_at=state.deadline_at,
                judge_until=judge_until,
                timeout_s=timeouts.checks_s,
            ),
            scenario=state.scenario,
            deadline_at=state.deadline_at,
            timeouts=timeouts,
            include_proof=body.include_proof,
        )
    )


def judge_batch_step(
    state: JudgeBatchInput, *, model: ChatModel, clock: Clock = time.time
) -> JudgeBatchOutput:
    """One batch through the strict judge with its re-checks (V2-07 … V2-10)."""
    from concurrent.futures import ThreadPoolExecutor

    from tanda.judge.reader_context import ReaderContext
    from tanda.judge.run import GUARD_CALLS, JudgeItem, judge_claims
    from tanda.model_calls.budget import ModelLedger, RequestBudget

    # The allotment plus the guard's call that judge_claims keeps in reserve on every ask.
    budget = RequestBudget(
        deadline=state.deadline_at, calls_total=state.calls + GUARD_CALLS, clock=clock
    )
    ledger = ModelLedger(model, budget, scenario=state.scenario)
    items = [
        JudgeItem(
            item.index,
            item.segment,
            [state.passages[key].passage() for key in item.passage_keys],
            ReaderContext(item.heading, item.list_lead_in, item.table_header),
        )
        for item in state.items
    ]
    executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tanda-judge")
    try:
        outcomes = judge_claims(
            ledger,
            items,
            invalid_keys={k: tuple(v) for k, v in state.invalid_keys.items()},
            until=state.judge_until,
            executor=executor,
            batch_size=max(1, len(items)),
        )
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
    return JudgeBatchOutput(
        batch_index=state.batch_index,
        indexes=state.indexes,
        outcomes={k: OutcomeState.of(v) for k, v in outcomes.items()},
        model_calls=list(ledger.records),
    )


def framing_check_step(
    state: FramingInput, *, model: ChatModel, clock: Clock = time.time
) -> FramingOutput:
    """V2-06: the one framing-check call over the uncited framing segments."""
    from tanda.judge.run import GUARD_CALLS, check_framing
    from tanda.model_calls.budget import ModelLedger, RequestBudget

    budget = RequestBudget(deadline=state.deadline_at, calls_total=1 + GUARD_CALLS, clock=clock)
    ledger = ModelLedger(model, budget, scenario=state.scenario)
    checkable, status = check_framing(ledger, state.question, state.items, until=state.judge_until)
    return FramingOutput(
        checkable=sorted(checkable), status=status, model_calls=list(ledger.records)
    )


def batch_outcomes(
    batch: JudgeBatchOutput, invalid: dict[int, list[str]]
) -> dict[int, OutcomeState]:
    """A batch's verdicts; a batch whose task failed (ASL fallback) is unverified throughout."""
    if batch.failed is None:
        return batch.outcomes
    reason = UnverifiedReason(batch.failed)
    return {
        i: OutcomeState(
            verdict=Verdict.unverified,
            unverified_reason=reason,
            invalid_citation_keys=invalid.get(i, []),
        )
        for i in batch.indexes
    }


def guard_step(state: GuardInput, *, model: ChatModel, clock: Clock = time.time) -> AnswerState:
    """Aggregate every verdict, then the policy guard over the whole answer (fails closed)."""
    from tanda.annotate.aggregate import SegmentOutcome, aggregate, refusal_annotation
    from tanda.annotate.compose import compose
    from tanda.guard.run import guard_blocks
    from tanda.model_calls.budget import ModelLedger, RequestBudget
    from tanda.pipeline.notices import NOTICES
    from tanda.pipeline.proof import prove_answer

    work = state.work
    batches, framing = state.checks
    outcomes = dict(work.final_outcomes)
    invalid = {i: b for batch in work.judge_batches for i, b in batch.invalid_keys.items()}
    calls = list(work.model_calls)
    for batch in batches:
        outcomes.update(batch_outcomes(batch, invalid))
        calls += batch.model_calls
    calls += framing.model_calls
    checkable = set(work.framing_indexes) if framing.checkable is None else set(framing.checkable)
    for position in work.framing_indexes:
        # V2-06: checkable framing is an uncited claim; the rest is framing (no verdict).
        outcomes[position] = OutcomeState.of(
            SegmentOutcome(Verdict.uncited) if position in checkable else SegmentOutcome.framing()
        )
    framing_status = framing.status if work.framing_indexes else StageStatus.skipped
    ordered = [outcomes[i].outcome() for i in range(len(work.segments))]
    composed = compose(work.segments)
    passages = work.tool_info.passages
    proof = None
    if work.include_proof:
        shown = {k: p.passage() for k, p in passages.items()}
        proof, ordered = prove_answer(composed, work.segments, ordered, shown)
    annotation = aggregate(
        composed,
        work.segments,
        ordered,
        {k: p.citation for k, p in passages.items()},
        framing_check=framing_status,
    )

    budget = RequestBudget(deadline=work.deadline_at, calls_total=1, clock=clock)
    ledger = ModelLedger(model, budget, scenario=work.scenario)
    try:
        blocked = guard_blocks(ledger, composed.answer)
    finally:
        calls += ledger.records
    if blocked:
        text = NOTICES[FallbackReason.policy_blocked]
        refused = refusal_annotation(text, checked_before=annotation)
        return AnswerState(
            answer=text,
            claims=refused.claims,
            framing=refused.framing,
            faithfulness=refused.faithfulness,
            fallback=FallbackReason.policy_blocked,
            tool_info=work.tool_info,
            model_calls=calls,
        )
    cited: dict[str, Citation] = {}
    for claim in annotation.claims:
        for citation in claim.citations:
            cited.setdefault(citation.citation_key, citation.citation)
    return AnswerState(
        answer=composed.answer,
        claims=annotation.claims,
        framing=annotation.framing,
        faithfulness=annotation.faithfulness,
        segments=work.segments,
        outcomes=[OutcomeState.of(o) for o in ordered],
        citations=list(cited.values()),
        tool_info=work.tool_info,
        model_calls=calls,
        proof=proof,
    )


def to_outcome(state: AnswerState) -> AnswerOutcome:
    """The execution output as the in-process runner's result, for the same response code."""
    from tanda.pipeline.answer_v2 import AnswerOutcome

    info = state.tool_info
    return AnswerOutcome(
        answer=state.answer,
        annotation=state.annotation(),
        segments=state.segments,
        outcomes=[o.outcome() for o in state.outcomes],
        citations=state.citations,
        passages={k: p.passage() for k, p in info.passages.items()},
        fallback=state.fallback,
        tool=info.tool,
        tool_executed=info.tool_executed,
        tool_audit=info.tool_audit,
        model_calls=state.model_calls,
        proof=state.proof,
    )


def execution_output(text: str) -> AnswerState:
    """Parse what the state machine returned: an AnswerState, the ``AgentTimedOut`` fallback
    ``{"refusal": reason}`` built by the ASL itself, or ``{"nothing_readable": …}`` (raised as
    :class:`~tanda.pipeline.answer_v2.NothingReadable`, the 404 of V2-19)."""
    import json

    data = json.loads(text)
    if isinstance(data, dict) and set(data) == {"refusal"}:
        return refusal_state(FallbackReason(data["refusal"]))
    if isinstance(data, dict) and set(data) == {"nothing_readable"}:
        from tanda.pipeline.answer_v2 import NothingReadable

        found = NothingReadableState.model_validate(data["nothing_readable"])
        raise NothingReadable(found.tool, found.tool_status)
    return AnswerState.model_validate(data)
