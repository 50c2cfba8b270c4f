"""The agent: a tool loop under the request's budgets that ends in ordered segments (V2-03,
V2-17, V2-18, V2-23). Invalid output gets one regeneration; still invalid is never published.

A re-asked follow-up (the question repeats one the user asked earlier in the conversation) starts
with a forced tool round: the agent must look at the documents again rather than repeat an
answer the reader has already seen (V2-22: only verified text carries over). That round is the
only place ``agent_output_limit`` comes from (V2-17): when it is cut at the model's output limit
there is no answer to regenerate, so the fixed could-not-answer notice is published. Any other
output cut at the limit is just invalid output — one regeneration, then ``unparseable_completion``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from pydantic import ValidationError

from tanda.agent.source_tools import UNTRUSTED
from tanda.agent.tools import AgentTools, ContextFull
from tanda.annotate.compose import SegmentLayoutError, compose
from tanda.contract.common import FallbackReason
from tanda.contract.segments import Segment
from tanda.errors import UpstreamFailed
from tanda.model_calls import (
    AgentOutput,
    ChatMessage,
    ChatRequest,
    ChatResponse,
    ModelContextExceeded,
    ModelError,
    ModelRole,
    ModelTimeout,
)
from tanda.model_calls.budget import BudgetSpent, ModelLedger
from tanda.not_found import NEAREST_PASSAGE_LEAD, NOT_FOUND_NOTICE
from tanda.prompts import prompt
from tanda.retrieval.question import QuestionAnalysis, analyze_question

AGENT_SCHEMA = AgentOutput.model_json_schema()
_TRAILING = ".?!。？！ \t\n"


def same_question(a: str, b: str) -> bool:
    """Equal up to case, spacing and closing punctuation (``Berapa…?`` = ``berapa … ``)."""
    return " ".join(a.casefold().split()).rstrip(_TRAILING) == " ".join(
        b.casefold().split()
    ).rstrip(_TRAILING)


def is_reasked(question: str, history: Sequence[ChatMessage]) -> bool:
    """V2-17: a follow-up that repeats a question the user asked earlier in this conversation."""
    return any(m.role == "user" and same_question(m.content, question) for m in history)


class AgentUnavailable(UpstreamFailed):
    """The answering model failed (not a timeout, a budget or a context overflow): 502, without
    the model server's text."""

    message = "The answering model did not respond usably."


@dataclass
class AgentResult:
    segments: list[Segment] = field(default_factory=list)
    fallback: FallbackReason | None = None
    tool_rounds: int = 0


class InvalidSegments(ValueError):
    pass


def parse_segments(response: ChatResponse) -> list[Segment]:
    """The agent's final output as segments that compose, or ``InvalidSegments`` saying why."""
    if response.finish_reason == "length":
        raise InvalidSegments("the output was cut off at the length limit")
    try:
        output = AgentOutput.model_validate_json(response.content or "")
    except ValidationError as error:
        raise InvalidSegments(f"not valid segment JSON ({error.error_count()} problems)") from error
    # Spacing around a segment is layout, the server's job: trim what the agent left there.
    segments = [s.model_copy(update={"text": s.text.strip()}) for s in output.segments]
    if not segments:
        raise InvalidSegments("no segments")
    try:
        compose(segments)
    except SegmentLayoutError as error:
        raise InvalidSegments(str(error)) from error
    return segments


AgentInstructions = Literal["agent_segments", "agent_sentences"]
"""The output instructions (prompt files): annotate-v2 segments, or the v1 gate's sentences."""


class Agent:
    """The agent as a component: ``run`` answers one question with tools under the request's
    budgets and returns its segments, or the fallback that ends the answer (V2-17, V2-18).

    ``instructions`` names the output prompt; ``max_tool_rounds`` the tool rounds before it must
    answer (``TANDA_AGENT_MAX_TOOL_ROUNDS``)."""

    def __init__(
        self, *, instructions: AgentInstructions = "agent_segments", max_tool_rounds: int = 4
    ) -> None:
        if instructions not in get_args(AgentInstructions):
            raise ValueError(f"unknown agent instructions {instructions!r}")
        if max_tool_rounds < 0:
            raise ValueError(f"max_tool_rounds must not be negative, not {max_tool_rounds}")
        self.instructions = instructions
        self.max_tool_rounds = max_tool_rounds

    def run(
        self,
        ledger: ModelLedger,
        tools: AgentTools,
        question: str | QuestionAnalysis,
        *,
        editorial_prompt: str | None = None,
        history: Sequence[ChatMessage] = (),
        until: float,
        reserve_calls: int,
    ) -> AgentResult:
        """``question``: the request's question, read once (issue 22: its analysis reaches the
        model's structured items, for the offline reader); ``until``: the agent's own deadline
        (V2-23); ``reserve_calls``: the calls it leaves for the checks and the guard."""
        if isinstance(question, str):
            question = analyze_question(question)
        return _tool_loop(
            ledger,
            tools,
            question,
            system=self._system(tools, editorial_prompt),
            history=list(history),
            until=until,
            reserve_calls=reserve_calls,
            max_tool_rounds=self.max_tool_rounds,
        )

    def _system(self, tools: AgentTools, editorial_prompt: str | None) -> str:
        # Only the editorial part is replaceable (playground, PG-3); the output instructions are
        # not.
        system = (
            (editorial_prompt or prompt("editorial")) + "\n\n" + instructions(self.instructions)
        )
        if tools.sources is not None:
            system += "\n\n" + UNTRUSTED  # issue 25: a source's text is data, not instructions
        conversation = [p for p in tools.passages.values() if p.kind == "conversation"]
        if conversation:
            # V2-12/V2-22: earlier turns (and the user's verified memory) are citable by their C
            # keys.
            system += "\n\nConversation passages you may cite:\n" + "\n".join(
                f"[{p.key}] {p.text}" for p in conversation
            )
        return system


def instructions(name: AgentInstructions) -> str:
    """The output instructions, with the not-found notices of every language filled in (issue
    22: the offline agent and any model publish the same sentence, which readers recognise)."""
    notices = "\n".join(
        f'  - {lang}: "{NOT_FOUND_NOTICE[lang]}" — lead-in: "{NEAREST_PASSAGE_LEAD[lang]}"'
        for lang in NOT_FOUND_NOTICE
    )
    return prompt(name).replace("{not_found_notices}", notices)


def _tool_loop(
    ledger: ModelLedger,
    tools: AgentTools,
    analysis: QuestionAnalysis,
    *,
    system: str,
    history: list[ChatMessage],
    until: float,
    reserve_calls: int,
    max_tool_rounds: int,
) -> AgentResult:
    question = analysis.text
    messages = [
        ChatMessage(role="system", content=system),
        *history,
        ChatMessage(role="user", content=question),
    ]
    result = AgentResult()
    regenerated = False
    forced_round = is_reasked(question, history)
    while True:
        allow_tools = result.tool_rounds < max_tool_rounds
        forced_round = forced_round and allow_tools
        request = ChatRequest(
            role=ModelRole.agent,
            messages=messages,
            tools=tools.specs if allow_tools else None,
            tool_choice="required" if forced_round else "auto",
            json_schema=AGENT_SCHEMA,
            schema_name="segments",
            items=[
                {"question": question, "analysis": analysis.model_dump(mode="json")},
                *[p.as_item() for p in tools.document_passages.values()],
            ],
        )
        try:
            response = ledger.complete(request, until=until, reserve_calls=reserve_calls)
        except BudgetSpent:
            return AgentResult(fallback=FallbackReason.query_budget_exhausted)
        except ModelContextExceeded:
            return AgentResult(fallback=FallbackReason.context_budget_exhausted)
        except ModelTimeout:
            return AgentResult(fallback=FallbackReason.model_timeout)
        except ModelError as error:
            raise AgentUnavailable() from error
        if forced_round and response.finish_reason == "length":
            # V2-17: the forced tool round of a re-asked follow-up hit its output limit.
            return AgentResult(fallback=FallbackReason.agent_output_limit)
        forced_round = False
        if response.tool_calls and allow_tools:
            result.tool_rounds += 1
            messages.append(
                ChatMessage(
                    role="assistant", content=response.content or "", tool_calls=response.tool_calls
                )
            )
            for call in response.tool_calls:
                try:
                    outcome = tools.run(call.name, call.arguments, call.id)
                except ContextFull:
                    return AgentResult(fallback=FallbackReason.context_budget_exhausted)
                messages.append(
                    ChatMessage(role="tool", content=outcome.content, tool_call_id=call.id)
                )
            continue
        try:
            result.segments = parse_segments(response)
            return result
        except InvalidSegments as problem:
            # A final answer cut at the output limit is invalid output like any other (V2-17).
            if regenerated:
                return AgentResult(fallback=FallbackReason.unparseable_completion)
            regenerated = True
            messages.append(ChatMessage(role="assistant", content=response.content or ""))
            messages.append(
                ChatMessage(
                    role="user",
                    content=(
                        f"Your answer could not be used: {problem}. Reply again with only the "
                        'JSON object {"segments": [...]} as instructed.'
                    ),
                )
            )
