"""The Government Policy Guard (V2-13) as a component: :class:`PolicyGuard`. It reads the whole
composed answer and is the only check that may replace it. It fails closed: when the guard cannot
answer, nothing unguarded is published."""

from __future__ import annotations

from pydantic import ValidationError

from tanda.errors import UpstreamFailed
from tanda.model_calls import ChatMessage, ChatRequest, GuardOutput, ModelError, ModelRole
from tanda.model_calls.budget import ModelLedger
from tanda.prompts import prompt

GUARD_SCHEMA = GuardOutput.model_json_schema()


class GuardUnavailable(UpstreamFailed):
    code = "policy_guard_unavailable"
    message = "The policy guard could not check the answer, so it was not published."


class PolicyGuard:
    """``run`` → whether the answer must be replaced (``policy_blocked``)."""

    def run(self, ledger: ModelLedger, answer: str) -> bool:
        """One guard call over the whole ``answer``; ``GuardUnavailable`` when it fails, is
        refused (budget, deadline) or does not decide."""
        request = ChatRequest(
            role=ModelRole.guard,
            messages=[
                ChatMessage(role="system", content=prompt("guard")),
                ChatMessage(role="user", content=answer),
            ],
            json_schema=GUARD_SCHEMA,
            schema_name="guard",
            items=[{"answer": answer}],
        )
        try:
            response = ledger.complete(request)
            return GuardOutput.model_validate_json(response.content or "").block
        except (ModelError, ValidationError) as error:
            raise GuardUnavailable() from error
