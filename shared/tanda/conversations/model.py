"""What the Store keeps: conversations with their owning route, messages with their annotations,
playground receipts (never text), and rate-limit counters (DESIGN §6)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Route = Literal["query", "query_v2"]
"""The routes that answer in a conversation (V2-19); ``None`` until one answers."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Conversation(_Model):
    conversation_id: str
    tenant_id: str
    subject: str = Field(description="Who created it (JWT sub).")
    route: Route | None = Field(default=None, description="The route that answered first.")
    document_ids: tuple[str, ...] | None = None
    selection: str | None = None
    created_at: float


class StoredMessage(_Model):
    """One answered turn (CV-3): the full answer and its v2 faithfulness, as the reader saw it."""

    message_id: str
    conversation_id: str
    tenant_id: str
    route: Route
    question: str
    answer: str
    trace_id: str
    created_at: float
    fallback_reason: str | None = None
    segments: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Segments with verdicts and offsets: {text, kind, layout, cites, verdict, "
        "unverified_reason, start, end, start_utf16, end_utf16}.",
    )
    citations: list[dict[str, Any]] = Field(default_factory=list)
    v2_faithfulness: dict[str, Any] | None = None
    cited_documents: list[str] = Field(
        default_factory=list, description="Documents cited by supported segments, in order."
    )


class MemoryItem(_Model):
    """Long-term memory (V2-22): a verified statement, kept per tenant and user, shown to later
    conversations of that user under a ``C`` key."""

    memory_id: str
    tenant_id: str
    subject: str
    text: str
    conversation_id: str
    message_id: str
    created_at: float


class PlaygroundReceipt(_Model):
    """PG-5: identifiers, status, counts and times — never a prompt, question, answer or passage."""

    run_id: str
    tenant_id: str
    admin_id: str
    status: Literal["completed", "refused", "failed"]
    counts: dict[str, int] = Field(default_factory=dict)
    started_at: float
    finished_at: float
    expires_at: float


class RateDecision(_Model):
    allowed: bool
    retry_after_s: int = 0
