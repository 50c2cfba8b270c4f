"""The Step Functions runner: one ``StartSyncExecution`` of the EXPRESS query state machine per
answer (DESIGN §4), whose tasks are the steps (``functions/steps/*``). It answers the same
``AnswerOutcome`` as the in-process runner for the same request. A runner, not an adapter: it
chains the pipeline's steps; the boto3 client it talks through is injected (``tanda.wiring``
builds it).

The execution's own failures map back onto the in-process exceptions, so the one error → HTTP
module answers the same body either way: ``NothingReadable`` → 404, ``GuardUnavailable`` → the
guard's fail-closed error, ``UpstreamFailed`` (the agent failed) → the agent's 502, anything else
→ ``ExecutionFailed`` (502).

Live progress (the stream routes): ``StartSyncExecution`` blocks until the answer is complete,
so with a ``progress`` callback it runs on a worker thread while this thread polls the
``Progress`` port (DynamoDB in Lambda) under the request's ``progress_id`` — the id the agent step
publishes its tool frames under — and forwards each new frame, in order, as it appears. A last
read after the execution returns delivers whatever was published since the previous poll, so
every frame reaches the callback before ``run`` returns, as in-process.

An abandoned turn (issue 11) cannot call its execution off: it runs to its end, and the service
stores nothing of it.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tanda.contract.common import FallbackReason
from tanda.errors import UpstreamFailed
from tanda.pipeline.request import AnswerRequest
from tanda.pipeline.states import AnswerOutcome, NothingReadableState

if TYPE_CHECKING:
    from tanda.pipeline.steps import ProgressSink
    from tanda.ports import Progress

log = logging.getLogger(__name__)

POLL_S = 0.25
"""How often the progress events are read while an execution runs (one consistent Query each)."""

READ_TIMEOUT_MARGIN_S = 15.0
"""The HTTP read timeout of StartSyncExecution exceeds the deadline by this much, so the client
never gives up on an execution that is still inside its deadline."""


class ExecutionFailed(UpstreamFailed):
    message = "The answer could not be completed."


def failure_for(error: str | None) -> Exception:
    """The in-process exception for a failed execution's ``error`` name."""
    from tanda.agent.tool_loop import AgentUnavailable
    from tanda.guard.policy_guard import GuardUnavailable
    from tanda.pipeline.steps import NothingReadable

    if error == "NothingReadable":
        return NothingReadable()
    if error == "GuardUnavailable":
        return GuardUnavailable()
    if error == "UpstreamFailed":
        return AgentUnavailable()
    return ExecutionFailed()


def execution_output(text: str) -> AnswerOutcome:
    """Parse what the state machine returned: the guard's (or the agent's ``done``)
    ``AnswerOutcome``, the ``AgentTimedOut`` fallback ``{"refusal": reason}`` built by the ASL
    itself, or ``{"nothing_readable": …}`` (raised as ``NothingReadable``, the 404 of V2-19)."""
    data = json.loads(text)
    if isinstance(data, dict) and set(data) == {"refusal"}:
        return AnswerOutcome.refusal(FallbackReason(data["refusal"]))
    if isinstance(data, dict) and set(data) == {"nothing_readable"}:
        from tanda.pipeline.steps import NothingReadable

        raise NothingReadable.of(NothingReadableState.model_validate(data["nothing_readable"]))
    return AnswerOutcome.model_validate(data)


class StepFunctionsRunner:
    """``client`` is a boto3 ``stepfunctions`` client (injected in tests); ``channel`` is the
    ``Progress`` port the agent step publishes to."""

    def __init__(
        self, client: Any, state_machine_arn: str, channel: Progress, *, poll_s: float = POLL_S
    ) -> None:
        if not state_machine_arn:
            raise ValueError("TANDA_QUERY_STATE_MACHINE_ARN is not set")
        self.client = client
        self.state_machine_arn = state_machine_arn
        self.channel = channel
        self.poll_s = poll_s

    def run(
        self,
        request: AnswerRequest,
        *,
        progress: ProgressSink | None = None,
        abandoned: Callable[[], bool] | None = None,
    ) -> AnswerOutcome:
        """One execution. With ``progress``, the agent step publishes its tool frames under a
        ``progress_id`` (the trace id) and they reach ``progress`` while the execution runs."""
        if progress is not None:
            request = request.model_copy(
                update={"progress_id": request.trace_id or uuid.uuid4().hex}
            )
        call: dict[str, Any] = {
            "stateMachineArn": self.state_machine_arn,
            "input": request.model_dump_json(),
        }
        if request.trace_id:
            call["name"] = request.trace_id[:80]
        if progress is not None and request.progress_id is not None:
            execution = self._execute_forwarding(call, request.progress_id, progress)
        else:
            execution = self.client.start_sync_execution(**call)
        if execution.get("status") != "SUCCEEDED":
            raise failure_for(execution.get("error"))
        return execution_output(execution["output"])

    def _execute_forwarding(
        self, call: dict[str, Any], progress_id: str, progress: ProgressSink
    ) -> dict[str, Any]:
        """``StartSyncExecution`` on a worker thread; meanwhile, new progress frames → callback."""
        outcome: dict[str, Any] = {}
        finished = threading.Event()

        def execute() -> None:
            try:
                outcome["execution"] = self.client.start_sync_execution(**call)
            except BaseException as error:  # re-raised on the caller's thread
                outcome["error"] = error
            finally:
                finished.set()

        threading.Thread(target=execute, name="tanda-sfn-execution", daemon=True).start()
        seen = 0

        def forward() -> None:
            nonlocal seen
            try:
                events = self.channel.read(progress_id, after=seen)
            except Exception:
                log.warning("progress events not read", exc_info=True)  # best effort
                return
            for event in events:
                progress(event.frame)
                seen = event.seq

        while not finished.wait(self.poll_s):
            forward()
        forward()  # published after the last poll, before the execution returned
        if "error" in outcome:
            raise outcome["error"]
        execution: dict[str, Any] = outcome["execution"]
        return execution
