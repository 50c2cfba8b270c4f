"""Opening, storing and abandoning a turn over a real SQLite Store (V2-19, V2-22, issue 11)."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.sqlite_store import SqliteStore
from tanda.annotate.aggregate import refusal_annotation
from tanda.conversations.service import (
    ConversationOwnedByOtherRoute,
    PreparedTurn,
    abandoned_on_failure,
    create_conversation,
    prepare_turn,
    store_turn,
)
from tanda.records.conversations import ConversationOwner, Route, StoredMessage

ALICE = ConversationOwner(issuer="https://idp.partner.example", tenant_id="acme", subject="alice")


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    return SqliteStore(tmp_path / "store.sqlite")


def answered(store: SqliteStore, prepared: PreparedTurn) -> None:
    message = StoredMessage(
        message_id=prepared.message_id,
        conversation_id=prepared.conversation.conversation_id,
        tenant_id=ALICE.tenant_id,
        route=prepared.route,
        question="Berapa?",
        answer="Jawaban.",
        trace_id=prepared.trace_id,
        created_at=time.time(),
    )
    store_turn(store, prepared, message, refusal_annotation("Jawaban."))


def test_a_turn_whose_claim_was_given_back_and_taken_by_the_other_route_is_409(
    store: SqliteStore,
) -> None:
    # Given an empty conversation claimed by a /query/v2 turn, whose claim a failed turn of the
    # same route gave back, and a /query turn that then answered first,
    conversation_id = create_conversation(store, ALICE).conversation_id
    slow = prepare_turn(store, ALICE, conversation_id, "query_v2")
    assert store.release(ALICE, conversation_id, "query_v2")
    answered(store, prepare_turn(store, ALICE, conversation_id, "query"))

    # when the /query/v2 turn stores its answer, then it is the route conflict (V2-19: the
    # route that answered first owns it), and nothing of it is stored.
    with pytest.raises(ConversationOwnedByOtherRoute):
        answered(store, slow)
    assert [m.route for m in store.messages(ALICE, conversation_id)] == ["query"]


class FailingGiveBack(SqliteStore):
    def discard(self, owner: ConversationOwner, conversation_id: str) -> bool:
        raise OSError("disk gone")

    def release(self, owner: ConversationOwner, conversation_id: str, route: Route) -> bool:
        raise OSError("disk gone")


@pytest.mark.parametrize("named", [False, True])
def test_a_give_back_that_fails_is_logged_and_the_turns_own_error_propagates(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, named: bool
) -> None:
    store = FailingGiveBack(tmp_path / "store.sqlite")
    conversation_id = create_conversation(store, ALICE).conversation_id if named else None
    prepared = prepare_turn(store, ALICE, conversation_id, "query_v2")

    def turn() -> Any:
        with abandoned_on_failure(store, prepared):
            raise TimeoutError("the model did not answer")

    with caplog.at_level(logging.WARNING), pytest.raises(TimeoutError):
        turn()
    assert "could not give back conversation" in caplog.text
