"""What a conversation keeps in the Store: opening it for an answer (owner and route, V2-19,
issue 11), storing the answered turn (CV-3), and leaving nothing claimed when a turn fails before
it is stored. (``conversations/service.py`` until issue 24: the use cases are
``tanda.service``'s.)"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from tanda.annotate.outcome import Annotation
from tanda.contract.common import Verdict
from tanda.conversations.history import History, build_history
from tanda.conversations.scope import TurnScope, bind_scope, keep_sources
from tanda.errors import Conflict, NotFound
from tanda.ports import ConversationConflict, ConversationMissing, Store
from tanda.records.conversations import (
    Conversation,
    ConversationOwner,
    MemoryItem,
    Route,
    StoredMessage,
)

log = logging.getLogger(__name__)


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
    owner: ConversationOwner,
    *,
    document_ids: list[str] | None = None,
    selection: str | None = None,
    route: Route | None = None,
) -> Conversation:
    conversation = Conversation(
        conversation_id=new_id(),
        tenant_id=owner.tenant_id,
        issuer=owner.issuer,
        subject=owner.subject,
        route=route,
        document_ids=tuple(document_ids) if document_ids else None,
        selection=selection,
        created_at=time.time(),
    )
    store.create_conversation(conversation)
    return conversation


def read_conversation(
    store: Store, owner: ConversationOwner, conversation_id: str
) -> tuple[Conversation, list[StoredMessage]]:
    """The owner's conversation and its messages; 404 for anyone else's, exactly as for an id
    that never existed (issue 11: its existence is not confirmed)."""
    conversation = store.conversation(owner, conversation_id)
    if conversation is None:
        raise ConversationNotFound()
    return conversation, store.messages(owner, conversation_id)


def open_conversation(
    store: Store,
    owner: ConversationOwner,
    conversation_id: str | None,
    route: Route,
) -> tuple[Conversation, bool]:
    """The conversation this answer belongs to, claimed for ``route``, and whether it was created
    for this answer: a new one when no id is given; 404 for an id this owner does not have
    (another user's, another tenant's, or unknown — never 403); 409 when the other route
    answered in it first."""
    if conversation_id is None:
        return create_conversation(store, owner, route=route), True  # created claimed
    with ownership_errors():
        return store.claim(owner, conversation_id, route), False


@contextmanager
def ownership_errors() -> Iterator[None]:
    """The Store's ownership outcomes as the API's 404 and 409 (V2-19, issue 11)."""
    try:
        yield
    except ConversationMissing:
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
    sources: list[str] | None = None,
    mcp_servers: list[str] | None = None,
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
        sources=sources,
        mcp_servers=mcp_servers,
    )


def memory_items(
    owner: ConversationOwner, conversation_id: str, message_id: str, annotation: Annotation
) -> list[MemoryItem]:
    """V2-22: long-term memory is extracted only from verified content — supported claims — and
    kept under the caller who asked (issue 11)."""
    now = time.time()
    return [
        MemoryItem(
            memory_id=new_id(),
            tenant_id=owner.tenant_id,
            issuer=owner.issuer,
            subject=owner.subject,
            text=claim.text,
            conversation_id=conversation_id,
            message_id=message_id,
            created_at=now,
        )
        for claim in annotation.claims
        if claim.verdict is Verdict.supported
    ]


@dataclass(frozen=True)
class PreparedTurn:
    """A claimed conversation, the scope and the verified-only history of one turn, before any
    model call."""

    owner: ConversationOwner
    """The caller: the conversation's owner, under whom the turn and its memory are stored."""
    conversation: Conversation
    route: Route
    created: bool
    """The conversation was created for this turn (no ``conversation_id`` in the request)."""
    scope: TurnScope
    history: History
    message_id: str
    trace_id: str


def prepare_turn(
    store: Store,
    owner: ConversationOwner,
    conversation_id: str | None,
    route: Route,
    *,
    document_ids: list[str] | None = None,
    selection: str | None = None,
    sources: Sequence[str] | None = None,
    mcp_servers: Sequence[str] | None = None,
) -> PreparedTurn:
    """Claim (or create) the conversation for ``route`` — 404/409 happen here (V2-19) — bind the
    turn's scope to the conversation's (CV-1), and build what the turn may see of it and of the
    owner's memory (V2-22)."""
    conversation, created = open_conversation(store, owner, conversation_id, route)
    try:
        scope = bind_scope(conversation, document_ids, selection)
        earlier = store.messages(owner, conversation.conversation_id)
        scope = keep_sources(scope, earlier, sources, mcp_servers)
        memories = [
            m
            for m in store.memories(owner, limit=20)
            if m.conversation_id != conversation.conversation_id
        ]
        history = build_history(earlier, selected_documents=scope.document_ids, memories=memories)
    except BaseException:
        _give_back(store, owner, conversation.conversation_id, route, created=created)
        raise
    return PreparedTurn(
        owner, conversation, route, created, scope, history, message_id=new_id(), trace_id=new_id()
    )


def store_turn(
    store: Store, prepared: PreparedTurn, message: StoredMessage, annotation: Annotation
) -> None:
    """CV-3: store the answered turn (claiming the conversation in the same write, V2-19), then
    the owner's memory of its supported claims (V2-22). A conversation another route answered in
    meanwhile (after this turn's claim was given back) is a 409."""
    with ownership_errors():
        store.add_message(prepared.owner, message)
    store.add_memories(
        memory_items(prepared.owner, message.conversation_id, message.message_id, annotation)
    )


def abandon(store: Store, prepared: PreparedTurn) -> None:
    """A turn that failed before its message was stored leaves nothing claimed (issue 11): a
    conversation created for it — whose id the client never learned — is deleted; one the client
    named gives back this route's claim (V2-19: a route owns an empty conversation by answering
    in it first, and this one did not answer). Both only while it has no message, so a
    conversation in which another turn answered meanwhile is kept as it is."""
    _give_back(
        store,
        prepared.owner,
        prepared.conversation.conversation_id,
        prepared.route,
        created=prepared.created,
    )


@contextmanager
def abandoned_on_failure(store: Store, prepared: PreparedTurn) -> Iterator[None]:
    """Wrap a turn up to its stored message: on any exception the turn is abandoned
    (:func:`abandon`) and the exception propagates — the client gets the turn's own error."""
    try:
        yield
    except BaseException:
        abandon(store, prepared)
        raise


def _give_back(
    store: Store, owner: ConversationOwner, conversation_id: str, route: Route, *, created: bool
) -> None:
    try:
        if created:
            store.discard(owner, conversation_id)
        else:
            store.release(owner, conversation_id, route)
    except Exception:
        # The client sees the turn's own error; a claim left behind is untidy, not unsafe.
        log.warning(
            "could not give back conversation %s after a failed turn",
            conversation_id,
            exc_info=True,
        )
