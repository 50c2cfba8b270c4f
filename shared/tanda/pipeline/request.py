"""The input of one answer (DESIGN §3, §4): what a runner takes and the agent step reads — the
turn in the pipeline's own words, with the conversation it sees (``History``) and what it may
read (``Scope``). The execution input on the state machine.

Apart from the other states (``tanda.pipeline.states``) because only the agent step reads it: a
check step's handler does not import the conversation's types (cold start, issue 24).
"""

from typing import TYPE_CHECKING, Self

from pydantic import Field

from tanda.conversations.history import History
from tanda.conversations.scope import Scope
from tanda.pipeline.states import AnswerMode, StateModel, StepTimeouts, step_timeouts

if TYPE_CHECKING:
    from tanda.settings import Settings


class AnswerRequest(StateModel):
    """One turn, as a runner takes it: everything the steps need that is not a port or a
    setting, in the pipeline's own words — no route's wire body (issue 24: each route builds it
    from its own). Built by the service (:meth:`starting`); the execution input on the state
    machine."""

    tenant_id: str
    query: str = Field(description="The question, as the caller asked it.")
    scope: Scope = Field(
        default_factory=Scope, description="What the turn may read (tanda.conversations.scope)."
    )
    include_proof: bool = Field(
        default=False, description="Build the proof chain, which only withholds (ASK-11)."
    )
    mode: AnswerMode = "annotate-v2"
    scenario: str | None = Field(default=None, description="The scripted model's scenario.")
    editorial_prompt: str | None = Field(
        default=None, description="The playground's candidate editorial prompt (PG-3)."
    )
    history: History | None = Field(
        default=None,
        description="What the turn sees of its conversation (V2-22): chat messages, the citable "
        "C passages, preferred documents, the one document to read whole.",
    )
    trace_id: str | None = None
    progress_id: str | None = Field(
        default=None,
        description="Set by the Step Functions runner for a stream: the agent step publishes its "
        "tool frames under this id to the Progress port, which the runner polls.",
    )
    started_at: float = Field(description="When the turn started, on the runner's clock.")
    deadline_ms: int = Field(gt=0, description="The request deadline, from started_at.")
    timeouts: StepTimeouts

    @property
    def deadline_at(self) -> float:
        return self.started_at + self.deadline_ms / 1000

    @classmethod
    def starting(
        cls,
        tenant_id: str,
        query: str,
        settings: "Settings",
        *,
        started_at: float,
        scope: Scope | None = None,
        include_proof: bool = False,
        mode: AnswerMode = "annotate-v2",
        scenario: str | None = None,
        editorial_prompt: str | None = None,
        history: History | None = None,
        trace_id: str | None = None,
    ) -> Self:
        """The request of a turn that starts at ``started_at`` (pure: the caller reads the
        clock), under the settings' deadline."""
        return cls(
            tenant_id=tenant_id,
            query=query,
            scope=scope or Scope(),
            include_proof=include_proof,
            mode=mode,
            scenario=scenario,
            editorial_prompt=editorial_prompt,
            history=history,
            trace_id=trace_id,
            started_at=started_at,
            deadline_ms=round(settings.request_deadline_s * 1000),
            timeouts=step_timeouts(settings.request_deadline_s, settings.judge_share),
        )
