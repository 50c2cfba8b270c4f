"""The scripted model: answers every role from a scenario file, so tests and client developers
can get every verdict, reason and fallback on demand (docs/scenarios.md).

``TANDA_MODEL=scripted:DIR`` loads ``DIR/*.json``; the request header ``X-Tanda-Scenario: NAME``
picks one (``default`` otherwise). It answers from ``ChatRequest.items`` and never parses prompts.

A scenario's ``latency_ms`` is spent through the model's ``sleep``: wall time unless one is handed
in (``tanda serve``: a client developer sees the latency), a manual clock's ``advance`` in tests,
so no test waits for a deadline (issue 12). A latency longer than the call's timeout spends the
timeout, then times out, as a real call would.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tanda.contract.segments import Segment
from tanda.model_calls import (
    ChatRequest,
    ChatResponse,
    ModelContextExceeded,
    ModelError,
    ModelRejected,
    ModelRole,
    ModelTimeout,
    ModelUnavailable,
    ToolCall,
)

Failure = Literal["timeout", "error", "http_500", "invalid_json", "context_length"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScriptedToolCall(_Model):
    tool: str = Field(
        default="search",
        pattern=r"^(search|read_document|list_sources|portal_search|portal_read|"
        r"mcp\.[A-Za-z0-9_-]{1,64}\.\S+)$",
        description="A document tool, a portal tool, or `mcp.<server>.<tool>` (issue 25).",
    )
    query: str | None = None
    document_id: str | None = None
    period: str | None = Field(default=None, description="portal_search: the period.")
    resource_id: str | None = Field(default=None, description="portal_read: the resource.")
    arguments: dict[str, Any] | None = Field(
        default=None, description="The call's arguments as given (an MCP tool's)."
    )

    def call_arguments(self) -> dict[str, Any]:
        if self.arguments is not None:
            return dict(self.arguments)
        if self.tool == "read_document":
            return {"document_id": self.document_id or ""}
        if self.tool == "list_sources":
            return {}
        if self.tool == "portal_read":
            read: dict[str, Any] = {"resource_id": self.resource_id or ""}
            return read | ({"query": self.query} if self.query else {})
        found: dict[str, Any] = {"query": self.query or ""}
        return found | ({"period": self.period} if self.period else {})


class AgentScript(_Model):
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    segments: list[Segment] = Field(default_factory=list)
    invalid_outputs: int = Field(
        default=0, ge=0, description="Reply with invalid segments this many times first."
    )
    truncated_outputs: int = Field(
        default=0, ge=0, description="Reply cut off at the length limit this many times first."
    )
    truncated_forced_round: bool = Field(
        default=False,
        description="A forced tool round (a re-asked follow-up's first round, V2-17) is cut off "
        "at the length limit.",
    )
    fail: Failure | None = None


class FramingScript(_Model):
    checkable: list[str] = Field(
        default_factory=list, description="Framing texts judged checkable."
    )
    fail: Failure | None = None


class JudgeScript(_Model):
    default: Literal["supported", "unsupported", "unverifiable"] = "supported"
    supported: list[str] = Field(default_factory=list)
    unsupported: list[str] = Field(default_factory=list)
    unverifiable: list[str] = Field(default_factory=list)
    unparseable: list[str] = Field(
        default_factory=list, description="Segment texts the judge gives no usable verdict for."
    )
    fail: Failure | None = None


class RecheckScript(_Model):
    default: Literal["confirm", "dispute"] = "confirm"
    confirm: list[str] = Field(default_factory=list)
    dispute: list[str] = Field(default_factory=list)
    fail: Failure | None = None


class GuardScript(_Model):
    block: bool = False
    fail: Failure | None = None


class ScriptedClaim(_Model):
    quote: str = Field(description="Proposed for the passage that contains it (exactly).")
    statement: str | None = Field(default=None, description="Defaults to the quote.")


class ExtractClaimsScript(_Model):
    """At ingest (ASK-14): each claim is proposed in the batch whose passage contains its quote,
    for that passage; a quote no passage contains is proposed once, for the document's first
    passage (``K0``), so the quote check can be seen dropping it."""

    claims: list[ScriptedClaim] = Field(default_factory=list)
    fail: Failure | None = None


_KIND_MARKER = re.compile(r"\[S:([a-z_]+)(?::(\d+))?\]")


def _cite_by_kind(text: str, sources: list[dict[str, Any]]) -> str:
    """``[S:entity]`` → ``[S<n>]`` of the first entity shown, ``[S:rule:2]`` of the second rule
    (ASK-08: a script cannot know how many passages come before the evidence items); ``[S0]``
    (an invalid marker) when no such source was shown."""

    def number(m: re.Match[str]) -> str:
        of_kind = [s for s in sources if s.get("kind", "passage") == m.group(1)]
        nth = int(m.group(2) or 1)
        return f"[S{of_kind[nth - 1]['source_no']}]" if 0 < nth <= len(of_kind) else "[S0]"

    return _KIND_MARKER.sub(number, text)


class AskScript(_Model):
    """The ``/v1/ask`` synthesis (docs/scenarios.md)."""

    answer: str = Field(
        default="Kaynağa göre cevap budur [S1].",
        description="The reply, `[S#]` markers included. `[S:<kind>]` / `[S:<kind>:<n>]` stands "
        "for the first / n-th source of that kind shown (`passage`, `entity`, `rule` …); "
        "`[S0]` when none was.",
    )
    truncate: bool = Field(default=False, description="The reply stops at the output limit.")
    continuation: str | None = Field(
        default=None,
        description="The continuation call's reply; null: it adds nothing and stops at the limit "
        "again.",
    )
    continuation_truncated: bool = Field(
        default=False, description="The continuation stops at the output limit too."
    )
    fail: Literal["timeout", "http_500", "http_400", "invalid"] | None = None


class XcJudgeScript(_Model):
    """The cross-check judge (docs/scenarios.md): a pair gets the verdict of the first list
    (``contradiction``, then ``support``, then ``none``) holding a substring of either
    statement, else ``default``; ``unknown_ids`` pairs are answered naming a claim the judge
    was not shown (dropped and counted, XC-3)."""

    default: Literal["contradiction", "support", "none"] = "none"
    contradiction: list[str] = Field(default_factory=list)
    support: list[str] = Field(default_factory=list)
    none: list[str] = Field(default_factory=list)
    unknown_ids: list[str] = Field(default_factory=list)
    explanation: str = Field(
        default="Scripted {verdict} ({lang}).",
        description="`{verdict}` and `{lang}` are filled in.",
    )
    fail: Failure | None = None


class Scenario(_Model):
    description: str | None = None
    agent: AgentScript = AgentScript()
    framing_check: FramingScript = FramingScript()
    judge: JudgeScript = JudgeScript()
    recheck: RecheckScript = RecheckScript()
    guard: GuardScript = GuardScript()
    ask: AskScript = AskScript()
    xc_judge: XcJudgeScript = XcJudgeScript()
    extract_claims: ExtractClaimsScript = ExtractClaimsScript()
    latency_ms: dict[str, int] = Field(default_factory=dict, description="Per role, e.g. judge.")


class ScenarioNotFound(ModelError):
    outcome = "rejected"


Sleep = Callable[[float], None]
"""Spends a scripted latency (seconds)."""


def wall_time(seconds: float) -> None:
    """The default :data:`Sleep`: wall time. Looked up per call, so the tests can make a latency
    that would be slept for real fail the test instead (tests/conftest.py)."""
    time.sleep(seconds)


class ScriptedModel:
    name = "scripted"

    def __init__(self, scenarios: dict[str, Scenario], *, sleep: Sleep | None = None) -> None:
        self.scenarios = scenarios
        self._sleep = sleep

    @classmethod
    def from_dir(cls, directory: str | Path, *, sleep: Sleep | None = None) -> ScriptedModel:
        folder = Path(directory)
        scenarios = {
            path.stem: Scenario.model_validate_json(path.read_text(encoding="utf-8"))
            for path in sorted(folder.glob("*.json"))
        }
        if not scenarios:
            raise ValueError(f"no scenario files (*.json) in {folder}")
        return cls(scenarios, sleep=sleep)

    def scenario(self, name: str | None) -> Scenario:
        key = name or "default"
        if key not in self.scenarios:
            if name is None and len(self.scenarios) == 1:
                return next(iter(self.scenarios.values()))
            raise ScenarioNotFound(f"unknown scenario {key!r}")
        return self.scenarios[key]

    def complete(self, request: ChatRequest) -> ChatResponse:
        scenario = self.scenario(request.scenario)
        latency = scenario.latency_ms.get(request.role.value, 0) / 1000
        if latency:
            (self._sleep or wall_time)(min(latency, request.timeout_s))
            if latency > request.timeout_s:
                raise ModelTimeout("scripted latency exceeds the call's timeout")
        handler = {
            ModelRole.agent: self._agent,
            ModelRole.framing_check: self._framing,
            ModelRole.judge: self._judge,
            ModelRole.recheck: self._recheck,
            ModelRole.guard: self._guard,
            ModelRole.ask: self._ask,
            ModelRole.xc_judge: self._xc_judge,
            ModelRole.extract_claims: self._extract_claims,
        }.get(request.role)
        if handler is None:
            raise ScenarioNotFound(f"the scripted model has no script for role {request.role}")
        return handler(scenario, request)

    @staticmethod
    def _fail(failure: Failure | None) -> ChatResponse | None:
        if failure is None:
            return None
        if failure == "timeout":
            raise ModelTimeout("scripted timeout")
        if failure == "http_500":
            raise ModelUnavailable("scripted server error")
        if failure == "context_length":
            raise ModelContextExceeded("scripted context overflow")
        if failure == "invalid_json":
            return ChatResponse(content="{not json")
        raise ModelError("scripted failure")

    @staticmethod
    def _json(value: Any) -> ChatResponse:
        return ChatResponse(content=json.dumps(value, ensure_ascii=False))

    def _agent(self, scenario: Scenario, request: ChatRequest) -> ChatResponse:
        script = scenario.agent
        failed = self._fail(script.fail)
        if failed is not None:
            return failed
        if request.tools and request.tool_choice == "required" and script.truncated_forced_round:
            return ChatResponse(content="", finish_reason="length")
        calls_made = sum(len(m.tool_calls) for m in request.messages if m.role == "assistant")
        if calls_made < len(script.tool_calls) and request.tools:
            call = script.tool_calls[calls_made]
            return ChatResponse(
                tool_calls=[
                    ToolCall(
                        id=f"call_{calls_made + 1}",
                        name=call.tool,
                        arguments=call.call_arguments(),
                    )
                ],
                finish_reason="tool_calls",
            )
        # Count final-answer attempts by how many non-tool assistant replies this turn's loop has
        # seen (after its question: a follow-up's history holds earlier answers too).
        question = (request.items or [{}])[0].get("question")
        messages = request.messages
        asked = max(
            (i for i, m in enumerate(messages) if m.role == "user" and m.content == question),
            default=0,
        )
        attempts = sum(1 for m in messages[asked:] if m.role == "assistant" and not m.tool_calls)
        if attempts < script.truncated_outputs:
            return ChatResponse(content='{"segments": [{"text": "Terpot', finish_reason="length")
        if attempts < script.invalid_outputs:
            return ChatResponse(content='{"segments": "not a list"}')
        return self._json({"segments": [s.model_dump(mode="json") for s in script.segments]})

    def _framing(self, scenario: Scenario, request: ChatRequest) -> ChatResponse:
        failed = self._fail(scenario.framing_check.fail)
        if failed is not None:
            return failed
        wanted = set(scenario.framing_check.checkable)
        items = [i for i in request.items or [] if "id" in i]
        return self._json({"checkable": [i["id"] for i in items if i["text"] in wanted]})

    def _judge(self, scenario: Scenario, request: ChatRequest) -> ChatResponse:
        script = scenario.judge
        failed = self._fail(script.fail)
        if failed is not None:
            return failed
        verdicts = []
        for item in request.items or []:
            text = item["text"]
            if text in script.unparseable:
                continue
            verdict = script.default
            for name in ("supported", "unsupported", "unverifiable"):
                if text in getattr(script, name):
                    verdict = name
            verdicts.append({"id": item["id"], "verdict": verdict})
        return self._json({"verdicts": verdicts})

    def _recheck(self, scenario: Scenario, request: ChatRequest) -> ChatResponse:
        script = scenario.recheck
        failed = self._fail(script.fail)
        if failed is not None:
            return failed
        verdicts = []
        for item in request.items or []:
            text = item["text"]
            if text in scenario.judge.unparseable:
                continue
            decision = script.default
            if text in script.confirm:
                decision = "confirm"
            if text in script.dispute:
                decision = "dispute"
            first = "unsupported"
            if text in scenario.judge.supported or (
                scenario.judge.default == "supported" and text not in scenario.judge.unsupported
            ):
                first = "supported"
            # "confirm" repeats the batch verdict; "dispute" gives the other one.
            other = "supported" if first == "unsupported" else "unsupported"
            verdicts.append(
                {"id": item["id"], "verdict": first if decision == "confirm" else other}
            )
        return self._json({"verdicts": verdicts})

    def _guard(self, scenario: Scenario, request: ChatRequest) -> ChatResponse:
        failed = self._fail(scenario.guard.fail)
        if failed is not None:
            return failed
        return self._json(
            {
                "block": scenario.guard.block,
                "category": "scripted" if scenario.guard.block else None,
            }
        )

    def _ask(self, scenario: Scenario, request: ChatRequest) -> ChatResponse:
        script = scenario.ask
        if script.fail == "timeout":
            raise ModelTimeout("scripted timeout")
        if script.fail == "http_500":
            raise ModelUnavailable("scripted server error")
        if script.fail == "http_400":
            raise ModelRejected("scripted client error")
        if script.fail == "invalid":
            return ChatResponse(content="")
        continuing = any("answer_so_far" in item for item in request.items or [])
        sources = [s for item in request.items or [] for s in item.get("sources", [])]
        if not continuing:
            return ChatResponse(
                content=_cite_by_kind(script.answer, sources),
                finish_reason="length" if script.truncate else "stop",
            )
        if script.continuation is None:
            return ChatResponse(content="", finish_reason="length")
        return ChatResponse(
            content=_cite_by_kind(script.continuation, sources),
            finish_reason="length" if script.continuation_truncated else "stop",
        )

    def _xc_judge(self, scenario: Scenario, request: ChatRequest) -> ChatResponse:
        script = scenario.xc_judge
        failed = self._fail(script.fail)
        if failed is not None:
            return failed
        item = (request.items or [{}])[0]
        a, b = item.get("a", {}), item.get("b", {})
        statements = (str(a.get("statement", "")), str(b.get("statement", "")))

        def named(substrings: list[str]) -> bool:
            return any(s in statement for s in substrings for statement in statements)

        verdict = script.default
        for candidate in ("contradiction", "support", "none"):
            if named(getattr(script, candidate)):
                verdict = candidate
                break
        other = b.get("id")
        if named(script.unknown_ids):
            other = f"{other}-unknown"
        explanation = script.explanation.format(verdict=verdict, lang=item.get("lang"))
        return self._json(
            {"verdict": verdict, "explanation": explanation, "a": a.get("id"), "b": other}
        )

    def _extract_claims(self, scenario: Scenario, request: ChatRequest) -> ChatResponse:
        script = scenario.extract_claims
        failed = self._fail(script.fail)
        if failed is not None:
            return failed
        passages = [(str(i["key"]), " ".join(str(i["text"]).split())) for i in request.items or []]
        claims = []
        for claim in script.claims:
            quote = " ".join(claim.quote.split())
            key = next((k for k, text in passages if quote and quote in text), None)
            if key is None and any(k == "K0" for k, _ in passages):
                key = "K0"  # nowhere: proposed once, where the quote check will drop it
            if key is not None:
                statement = claim.statement or claim.quote
                claims.append({"passage": key, "statement": statement, "quote": claim.quote})
        return self._json({"claims": claims})
