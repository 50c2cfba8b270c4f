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
from dataclasses import dataclass, replace
from typing import TypeVar

from tanda.contract.common import FallbackReason
from tanda.contract.query import QueryV2Request
from tanda.records.conversations import Conversation, StoredMessage

Body = TypeVar("Body", bound=QueryV2Request)


@dataclass(frozen=True)
class TurnScope:
    """The scope one turn answers in, or the refusal when it asked for more than its
    conversation allows."""

    document_ids: list[str] | None = None
    selection: str | None = None
    refusal: FallbackReason | None = None
    kept_sources: tuple[list[str] | None, list[str] | None] | None = None
    """Issue 25: the conversation's sources and MCP servers, for a turn that names none."""

    def apply(self, body: Body) -> Body:
        """``body`` with this scope in place of its own (what the pipeline's scope step reads)."""
        update: dict[str, object] = {"document_ids": self.document_ids, "selection": self.selection}
        if self.kept_sources is not None:
            update["sources"], update["mcp_servers"] = self.kept_sources
        return body.model_copy(update=update)


def keep_sources(
    scope: TurnScope,
    earlier: Sequence[StoredMessage],
    sources: Sequence[str] | None,
    mcp_servers: Sequence[str] | None,
) -> TurnScope:
    """Issue 25: a conversation keeps its sources across turns — a turn that names neither
    ``sources`` nor ``mcp_servers`` uses those of the conversation's latest turn; one that names
    them changes them for the turns after it (its route stays the conversation's, V2-19)."""
    if sources is not None or mcp_servers is not None or not earlier:
        return scope
    latest = earlier[-1]
    if latest.sources is None and latest.mcp_servers is None:
        return scope
    return replace(scope, kept_sources=(latest.sources, latest.mcp_servers))


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
