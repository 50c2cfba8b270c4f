"""One contract for every ``Store``: the same tests run against ``SqliteStore`` on a temporary
file and ``DynamoStore`` under moto's ``mock_aws`` (DESIGN §6, §8). The DynamoDB tables are created
from ``template.yaml`` itself, so the adapter is exercised against the deployed key schemas."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.dynamodb_store import RECEIPTS_KEYS, TABLE_KEYS, TTL_ATTRIBUTE, DynamoStore
from tanda.adapters.sqlite_store import SqliteStore
from tanda.conversations.model import Conversation, MemoryItem, PlaygroundReceipt, StoredMessage
from tanda.ports import ConversationConflict, Store
from tests.aws import template_resources


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "sqlite":
        return SqliteStore(tmp_path / "store.sqlite")
    found: Store = request.getfixturevalue("dynamo_store")
    return found


def conversation(cid: str = "c1", tenant: str = "t1", **extra: Any) -> Conversation:
    return Conversation(
        conversation_id=cid, tenant_id=tenant, subject="user-1", created_at=100.0, **extra
    )


def message(mid: str, at: float, cid: str = "c1", tenant: str = "t1") -> StoredMessage:
    return StoredMessage(
        message_id=mid,
        conversation_id=cid,
        tenant_id=tenant,
        route="query_v2",
        question="Berapa anggaran?",
        answer="Anggaran Rp 5 miliar.",
        trace_id=f"trace-{mid}",
        created_at=at,
        segments=[{"text": "Anggaran Rp 5 miliar.", "verdict": "supported", "start": 0}],
        v2_faithfulness={"verification": "verified"},
    )


def receipt(run_id: str = "run-1", expires_at: float = 1_000.5) -> PlaygroundReceipt:
    return PlaygroundReceipt(
        run_id=run_id,
        tenant_id="t1",
        admin_id="admin-1",
        status="completed",
        counts={"claims_total": 3, "claims_supported": 2},
        started_at=10.0,
        finished_at=12.5,
        expires_at=expires_at,
    )


# --- conversations --------------------------------------------------------------------------


def test_a_created_conversation_reads_back_unowned(store: Store) -> None:
    # Given a conversation created with selection and documents,
    created = conversation(document_ids=("d1", "d2"), selection="uu")
    store.create_conversation(created)

    # when it is read in its tenant, then it comes back equal, owned by no route yet.
    assert store.conversation("t1", "c1") == created
    assert store.conversation("t1", "c1").route is None  # type: ignore[union-attr]


def test_a_conversation_is_invisible_to_another_tenant(store: Store) -> None:
    # Given a conversation of tenant t1,
    store.create_conversation(conversation())

    # when tenant t2 reads, claims or lists it, then nothing of t1 is reachable.
    assert store.conversation("t2", "c1") is None
    with pytest.raises(LookupError):
        store.claim("t2", "c1", "query_v2")
    store.add_message(message("m1", 1.0))
    assert store.messages("t2", "c1") == []
    assert store.conversation("t1", "c1").route is None  # type: ignore[union-attr]


def test_claiming_a_missing_conversation_raises_lookup_error(store: Store) -> None:
    with pytest.raises(LookupError):
        store.claim("t1", "nope", "query")


def test_the_first_route_to_claim_owns_the_conversation(store: Store) -> None:
    # Given an unowned conversation,
    store.create_conversation(conversation())

    # when /query/v2 claims it, then it owns it, may claim again, and /query may not.
    assert store.claim("t1", "c1", "query_v2").route == "query_v2"
    assert store.claim("t1", "c1", "query_v2").route == "query_v2"
    with pytest.raises(ConversationConflict):
        store.claim("t1", "c1", "query")
    assert store.conversation("t1", "c1").route == "query_v2"  # type: ignore[union-attr]


def test_a_conversation_created_owned_rejects_the_other_route(store: Store) -> None:
    store.create_conversation(conversation(route="query"))
    with pytest.raises(ConversationConflict):
        store.claim("t1", "c1", "query_v2")
    assert store.claim("t1", "c1", "query").route == "query"


@pytest.mark.parametrize("attempt", range(5))
def test_two_concurrent_first_answers_on_different_routes_exactly_one_wins(
    store: Store, attempt: int
) -> None:
    # Given an unowned conversation and two first answers racing on different routes,
    store.create_conversation(conversation(cid=f"race-{attempt}"))
    barrier = threading.Barrier(2)
    won: list[str] = []
    lost: list[str] = []
    failed: list[BaseException] = []

    def answer(route: Any) -> None:
        barrier.wait()
        try:
            store.claim("t1", f"race-{attempt}", route)
            won.append(route)
        except ConversationConflict:
            lost.append(route)
        except BaseException as error:  # surfaced below
            failed.append(error)

    # when both claim at once,
    threads = [threading.Thread(target=answer, args=(r,)) for r in ("query", "query_v2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    # then exactly one wins, the other gets ConversationConflict, and the stored owner is the
    # winner (nothing half-written).
    assert failed == []
    assert len(won) == 1 and len(lost) == 1, (won, lost)
    assert store.conversation("t1", f"race-{attempt}").route == won[0]  # type: ignore[union-attr]


# --- messages -------------------------------------------------------------------------------


def test_messages_come_back_in_time_order_whatever_the_write_order(store: Store) -> None:
    # Given messages written out of order (and two at the same instant),
    store.create_conversation(conversation())
    for mid, at in [("m3", 30.25), ("m1", 9.5), ("m2b", 20.0), ("m2a", 20.0), ("m4", 1e9 + 0.5)]:
        store.add_message(message(mid, at))

    # when the conversation's messages are read, then they are ordered by time, then id.
    found = store.messages("t1", "c1")
    assert [m.message_id for m in found] == ["m1", "m2a", "m2b", "m3", "m4"]
    assert found[0] == message("m1", 9.5)


def test_messages_of_another_conversation_are_not_mixed_in(store: Store) -> None:
    store.add_message(message("m1", 1.0, cid="c1"))
    store.add_message(message("m2", 2.0, cid="c10"))
    assert [m.message_id for m in store.messages("t1", "c1")] == ["m1"]


# --- long-term memory -----------------------------------------------------------------------


def memory(text: str, at: float, subject: str = "user-1", tenant: str = "t1") -> MemoryItem:
    return MemoryItem(
        memory_id=f"mem-{at}",
        tenant_id=tenant,
        subject=subject,
        text=text,
        conversation_id="c1",
        message_id="m1",
        created_at=at,
    )


def test_memories_come_back_newest_first_up_to_the_limit(store: Store) -> None:
    store.add_memories([memory("a", 1.0), memory("c", 3.0), memory("b", 2.0)])
    assert [m.text for m in store.memories("t1", "user-1", limit=2)] == ["c", "b"]


def test_the_same_memory_text_is_kept_once(store: Store) -> None:
    store.add_memories([memory("same", 1.0)])
    store.add_memories([memory("same", 5.0), memory("other", 2.0)])
    found = store.memories("t1", "user-1", limit=10)
    assert [(m.text, m.created_at) for m in found] == [("other", 2.0), ("same", 1.0)]


def test_memories_belong_to_their_tenant_and_user(store: Store) -> None:
    store.add_memories([memory("mine", 1.0)])
    assert store.memories("t2", "user-1", limit=10) == []
    assert store.memories("t1", "user-2", limit=10) == []


# --- receipts -------------------------------------------------------------------------------


def test_a_receipt_round_trips_without_any_text(store: Store) -> None:
    store.put_receipt(receipt())
    assert store.receipt("run-1", now=500.0) == receipt()
    assert store.receipt("missing", now=500.0) is None


def test_an_expired_receipt_reads_as_absent(store: Store) -> None:
    # Given a receipt that expires at 1000.5 (not yet deleted by any TTL sweeper),
    store.put_receipt(receipt(expires_at=1_000.5))

    # when read before, at and after its expiry, then it is there only before.
    assert store.receipt("run-1", now=1_000.4) is not None
    assert store.receipt("run-1", now=1_000.5) is None
    assert store.receipt("run-1", now=2_000.0) is None


# --- rate limits ----------------------------------------------------------------------------


def test_a_window_admits_up_to_the_limit_then_says_when_to_retry(store: Store) -> None:
    # Given a limit of 3 per 60 s window, and requests at 10 s into the window [0, 60),
    decisions = [store.hit("admin:a", limit=3, window_s=60, now=10.0) for _ in range(5)]

    # then three pass and the rest are told to retry when the window ends (50 s later).
    assert [d.allowed for d in decisions] == [True, True, True, False, False]
    assert decisions[3].retry_after_s == 50
    assert decisions[4].retry_after_s == 50


def test_the_next_window_starts_a_fresh_count(store: Store) -> None:
    for _ in range(3):
        store.hit("admin:a", limit=3, window_s=60, now=59.0)
    assert not store.hit("admin:a", limit=3, window_s=60, now=59.5).allowed
    assert store.hit("admin:a", limit=3, window_s=60, now=60.0).allowed


def test_retry_after_is_at_least_one_second(store: Store) -> None:
    store.hit("k", limit=1, window_s=60, now=59.9)
    assert store.hit("k", limit=1, window_s=60, now=59.95).retry_after_s == 1


def test_keys_are_counted_separately(store: Store) -> None:
    assert store.hit("admin:a", limit=1, window_s=60, now=1.0).allowed
    assert store.hit("admin:b", limit=1, window_s=60, now=1.0).allowed
    assert not store.hit("admin:a", limit=1, window_s=60, now=2.0).allowed


def test_concurrent_hits_never_admit_more_than_the_limit(store: Store) -> None:
    # Given 20 requests racing for a window that admits 5,
    results: list[bool] = []
    lock = threading.Lock()

    def hit() -> None:
        allowed = store.hit("burst", limit=5, window_s=60, now=1.0).allowed
        with lock:
            results.append(allowed)

    threads = [threading.Thread(target=hit) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    # then exactly 5 are admitted.
    assert sorted(results) == [False] * 15 + [True] * 5


# --- the DynamoDB adapter uses the template's tables ----------------------------------------


def key_schema(logical_id: str) -> dict[str, str]:
    properties = template_resources()[logical_id]["Properties"]
    return {k["AttributeName"]: k["KeyType"] for k in properties["KeySchema"]}


def test_the_adapter_key_schemas_are_the_templates() -> None:
    assert key_schema("TandaTable") == TABLE_KEYS
    assert key_schema("ReceiptsTable") == RECEIPTS_KEYS
    for logical_id in ("TandaTable", "ReceiptsTable"):
        ttl = template_resources()[logical_id]["Properties"]["TimeToLiveSpecification"]
        assert ttl == {"AttributeName": TTL_ATTRIBUTE, "Enabled": True}


def test_the_receipt_item_holds_identifiers_counts_and_times_only(
    dynamo_store: DynamoStore,
) -> None:
    # PG-5: the stored item is the receipt, with a whole-second TTL attribute.
    dynamo_store.put_receipt(receipt())
    item = dynamo_store.client.get_item(
        TableName=dynamo_store.receipts_table, Key={"run_id": {"S": "run-1"}}
    )["Item"]
    assert set(item) == {"run_id", TTL_ATTRIBUTE, "body"}
    assert item[TTL_ATTRIBUTE] == {"N": "1001"}
