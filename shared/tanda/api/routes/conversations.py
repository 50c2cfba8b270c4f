"""``POST /conversations`` and ``GET /conversations/{id}`` (CV-1, CV-3, V2-19)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from tanda.api.security import (
    AUTH_RESPONSES,
    PARTNER_SECURITY,
    current_runtime,
    partner_principal,
)
from tanda.auth import Principal
from tanda.contract import ErrorResponse
from tanda.contract.conversations import (
    ConversationInfo,
    ConversationView,
    CreateConversationRequest,
    MessageView,
)
from tanda.conversations.service import ConversationNotFound, create_conversation

router = APIRouter(tags=["conversations"])


@router.post(
    "/conversations",
    response_model=ConversationInfo,
    status_code=201,
    responses=AUTH_RESPONSES,
    openapi_extra=PARTNER_SECURITY,
    summary="Create an empty conversation; the route that answers first owns it",
)
def post_conversation(
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    body: CreateConversationRequest | None = None,
) -> ConversationInfo:
    body = body or CreateConversationRequest()
    conversation = create_conversation(
        current_runtime(request).store,
        principal.tenant_id,
        principal.subject,
        document_ids=body.document_ids,
        selection=body.selection,
    )
    return ConversationInfo(
        conversation_id=conversation.conversation_id,
        route=None,
        created_at=conversation.created_at,
        document_ids=body.document_ids,
        selection=body.selection,
    )


@router.get(
    "/conversations/{conversation_id}",
    response_model=ConversationView,
    responses={
        **AUTH_RESPONSES,
        404: {"model": ErrorResponse, "description": "No such conversation for this caller."},
    },
    openapi_extra=PARTNER_SECURITY,
    summary="A conversation as the reader sees it: every stored answer, whole, with its marks",
)
def get_conversation(
    conversation_id: str,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
) -> ConversationView:
    store = current_runtime(request).store
    conversation = store.conversation(principal.tenant_id, conversation_id)
    if conversation is None:
        raise ConversationNotFound()  # another tenant's id is "not found", never "forbidden"
    messages = store.messages(principal.tenant_id, conversation_id)
    return ConversationView(
        conversation_id=conversation.conversation_id,
        route=conversation.route,
        created_at=conversation.created_at,
        document_ids=list(conversation.document_ids) if conversation.document_ids else None,
        selection=conversation.selection,
        messages=[
            MessageView.model_validate(
                m.model_dump(exclude={"conversation_id", "tenant_id", "cited_documents"})
            )
            for m in messages
        ],
    )
