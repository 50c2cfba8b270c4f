"""One contract for every ``Store``: the same tests run against ``SqliteStore`` on a temporary
file and ``DynamoStore`` under moto's ``mock_aws`` (DESIGN §6, §8). The DynamoDB tables are created
from ``template.yaml`` itself, so the adapter is exercised against the deployed key schemas."""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.dynamodb_store import RECEIPTS_KEYS, TABLE_KEYS, TTL_ATTRIBUTE, DynamoStore
from tanda.adapters.sqlite_store import SqliteStore
from tanda.credits import MAX_BALANCE, MAX_GRANT, CreditLimitError, TenantProfile, Usage
from tanda.ports import ConversationConflict, ConversationMissing, Store
from tanda.records.conversations import (
    Conversation,
    ConversationOwner,
    MemoryItem,
    PlaygroundReceipt,
    StoredMessage,
)
from tests.aws import template_resources


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "sqlite":
        return SqliteStore(tmp_path / "store.sqlite")
    found: Store = request.getfixturevalue("dynamo_store")
    return found


ISSUER = "https://idp.partner.example"
OWNER = ConversationOwner(issuer=ISSUER, tenant_id="t1", subject="user-1")
OTHER_TENANT = OWNER.model_copy(update={"tenant_id": "t2"})
OTHERS = {
    "another tenant": OTHER_TENANT,
    "another subject": OWNER.model_copy(update={"subject": "user-2"}),
    "another issuer": OWNER.model_copy(update={"issuer": "https://idp.admin.example"}),
}


def conversation(cid: str = "c1", owner: ConversationOwner = OWNER, **extra: Any) -> Conversation:
    return Conversation(
        conversation_id=cid,
        tenant_id=owner.tenant_id,
        issuer=owner.issuer,
        subject=owner.subject,
        created_at=100.0,
        **extra,
    )


def message(
    mid: str, at: float, cid: str = "c1", tenant: str = "t1", route: Any = "query_v2"
) -> StoredMessage:
    return StoredMessage(
        message_id=mid,
        conversation_id=cid,
        tenant_id=tenant,
        route=route,
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

    # when its owner reads it, then it comes back equal, owned by no route yet.
    assert store.conversation(OWNER, "c1") == created
    assert store.conversation(OWNER, "c1").route is None  # type: ignore[union-attr]
    assert created.owner == OWNER


@pytest.mark.parametrize("other", OTHERS.values(), ids=OTHERS.keys())
def test_a_conversation_is_invisible_to_anyone_but_its_owner(
    store: Store, other: ConversationOwner
) -> None:
    # Given a conversation of OWNER with a message,
    store.create_conversation(conversation())
    store.add_message(OWNER, message("m1", 1.0))

    # when anyone else reads, claims, answers in, releases or discards it, then nothing of it is
    # reachable — each is what an unknown id gives — and nothing changes (issue 11).
    assert store.conversation(other, "c1") is None
    with pytest.raises(ConversationMissing):
        store.claim(other, "c1", "query_v2")
    with pytest.raises(ConversationMissing):
        store.add_message(other, message("m2", 2.0, route="query"))
    assert store.messages(other, "c1") == []
    assert store.release(other, "c1", "query_v2") is False
    assert store.discard(other, "c1") is False
    assert store.conversation(OWNER, "c1").route == "query_v2"  # type: ignore[union-attr]
    assert [m.message_id for m in store.messages(OWNER, "c1")] == ["m1"]


def test_claiming_a_missing_conversation_raises_lookup_error(store: Store) -> None:
    with pytest.raises(ConversationMissing):
        store.claim(OWNER, "nope", "query")


def test_the_first_route_to_claim_owns_the_conversation(store: Store) -> None:
    # Given an unowned conversation,
    store.create_conversation(conversation())

    # when /query/v2 claims it, then it owns it, may claim again, and /query may not.
    assert store.claim(OWNER, "c1", "query_v2").route == "query_v2"
    assert store.claim(OWNER, "c1", "query_v2").route == "query_v2"
    with pytest.raises(ConversationConflict):
        store.claim(OWNER, "c1", "query")
    assert store.conversation(OWNER, "c1").route == "query_v2"  # type: ignore[union-attr]


def test_a_conversation_created_owned_rejects_the_other_route(store: Store) -> None:
    store.create_conversation(conversation(route="query"))
    with pytest.raises(ConversationConflict):
        store.claim(OWNER, "c1", "query_v2")
    assert store.claim(OWNER, "c1", "query").route == "query"


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
            store.claim(OWNER, f"race-{attempt}", route)
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
    assert store.conversation(OWNER, f"race-{attempt}").route == won[0]  # type: ignore[union-attr]


# --- a failed first turn gives its claim back (issue 11) --------------------------------------


def test_a_claim_without_a_message_can_be_released_for_the_other_route(store: Store) -> None:
    # Given a conversation claimed by /query/v2 whose turn stored nothing,
    store.create_conversation(conversation())
    store.claim(OWNER, "c1", "query_v2")

    # when the claim is released, then the conversation is unowned and /query may answer first.
    assert store.release(OWNER, "c1", "query_v2") is True
    assert store.conversation(OWNER, "c1").route is None  # type: ignore[union-attr]
    store.add_message(OWNER, message("m1", 1.0, route="query"))
    assert store.conversation(OWNER, "c1").route == "query"  # type: ignore[union-attr]


def test_a_claim_with_a_message_or_of_another_route_is_not_released(store: Store) -> None:
    # Given a conversation in which /query/v2 answered,
    store.create_conversation(conversation())
    store.claim(OWNER, "c1", "query_v2")
    store.add_message(OWNER, message("m1", 1.0))

    # when a failed turn of either route tries to release it, then the owner route stays.
    assert store.release(OWNER, "c1", "query_v2") is False
    assert store.release(OWNER, "c1", "query") is False
    assert store.conversation(OWNER, "c1").route == "query_v2"  # type: ignore[union-attr]


def test_only_a_conversation_without_a_message_is_discarded(store: Store) -> None:
    # Given an empty claimed conversation and one with an answer,
    store.create_conversation(conversation("empty"))
    store.claim(OWNER, "empty", "query")
    store.create_conversation(conversation("answered"))
    store.add_message(OWNER, message("m1", 1.0, cid="answered"))

    # when both are discarded, then only the empty one is gone.
    assert store.discard(OWNER, "empty") is True
    assert store.conversation(OWNER, "empty") is None
    assert store.discard(OWNER, "answered") is False
    assert [m.message_id for m in store.messages(OWNER, "answered")] == ["m1"]
    assert store.discard(OWNER, "never-existed") is False


def test_storing_a_message_claims_its_conversation_for_its_route(store: Store) -> None:
    # Given an unowned conversation, a message of /query stores and claims it for /query;
    store.create_conversation(conversation())
    store.add_message(OWNER, message("m1", 1.0, route="query"))
    assert store.conversation(OWNER, "c1").route == "query"  # type: ignore[union-attr]

    # a message of the other route is refused and not stored (V2-19),
    with pytest.raises(ConversationConflict):
        store.add_message(OWNER, message("m2", 2.0, route="query_v2"))
    assert [m.message_id for m in store.messages(OWNER, "c1")] == ["m1"]

    # and no message is stored without its conversation.
    with pytest.raises(ConversationMissing):
        store.add_message(OWNER, message("m3", 3.0, cid="missing"))
    assert store.messages(OWNER, "missing") == []


# --- messages -------------------------------------------------------------------------------


def test_messages_come_back_in_time_order_whatever_the_write_order(store: Store) -> None:
    # Given messages written out of order (and two at the same instant),
    store.create_conversation(conversation())
    for mid, at in [("m3", 30.25), ("m1", 9.5), ("m2b", 20.0), ("m2a", 20.0), ("m4", 1e9 + 0.5)]:
        store.add_message(OWNER, message(mid, at))

    # when the conversation's messages are read, then they are ordered by time, then id.
    found = store.messages(OWNER, "c1")
    assert [m.message_id for m in found] == ["m1", "m2a", "m2b", "m3", "m4"]
    assert found[0] == message("m1", 9.5)


def test_messages_of_another_conversation_are_not_mixed_in(store: Store) -> None:
    store.create_conversation(conversation("c1"))
    store.create_conversation(conversation("c10"))
    store.add_message(OWNER, message("m1", 1.0, cid="c1"))
    store.add_message(OWNER, message("m2", 2.0, cid="c10"))
    assert [m.message_id for m in store.messages(OWNER, "c1")] == ["m1"]


# --- long-term memory -----------------------------------------------------------------------


def memory(text: str, at: float, owner: ConversationOwner = OWNER) -> MemoryItem:
    return MemoryItem(
        memory_id=f"mem-{at}",
        tenant_id=owner.tenant_id,
        issuer=owner.issuer,
        subject=owner.subject,
        text=text,
        conversation_id="c1",
        message_id="m1",
        created_at=at,
    )


def test_memories_come_back_newest_first_up_to_the_limit(store: Store) -> None:
    store.add_memories([memory("a", 1.0), memory("c", 3.0), memory("b", 2.0)])
    assert [m.text for m in store.memories(OWNER, limit=2)] == ["c", "b"]


def test_the_same_memory_text_is_kept_once(store: Store) -> None:
    store.add_memories([memory("same", 1.0)])
    store.add_memories([memory("same", 5.0), memory("other", 2.0)])
    found = store.memories(OWNER, limit=10)
    assert [(m.text, m.created_at) for m in found] == [("other", 2.0), ("same", 1.0)]


@pytest.mark.parametrize("other", OTHERS.values(), ids=OTHERS.keys())
def test_memories_belong_to_their_issuer_tenant_and_user(
    store: Store, other: ConversationOwner
) -> None:
    # Given a memory of OWNER, and the same text remembered by someone else,
    store.add_memories([memory("mine", 1.0)])
    assert store.memories(other, limit=10) == []
    store.add_memories([memory("mine", 2.0, other), memory("theirs", 3.0, other)])

    # then each reads only their own (the same text is kept once per owner, not once in all).
    assert [(m.text, m.owner) for m in store.memories(OWNER, limit=10)] == [("mine", OWNER)]
    assert [m.text for m in store.memories(other, limit=10)] == ["theirs", "mine"]


def test_no_issuer_or_subject_spells_another_owners_key(store: Store) -> None:
    # Given two owners whose issuer and subject join to the same text with a "#",
    one = ConversationOwner(issuer="https://idp.example", tenant_id="t1", subject="a#b")
    two = ConversationOwner(issuer="https://idp.example#a", tenant_id="t1", subject="b")
    store.create_conversation(conversation("c1", one))
    store.add_memories([memory("one's", 1.0, one)])

    # then neither reaches what the other has.
    assert store.conversation(two, "c1") is None
    assert store.memories(two, limit=10) == []


# --- rows written before issue 11 --------------------------------------------------------


def test_sqlite_rows_from_before_owners_are_read_by_no_one(tmp_path: Path) -> None:
    import sqlite3

    # Given a store file of the previous schema: a conversation with a message, keyed by tenant
    # only, and a memory keyed by (tenant, subject),
    path = tmp_path / "store.sqlite"
    legacy = conversation().model_dump(exclude={"issuer"})
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE conversations (tenant_id TEXT NOT NULL, conversation_id TEXT NOT NULL,"
            " body TEXT NOT NULL, route TEXT, PRIMARY KEY (tenant_id, conversation_id));"
            "CREATE TABLE messages (tenant_id TEXT NOT NULL, conversation_id TEXT NOT NULL,"
            " created_at REAL NOT NULL, message_id TEXT NOT NULL, body TEXT NOT NULL,"
            " PRIMARY KEY (tenant_id, conversation_id, created_at, message_id));"
            "CREATE TABLE memories (tenant_id TEXT NOT NULL, subject TEXT NOT NULL,"
            " text TEXT NOT NULL, created_at REAL NOT NULL, body TEXT NOT NULL,"
            " PRIMARY KEY (tenant_id, subject, text));"
        )
        db.execute(
            "INSERT INTO conversations VALUES ('t1', 'c1', ?, 'query_v2')", (json.dumps(legacy),)
        )
        db.execute(
            "INSERT INTO messages VALUES ('t1', 'c1', 1.0, 'm1', ?)",
            (message("m1", 1.0).model_dump_json(),),
        )
        db.execute("INSERT INTO memories VALUES ('t1', 'user-1', 'old', 1.0, '{}')")

    # when the store opens it, then nobody — not even the same tenant and subject under any
    # issuer — reads the old rows, and new conversations work beside them.
    store = SqliteStore(path)
    assert store.conversation(OWNER, "c1") is None
    assert store.messages(OWNER, "c1") == []
    assert store.memories(OWNER, limit=10) == []
    with pytest.raises(ConversationMissing):
        store.claim(OWNER, "c1", "query_v2")
    store.create_conversation(conversation("c2"))
    store.add_message(OWNER, message("m2", 2.0, cid="c2"))
    assert [m.message_id for m in store.messages(OWNER, "c2")] == ["m2"]


def test_dynamodb_items_from_before_owners_are_read_by_no_one(dynamo_store: DynamoStore) -> None:
    # Given items under the previous keys: a conversation with a message, and a memory,
    client, table = dynamo_store.client, dynamo_store.table
    legacy = conversation().model_dump_json(exclude={"issuer", "route"})
    for pk, sk, body in [
        ("T#t1#C#c1", "CONV", legacy),
        ("T#t1#C#c1", "M#00000000001.000000#m1", message("m1", 1.0).model_dump_json()),
        ("T#t1#U#user-1", "MEM#x", memory("old", 1.0).model_dump_json()),
    ]:
        client.put_item(
            TableName=table, Item={"PK": {"S": pk}, "SK": {"S": sk}, "body": {"S": body}}
        )

    # then the owner's reads address other items and find nothing.
    assert dynamo_store.conversation(OWNER, "c1") is None
    assert dynamo_store.messages(OWNER, "c1") == []
    assert dynamo_store.memories(OWNER, limit=10) == []


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


# --- credits (ASK-12, ASK-13) and tenant profiles (ASK-07) ---------------------------------

OPENING = Decimal("1.00")


def test_a_tenant_never_written_reads_as_the_opening_balance_with_no_usage(store: Store) -> None:
    account = store.credit_account("t1", opening=OPENING)
    assert account.balance == Decimal("1.00") and str(account.balance) == "1.00"
    assert account.usage == {}


def test_a_charge_takes_the_amount_exactly_and_counts_the_call(store: Store) -> None:
    # Given a new tenant opening at 1.00, when 0.20 is charged for an ask three times,
    after = []
    for _ in range(3):
        assert store.charge("t1", "ask", Decimal("0.20"), opening=OPENING) is True
        after.append(store.credit_account("t1", opening=OPENING).balance)

    # then each charge takes it in exact decimals, and the usage counts them.
    assert [str(b) for b in after] == ["0.80", "0.60", "0.40"]
    account = store.credit_account("t1", opening=OPENING)
    assert str(account.balance) == "0.40"
    assert account.usage_of("ask") == Usage(charged=3, metered=0, credits=Decimal("0.60"))
    assert str(account.usage_of("ask").credits) == "0.60"


def test_a_charge_the_balance_does_not_cover_writes_nothing(store: Store) -> None:
    # Given 0.30 left,
    store.charge("t1", "ask", Decimal("0.70"), opening=OPENING)

    # when 0.40 is asked for, then it is refused and nothing changes; 0.30 exactly still passes.
    assert store.charge("t1", "ask", Decimal("0.40"), opening=OPENING) is False
    assert store.credit_account("t1", opening=OPENING).usage_of("ask").charged == 1
    assert store.charge("t1", "ask", Decimal("0.30"), opening=OPENING) is True
    assert store.credit_account("t1", opening=OPENING).balance == Decimal(0)
    assert store.charge("t1", "search", Decimal("0.0001"), opening=OPENING) is False


def test_an_opening_balance_equal_to_the_first_charge_pays_for_it(store: Store) -> None:
    # Issue 23: at the limit — a new ledger opening at exactly the price covers its first charge.
    assert store.charge("t1", "ask", Decimal("0.20"), opening=Decimal("0.20")) is True
    assert store.credit_account("t1", opening=Decimal("0.20")).balance == Decimal(0)
    assert store.charge("t1", "ask", Decimal("0.20"), opening=Decimal("0.20")) is False


def test_an_opening_balance_too_small_refuses_the_first_charge(store: Store) -> None:
    assert store.charge("t1", "ask", Decimal("0.20"), opening=Decimal("0.10")) is False
    assert store.credit_account("t1", opening=Decimal("0.10")).balance == Decimal("0.10")


def test_the_opening_balance_is_fixed_by_the_first_write(store: Store) -> None:
    # Given a ledger opened by a charge at 1.00, when the opening setting later changes,
    store.charge("t1", "search", Decimal("0.05"), opening=OPENING)

    # then the ledger keeps what it has.
    assert store.credit_account("t1", opening=Decimal("500")).balance == Decimal("0.95")


def test_the_opening_balance_is_fixed_by_a_first_metered_call(store: Store) -> None:
    # ASK-12 (issue 23 item 13): a test key's first call opens the tenant's ledger too.
    store.meter("t1", "ask", opening=OPENING)
    assert store.credit_account("t1", opening=Decimal("500")).balance == OPENING


def test_metered_calls_are_counted_and_never_touch_the_balance(store: Store) -> None:
    store.meter("t1", "ask", opening=OPENING)
    store.meter("t1", "ask", opening=OPENING)
    store.meter("t1", "search", opening=OPENING)
    account = store.credit_account("t1", opening=OPENING)
    assert account.balance == OPENING
    assert account.usage_of("ask") == Usage(charged=0, metered=2)
    assert account.usage_of("search").metered == 1
    assert account.usage_of("cross_check") == Usage()


def test_a_grant_adds_to_the_balance_exactly(store: Store) -> None:
    store.charge("t1", "ask", Decimal("0.20"), opening=OPENING)
    account = store.grant_credits("t1", Decimal("2.5"), opening=OPENING)
    assert str(account.balance) == "3.30"
    assert store.grant_credits("t2", Decimal("0.0001"), opening=OPENING).balance == Decimal(
        "1.0001"
    )
    with pytest.raises(ValueError):
        store.grant_credits("t1", Decimal(0), opening=OPENING)


NEAR_MAX = MAX_BALANCE - Decimal(1)


def test_a_ledger_near_its_maximum_keeps_integer_units_exact(store: Store) -> None:
    # Given a ledger opening 1 credit below the maximum balance (issue 23: 10**18 units),
    # when two asks are charged 0.40 and the balance is granted back up to the maximum,
    after = []
    for _ in range(2):
        assert store.charge("t1", "ask", Decimal("0.40"), opening=NEAR_MAX)
        after.append(store.credit_account("t1", opening=NEAR_MAX).balance)
    account = store.grant_credits("t1", Decimal("1.80"), opening=NEAR_MAX)

    # then every step is exact to the last unit.
    assert after == [MAX_BALANCE - Decimal("1.40"), MAX_BALANCE - Decimal("1.80")]
    assert str(account.balance) == "100000000000000.00" and account.balance == MAX_BALANCE
    assert account.usage_of("ask") == Usage(charged=2, credits=Decimal("0.80"))


def test_a_grant_over_the_maximum_balance_is_refused_whole(store: Store) -> None:
    # Given a ledger at the maximum balance but for 0.0001,
    store.grant_credits("t1", Decimal("0.9999"), opening=NEAR_MAX)

    # when 0.0002 is granted, then it is refused and nothing is written; 0.0001 still fits.
    refused = "a grant of 0.0002 credits would take the balance over its maximum of 1"
    with pytest.raises(CreditLimitError, match=refused):
        store.grant_credits("t1", Decimal("0.0002"), opening=NEAR_MAX)
    assert store.credit_account("t1", opening=OPENING).balance == MAX_BALANCE - Decimal("0.0001")
    assert store.grant_credits("t1", Decimal("0.0001"), opening=NEAR_MAX).balance == MAX_BALANCE

    # At the limit: a first grant that fills a new ledger exactly to the maximum is granted;
    store.grant_credits("t3", Decimal(1), opening=NEAR_MAX)
    assert store.credit_account("t3", opening=OPENING).balance == MAX_BALANCE

    # and a first grant that the opening balance leaves no room for opens no ledger either.
    with pytest.raises(CreditLimitError):
        store.grant_credits("t2", Decimal(2), opening=NEAR_MAX)
    assert store.credit_account("t2", opening=OPENING).balance == OPENING


@pytest.mark.parametrize("amount", ["1000000000000.0001", "900000000000000", "1e100", "Infinity"])
def test_a_grant_over_the_maximum_grant_is_refused_and_writes_nothing(
    store: Store, amount: str
) -> None:
    with pytest.raises(ValueError, match="a grant adds"):
        store.grant_credits("t1", Decimal(amount), opening=OPENING)
    assert store.credit_account("t1", opening=Decimal(7)).balance == Decimal(7)
    assert store.grant_credits("t1", MAX_GRANT, opening=OPENING).balance == MAX_GRANT + OPENING


def test_ledgers_of_tenants_are_apart(store: Store) -> None:
    store.charge("t1", "ask", Decimal("0.20"), opening=OPENING)
    assert store.credit_account("t2", opening=OPENING).balance == OPENING
    assert store.credit_account("t2", opening=OPENING).usage == {}


def test_concurrent_charges_never_overdraw_nor_charge_twice(store: Store) -> None:
    # Given a balance that covers exactly 10 asks, and 100 charges racing for it,
    results: list[bool] = []
    lock = threading.Lock()

    def charge() -> None:
        after = store.charge("t1", "ask", Decimal("0.20"), opening=Decimal("2.00"))
        with lock:
            results.append(after)

    threads = [threading.Thread(target=charge) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    # then exactly 10 are charged, each with its ledger entry, and the rest refused.
    assert len(results) == 100 and results.count(True) == 10
    charges = [e for e in store.ledger("t1") if e.kind == "charge"]
    assert [e.amount for e in charges] == [Decimal("-0.20")] * 10
    account = store.credit_account("t1", opening=Decimal("2.00"))
    assert account.balance == Decimal(0)
    assert account.usage_of("ask") == Usage(charged=10, credits=Decimal("2.00"))


def test_a_tenant_profile_round_trips_and_defaults_to_empty(store: Store) -> None:
    assert store.tenant_profile("t1") == TenantProfile(tenant_id="t1")
    store.put_tenant_profile(TenantProfile(tenant_id="t1", lang="id"))
    assert store.tenant_profile("t1").lang == "id"
    assert store.tenant_profile("t2").lang is None
    store.put_tenant_profile(TenantProfile(tenant_id="t1", lang=None))
    assert store.tenant_profile("t1").lang is None


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
