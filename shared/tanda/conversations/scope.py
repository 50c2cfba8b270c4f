"""A conversation's scope binds its turns (CV-1, issue 11).

``POST /conversations`` may name ``document_ids`` and/or a ``selection``; every turn in that
conversation answers within them. A turn may name its own scope only to narrow it: its
``document_ids`` must all lie in the conversation's, and its ``selection``, if the conversation has
one, must be that selection. A turn that reaches outside is the ``source_out_of_scope`` refusal,
before any tool or model call — the same refusal as naming a document outside the caller's tenant.
The bound scope then goes through the ordinary scope step (V2-20): an empty named selection is
``source_scope_empty``. A conversation created by a first turn (no ``conversation_id``) is
unbound: each of its turns names its own scope, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from tanda.contract.common import FallbackReason
from tanda.contract.query import QueryV2Request
from tanda.records.conversations import Conversation

Body = TypeVar("Body", bound=QueryV2Request)


@dataclass(frozen=True)
class TurnScope:
    """The scope one turn answers in, or the refusal when it asked for more than its
    conversation allows."""

    document_ids: list[str] | None = None
    selection: str | None = None
    refusal: FallbackReason | None = None

    def apply(self, body: Body) -> Body:
        """``body`` with this scope in place of its own (what the pipeline's scope step reads)."""
        return body.model_copy(
            update={"document_ids": self.document_ids, "selection": self.selection}
        )


OUT_OF_SCOPE = TurnScope(refusal=FallbackReason.source_out_of_scope)


def bind_scope(
    conversation: Conversation | None,
    document_ids: Sequence[str] | None,
    selection: str | None,
) -> TurnScope:
    """The turn's scope inside ``conversation``'s (none: the turn's own)."""
    turn_documents = list(document_ids) if document_ids else None
    bound_documents = (
        list(conversation.document_ids) if conversation and conversation.document_ids else None
    )
    bound_selection = conversation.selection if conversation else None
    if bound_documents and turn_documents and not set(turn_documents) <= set(bound_documents):
        return OUT_OF_SCOPE
    if bound_selection is not None and selection not in (None, bound_selection):
        return OUT_OF_SCOPE
    return TurnScope(
        document_ids=turn_documents or bound_documents,
        selection=bound_selection if bound_selection is not None else selection,
    )
