"""What the Store keeps: conversations with their owner and owning route, messages with their
annotations, memory per user, playground receipts (never text), and rate-limit counters
(DESIGN §6)."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Route = Literal["query", "query_v2"]
"""The routes that answer in a conversation (V2-19); ``None`` until one answers."""


class _Model(BaseModel):
    # Validators are built on first use (cold start: a step handler imports these types).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ConversationOwner(_Model):
    """Who a conversation and its memory belong to (issue 11): the issuer that vouched for the
    user (JWT ``iss``; ``Principal.partner_id``), the tenant that issuer maps to, and the user
    (JWT ``sub``). The same ``sub`` under another issuer — an admin token included — is another
    owner, and sees none of this one's conversations or memory."""

    issuer: str
    tenant_id: str
    subject: str


class Conversation(_Model):
    conversation_id: str
    tenant_id: str
    issuer: str = Field(description="The issuer that vouched for its creator (JWT iss).")
    subject: str = Field(description="Who created it (JWT sub).")
    route: Route | None = Field(default=None, description="The route that answered first.")
    document_ids: tuple[str, ...] | None = Field(
        default=None, description="CV-1: the documents every turn is bound to (None: unbound)."
    )
    selection: str | None = Field(
        default=None, description="CV-1: the named selection every turn is bound to."
    )
    created_at: float

    @property
    def owner(self) -> ConversationOwner:
        return ConversationOwner(issuer=self.issuer, tenant_id=self.tenant_id, subject=self.subject)


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
    sources: list[str] | None = Field(
        default=None, description="Issue 25: the source kinds the turn used (None: the default)."
    )
    mcp_servers: list[str] | None = Field(
        default=None, description="Issue 25: the MCP servers the turn used."
    )


ERASED_CITATION_KEYS = ("citation_key", "chunk_id", "document_id")
"""What a citation of an erased document keeps (issue 26), beside ``erased: true``."""


def erase_citations(message: StoredMessage, document_id: str) -> StoredMessage | None:
    """``message`` with each citation of ``document_id`` reduced to its keys and
    ``erased: true`` (its title, page and section go; the answer's text stays) — issue 26.
    ``None`` when it cites nothing of that document, or only erased citations."""
    citations: list[dict[str, Any]] = []
    changed = False
    for citation in message.citations:
        if citation.get("document_id") == document_id and not citation.get("erased"):
            citation = {k: citation[k] for k in ERASED_CITATION_KEYS if k in citation}
            citation["erased"] = True
            changed = True
        citations.append(citation)
    return message.model_copy(update={"citations": citations}) if changed else None


def cites(message: StoredMessage, document_id: str) -> bool:
    """Whether ``message``'s answer drew on ``document_id`` (a citation, erased or not, or a
    supported segment's document): its memory items are drawn from it too (issue 26)."""
    return document_id in message.cited_documents or any(
        c.get("document_id") == document_id for c in message.citations
    )


class MemoryItem(_Model):
    """Long-term memory (V2-22): a verified statement, kept per owner (issuer, tenant, user),
    shown to that owner's later conversations under a ``C`` key."""

    memory_id: str
    tenant_id: str
    issuer: str
    subject: str
    text: str
    conversation_id: str
    message_id: str
    created_at: float

    @property
    def owner(self) -> ConversationOwner:
        return ConversationOwner(issuer=self.issuer, tenant_id=self.tenant_id, subject=self.subject)


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
