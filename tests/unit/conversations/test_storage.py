"""Opening, storing and abandoning a turn over a real SQLite Store (V2-19, V2-22, issue 11)."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.sqlite_store import SqliteStore
from tanda.annotate.aggregate import refusal_annotation
from tanda.contract.common import Citation, Layout, SegmentKind, Verdict
from tanda.contract.response import Claim, ClaimCitation
from tanda.conversations.storage import (
    ConversationOwnedByOtherRoute,
    PreparedTurn,
    abandoned_on_failure,
    create_conversation,
    prepare_turn,
    store_turn,
    supported_documents,
)
from tanda.records.conversations import ConversationOwner, Route, StoredMessage

ALICE = ConversationOwner(issuer="https://idp.partner.example", tenant_id="acme", subject="alice")


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    return SqliteStore(tmp_path / "store.sqlite")


def answered(store: SqliteStore, prepared: PreparedTurn, cited: tuple[str, ...] = ()) -> None:
    message = StoredMessage(
        message_id=prepared.message_id,
        conversation_id=prepared.conversation.conversation_id,
        tenant_id=ALICE.tenant_id,
        route=prepared.route,
        question="Berapa?",
        answer="Jawaban.",
        trace_id=prepared.trace_id,
        created_at=time.time(),
        cited_documents=list(cited),
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


def test_only_documents_cited_by_supported_segments_are_kept_for_the_next_turn() -> None:
    # Given an answer whose supported segment cites d-ok and whose unsupported one cites d-no
    def segment(verdict: Verdict, document_id: str) -> Claim:
        cited = ClaimCitation(
            citation_key="P1", citation=Citation(citation_key="P1", document_id=document_id)
        )
        return Claim(
            text="Satu.",
            citation_keys=["P1"],
            citations=[cited],
            verdict=verdict,
            unverified_reason=None,
            invalid_citation_keys=[],
            kind=SegmentKind.fact,
            layout=Layout.paragraph,
            start=0,
            end=5,
            start_utf16=0,
            end_utf16=5,
        )

    claims = [segment(Verdict.unsupported, "d-no"), segment(Verdict.supported, "d-ok")]
    annotation = replace(refusal_annotation("Satu."), claims=claims)
    # When the stored message records what may steer a follow-up, then only d-ok is kept (V2-22)
    assert supported_documents(annotation) == ["d-ok"]


def test_a_follow_up_reads_whole_the_one_document_the_previous_answer_cited(
    store: SqliteStore,
) -> None:
    # Given turn 1 relied on documents A and B, and turn 2 (the previous answer) only on B
    conversation_id = create_conversation(store, ALICE).conversation_id
    answered(store, prepare_turn(store, ALICE, conversation_id, "query_v2"), ("d-A", "d-B"))
    answered(store, prepare_turn(store, ALICE, conversation_id, "query_v2"), ("d-B",))
    # When turn 3 is prepared from the stored conversation
    turn = prepare_turn(store, ALICE, conversation_id, "query_v2")
    # Then it reads B whole, as the seed says, and prefers nothing else (V2-22, issue 23)
    assert turn.history.read_whole == "d-B"
    assert turn.history.preferred_documents == ["d-B"]
