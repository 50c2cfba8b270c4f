"""The model call: what every stage sends to a ``ChatModel`` and what comes back (DESIGN §5).

Kernel (DESIGN §2): the ``ChatModel`` port lives here, beside the request and response it speaks,
because the request's budget and ledger (:mod:`tanda.model_calls.budget`) wrap it — with the port
in ``tanda.ports``, ``ports`` and ``model_calls`` would import each other.

One call = a role, messages, optional tools and an optional JSON schema for structured output, and
a timeout. ``items`` carries the same things the messages show, in structured form: real model
adapters ignore it; the scripted and offline adapters answer from it, so they never parse prompts.

The stage outputs (``AgentOutput``, ``JudgeOutput``…) are the JSON the stages ask models for. They
live here, beside the port, because the stages parse them and the scripted/offline adapters write
them.
"""

from enum import StrEnum
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from tanda.contract.segments import Segment


class ModelRole(StrEnum):
    agent = "agent"
    framing_check = "framing_check"
    judge = "judge"
    recheck = "recheck"
    guard = "guard"
    ask = "ask"
    xc_judge = "xc_judge"
    extract_claims = "extract_claims"  # at ingest: statements with their verbatim quotes (ASK-14)


class _Model(BaseModel):
    # Validators are built on first use (cold start: a step handler imports these types).
    model_config = ConfigDict(extra="forbid", defer_build=True)


class ToolCall(_Model):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ChatMessage(_Model):
    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list, description="assistant only")
    tool_call_id: str | None = Field(default=None, description="tool only: the call answered")


class ToolSpec(_Model):
    name: str
    description: str
    parameters: dict[str, Any] = Field(description="JSON schema of the arguments.")


def wire_tool_name(name: str) -> str:
    """A tool's name as model APIs accept it (``^[a-zA-Z0-9_-]{1,64}$``): issue 25's
    ``mcp.<server>.<tool>`` goes on the wire as ``mcp__<server>__<tool>``."""
    return name.replace(".", "__")


def tools_named_from_wire(response: "ChatResponse", tools: list[ToolSpec] | None) -> "ChatResponse":
    """``response`` with each tool call's wire name back to the name it was offered under."""
    names = {wire_tool_name(tool.name): tool.name for tool in tools or []}
    if not response.tool_calls or all(c.name not in names for c in response.tool_calls):
        return response
    calls = [c.model_copy(update={"name": names.get(c.name, c.name)}) for c in response.tool_calls]
    return response.model_copy(update={"tool_calls": calls})


class ChatRequest(_Model):
    role: ModelRole
    messages: list[ChatMessage]
    tools: list[ToolSpec] | None = None
    tool_choice: Literal["auto", "required"] = Field(
        default="auto",
        description="With tools: `required` makes the model call one (a forced tool round).",
    )
    json_schema: dict[str, Any] | None = Field(
        default=None, description="Structured output: the reply's content must match it."
    )
    schema_name: str | None = None
    timeout_s: float = Field(default=30.0, gt=0)
    max_tokens: int | None = None
    temperature: float = 0.0
    items: list[dict[str, Any]] | None = Field(
        default=None, description="Structured form of what the messages show (scripted/offline)."
    )
    scenario: str | None = Field(
        default=None, description="Scripted model only: the scenario picked by X-Tanda-Scenario."
    )


class ChatResponse(_Model):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: Literal["stop", "tool_calls", "length", "other"] = "stop"
    input_tokens: int | None = None
    output_tokens: int | None = None


class ChatModel(Protocol):
    """One model endpoint (the port). Raises :class:`ModelError` subclasses, never client
    errors."""

    name: str

    def complete(self, request: ChatRequest) -> ChatResponse: ...


# --- errors: adapters raise these, never their client library's, never the server's text -------


class ModelError(Exception):
    """A model call failed. ``outcome`` is logged in ``model_call_log``."""

    outcome = "error"


class ModelTimeout(ModelError):
    outcome = "timeout"


class ModelUnavailable(ModelError):
    """5xx/429/connection failures after retries."""

    outcome = "unavailable"


class ModelRejected(ModelError):
    """A 4xx other than 429: the request itself was refused (not retried)."""

    outcome = "rejected"


class ModelContextExceeded(ModelRejected):
    """The prompt does not fit the model's context window (V2-18)."""

    outcome = "context_exceeded"


# --- stage outputs ----------------------------------------------------------------------------


class AgentOutput(_Model):
    segments: list[Segment]


class ItemVerdict(_Model):
    id: str
    verdict: Literal["supported", "unsupported", "unverifiable"]
    reason: str | None = None


class JudgeOutput(_Model):
    """Judge and re-check reply: one verdict per item id."""

    verdicts: list[ItemVerdict]


class FramingCheckOutput(_Model):
    checkable: list[str] = Field(
        description="Ids of framing segments that state a citable fact or answer the question."
    )


class GuardOutput(_Model):
    block: bool
    category: str | None = None


class XcJudgeOutput(_Model):
    """``xc_judge`` reply (XC-3): one verdict on the two claims it was shown, naming them by
    id. Only the ids are used: statements and quotes come from the server's records."""

    verdict: Literal["contradiction", "support", "none"]
    explanation: str = ""
    a: str = Field(description="The node id of one claim of the pair.")
    b: str = Field(description="The node id of the other.")


class ProposedClaim(_Model):
    passage: str = Field(description="The key of the passage the quote is from (`K3`).")
    statement: str = Field(description="What the passage states, as one sentence.")
    quote: str = Field(description="The passage's own words that state it, verbatim.")


class ClaimsOutput(_Model):
    """``extract_claims`` reply: claims proposed for a batch of passages. Only proposals: a
    claim is kept only if its quote is the stored text of its passage (ASK-14)."""

    claims: list[ProposedClaim]
