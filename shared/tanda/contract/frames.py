"""Every frame of ``POST /query/v2/stream`` (V2-21), one model each.

Order on the wire: ``tool.started``/``tool.finished`` while the agent works, then ``message.start``,
``trace``, ``citation``…, then ``guard.blocked`` or ``passage``…, ``annotations``,
``answer.delta``…, ``done``. An error after ``annotations`` ends the stream with ``error``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from tanda.contract.common import (
    Citation,
    FallbackReason,
    Layout,
    SchemaName,
    SegmentKind,
    UnverifiedReason,
    Verdict,
    WireModel,
    omitted_when_none,
)
from tanda.contract.response import FaithfulnessCounts


class ToolStartedFrame(WireModel):
    call_id: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolFinishedFrame(WireModel):
    call_id: str
    tool: str
    status: Literal["ok", "empty", "error", "timeout"]
    result_count: int = Field(ge=0)


class MessageStartFrame(WireModel):
    conversation_id: str
    message_id: str
    schema_: SchemaName = Field(default="annotate-v2", alias="schema")

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)


class TraceFrame(WireModel):
    trace_id: str


class CitationFrame(Citation):
    """A citation with the key under which its passage was shown (always present here)."""

    citation_key: str


class GuardBlockedFrame(WireModel):
    fallback_reason: Literal[FallbackReason.policy_blocked] = FallbackReason.policy_blocked


class PassageFrame(WireModel):
    kind: Literal["chunk", "tool"]
    citation_key: str
    text: str
    chunk_id: str | None = None
    document_id: str | None = None
    document_title: str | None = None
    page_no: int | None = None
    section: str | None = None
    legal_reference: str | None = None
    tool: str | None = Field(default=None, description="For `kind: tool`: the producing call.")


class ClaimAnnotation(WireModel):
    """A claim's offsets and verdict, without its text (the text arrives in ``answer.delta``)."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    start_utf16: int = Field(ge=0)
    end_utf16: int = Field(ge=0)
    kind: SegmentKind
    layout: Layout
    citation_keys: list[str]
    verdict: Verdict
    unverified_reason: UnverifiedReason | None
    invalid_citation_keys: list[str]


class FramingAnnotation(WireModel):
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    start_utf16: int = Field(ge=0)
    end_utf16: int = Field(ge=0)
    layout: Layout


class AnnotationsFrame(FaithfulnessCounts):
    """The faithfulness counts at top level, the fallback, and offsets for every span (no text)."""

    fallback_used: bool
    fallback_reason: FallbackReason | None
    claims: list[ClaimAnnotation]
    framing: list[FramingAnnotation]


class AnswerDeltaFrame(WireModel):
    text: str


class DoneFrame(WireModel):
    finish_reason: Literal["stop", "fallback", "error"]
    history_truncated: bool


class ErrorFrame(WireModel):
    """The stream's end after a failure (V2-21): the JSON route's error code and message, and
    for `no_readable_result` the same `tool` / `tool_status` as its 404 body (V2-19)."""

    code: str
    message: str
    tool: str | None = omitted_when_none("For `no_readable_result`: the last tool that ran.")
    tool_status: str | None = omitted_when_none(
        "For `no_readable_result`: that tool's status — `empty`, `error` or `timeout`."
    )


STREAM_FRAMES: dict[str, type[WireModel]] = {
    "tool.started": ToolStartedFrame,
    "tool.finished": ToolFinishedFrame,
    "message.start": MessageStartFrame,
    "trace": TraceFrame,
    "citation": CitationFrame,
    "guard.blocked": GuardBlockedFrame,
    "passage": PassageFrame,
    "annotations": AnnotationsFrame,
    "answer.delta": AnswerDeltaFrame,
    "done": DoneFrame,
    "error": ErrorFrame,
}
"""SSE event name → the model of its ``data`` JSON."""
