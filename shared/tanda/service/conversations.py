"""The use cases behind ``POST /conversations`` and ``GET /conversations/{id}`` (CV-1, CV-3), and
who owns a conversation (issue 11)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tanda.contract.conversations import (
    ConversationInfo,
    ConversationView,
    CreateConversationRequest,
    MessageView,
)
from tanda.conversations.storage import create_conversation, read_conversation
from tanda.records.conversations import ConversationOwner

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.service.runtime import Runtime


STORED_ONLY = {"conversation_id", "tenant_id", "cited_documents", "sources", "mcp_servers"}
"""What a stored message keeps that its view does not show."""


def owner_of(principal: Principal) -> ConversationOwner:
    """The caller as a conversation owner: the issuer that vouched for them (``partner_id``), their
    tenant and their subject. An admin token carries the admin issuer, so an admin whose ``sub``
    equals a user's is still another owner (issue 11)."""
    return ConversationOwner(
        issuer=principal.partner_id, tenant_id=principal.tenant_id, subject=principal.subject
    )


def start_conversation(
    runtime: Runtime, principal: Principal, body: CreateConversationRequest
) -> ConversationInfo:
    """CV-1: an empty conversation of the caller, bound to the scope the body names."""
    conversation = create_conversation(
        runtime.store,
        owner_of(principal),
        document_ids=body.document_ids,
        selection=body.selection,
    )
    return ConversationInfo(
        conversation_id=conversation.conversation_id,
        route=None,
        created_at=conversation.created_at,
        document_ids=list(conversation.document_ids) if conversation.document_ids else None,
        selection=conversation.selection,
    )


def conversation_view(
    runtime: Runtime, principal: Principal, conversation_id: str
) -> ConversationView:
    """CV-3: the caller's conversation as the reader saw it; 404 for anyone else's."""
    conversation, messages = read_conversation(runtime.store, owner_of(principal), conversation_id)
    return ConversationView(
        conversation_id=conversation.conversation_id,
        route=conversation.route,
        created_at=conversation.created_at,
        document_ids=list(conversation.document_ids) if conversation.document_ids else None,
        selection=conversation.selection,
        messages=[MessageView.model_validate(m.model_dump(exclude=STORED_ONLY)) for m in messages],
    )
