"""The Step Functions runner: one ``StartSyncExecution`` of the EXPRESS query state machine per
answer (DESIGN §4), returning the same ``AnswerOutcome`` as the in-process runner.

The execution's own failures map back onto the in-process exceptions, so the one error → HTTP
module answers the same status either way: ``NothingReadable`` → 404, ``GuardUnavailable`` → the
guard's fail-closed error, anything else → ``UpstreamFailed`` (502).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pydantic_settings import BaseSettings, SettingsConfigDict

from tanda.errors import UpstreamFailed
from tanda.pipeline.steps import execution_output, query_input, to_outcome

if TYPE_CHECKING:
    from tanda.contract.query import QueryV2Request
    from tanda.pipeline.answer_v2 import AnswerOutcome
    from tanda.settings import Settings

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
    def from_settings(cls, settings: Settings, client: Any | None = None) -> StepFunctionsRunner:
        arn = (
            getattr(settings, "query_state_machine_arn", None)
            or StateMachineSettings().query_state_machine_arn
        )
        if client is None:
            import boto3
            from botocore.config import Config

            client = boto3.client(
                "stepfunctions",
                config=Config(
                    read_timeout=settings.request_deadline_s + READ_TIMEOUT_MARGIN_S,
                    connect_timeout=5,
                    # A retried StartSyncExecution would answer twice: never retry it.
                    retries={"max_attempts": 1, "mode": "standard"},
                ),
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
        clock: Any = time.time,
    ) -> AnswerOutcome:
        state = query_input(
            tenant_id,
            body,
            self.settings,
            started_at=clock(),
            scenario=scenario,
            editorial_prompt=editorial_prompt,
        )
        request: dict[str, Any] = {
            "stateMachineArn": self.state_machine_arn,
            "input": state.model_dump_json(),
        }
        if trace_id:
            request["name"] = trace_id[:80]
        execution = self.client.start_sync_execution(**request)
        if execution.get("status") != "SUCCEEDED":
            raise failure_for(execution.get("error"))
        return to_outcome(execution_output(execution["output"]))
