"""``POST /conversations`` and ``GET /conversations/{id}`` (CV-1, CV-3, V2-19): protocol glue
over :mod:`tanda.service.conversations`."""

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
)
from tanda.service.conversations import conversation_view, start_conversation

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
    return start_conversation(
        current_runtime(request), principal, body or CreateConversationRequest()
    )


@router.get(
    "/conversations/{conversation_id}",
    response_model=ConversationView,
    responses={
        **AUTH_RESPONSES,
        404: {
            "model": ErrorResponse,
            "description": "No such conversation of this caller (another user's is the same 404).",
        },
    },
    openapi_extra=PARTNER_SECURITY,
    summary="A conversation as the reader sees it: every stored answer, whole, with its marks",
)
def get_conversation(
    conversation_id: str,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
) -> ConversationView:
    return conversation_view(current_runtime(request), principal, conversation_id)
