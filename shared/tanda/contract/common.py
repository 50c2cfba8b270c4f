"""Enumerations and small shapes shared by the request, response and stream models."""

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_ANNOTATE_V2: Literal["annotate-v2"] = "annotate-v2"
SchemaName = Literal["annotate-v2"]


class WireModel(BaseModel):
    """Base of every wire shape: unknown fields are an error, not silently dropped."""

    # Validators are built on first use, not at import: a Lambda function pays only for the
    # shapes it touches (bench/coldstart.py).
    model_config = ConfigDict(extra="forbid", defer_build=True)


def _is_none(value: object) -> bool:
    return value is None


def omitted_when_none(description: str) -> Any:
    """An optional field left out of the JSON when unset.

    Used for opt-ins (``grounding``, ``used_docs``…) and ``checked``: their absence means
    "not asked" / "checked normally", which a ``null`` would blur.
    """
    return Field(default=None, description=description, exclude_if=_is_none)


class SegmentKind(StrEnum):
    fact = "fact"
    framing = "framing"


class Layout(StrEnum):
    """Where a segment sits in the composed Markdown answer (V2-03)."""

    paragraph = "paragraph"
    heading = "heading"
    list_item = "list_item"
    continue_ = "continue"
    table_header = "table_header"
    table_row = "table_row"


class Verdict(StrEnum):
    """V2-10. Only ``supported`` may ever be shown as verified (CC-2)."""

    supported = "supported"
    unsupported = "unsupported"
    unverified = "unverified"
    uncited = "uncited"
    invalid_citation = "invalid_citation"
    from_conversation = "from_conversation"


class UnverifiedReason(StrEnum):
    """V2-10. Set only when the verdict is ``unverified``."""

    deadline = "deadline"
    budget = "budget"
    judge_unavailable = "judge_unavailable"
    unparseable = "unparseable"
    disputed = "disputed"


class Verification(StrEnum):
    """V2-16: the answer-level banner state."""

    full = "full"
    partial = "partial"
    none = "none"


class StageStatus(StrEnum):
    """V2-16: ``judge_status`` and ``framing_check``."""

    complete = "complete"
    unavailable = "unavailable"
    skipped = "skipped"


class FallbackReason(StrEnum):
    """V2-17: why the API published a refusal instead of an answer."""

    policy_blocked = "policy_blocked"
    query_budget_exhausted = "query_budget_exhausted"
    model_timeout = "model_timeout"
    context_budget_exhausted = "context_budget_exhausted"
    agent_output_limit = "agent_output_limit"
    mcp_source_unavailable = "mcp_source_unavailable"
    source_out_of_scope = "source_out_of_scope"
    source_scope_unavailable = "source_scope_unavailable"
    unparseable_completion = "unparseable_completion"
    source_scope_empty = "source_scope_empty"


class Offsets(WireModel):
    """A span of the composed ``answer``; ``end`` exclusive.

    ``answer[start:end]`` (code points, Python indexing) and
    ``answer.slice(start_utf16, end_utf16)`` (UTF-16 code units, JavaScript indexing) are the
    same text (V2-04).
    """

    start: int = Field(ge=0, description="Start offset in Unicode code points.")
    end: int = Field(ge=0, description="End offset (exclusive) in Unicode code points.")
    start_utf16: int = Field(ge=0, description="Start offset in UTF-16 code units.")
    end_utf16: int = Field(ge=0, description="End offset (exclusive) in UTF-16 code units.")


class Citation(WireModel):
    """A passage that was shown to the agent, as the reader can open it. Unknown parts are
    left out rather than sent as ``null``."""

    citation_key: str | None = omitted_when_none(
        "Key under which the passage was shown (`P1`, `C1`, …)."
    )
    chunk_id: str | None = omitted_when_none("The chunk the passage came from.")
    document_id: str | None = omitted_when_none("The document the chunk belongs to.")
    document_title: str | None = omitted_when_none("Title of the document.")
    page_no: int | None = omitted_when_none("Page of the passage, where the document has pages.")
    section: str | None = omitted_when_none("Section or heading path of the passage.")
    legal_reference: str | None = omitted_when_none(
        "Legal reference of the document (e.g. `UU 27/2022`)."
    )
    source: str | None = omitted_when_none(
        "For portal/MCP results: the source or dataset that produced it."
    )
