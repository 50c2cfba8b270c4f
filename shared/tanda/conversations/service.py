"""Opening a conversation for an answer (ownership, V2-19) and storing the answered turn (CV-3)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from tanda.annotate.aggregate import Annotation
from tanda.contract.common import Verdict
from tanda.conversations.history import History, build_history
from tanda.conversations.model import Conversation, MemoryItem, Route, StoredMessage
from tanda.errors import Conflict, NotFound
from tanda.ports import ConversationConflict, Store


class ConversationNotFound(NotFound):
    code = "conversation_not_found"
    message = "No such conversation."


class ConversationOwnedByOtherRoute(Conflict):
    code = "conversation_route_conflict"
    message = "This conversation belongs to another route."


def new_id() -> str:
    return uuid.uuid4().hex


def create_conversation(
    store: Store,
    tenant_id: str,
    subject: str,
    *,
    document_ids: list[str] | None = None,
    selection: str | None = None,
) -> Conversation:
    conversation = Conversation(
        conversation_id=new_id(),
        tenant_id=tenant_id,
        subject=subject,
        document_ids=tuple(document_ids) if document_ids else None,
        selection=selection,
        created_at=time.time(),
    )
    store.create_conversation(conversation)
    return conversation


def open_conversation(
    store: Store,
    tenant_id: str,
    subject: str,
    conversation_id: str | None,
    route: Route,
) -> Conversation:
    """The conversation this answer belongs to, claimed for ``route``: a new one when no id is
    given; 404 for an id unknown in this tenant (never 403: its existence is not confirmed);
    409 when the other route answered in it first."""
    if conversation_id is None:
        conversation = create_conversation(store, tenant_id, subject)
        conversation_id = conversation.conversation_id
    try:
        return store.claim(tenant_id, conversation_id, route)
    except LookupError:
        raise ConversationNotFound() from None
    except ConversationConflict:
        raise ConversationOwnedByOtherRoute() from None


def stored_segments(annotation: Annotation) -> list[dict[str, object]]:
    located: list[dict[str, object]] = [
        {
            "text": c.text,
            "kind": c.kind.value,
            "layout": c.layout.value,
            "cites": list(c.citation_keys),
            "verdict": c.verdict.value,
            "unverified_reason": c.unverified_reason.value if c.unverified_reason else None,
            "start": c.start,
            "end": c.end,
            "start_utf16": c.start_utf16,
            "end_utf16": c.end_utf16,
        }
        for c in annotation.claims
    ]
    located += [
        {
            "text": f.text,
            "kind": "framing",
            "layout": f.layout.value,
            "cites": [],
            "verdict": None,
            "unverified_reason": None,
            "start": f.start,
            "end": f.end,
            "start_utf16": f.start_utf16,
            "end_utf16": f.end_utf16,
        }
        for f in annotation.framing
    ]
    located.sort(key=lambda s: int(str(s["start"])))
    return located


def supported_documents(annotation: Annotation) -> list[str]:
    """Documents cited by supported claims, in order of first citation (V2-22)."""
    documents: list[str] = []
    for claim in annotation.claims:
        if claim.verdict is not Verdict.supported:
            continue
        for citation in claim.citations:
            document_id = citation.citation.document_id
            if document_id and document_id not in documents:
                documents.append(document_id)
    return documents


def build_message(
    *,
    conversation: Conversation,
    route: Route,
    question: str,
    answer: str,
    annotation: Annotation,
    fallback_reason: str | None,
    citations: list[dict[str, object]],
    message_id: str,
    trace_id: str,
) -> StoredMessage:
    return StoredMessage(
        message_id=message_id,
        conversation_id=conversation.conversation_id,
        tenant_id=conversation.tenant_id,
        route=route,
        question=question,
        answer=answer,
        trace_id=trace_id,
        created_at=time.time(),
        fallback_reason=fallback_reason,
        segments=stored_segments(annotation),
        citations=citations,
        v2_faithfulness=annotation.faithfulness.model_dump(mode="json"),
        cited_documents=supported_documents(annotation),
    )


def memory_items(
    conversation: Conversation, message_id: str, annotation: Annotation
) -> list[MemoryItem]:
    """V2-22: long-term memory is extracted only from verified content — supported claims."""
    now = time.time()
    return [
        MemoryItem(
            memory_id=new_id(),
            tenant_id=conversation.tenant_id,
            subject=conversation.subject,
            text=claim.text,
            conversation_id=conversation.conversation_id,
            message_id=message_id,
            created_at=now,
        )
        for claim in annotation.claims
        if claim.verdict is Verdict.supported
    ]


@dataclass(frozen=True)
class PreparedTurn:
    """A claimed conversation and its verified-only history, before any model call."""

    conversation: Conversation
    history: History
    message_id: str
    trace_id: str


def prepare_turn(
    store: Store,
    tenant_id: str,
    subject: str,
    conversation_id: str | None,
    route: Route,
    *,
    selected_documents: list[str] | None = None,
) -> PreparedTurn:
    """Claim (or create) the conversation for ``route`` — 404/409 happen here (V2-19) — and
    build what the turn may see of it and of the user's memory (V2-22)."""
    conversation = open_conversation(store, tenant_id, subject, conversation_id, route)
    earlier = store.messages(tenant_id, conversation.conversation_id)
    memories = [
        m
        for m in store.memories(tenant_id, subject, limit=20)
        if m.conversation_id != conversation.conversation_id
    ]
    history = build_history(earlier, selected_documents=selected_documents, memories=memories)
    return PreparedTurn(conversation, history, new_id(), new_id())
