"""The ``Store`` contract for API keys, tenants and the credit ledger (issue 27): the same tests
against ``SqliteStore`` on a temporary file and ``DynamoStore`` under moto, tables from
template.yaml."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TypeVar

import pytest
from botocore.awsrequest import AWSResponse

from tanda.adapters.dynamodb_store import DynamoStore
from tanda.adapters.sqlite_store import SqliteStore
from tanda.credits import (
    CARRIED_REASON,
    MAX_BALANCE,
    OPENING_REASON,
    CreditLimitError,
    LedgerRef,
    TenantProfile,
)
from tanda.ports import Store
from tanda.records.jobs import CrossCheckJob
from tanda.records.keys import ApiKeyRecord, key_id_of
from tests.aws import REGION

pytestmark = pytest.mark.integration

OPENING = Decimal("1.00")
_T = TypeVar("_T")


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "sqlite":
        return SqliteStore(tmp_path / "store.sqlite")
    found: Store = request.getfixturevalue("dynamo_store")
    return found


def record(digest: str, tenant: str = "t1", **changes: object) -> ApiKeyRecord:
    fields: dict[str, object] = {
        "key_id": key_id_of(digest),
        "digest": digest,
        "tenant_id": tenant,
        "kind": "v1_live",
        "name": "ci",
        "created_at": 1000.0,
        "created_by": "ops",
        **changes,
    }
    return ApiKeyRecord.model_validate(fields)


def balance_is_the_sum_of_the_entries(store: Store, tenant: str) -> Decimal:
    balance = store.credit_account(tenant, opening=Decimal(999)).balance
    assert sum((e.amount for e in store.ledger(tenant)), Decimal(0)) == balance
    return balance


# --- keys ------------------------------------------------------------------------------------


def test_a_key_record_round_trips_and_its_id_is_unique(store: Store) -> None:
    first = record("a" * 64)
    store.put_key(first)
    assert store.key(first.key_id) == first
    assert store.key("key_000000000000") is None
    with pytest.raises(ValueError, match="exists"):
        store.put_key(record("a" * 64, tenant="t2"))
    assert store.key(first.key_id) == first


def test_keys_are_listed_oldest_first_and_by_tenant(store: Store) -> None:
    store.put_key(record("b" * 64, created_at=2000.0))
    store.put_key(record("a" * 64, created_at=1000.0))
    store.put_key(record("c" * 64, tenant="t2", kind="shared", created_at=1500.0))
    assert [k.digest[0] for k in store.api_keys()] == ["a", "c", "b"]
    assert [k.digest[0] for k in store.api_keys("t1")] == ["a", "b"]
    assert [k.kind for k in store.api_keys("t2")] == ["shared"]
    assert store.api_keys("t3") == []


def test_ending_a_key_keeps_an_earlier_end_and_refuses_it_from_then(store: Store) -> None:
    key = record("a" * 64)
    store.put_key(key)
    expiring = store.end_key(key.key_id, expires_at=5000.0)
    assert expiring is not None and expiring.expires_at == 5000.0
    assert store.end_key(key.key_id, expires_at=9000.0).expires_at == 5000.0  # type: ignore[union-attr]
    revoked = store.end_key(key.key_id, revoked_at=3000.0)
    assert revoked == store.key(key.key_id)
    assert revoked is not None and revoked.revoked_at == 3000.0
    assert revoked.accepted(2999.0) and not revoked.accepted(3000.0)
    assert revoked.status(3500.0) == "revoked"
    assert store.end_key("key_000000000000", revoked_at=1.0) is None


def test_last_use_is_written_at_most_once_per_interval(store: Store) -> None:
    key = record("a" * 64)
    store.put_key(key)
    assert store.touch_key(key.key_id, 100.0, every_s=60) is True
    assert store.touch_key(key.key_id, 130.0, every_s=60) is False
    assert store.key(key.key_id).last_used_at == 100.0  # type: ignore[union-attr]
    assert store.touch_key(key.key_id, 160.0, every_s=60) is True
    assert store.key(key.key_id).last_used_at == 160.0  # type: ignore[union-attr]
    # and writing the last use never undoes a revocation, nor a revocation the last use
    store.end_key(key.key_id, revoked_at=170.0)
    assert store.touch_key(key.key_id, 300.0, every_s=60) is True
    found = store.key(key.key_id)
    assert found is not None and found.revoked_at == 170.0 and found.last_used_at == 300.0
    assert store.touch_key("key_000000000000", 400.0, every_s=60) is False


# --- tenants ---------------------------------------------------------------------------------


def test_tenants_are_listed_with_their_status_and_an_unknown_one_is_active(store: Store) -> None:
    assert store.tenants() == []
    assert store.tenant_profile("t9").status == "active"
    store.put_tenant_profile(TenantProfile(tenant_id="t2", name="Two", created_at=5.0))
    store.put_tenant_profile(TenantProfile(tenant_id="t1", lang="id", status="suspended"))
    assert [(t.tenant_id, t.status) for t in store.tenants()] == [
        ("t1", "suspended"),
        ("t2", "active"),
    ]
    store.put_tenant_profile(store.tenant_profile("t1").model_copy(update={"status": "active"}))
    assert store.tenant_profile("t1") == TenantProfile(tenant_id="t1", lang="id")
    assert store.tenants()[0] == TenantProfile(tenant_id="t1", lang="id")


# --- the ledger ------------------------------------------------------------------------------


def test_every_change_of_the_balance_is_an_entry_and_the_balance_is_their_sum(
    store: Store,
) -> None:
    # Given a ledger opened by a charge, a test key's call, a grant and two adjustments,
    ref = LedgerRef(request_id="req_1", key_id="key_abc")
    assert store.charge("t1", "search", Decimal("0.05"), opening=OPENING, ref=ref)
    store.meter("t1", "ask", opening=OPENING, ref=LedgerRef(request_id="req_2"))
    store.grant_credits("t1", Decimal("2"), opening=OPENING, reason="welcome")
    assert store.adjust_credits("t1", Decimal("-0.5"), opening=OPENING, reason="refund typo")
    assert store.adjust_credits("t1", Decimal("0.25"), opening=OPENING, reason="goodwill")

    # then each is one entry, oldest first, and the balance is their sum.
    entries = store.ledger("t1")
    assert [(e.kind, str(e.amount), e.reason) for e in entries] == [
        ("grant", "1.00", OPENING_REASON),
        ("charge", "-0.05", "search call"),
        ("metered", "0.00", "ask call with a test key"),
        ("grant", "2.00", "welcome"),
        ("adjustment", "-0.50", "refund typo"),
        ("adjustment", "0.25", "goodwill"),
    ]
    charge = entries[1]
    assert (charge.route, charge.request_id, charge.key_id) == ("/v1/search", "req_1", "key_abc")
    assert entries[2].route == "/v1/ask" and entries[2].request_id == "req_2"
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal("2.70")
    assert store.ledger("t2") == []


def test_the_ledger_is_read_between_two_times(store: Store) -> None:
    store.grant_credits("t1", Decimal(1), opening=OPENING)
    middle = time.time()
    time.sleep(0.01)
    store.grant_credits("t1", Decimal(2), opening=OPENING)
    assert [str(e.amount) for e in store.ledger("t1", since=middle)] == ["2.00"]
    assert [str(e.amount) for e in store.ledger("t1", until=middle)] == ["1.00", "1.00"]
    assert store.ledger("t1", since=middle, until=middle) == []


def test_an_adjustment_never_takes_the_balance_below_zero_unless_allowed(store: Store) -> None:
    assert store.adjust_credits("t1", Decimal("-1.01"), opening=OPENING, reason="x") is None
    assert store.ledger("t1") == []  # refused whole: not even the ledger was opened
    after = store.adjust_credits(
        "t1", Decimal("-1.01"), opening=OPENING, reason="chargeback", allow_negative=True
    )
    assert after is not None and str(after.balance) == "-0.01"
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal("-0.01")
    # a negative balance pays for nothing
    assert store.charge("t1", "search", Decimal("0.01"), opening=OPENING) is False
    assert store.adjust_credits("t1", Decimal("0.01"), opening=OPENING, reason="x") is not None
    assert store.credit_account("t1", opening=OPENING).balance == 0


def test_an_adjustment_over_the_maximum_balance_is_refused(store: Store) -> None:
    with pytest.raises(CreditLimitError):
        store.adjust_credits("t1", Decimal(1), opening=MAX_BALANCE, reason="x")
    assert store.ledger("t1") == []


def test_a_refused_charge_writes_no_entry(store: Store) -> None:
    assert store.charge("t1", "ask", Decimal("2"), opening=OPENING) is False
    assert store.charge("t1", "ask", Decimal("0.5"), opening=OPENING) is True
    assert store.charge("t1", "ask", Decimal("0.6"), opening=OPENING) is False
    assert [e.kind for e in store.ledger("t1")] == ["grant", "charge"]
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal("0.50")


def test_a_jobs_charge_and_its_refund_are_entries_with_the_job_id(store: Store) -> None:
    job = CrossCheckJob(
        job_id="xc_0001",
        tenant_id="t1",
        documents=(),
        lang="en",
        created_at=1.0,
        charged=Decimal("0.20"),
    )
    assert store.create_job(job, opening=OPENING, ref=LedgerRef(request_id="r", key_id="key_k"))
    failed = job.next(status="failed", finished_at=2.0)
    assert store.replace_job(failed, refund=True)
    entries = store.ledger("t1")
    assert [(e.kind, str(e.amount), e.job_id, e.route) for e in entries[1:]] == [
        ("charge", "-0.20", "xc_0001", "/v1/cross-check"),
        ("refund", "0.20", "xc_0001", "/v1/cross-check"),
    ]
    assert entries[1].key_id == "key_k"
    assert entries[2].reason == "failed cross-check job"
    assert balance_is_the_sum_of_the_entries(store, "t1") == OPENING


def test_100_concurrent_charges_give_100_entries_whose_sum_is_the_balance(store: Store) -> None:
    # Given a balance that covers them all, when 100 charges race,
    results: list[bool] = []
    lock = threading.Lock()

    def charge(n: int) -> None:
        ref = LedgerRef(request_id=f"req_{n}")
        done = store.charge("t1", "ask", Decimal("0.20"), opening=Decimal(100), ref=ref)
        with lock:
            results.append(done)

    threads = [threading.Thread(target=charge, args=(n,)) for n in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    # then every one is charged once, with one entry of its own, and the entries sum to the
    # balance (the opening included).
    assert results == [True] * 100
    charges = [e for e in store.ledger("t1") if e.kind == "charge"]
    assert sorted(e.request_id or "" for e in charges) == sorted(f"req_{n}" for n in range(100))
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal(80)


def test_an_account_from_before_the_ledger_carries_its_balance_into_it(tmp_path: Path) -> None:
    # Given an embedded store file written before issue 27 (balance CHECK, no ledger),
    path = tmp_path / "store.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE credit_accounts (tenant_id TEXT PRIMARY KEY, "
            "balance_units INTEGER NOT NULL CHECK (balance_units >= 0))"
        )
        db.execute("INSERT INTO credit_accounts VALUES ('t1', 73000)")
    # when it is opened, then its balance is one carried entry, and it may now go negative.
    store = SqliteStore(path)
    assert [(e.reason, str(e.amount)) for e in store.ledger("t1")] == [(CARRIED_REASON, "7.30")]
    store.adjust_credits("t1", Decimal(-8), opening=OPENING, reason="x", allow_negative=True)
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal("-0.70")
    SqliteStore(path)  # opening it again adds nothing
    assert len(store.ledger("t1")) == 2


def test_a_dynamodb_account_from_before_the_ledger_carries_its_balance(dynamo_store: Store) -> None:
    # Given an account item as written before issue 27 (a balance, no ledger),
    client = dynamo_store.client  # type: ignore[attr-defined]
    client.put_item(
        TableName=dynamo_store.table,  # type: ignore[attr-defined]
        Item={"PK": {"S": "TENANT#t1"}, "SK": {"S": "CREDITS"}, "balance": {"N": "7.30"}},
    )
    # when it is next charged, then its balance then is carried into the ledger first.
    assert dynamo_store.charge("t1", "ask", Decimal("0.30"), opening=OPENING)
    entries = dynamo_store.ledger("t1")
    assert [(e.reason, str(e.amount)) for e in entries] == [
        (CARRIED_REASON, "7.30"),
        ("ask call", "-0.30"),
    ]
    assert balance_is_the_sum_of_the_entries(dynamo_store, "t1") == Decimal(7)


# --- issue 23 item 13: the limits of the charge paths' ledger, found by mutation testing -----


def test_an_adjustment_below_zero_on_an_open_ledger_is_refused_whole(store: Store) -> None:
    assert store.charge("t1", "ask", Decimal("0.25"), opening=OPENING)
    assert store.adjust_credits("t1", Decimal("-0.76"), opening=OPENING, reason="x") is None
    assert [e.kind for e in store.ledger("t1")] == ["grant", "charge"]
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal("0.75")


def test_an_adjustment_may_take_the_balance_to_exactly_zero_or_exactly_the_maximum(
    store: Store,
) -> None:
    # On a ledger the adjustment opens, and on one already open.
    emptied = store.adjust_credits("t1", Decimal("-1"), opening=OPENING, reason="to zero")
    assert emptied is not None and emptied.balance == 0
    assert store.adjust_credits("t1", Decimal("0.5"), opening=OPENING, reason="up") is not None
    assert store.adjust_credits("t1", Decimal("-0.5"), opening=OPENING, reason="x") is not None
    top = MAX_BALANCE - 1
    full = store.adjust_credits("t2", Decimal(1), opening=top, reason="to the maximum")
    assert full is not None and full.balance == MAX_BALANCE
    assert balance_is_the_sum_of_the_entries(store, "t2") == MAX_BALANCE


def test_a_positive_adjustment_brings_a_negative_balance_up_while_it_stays_negative(
    store: Store,
) -> None:
    store.adjust_credits("t1", Decimal(-3), opening=OPENING, reason="x", allow_negative=True)
    raised = store.adjust_credits("t1", Decimal("0.5"), opening=OPENING, reason="part paid")
    assert raised is not None and raised.balance == Decimal("-1.5")
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal("-1.5")


def test_the_smallest_adjustment_over_the_maximum_is_refused_naming_its_amount(
    store: Store,
) -> None:
    with pytest.raises(CreditLimitError, match=r"a grant of 0\.0001 credits"):
        store.adjust_credits("t1", Decimal("0.0001"), opening=MAX_BALANCE, reason="x")
    assert store.ledger("t1") == []


def test_a_grant_without_a_reason_is_an_entry_that_says_grant(store: Store) -> None:
    store.grant_credits("t1", Decimal(2), opening=OPENING)
    assert [(e.kind, e.reason) for e in store.ledger("t1")] == [
        ("grant", OPENING_REASON),
        ("grant", "grant"),
    ]


def test_a_test_key_s_job_is_a_metered_entry_with_its_request_and_job(store: Store) -> None:
    job = CrossCheckJob(
        job_id="xc_0002",
        tenant_id="t1",
        documents=(),
        lang="en",
        created_at=1.0,
        charged=Decimal("0.20"),
        test_key=True,
    )
    assert store.create_job(job, opening=OPENING, ref=LedgerRef(request_id="r2", key_id="key_t"))
    (entry,) = [e for e in store.ledger("t1") if e.kind == "metered"]
    assert (entry.amount, entry.job_id, entry.request_id, entry.key_id) == (
        0,
        "xc_0002",
        "r2",
        "key_t",
    )
    assert store.credit_account("t1", opening=OPENING).balance == OPENING


def test_a_grant_on_a_negative_balance_adds_to_it(store: Store) -> None:
    store.adjust_credits("t1", Decimal(-4), opening=OPENING, reason="x", allow_negative=True)
    assert store.grant_credits("t1", Decimal(1), opening=OPENING).balance == Decimal(-2)
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal(-2)


# DynamoDB cancels a transaction that races another on the same item (TransactionConflict);
# moto serialises them and never does, so these tests have botocore answer the first attempts
# as DynamoDB would (its before-call hook), and moto the rest.


def _conflicts(store: Store, times: int) -> list[int]:
    client = store.client  # type: ignore[attr-defined]
    calls: list[int] = []

    def conflict(**_: object) -> tuple[AWSResponse, dict[str, object]] | None:
        calls.append(1)
        if len(calls) > times:
            return None
        parsed = {
            "Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"},
            "CancellationReasons": [{"Code": "TransactionConflict"}, {"Code": "None"}],
            "ResponseMetadata": {"HTTPStatusCode": 400},
        }
        return AWSResponse("https://dynamodb", 400, {}, None), parsed

    client.meta.events.register("before-call.dynamodb.TransactWriteItems", conflict)
    return calls


def test_a_dynamodb_charge_that_conflicts_five_times_lands_once_on_the_sixth(
    dynamo_store: Store,
) -> None:
    assert dynamo_store.grant_credits("t1", Decimal(1), opening=OPENING)
    calls = _conflicts(dynamo_store, 5)
    assert dynamo_store.charge("t1", "ask", Decimal("0.5"), opening=OPENING)
    assert len(calls) == 6
    assert [e.kind for e in dynamo_store.ledger("t1")] == ["grant", "grant", "charge"]
    assert balance_is_the_sum_of_the_entries(dynamo_store, "t1") == Decimal("1.5")


def test_a_dynamodb_charge_that_always_conflicts_fails_and_takes_nothing(
    dynamo_store: Store,
) -> None:
    assert dynamo_store.grant_credits("t1", Decimal(1), opening=OPENING)
    calls = _conflicts(dynamo_store, 99)
    with pytest.raises(Exception, match="TransactionConflict"):
        dynamo_store.charge("t1", "ask", Decimal("0.5"), opening=OPENING)
    assert len(calls) == 6
    assert balance_is_the_sum_of_the_entries(dynamo_store, "t1") == Decimal(2)


def test_a_refused_dynamodb_charge_on_an_open_ledger_is_tried_twice_not_more(
    dynamo_store: Store,
) -> None:
    # Each attempt is a billed write: the first failed condition may mean an unopened ledger;
    # once the ledger is read open, the second is the balance's answer.
    assert dynamo_store.charge("t1", "ask", Decimal("0.5"), opening=OPENING)
    calls = _conflicts(dynamo_store, 0)
    assert dynamo_store.charge("t1", "ask", Decimal("0.6"), opening=OPENING) is False
    assert len(calls) == 2


def test_a_job_stored_already_failed_pays_nothing_and_one_that_takes_all_credits_is_paid(
    store: Store,
) -> None:
    # XC-2: a job that never ran is stored without a charge or an entry;
    failed = CrossCheckJob(
        job_id="xc_0003",
        tenant_id="t1",
        documents=(),
        lang="en",
        created_at=1.0,
        charged=Decimal("0.20"),
        status="failed",
        finished_at=1.0,
    )
    assert store.create_job(failed, opening=OPENING) is True
    stored = store.job("t1", "xc_0003")
    assert stored is not None and stored.status == "failed"
    assert [e.kind for e in store.ledger("t1") if e.kind != "grant"] == []
    assert store.credit_account("t1", opening=OPENING).balance == OPENING
    # a job whose charge is exactly the opening balance is paid, to zero.
    exact = failed.model_copy(update={"job_id": "xc_0004", "tenant_id": "t2", "status": "queued"})
    exact = exact.model_copy(update={"finished_at": None})
    assert store.create_job(exact, opening=Decimal("0.20")) is True
    assert store.credit_account("t2", opening=Decimal("0.20")).balance == 0


# --- issue 23 item 13: a ledger another writer opens while this one is about to --------------
# Two instances (two Lambdas, two processes on one SQLite file) charge a new tenant at once.
# SQLite serialises the opening and the charge in one IMMEDIATE transaction, so the other writer
# can only come first; on DynamoDB the read of an unopened ledger and the opening are two calls,
# and botocore's before-call hook puts the other writer's charge exactly between them. The other
# writer has its own client, never the hooked one (whose writes hold a lock), and each test runs
# under a deadline: a wrong interleaving fails it instead of hanging the suite.

DEADLINE_S = 30.0


def within_deadline(call: Callable[[], _T]) -> _T:
    """``call()`` in a daemon thread; fails the test if it has not returned within the deadline."""
    done: list[_T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(call())
        except BaseException as error:  # handed to the test's thread
            failed.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(DEADLINE_S)
    assert not worker.is_alive(), f"still running after {DEADLINE_S:.0f} s"
    if failed:
        raise failed[0]
    return done[0]


def _other_dynamo_writer(store: Store) -> DynamoStore:
    import boto3

    return DynamoStore(
        boto3.client("dynamodb", region_name=REGION),
        table=store.table,  # type: ignore[attr-defined]
        receipts_table=store.receipts_table,  # type: ignore[attr-defined]
    )


def _between_read_and_opening(store: Store, other_write: Callable[[], object]) -> list[object]:
    """Run ``other_write()`` once, after ``store`` has read its tenant's ledger unopened
    (GetItem) and before its next transaction — the opening. Returns what it returned."""
    events = store.client.meta.events  # type: ignore[attr-defined]
    read: list[bool] = []
    written: list[object] = []

    def after_read(**_: object) -> None:
        read.append(True)

    def before_opening(**_: object) -> None:
        if read and not written:
            written.append(other_write())

    events.register("before-call.dynamodb.GetItem", after_read)
    events.register("before-call.dynamodb.TransactWriteItems", before_opening)
    return written


def test_a_ledger_another_instance_opened_since_this_one_read_it_is_not_opened_twice(
    store: Store, tmp_path: Path
) -> None:
    # Given an instance that has read a new tenant's account (the opening balance, no ledger),
    assert store.credit_account("t1", opening=OPENING).balance == OPENING
    other: Store = (
        SqliteStore(tmp_path / "store.sqlite")
        if isinstance(store, SqliteStore)
        else _other_dynamo_writer(store)
    )
    # when another instance opens the ledger with a charge and then this one charges,
    assert within_deadline(lambda: other.charge("t1", "ask", Decimal("0.25"), opening=OPENING))
    assert within_deadline(lambda: store.charge("t1", "ask", Decimal("0.25"), opening=OPENING))
    # then both charges are on the one ledger, opened once.
    assert [(e.kind, e.reason) for e in store.ledger("t1")] == [
        ("grant", OPENING_REASON),
        ("charge", "ask call"),
        ("charge", "ask call"),
    ]
    assert balance_is_the_sum_of_the_entries(store, "t1") == Decimal("0.50")


def test_a_dynamodb_ledger_opened_between_a_charge_s_read_and_its_opening_takes_the_charge(
    dynamo_store: Store,
) -> None:
    # Given a charge on a new tenant that has read the ledger unopened, when another instance
    # opens it (with a charge of its own) before this charge's opening,
    other = _other_dynamo_writer(dynamo_store)
    written = _between_read_and_opening(
        dynamo_store, lambda: other.charge("t1", "ask", Decimal("0.25"), opening=OPENING)
    )
    charged = within_deadline(
        lambda: dynamo_store.charge("t1", "ask", Decimal("0.25"), opening=OPENING)
    )
    # then its own opening is refused by its condition, not raised, and the charge lands on
    # the other's ledger: one opening, two charges.
    assert written == [True]
    assert charged is True
    assert [(e.kind, e.reason) for e in dynamo_store.ledger("t1")] == [
        ("grant", OPENING_REASON),
        ("charge", "ask call"),
        ("charge", "ask call"),
    ]
    assert balance_is_the_sum_of_the_entries(dynamo_store, "t1") == Decimal("0.50")


def test_a_dynamodb_charge_the_other_instance_s_opening_no_longer_covers_is_refused(
    dynamo_store: Store,
) -> None:
    # The opening balance covered the charge when it was read; the other instance's charge on
    # the ledger it opened meanwhile leaves 0.25, so this one (0.50) is refused, writing nothing.
    other = _other_dynamo_writer(dynamo_store)
    written = _between_read_and_opening(
        dynamo_store, lambda: other.charge("t1", "ask", Decimal("0.75"), opening=OPENING)
    )
    charged = within_deadline(
        lambda: dynamo_store.charge("t1", "ask", Decimal("0.50"), opening=OPENING)
    )
    assert written == [True]
    assert charged is False
    assert [e.kind for e in dynamo_store.ledger("t1")] == ["grant", "charge"]
    assert balance_is_the_sum_of_the_entries(dynamo_store, "t1") == Decimal("0.25")
