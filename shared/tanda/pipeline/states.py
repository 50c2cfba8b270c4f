"""The typed state of one answer (DESIGN §3, §4): what the steps (``tanda.pipeline.steps``) take
and return. On the state machine these models cross every Lambda boundary as JSON; in-process the
runner hands the same objects from step to step. The stage types they carry — passages, judge
items, segment outcomes, annotations — are held as they are, never copied field by field. The
turn's input, which only the agent step reads, is :mod:`tanda.pipeline.request`.

``infra/statemachines/query.asl.json`` reads a few paths of these models (``timeouts``, ``done``,
``nothing_readable``, ``work.judge_batches``, ``work.timeouts``, a batch's ``timeout_s`` and
``batch_index``): a test runs the machine on the real step handlers (tests/integration).

Times are seconds on the runner's clock — epoch seconds (``time.time``) on both runners, since a
monotonic clock does not survive a Lambda boundary.
"""

import math
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from tanda.annotate.outcome import Annotation, SegmentOutcome
from tanda.contract.common import Citation, FallbackReason, StageStatus
from tanda.contract.proof import Proof
from tanda.contract.response import ClaimMapEntry, ModelCallRecord, ToolCallAudit
from tanda.contract.segments import Segment
from tanda.judge.items import JudgeItem
from tanda.passages import Passage

AnswerMode = Literal["annotate-v2", "v1-gate"]
"""``annotate-v2``: every segment published with its mark (``/query/v2``, its stream, the
playground). ``v1-gate``: the same agent asked for sentences, unconfirmed ones withheld
(``/query``, ``/query/stream``; CV-2)."""


class StateModel(BaseModel):
    """The base of every state: unknown fields are refused, and validators are built on first
    use, so a step builds only the states it reads and writes."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class StepTimeouts(StateModel):
    """Whole seconds per state, read by the ASL's ``TimeoutSecondsPath`` and by the in-process
    runner's wait for the checks (at least 1: ASL's minimum)."""

    agent_s: int = Field(ge=1)
    checks_s: int = Field(ge=1)
    guard_s: int = Field(ge=1)


GUARD_RESERVE_MAX_S = 5.0


def guard_reserve_s(total_s: float) -> float:
    """The end of the request the checks leave to the guard (V2-13 reads last)."""
    return min(GUARD_RESERVE_MAX_S, total_s * 0.1)


def step_timeouts(seconds_left: float, judge_share: float) -> StepTimeouts:
    """Per-state timeouts for the time that is left: the agent stops at its share (V2-23), the
    checks leave the guard its reserve, the guard gets that reserve."""
    reserve = guard_reserve_s(seconds_left)
    return StepTimeouts(
        agent_s=max(1, math.ceil(seconds_left * (1 - judge_share))),
        checks_s=max(1, math.ceil(seconds_left - reserve)),
        guard_s=max(1, math.ceil(reserve)),
    )


class GateOutcome(StateModel):
    """What the v1 gate published (CV-2), beside the checked answer."""

    published: Annotation | None = Field(
        default=None,
        description="The kept sentences' annotation; None when nothing of the answer was "
        "published (too few confirmed, or the guard blocked it).",
    )
    claim_map: list[ClaimMapEntry] = Field(default_factory=list)
    dropped_reasons: dict[str, int] = Field(default_factory=dict)
    rejected: bool = Field(
        default=False, description="Too few claims confirmed: insufficient_grounding."
    )
    provenance_complete: bool = True


class AnswerOutcome(StateModel):
    """What a runner returns: everything a route publishes or stores about one answer."""

    answer: str
    annotation: Annotation
    """v1-gate: the annotation of every checked segment (the withheld ones included)."""
    segments: list[Segment] = Field(default_factory=list)
    outcomes: list[SegmentOutcome] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    passages: dict[str, Passage] = Field(default_factory=dict)
    fallback: FallbackReason | None = None
    tool_audit: list[ToolCallAudit] = Field(default_factory=list)
    model_calls: list[ModelCallRecord] = Field(default_factory=list)
    gate: GateOutcome | None = Field(
        default=None, description="v1-gate only, when the answer reached the gate."
    )
    proof: Proof | None = Field(default=None, description="Built on request (ASK-11).")

    @property
    def fallback_used(self) -> bool:
        return self.fallback is not None

    @property
    def tool(self) -> str | None:
        """The last tool that ran."""
        return self.tool_audit[-1].tool if self.tool_audit else None

    @property
    def tool_executed(self) -> bool:
        return bool(self.tool_audit)

    @classmethod
    def refusal(cls, reason: FallbackReason, **extra: Any) -> Self:
        """A published refusal: its fixed notice, no claims (V2-17; V2-18: unchecked)."""
        from tanda.pipeline.notices import refusal_for

        text, annotation = refusal_for(reason)
        return cls(answer=text, annotation=annotation, fallback=reason, **extra)


class NothingReadableState(StateModel):
    """V2-19: the tools ran and none returned anything readable (→ 404 with this status)."""

    tool: str | None = None
    tool_status: str | None = None


class JudgeBatchInput(StateModel):
    """One judge batch (a Map iteration): its cited segments and the passages they cite."""

    batch_index: int
    items: list[JudgeItem]
    passages: dict[str, Passage] = Field(description="Every passage the items cite, once.")
    invalid_keys: dict[int, tuple[str, ...]] = Field(default_factory=dict)
    scenario: str | None = None
    deadline_at: float
    checks_until: float
    calls: int = Field(ge=0, description="Model calls this batch may make (its allotment).")
    timeout_s: int = Field(ge=1)


class JudgeBatchOutput(StateModel):
    batch_index: int
    outcomes: dict[int, SegmentOutcome] = Field(default_factory=dict)
    failed: Literal["deadline", "judge_unavailable"] | None = Field(
        default=None,
        description="Set by the runner when the batch itself failed (the ASL's fallbacks): every "
        "segment of the batch is unverified for this reason (V2-10).",
    )
    model_calls: list[ModelCallRecord] = Field(default_factory=list)


class FramingOutput(StateModel):
    checkable: list[int] | None = Field(
        default=None, description="None when the check failed: every examined segment counts."
    )
    status: StageStatus
    model_calls: list[ModelCallRecord] = Field(default_factory=list)


class ChecksWork(StateModel):
    """What the agent step leaves for the checks and the guard."""

    mode: AnswerMode
    question: str
    scenario: str | None = None
    deadline_at: float
    checks_until: float = Field(description="When the checks stop: the guard's reserve before.")
    timeouts: StepTimeouts
    segments: list[Segment]
    passages: dict[str, Passage] = Field(description="Every passage shown, by citation key.")
    tool_audit: list[ToolCallAudit] = Field(default_factory=list)
    model_calls: list[ModelCallRecord] = Field(default_factory=list)
    final_outcomes: dict[int, SegmentOutcome] = Field(
        default_factory=dict, description="Segments decided by the citation rules alone."
    )
    framing_items: list[tuple[int, Segment]] = Field(
        default_factory=list, description="Uncited framing, for the framing check (V2-06)."
    )
    framing_calls: int = Field(ge=0, description="The framing check's allotment (0 or 1).")
    judge_batches: list[JudgeBatchInput] = Field(default_factory=list)
    include_proof: bool = Field(
        default=False, description="The body asked for the proof chain (ASK-11)."
    )


class AgentStepOutput(StateModel):
    """What the agent step hands on: exactly one of ``done`` (the answer ends here: a refusal),
    ``nothing_readable`` (a 404) or ``work``. (Not ``tanda.model_calls.AgentOutput``, the agent
    model's reply; this was ``AgentOutput`` too until issue 24.)"""

    done: AnswerOutcome | None = None
    nothing_readable: NothingReadableState | None = None
    work: ChecksWork | None = None


class ChecksState(StateModel):
    """The state when the checks start (the ASL's ``Checks`` input): the agent left work."""

    work: ChecksWork
    done: None = None
    nothing_readable: None = None


class GuardInput(ChecksState):
    """The checks' results beside the work: one output per judge batch, in batch order, and the
    framing check's."""

    checks: tuple[list[JudgeBatchOutput], FramingOutput]
