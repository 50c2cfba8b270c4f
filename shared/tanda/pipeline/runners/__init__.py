"""Runners: what chains the steps of one answer under its deadline (DESIGN §4).

``Runner`` is the port the use cases answer through; ``tanda.wiring`` chooses the one
implementation of a process: :class:`~tanda.pipeline.runners.in_process.InProcessRunner` (the
embedded default and the tests) or :class:`~tanda.pipeline.runners.stepfunctions.
StepFunctionsRunner` (AWS). Both chain the same steps (``tanda.pipeline.steps``) over the same
states (``tanda.pipeline.states``) and answer the same outcome; neither reimplements a step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tanda.pipeline.request import AnswerRequest
    from tanda.pipeline.states import AnswerOutcome
    from tanda.pipeline.steps import ProgressSink


class Runner(Protocol):
    def run(
        self,
        request: AnswerRequest,
        *,
        progress: ProgressSink | None = None,
        abandoned: Callable[[], bool] | None = None,
    ) -> AnswerOutcome:
        """Answer one turn. ``progress`` receives the agent's tool frames as they happen (the
        stream routes, V2-21). Once ``abandoned()`` is true (a stream nobody reads, issue 11)
        the answer makes no further model call where the runner can stop it, and ends with
        ``TurnAbandoned``. Raises ``NothingReadable`` (404), ``GuardUnavailable`` and the
        agent's ``UpstreamFailed`` (502) as the steps do."""
        ...
