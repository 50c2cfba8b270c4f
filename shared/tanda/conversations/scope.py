"""The scope of a turn, decided in this one room (DESIGN §3 step 2; CV-1, V2-20, issue 24).

What a turn may read is settled in two moves, both here:

1. :func:`bind_scope` — when the turn's conversation is claimed (the service, before the turn
   runs). ``POST /conversations`` may name ``document_ids`` and/or a ``selection``; every turn in
   that conversation answers within them. A turn may name its own scope only to narrow it: its
   ``document_ids`` must all lie in the conversation's, and its ``selection``, if the conversation
   has one, must be that selection. A turn that reaches outside is the ``source_out_of_scope``
   refusal, before any tool or model call — the same refusal as naming a document outside the
   caller's tenant. A conversation created by a first turn (no ``conversation_id``) is unbound:
   each of its turns names its own scope, as before.
2. :func:`resolve_scope` — the scope step itself, the first thing the agent step does (it runs
   where the search index is): the bound :class:`Scope` resolved into the caller's tenant, or the
   fixed refusal that ends the request before any tool or model call (an empty named selection
   is ``source_scope_empty``; a source kind or MCP server not configured here is refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from tanda.contract.common import FallbackReason
from tanda.records.documents import SearchScope

if TYPE_CHECKING:
    from tanda.ports import SearchIndex
    from tanda.records.conversations import Conversation

SourceKind = Literal["documents", "portal"]


class Scope(BaseModel):
    """What a turn asks to read, in the pipeline's words (part of its ``AnswerRequest``, so it
    crosses the state machine as JSON): documents, a named selection, source kinds, MCP servers.
    ``None`` everywhere: the caller's whole tenant, documents only."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    document_ids: list[str] | None = None
    selection: str | None = None
    sources: list[SourceKind] | None = None
    mcp_servers: list[str] | None = None


@dataclass(frozen=True)
class TurnScope:
    """The documents and selection one turn answers in inside its conversation, or the refusal
    when it asked for more than its conversation allows."""

    document_ids: list[str] | None = None
    selection: str | None = None
    refusal: FallbackReason | None = None

    def apply(self, scope: Scope) -> Scope:
        """``scope`` with these documents and this selection in place of its own."""
        return scope.model_copy(
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


def resolve_scope(index: SearchIndex, tenant_id: str, scope: Scope) -> SearchScope | FallbackReason:
    """The scope step (V2-20): ``scope`` in the caller's tenant, or the refusal that ends the
    request before any tool or model call."""
    if scope.sources and "portal" in scope.sources:
        return FallbackReason.source_scope_unavailable  # no portal source is configured here
    if scope.mcp_servers:
        return FallbackReason.mcp_source_unavailable  # no MCP server is configured here
    resolved = SearchScope(
        tenant_id=tenant_id,
        document_ids=tuple(scope.document_ids) if scope.document_ids else None,
        selection=scope.selection,
    )
    if scope.selection is not None or scope.document_ids:
        found = {d.document_id for d in index.documents(resolved)}
        if scope.selection is not None and not found:
            return FallbackReason.source_scope_empty
        if scope.document_ids and not set(scope.document_ids) <= found:
            return FallbackReason.source_out_of_scope
    return resolved
