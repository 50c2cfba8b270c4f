"""The scope of a turn, decided in this one room (DESIGN §3 step 2; CV-1, V2-20, issue 24).

What a turn may read is settled in two moves, both here:

1. :func:`bind_scope` — when the turn's conversation is claimed (the service, before the turn
   runs). ``POST /conversations`` may name ``document_ids`` and/or a ``selection``; every turn in
   that conversation answers within them. A turn may name its own scope only to narrow it: its
   ``document_ids`` must all lie in the conversation's, and its ``selection``, if the conversation
   has one, must be that selection. A turn that reaches outside is the ``source_out_of_scope``
   refusal, before any tool or model call — the same refusal as naming a document outside the
   caller's tenant. A conversation created by a first turn (no ``conversation_id``) is unbound:
   each of its turns names its own scope, as before. A conversation keeps its sources across
   turns (:func:`keep_sources`, issue 25): a turn naming none uses its latest turn's.
2. :func:`resolve_scope` — the scope step itself, the first thing the agent step does (it runs
   where the search index is): the bound :class:`Scope` resolved into the caller's tenant, or the
   fixed refusal that ends the request before any tool or model call (an empty named selection
   is ``source_scope_empty``; a portal or MCP server the tenant has not configured is refused,
   issue 25).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from tanda.contract.common import FallbackReason
from tanda.records.documents import SearchScope

if TYPE_CHECKING:
    from tanda.ports import SearchIndex
    from tanda.records.conversations import Conversation, StoredMessage
    from tanda.sources import SourceConnector

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
    kept_sources: tuple[list[str] | None, list[str] | None] | None = None
    """Issue 25: the conversation's sources and MCP servers, for a turn that names none."""

    def apply(self, scope: Scope) -> Scope:
        """``scope`` with these documents and this selection in place of its own — and, for a
        turn that named no sources, its conversation's (issue 25)."""
        update: dict[str, object] = {"document_ids": self.document_ids, "selection": self.selection}
        if self.kept_sources is not None:
            update["sources"], update["mcp_servers"] = self.kept_sources
        return scope.model_copy(update=update)


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


def resolve_scope(
    index: SearchIndex,
    tenant_id: str,
    scope: Scope,
    sources: SourceConnector | None = None,
) -> SearchScope | FallbackReason:
    """The scope step (V2-20): ``scope`` in the caller's tenant, or the refusal that ends the
    request before any tool or model call. Issue 25: a portal or MCP server only as the tenant
    has configured it (``sources``: the tenants' portals and MCP servers; ``None``: none)."""
    wants_portal = bool(scope.sources and "portal" in scope.sources)
    if wants_portal and (sources is None or sources.portal(tenant_id) is None):
        return FallbackReason.source_scope_unavailable  # the tenant has no portal
    if scope.mcp_servers:
        known = set(sources.mcp_names(tenant_id)) if sources is not None else set()
        if not set(scope.mcp_servers) <= known:
            return FallbackReason.mcp_source_unavailable  # not one of the tenant's servers
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
