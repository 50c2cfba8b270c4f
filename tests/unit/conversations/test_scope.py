"""A conversation's scope binds its turns; a turn may narrow it, never leave it (CV-1)."""

from __future__ import annotations

from typing import Any

import pytest

from tanda.contract.common import FallbackReason
from tanda.conversations.scope import Scope, TurnScope, bind_scope
from tanda.records.conversations import Conversation


def conversation(**scope: Any) -> Conversation:
    return Conversation(
        conversation_id="c1",
        tenant_id="acme",
        issuer="https://idp.partner.example",
        subject="alice",
        created_at=0.0,
        **scope,
    )


OUT = TurnScope(refusal=FallbackReason.source_out_of_scope)


@pytest.mark.parametrize(
    ("bound", "turn", "expected"),
    [
        # unbound conversation (or none): the turn's own scope
        ({}, {}, TurnScope()),
        ({}, {"document_ids": ["a"], "selection": "s"}, TurnScope(["a"], "s")),
        # bound documents: inherited; a turn narrows within them, never outside
        ({"document_ids": ("a", "b")}, {}, TurnScope(["a", "b"])),
        ({"document_ids": ("a", "b")}, {"document_ids": ["b"]}, TurnScope(["b"])),
        ({"document_ids": ("a", "b")}, {"document_ids": ["b", "a"]}, TurnScope(["b", "a"])),
        ({"document_ids": ("a", "b")}, {"document_ids": ["b", "c"]}, OUT),
        ({"document_ids": ("a",)}, {"selection": "s"}, TurnScope(["a"], "s")),
        # bound selection: inherited; the same selection again is fine, another is refused
        ({"selection": "s"}, {}, TurnScope(None, "s")),
        ({"selection": "s"}, {"selection": "s"}, TurnScope(None, "s")),
        ({"selection": "s"}, {"selection": "t"}, OUT),
        ({"selection": "s"}, {"document_ids": ["a"]}, TurnScope(["a"], "s")),
        # both bound
        ({"document_ids": ("a",), "selection": "s"}, {}, TurnScope(["a"], "s")),
        ({"document_ids": ("a",), "selection": "s"}, {"document_ids": ["z"]}, OUT),
        # an empty list names nothing, as in a request body
        ({"document_ids": ("a",)}, {"document_ids": []}, TurnScope(["a"])),
    ],
)
def test_a_turn_answers_within_its_conversations_scope(
    bound: dict[str, Any], turn: dict[str, Any], expected: TurnScope
) -> None:
    found = bind_scope(conversation(**bound), turn.get("document_ids"), turn.get("selection"))
    assert found == expected


def test_without_a_conversation_the_turn_keeps_its_own_scope() -> None:
    assert bind_scope(None, ["a"], "s") == TurnScope(["a"], "s")


def test_the_bound_scope_replaces_the_asked_documents_and_keeps_everything_else() -> None:
    asked = Scope(document_ids=["x"], sources=["documents"], mcp_servers=["m"])
    applied = TurnScope(["a"], "s").apply(asked)
    assert (applied.document_ids, applied.selection) == (["a"], "s")
    assert (applied.sources, applied.mcp_servers) == (["documents"], ["m"])


def test_a_turn_naming_no_sources_answers_with_its_conversations_kept_ones() -> None:
    # Issue 25: the sources kept from the conversation's latest turn replace the asked (none).
    kept = TurnScope(["a"], kept_sources=(["documents", "portal"], ["partner"]))
    applied = kept.apply(Scope())
    assert (applied.document_ids, applied.sources, applied.mcp_servers) == (
        ["a"],
        ["documents", "portal"],
        ["partner"],
    )
