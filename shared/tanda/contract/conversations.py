"""``POST /conversations`` and ``GET /conversations/{id}`` (CV-1, CV-3, V2-19)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from tanda.contract.common import WireModel
from tanda.contract.request_body import DocumentIds, RequestBody


class CreateConversationRequest(RequestBody):
    document_ids: DocumentIds | None = None
    selection: str | None = Field(default=None, min_length=1, max_length=200)


class ConversationInfo(WireModel):
    conversation_id: str
    route: Literal["query", "query_v2"] | None = Field(
        description="The route that answered first and owns the conversation; null while empty."
    )
    created_at: float
    document_ids: list[str] | None = None
    selection: str | None = None


class StoredSegment(WireModel):
    text: str
    kind: str
    layout: str
    cites: list[str]
    verdict: str | None = Field(description="null for framing")
    unverified_reason: str | None = None
    start: int
    end: int
    start_utf16: int
    end_utf16: int


class MessageView(WireModel):
    """A stored turn as the reader sees it: the full answer with its annotations."""

    message_id: str
    route: Literal["query", "query_v2"]
    question: str
    answer: str
    trace_id: str
    created_at: float
    fallback_reason: str | None
    segments: list[StoredSegment]
    citations: list[dict[str, Any]]
    v2_faithfulness: dict[str, Any] | None


class ConversationView(ConversationInfo):
    messages: list[MessageView]
