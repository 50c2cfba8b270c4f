"""The ``Store`` contract for cross-check jobs (XC-1, XC-2): the same tests against
``SqliteStore`` on a temporary file and ``DynamoStore`` under moto, tables from template.yaml."""

from __future__ import annotations

import secrets
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.sqlite_store import SqliteStore
from tanda.contract.v1_cross_check import (
    ClaimSpan,
    CrossCheckDocument,
    CrossCheckFinding,
    FindingSide,
    JobError,
)
from tanda.credits import Usage
from tanda.ports import Store
from tanda.records.jobs import CrossCheckJob

OPENING = Decimal("1.00")
PRICE = Decimal("0.20")


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "sqlite":
        return SqliteStore(tmp_path / "store.sqlite")
    found: Store = request.getfixturevalue("dynamo_store")
    return found


def job(job_id: str = "xc_0001", tenant: str = "t1", **changes: Any) -> CrossCheckJob:
    base = CrossCheckJob(
        job_id=job_id,
        tenant_id=tenant,
        documents=(
            CrossCheckDocument(document_id="d1", label="UU 11/2008"),
            CrossCheckDocument(document_id="d2", label="UU 19/2016"),
        ),
        lang="en",
        created_at=100.0,
        charged=PRICE,
    )
    return base.model_copy(update=changes)


def finding(n: int, text: str = "Pidana penjara paling lama 6 tahun.") -> CrossCheckFinding:
    def side(document_id: str) -> FindingSide:
        return FindingSide(
            document_id=document_id,
            node_id=f"{document_id}:c{n}",
            statement=text,
            quote=text,
            page_no=n,
            span=ClaimSpan(start=0, end=len(text)),
        )

    return CrossCheckFinding(kind="contradiction", explanation="6 vs 4", a=side("d1"), b=side("d2"))


# --- creating a job pays for it -----------------------------------------------------------------


def test_creating_a_job_stores_it_and_charges_it_once_in_one_write(store: Store) -> None:
    # Given a tenant whose ledger opens with 1.00,
    # when a job charged 0.20 is created, then it reads back equal, and the ledger shows one
    # charged cross-check call of 0.20.
    assert store.create_job(job(), opening=OPENING) is True
    assert store.job("t1", "xc_0001") == job()
    account = store.credit_account("t1", opening=OPENING)
    assert account.balance == Decimal("0.80")
    assert account.usage_of("cross_check") == Usage(charged=1, credits=Decimal("0.20"))


def test_a_job_the_balance_does_not_cover_is_not_created_nor_charged(store: Store) -> None:
    # Given a balance of 0.10 (opening), when a 0.20 job is created, then nothing is written.
    assert store.create_job(job(), opening=Decimal("0.10")) is False
    assert store.job("t1", "xc_0001") is None
    assert store.credit_account("t1", opening=Decimal("0.10")).usage_of("cross_check") == Usage()
    assert store.open_jobs(limit=10) == []


def test_a_test_key_job_is_metered_and_never_charged(store: Store) -> None:
    # Given a test-key job, when it is created even with an empty balance, then it is counted
    # metered and the balance is untouched (ASK-12).
    assert store.create_job(job(test_key=True, charged=Decimal("0.00")), opening=Decimal(0))
    account = store.credit_account("t1", opening=Decimal(0))
    assert account.balance == Decimal("0.00")
    assert account.usage_of("cross_check") == Usage(metered=1)


def test_a_job_id_is_created_once(store: Store) -> None:
    store.create_job(job(), opening=OPENING)
    with pytest.raises(ValueError, match="exists"):
        store.create_job(job(), opening=OPENING)
    # the second attempt charged nothing
    assert store.credit_account("t1", opening=OPENING).balance == Decimal("0.80")


def test_a_job_is_invisible_to_another_tenant(store: Store) -> None:
    store.create_job(job(), opening=OPENING)
    assert store.job("t2", "xc_0001") is None
    assert store.jobs("t2", scheduled=None, limit=10).jobs == ()
    assert store.replace_job(job(tenant="t2").next(status="failed")) is False


# --- every later write is conditional on the version --------------------------------------------


def test_a_replace_applies_only_on_the_version_it_was_read_at(store: Store) -> None:
    # Given a stored job at version 0,
    created = job()
    store.create_job(created, opening=OPENING)

    # when it is started from version 0, then a second start from the same version fails,
    started = created.next(status="running", attempts=1, started_at=101.0)
    assert store.replace_job(started) is True
    assert store.replace_job(created.next(status="running", attempts=1)) is False

    # and the stored job is the first writer's.
    assert store.job("t1", "xc_0001") == started
    assert started.version == 1


@pytest.mark.parametrize("attempt", range(3))
def test_of_concurrent_starts_exactly_one_wins(store: Store, attempt: int) -> None:
    # Given one queued job and eight workers that read it at the same version,
    created = job()
    store.create_job(created, opening=OPENING)
    barrier = threading.Barrier(8)
    wins: list[str] = []

    def start(worker: str) -> None:
        barrier.wait()
        if store.replace_job(created.next(status="running", lease_owner=worker)):
            wins.append(worker)

    threads = [threading.Thread(target=start, args=(f"w{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # then exactly one started it, and it is that one's lease that is stored.
    assert len(wins) == 1
    assert store.job("t1", "xc_0001").lease_owner == wins[0]  # type: ignore[union-attr]


def test_a_failed_job_is_refunded_in_the_write_that_fails_it(store: Store) -> None:
    # Given a charged, running job,
    running = job().next(status="running")
    store.create_job(job(), opening=OPENING)
    store.replace_job(running)

    # when it is failed with a refund, then the balance is whole again and the refund counted;
    failed = running.next(
        status="failed", refunded=True, error=JobError(code="interrupted", message="…")
    )
    assert store.replace_job(failed, refund=True) is True
    account = store.credit_account("t1", opening=OPENING)
    assert account.balance == Decimal("1.00")
    assert account.usage_of("cross_check") == Usage(charged=1, refunded=1, credits=Decimal("0.00"))

    # and a second refund from the same version cannot happen.
    assert store.replace_job(failed, refund=True) is False
    assert store.credit_account("t1", opening=OPENING).balance == Decimal("1.00")


def test_a_job_larger_than_an_item_round_trips_and_shrinks_again(store: Store) -> None:
    # Given a job whose findings hold ~1.5 MB of text that does not compress,
    created = job()
    store.create_job(created, opening=OPENING)
    big = created.next(
        status="completed",
        findings=tuple(finding(n, secrets.token_hex(250)) for n in range(1500)),
    )

    # when it is stored, then it reads back whole,
    assert store.replace_job(big) is True
    assert store.job("t1", "xc_0001") == big

    # and a smaller version replaces it whole too (no page of the big one is left in it).
    small = big.next(findings=(finding(1),))
    assert store.replace_job(small) is True
    assert store.job("t1", "xc_0001") == small


# --- listing ------------------------------------------------------------------------------------


def test_jobs_are_listed_newest_first_in_pages(store: Store) -> None:
    # Given five jobs of t1 (ids grow with creation) and one of t2,
    for n in range(5):
        store.create_job(job(f"xc_000{n}", created_at=100.0 + n), opening=Decimal(10))
    store.create_job(job("xc_0009", tenant="t2"), opening=Decimal(10))

    # when t1 lists two at a time, then it gets its own, newest first, until the last page.
    first = store.jobs("t1", scheduled=None, limit=2)
    assert [j.job_id for j in first.jobs] == ["xc_0004", "xc_0003"]
    second = store.jobs("t1", scheduled=None, limit=2, after=first.next_after)
    assert [j.job_id for j in second.jobs] == ["xc_0002", "xc_0001"]
    last = store.jobs("t1", scheduled=None, limit=2, after=second.next_after)
    assert [j.job_id for j in last.jobs] == ["xc_0000"]
    assert last.next_after is None


def test_scheduled_jobs_are_listed_apart(store: Store) -> None:
    # Given on-demand and scheduled jobs interleaved,
    for n in range(6):
        schedule = "nightly" if n % 2 else None
        store.create_job(job(f"xc_000{n}", schedule=schedule), opening=Decimal(10))

    # when the scheduled ones are listed a page at a time, then only they come, newest first.
    first = store.jobs("t1", scheduled=True, limit=2)
    assert [j.job_id for j in first.jobs] == ["xc_0005", "xc_0003"]
    rest = store.jobs("t1", scheduled=True, limit=2, after=first.next_after)
    assert [j.job_id for j in rest.jobs] == ["xc_0001"]
    assert rest.next_after is None
    assert [j.job_id for j in store.jobs("t1", scheduled=False, limit=10).jobs] == [
        "xc_0004",
        "xc_0002",
        "xc_0000",
    ]


def test_open_jobs_are_the_queued_and_running_ones_of_every_tenant_oldest_first(
    store: Store,
) -> None:
    # Given a queued job of t2 (newest), a running one and a finished one of t1,
    store.create_job(job("xc_0003", tenant="t2", created_at=300.0), opening=Decimal(10))
    running = job("xc_0002", created_at=200.0)
    store.create_job(running, opening=Decimal(10))
    store.replace_job(running.next(status="running"))
    finished = job("xc_0001", created_at=100.0)
    store.create_job(finished, opening=Decimal(10))
    store.replace_job(finished.next(status="completed"))

    # when the open jobs are read, then they are the running and the queued one, oldest first.
    assert [(j.tenant_id, j.job_id) for j in store.open_jobs(limit=10)] == [
        ("t1", "xc_0002"),
        ("t2", "xc_0003"),
    ]
    assert [j.job_id for j in store.open_jobs(limit=1)] == ["xc_0002"]
