"""The Step Functions runner: one ``StartSyncExecution`` of the EXPRESS query state machine per
answer (DESIGN §4), returning the same ``AnswerOutcome`` as the in-process runner. A runner, not
an adapter: it chains the pipeline's steps; the boto3 client it talks through is injected
(``tanda.wiring`` builds it).

The execution's own failures map back onto the in-process exceptions, so the one error → HTTP
module answers the same status either way: ``NothingReadable`` → 404, ``GuardUnavailable`` → the
guard's fail-closed error, anything else → ``UpstreamFailed`` (502).

Live progress (``/query/v2/stream``): ``StartSyncExecution`` blocks until the answer is complete,
so with a ``progress`` callback it runs on a worker thread while this thread polls the
``Progress`` adapter (DynamoDB in Lambda) under the request's id - the id the agent step publishes
its tool frames under - and forwards each new frame, in order, as it appears. A last read after
the execution returns delivers whatever was published since the previous poll, so every frame
reaches the callback before ``answer`` returns, as in-process.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic_settings import BaseSettings, SettingsConfigDict

from tanda.errors import UpstreamFailed
from tanda.pipeline.steps import execution_output, query_input, to_outcome

if TYPE_CHECKING:
    from tanda.contract.common import WireModel
    from tanda.contract.query import QueryV2Request
    from tanda.conversations.history import History
    from tanda.pipeline.answer_v2 import AnswerOutcome
    from tanda.ports import Progress
    from tanda.settings import Settings

log = logging.getLogger(__name__)

POLL_S = 0.25
"""How often the progress events are read while an execution runs (one consistent Query each)."""

READ_TIMEOUT_MARGIN_S = 15.0
"""The HTTP read timeout of StartSyncExecution exceeds the deadline by this much, so the client
never gives up on an execution that is still inside its deadline."""


class StateMachineSettings(BaseSettings):
    """``TANDA_QUERY_STATE_MACHINE_ARN`` until ``Settings`` carries it."""

    model_config = SettingsConfigDict(env_prefix="TANDA_", extra="ignore", frozen=True)

    query_state_machine_arn: str = ""


class ExecutionFailed(UpstreamFailed):
    message = "The answer could not be completed."


def failure_for(error: str | None) -> Exception:
    """The in-process exception for a failed execution's ``error`` name."""
    from tanda.guard.run import GuardUnavailable
    from tanda.pipeline.answer_v2 import NothingReadable

    if error == "NothingReadable":
        return NothingReadable()
    if error == "GuardUnavailable":
        return GuardUnavailable()
    return ExecutionFailed()


class StepFunctionsRunner:
    """``client`` is a boto3 ``stepfunctions`` client (injected in tests)."""

    def __init__(self, client: Any, state_machine_arn: str, settings: Settings) -> None:
        if not state_machine_arn:
            raise ValueError("TANDA_QUERY_STATE_MACHINE_ARN is not set")
        self.client = client
        self.state_machine_arn = state_machine_arn
        self.settings = settings

    @classmethod
    def from_settings(cls, settings: Settings, client: Any) -> StepFunctionsRunner:
        """The runner of the state machine the settings name; ``tanda.wiring`` builds
        ``client`` (read timeout: the deadline + ``READ_TIMEOUT_MARGIN_S``, no retry)."""
        arn = (
            getattr(settings, "query_state_machine_arn", None)
            or StateMachineSettings().query_state_machine_arn
        )
        return cls(client, arn, settings)

    def answer(
        self,
        tenant_id: str,
        body: QueryV2Request,
        *,
        scenario: str | None = None,
        editorial_prompt: str | None = None,
        trace_id: str | None = None,
        history: History | None = None,
        progress: Callable[[WireModel], None] | None = None,
        channel: Progress | None = None,
        poll_s: float = POLL_S,
        clock: Any = time.time,
    ) -> AnswerOutcome:
        """One execution. A conversation turn's ``history`` travels in the input (the agent
        step uses it as the in-process runner does). With ``progress`` and the ``channel`` the
        agent step publishes to, the tool frames reach ``progress`` while the execution runs."""
        live = progress is not None and channel is not None
        progress_id = (trace_id or uuid.uuid4().hex) if live else None
        state = query_input(
            tenant_id,
            body,
            self.settings,
            started_at=clock(),
            scenario=scenario,
            editorial_prompt=editorial_prompt,
            progress_id=progress_id,
            history=history,
        )
        request: dict[str, Any] = {
            "stateMachineArn": self.state_machine_arn,
            "input": state.model_dump_json(),
        }
        if trace_id:
            request["name"] = trace_id[:80]
        if progress is not None and channel is not None and progress_id is not None:
            execution = self._execute_forwarding(request, channel, progress_id, progress, poll_s)
        else:
            execution = self.client.start_sync_execution(**request)
        if execution.get("status") != "SUCCEEDED":
            raise failure_for(execution.get("error"))
        return to_outcome(execution_output(execution["output"]))

    def _execute_forwarding(
        self,
        request: dict[str, Any],
        channel: Progress,
        progress_id: str,
        progress: Callable[[WireModel], None],
        poll_s: float,
    ) -> dict[str, Any]:
        """``StartSyncExecution`` on a worker thread; meanwhile, new progress frames → callback."""
        outcome: dict[str, Any] = {}
        finished = threading.Event()

        def execute() -> None:
            try:
                outcome["execution"] = self.client.start_sync_execution(**request)
            except BaseException as error:  # re-raised on the caller's thread
                outcome["error"] = error
            finally:
                finished.set()

        threading.Thread(target=execute, name="tanda-sfn-execution", daemon=True).start()
        seen = 0

        def forward() -> None:
            nonlocal seen
            try:
                events = channel.read(progress_id, after=seen)
            except Exception:
                log.warning("progress events not read", exc_info=True)  # best effort
                return
            for event in events:
                progress(event.frame)
                seen = event.seq

        while not finished.wait(poll_s):
            forward()
        forward()  # published after the last poll, before the execution returned
        if "error" in outcome:
            raise outcome["error"]
        execution: dict[str, Any] = outcome["execution"]
        return execution
