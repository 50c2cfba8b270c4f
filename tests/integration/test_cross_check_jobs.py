"""Cross-check jobs run in-process (XC-2 … XC-4, XC-6): the steps chained by the runner, the
worker pool's claims, leases and resumption, failures and refunds — on real SQLite files, with
the offline model (its deterministic judge) or the scripted one."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tanda.auth import Principal
from tanda.contract.v1_cross_check import V1CrossCheckRequest
from tanda.pipeline import cross_check as steps
from tanda.pipeline.runners.cross_check import (
    CrossCheckWorkers,
    JobLease,
    claim_job,
    run_cross_check,
)
from tanda.records.jobs import CrossCheckJob
from tanda.service.cross_check import cross_check_status, start_cross_check
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.cross_check import CONTRADICTION, ingest_statutes

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / "cross_check"
TENANT = "acme"
PAYING = Principal(tenant_id=TENANT, partner_id="key-1", subject="key-1")
TESTING = Principal(tenant_id=TENANT, partner_id="key-2", subject="key-2", is_test=True)


OPENING = Decimal("10.00")


def runtime_at(home: Path, **settings: Any) -> Runtime:
    return Runtime(settings=Settings(home=home, initial_credits=OPENING, **settings))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def documents(home: Path, tmp_path: Path) -> list[str]:
    runtime = runtime_at(home)
    return ingest_statutes(runtime.search_index, tmp_path / "statutes", TENANT)


def queue(
    runtime: Runtime,
    documents: list[str],
    *,
    principal: Principal = PAYING,
    lang: str | None = "en",
    scenario: str | None = None,
) -> steps.XcJobRef:
    accepted = start_cross_check(
        runtime,
        principal,
        V1CrossCheckRequest(document_ids=documents, lang=lang),
        scenario=scenario,
        launch=False,
    )
    return steps.XcJobRef(tenant_id=TENANT, job_id=accepted.id)


def stored(runtime: Runtime, ref: steps.XcJobRef) -> CrossCheckJob:
    job = runtime.store.job(ref.tenant_id, ref.job_id)
    assert job is not None
    return job


def wait_until(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    """Wait for something another thread does (never a deadline of the code under test)."""
    limit = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < limit, "the condition never held"
        time.sleep(0.02)


# --- one job, end to end ---------------------------------------------------------------------


def test_a_job_completes_with_findings_from_the_claim_records(
    home: Path, documents: list[str]
) -> None:
    # Given the 2008 law and its 2016 amendment, and a queued job,
    runtime = runtime_at(home)
    ref = queue(runtime, documents)

    # when the in-process runner runs it,
    run_cross_check(runtime.cross_check_ports(), ref)

    # then it is completed: the Pasal 29 penalty is a contradiction (first), Pasal 28 ayat (1)
    # a support, each side a claim record of its document with its page, span and quote.
    view = cross_check_status(runtime, PAYING, ref.job_id)
    assert view.status == "completed" and view.version == "xchk-v4"
    assert view.findings is not None
    assert [f.kind for f in view.findings] == ["contradiction", "support"]
    contradiction = view.findings[0]
    assert (contradiction.a.document_id, contradiction.b.document_id) == tuple(documents)
    assert CONTRADICTION in contradiction.a.quote
    assert "4 (empat) tahun" in contradiction.b.quote
    assert contradiction.explanation.startswith('Both state "dipidana pidana penjara paling lama"')
    records = {r.node_id: r for r in runtime.search_index.records(steps_record_query(documents))}
    for side in (contradiction.a, contradiction.b):
        record = records[side.node_id]
        assert (side.statement, side.quote, side.page_no) == (
            record.statement,  # type: ignore[union-attr]
            record.quote,
            record.page_no,
        )
        assert (side.span.start, side.span.end) == (record.span.start, record.span.end)
    # The stats count what took part and what was judged; the cost is one ask.
    stats = view.stats
    assert stats is not None
    assert stats.documents == 2 and stats.claims == stats.claims_available > 0
    assert stats.similarity == "lexical"
    assert stats.verdicts.contradiction == 1 and stats.verdicts.support == 1
    assert stats.candidates_judged == stats.candidates > 0
    assert stats.model_calls == stats.candidates_judged
    assert view.cost is not None and view.cost.credits_charged == Decimal("0.20")
    job = stored(runtime, ref)
    assert job.attempts == 1 and job.lease_owner is None and job.finished_at is not None


def steps_record_query(documents: list[str]) -> Any:
    from tanda.records.documents import SearchScope
    from tanda.records.structure import RecordQuery

    return RecordQuery(
        scope=SearchScope(tenant_id=TENANT, document_ids=tuple(documents)), kinds=("claim",)
    )


def test_the_same_documents_give_identical_findings_in_the_same_order(
    home: Path, documents: list[str]
) -> None:
    runtime = runtime_at(home, xc_judge_concurrency=4, xc_batch_size=1)
    views = []
    for _ in range(3):
        ref = queue(runtime, documents)
        run_cross_check(runtime.cross_check_ports(), ref)
        views.append(cross_check_status(runtime, PAYING, ref.job_id))
    assert views[0].findings == views[1].findings == views[2].findings
    assert views[0].stats == views[1].stats == views[2].stats


def test_the_explanation_follows_lang_and_statements_stay_verbatim(
    home: Path, documents: list[str]
) -> None:
    runtime = runtime_at(home)
    english, turkish = queue(runtime, documents, lang="en"), queue(runtime, documents, lang="tr")
    for ref in (english, turkish):
        run_cross_check(runtime.cross_check_ports(), ref)
    en = cross_check_status(runtime, PAYING, english.job_id).findings
    tr = cross_check_status(runtime, PAYING, turkish.job_id).findings
    assert en and tr
    assert en[0].explanation.startswith("Both state")
    assert tr[0].explanation.startswith("İkisi de")
    assert [(f.a, f.b) for f in en] == [(f.a, f.b) for f in tr]


# --- failures: stored failed with a code, refunded --------------------------------------------


def test_a_job_whose_every_judge_call_fails_is_failed_and_refunded(
    home: Path, documents: list[str]
) -> None:
    runtime = runtime_at(home, model=f"scripted:{SCENARIOS}")
    ref = queue(runtime, documents, scenario="judge_down")
    assert runtime.store.credit_account(TENANT, opening=OPENING).balance == Decimal("9.80")

    run_cross_check(runtime.cross_check_ports(), ref)

    view = cross_check_status(runtime, PAYING, ref.job_id)
    assert view.status == "failed"
    assert view.error is not None and view.error.code == "judge_unavailable"
    assert view.findings is None and view.stats is None and view.cost is None
    account = runtime.store.credit_account(TENANT, opening=OPENING)
    assert account.balance == OPENING
    assert account.usage_of("cross_check").refunded == 1


def test_a_test_key_job_that_fails_is_not_refunded_what_it_never_paid(
    home: Path, documents: list[str]
) -> None:
    runtime = runtime_at(home, model=f"scripted:{SCENARIOS}")
    ref = queue(runtime, documents, principal=TESTING, scenario="judge_down")
    run_cross_check(runtime.cross_check_ports(), ref)
    assert stored(runtime, ref).status == "failed"
    usage = runtime.store.credit_account(TENANT, opening=OPENING).usage_of("cross_check")
    assert (usage.metered, usage.charged, usage.refunded) == (1, 0, 0)


def test_replies_naming_other_claims_are_dropped_and_counted(
    home: Path, documents: list[str]
) -> None:
    runtime = runtime_at(home, model=f"scripted:{SCENARIOS}")
    ref = queue(runtime, documents, scenario="echo_unknown")
    run_cross_check(runtime.cross_check_ports(), ref)

    view = cross_check_status(runtime, PAYING, ref.job_id)
    assert view.status == "completed" and view.findings == []
    assert view.stats is not None and view.stats.dropped == view.stats.candidates_judged > 0


def test_a_document_gone_before_the_run_fails_the_job_documents_unavailable(
    home: Path, documents: list[str]
) -> None:
    # Given a job naming a document the tenant no longer has,
    runtime = runtime_at(home)
    ref = queue(runtime, documents)
    job = stored(runtime, ref)
    gone = job.documents[1].model_copy(update={"document_id": "doc_removed"})
    assert runtime.store.replace_job(job.next(documents=(job.documents[0], gone)))

    run_cross_check(runtime.cross_check_ports(), ref)

    view = cross_check_status(runtime, PAYING, ref.job_id)
    assert view.status == "failed" and view.error is not None
    assert view.error.code == "documents_unavailable"
    assert runtime.store.credit_account(TENANT, opening=OPENING).balance == OPENING


def test_an_unexpected_failure_says_nothing_of_its_cause(
    home: Path, documents: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = runtime_at(home)
    ref = queue(runtime, documents)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret detail /etc/passwd")

    monkeypatch.setattr("tanda.crosscheck.plan_cross_check", broken)
    run_cross_check(runtime.cross_check_ports(), ref)

    view = cross_check_status(runtime, PAYING, ref.job_id)
    assert view.status == "failed" and view.error is not None
    assert (view.error.code, view.error.message) == (
        "internal_error",
        "The cross-check could not be completed.",
    )


def test_a_failed_batch_counts_its_pairs_failed_and_the_job_still_completes(
    home: Path, documents: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given batches of one pair, the first of which fails as a whole,
    runtime = runtime_at(home, xc_batch_size=1)
    ref = queue(runtime, documents)
    judge = steps.judge_cross_check_batch

    def first_fails(ports: Any, batch: steps.XcBatch, **kwargs: Any) -> steps.XcBatchResult:
        if batch.index == 0:
            raise RuntimeError("lambda died")
        return judge(ports, batch, **kwargs)

    monkeypatch.setattr("tanda.pipeline.runners.cross_check.judge_cross_check_batch", first_fails)
    run_cross_check(runtime.cross_check_ports(), ref)

    view = cross_check_status(runtime, PAYING, ref.job_id)
    assert view.status == "completed" and view.stats is not None
    assert view.stats.verdicts.failed == 1
    assert view.stats.model_calls == view.stats.candidates_judged - 1


def test_a_finished_job_is_not_run_again(home: Path, documents: list[str]) -> None:
    runtime = runtime_at(home)
    ref = queue(runtime, documents)
    run_cross_check(runtime.cross_check_ports(), ref)
    done = stored(runtime, ref)
    run_cross_check(runtime.cross_check_ports(), ref)
    assert stored(runtime, ref) == done


# --- the worker pool ------------------------------------------------------------------------


@pytest.fixture
def pools() -> Iterator[list[CrossCheckWorkers]]:
    started: list[CrossCheckWorkers] = []
    yield started
    for pool in started:
        pool.stop()


def pool_of(runtime: Runtime, pools: list[CrossCheckWorkers], **options: Any) -> CrossCheckWorkers:
    settings = runtime.settings
    pool = CrossCheckWorkers(
        runtime.cross_check_ports(),
        workers=options.pop("workers", settings.xc_workers),
        lease_s=options.pop("lease_s", settings.xc_lease_s),
        max_attempts=options.pop("max_attempts", settings.xc_max_attempts),
        **options,
    )
    pools.append(pool)
    return pool


def test_a_launched_job_is_run_by_the_pool(
    home: Path, documents: list[str], pools: list[CrossCheckWorkers]
) -> None:
    runtime = runtime_at(home)
    ref = queue(runtime, documents)
    pool = pool_of(runtime, pools)

    pool.launch(stored(runtime, ref))

    wait_until(lambda: stored(runtime, ref).status == "completed")
    assert stored(runtime, ref).attempts == 1


def interrupted(runtime: Runtime, ref: steps.XcJobRef, *, attempts: int, lease_left: float) -> None:
    """Make the job look as a dead (or live) worker left it: running, leased by someone else."""
    job = stored(runtime, ref)
    running = job.next(
        status="running",
        attempts=attempts,
        started_at=time.time() - 60,
        lease_owner="host:1:dead",
        lease_until=time.time() + lease_left,
    )
    assert runtime.store.replace_job(running)


def test_a_job_whose_worker_died_is_resumed_by_the_next_pool(
    home: Path, documents: list[str], pools: list[CrossCheckWorkers]
) -> None:
    runtime = runtime_at(home)
    ref = queue(runtime, documents)
    interrupted(runtime, ref, attempts=1, lease_left=-1)

    pool_of(runtime, pools).start()

    wait_until(lambda: stored(runtime, ref).status == "completed")
    assert stored(runtime, ref).attempts == 2


def test_a_job_interrupted_as_often_as_allowed_is_failed_and_refunded(
    home: Path, documents: list[str], pools: list[CrossCheckWorkers]
) -> None:
    runtime = runtime_at(home, xc_max_attempts=2)
    ref = queue(runtime, documents)
    interrupted(runtime, ref, attempts=2, lease_left=-1)

    pool_of(runtime, pools).start()

    wait_until(lambda: stored(runtime, ref).status == "failed")
    job = stored(runtime, ref)
    assert job.error is not None and job.error.code == "interrupted"
    assert job.refunded and job.lease_owner is None
    assert runtime.store.credit_account(TENANT, opening=OPENING).balance == OPENING


def test_a_job_under_a_live_lease_is_left_to_its_worker(home: Path, documents: list[str]) -> None:
    runtime = runtime_at(home)
    ref = queue(runtime, documents)
    interrupted(runtime, ref, attempts=1, lease_left=60)

    taken = claim_job(
        runtime.store, stored(runtime, ref), owner="me", lease_s=30, max_attempts=2, now=time.time()
    )
    assert taken is None
    assert stored(runtime, ref).lease_owner == "host:1:dead"


def test_two_pools_on_one_store_run_a_job_once(
    home: Path, documents: list[str], pools: list[CrossCheckWorkers]
) -> None:
    # Given two pools (two processes on one SQLite file) whose runs are counted,
    runtime = runtime_at(home)
    refs = [queue(runtime, documents) for _ in range(6)]
    runs: list[str] = []
    lock = threading.Lock()

    def counted(ports: steps.CrossCheckPorts, ref: steps.XcJobRef) -> None:
        with lock:
            runs.append(ref.job_id)
        run_cross_check(ports, ref)

    first = pool_of(runtime, pools, run=counted, workers=3)
    second = pool_of(runtime_at(home), pools, run=counted, workers=3)

    # when both start looking at once,
    first.start()
    second.start()

    # then every job completes, each run exactly once.
    wait_until(lambda: all(stored(runtime, r).status == "completed" for r in refs))
    assert sorted(runs) == sorted(r.job_id for r in refs)


def test_a_running_job_keeps_its_lease_renewed_until_it_ends(
    home: Path, documents: list[str]
) -> None:
    # Given a job claimed with a lease of 0.3 s,
    runtime = runtime_at(home)
    ref = queue(runtime, documents)
    claimed = claim_job(
        runtime.store,
        stored(runtime, ref),
        owner="me",
        lease_s=0.3,
        max_attempts=2,
        now=time.time(),
    )
    assert claimed is not None and claimed.lease_until is not None

    # when it runs for a while under JobLease, then the lease moves on past its first expiry,
    lease = JobLease(runtime.store, ref, owner="me", lease_s=0.3)
    with lease:
        wait_until(lambda: (stored(runtime, ref).lease_until or 0) > claimed.lease_until + 0.15)
    # and once the block has ended, nothing renews it any more.
    assert not lease.renewing


def test_a_lease_another_worker_took_over_is_no_longer_renewed(
    home: Path, documents: list[str]
) -> None:
    runtime = runtime_at(home)
    ref = queue(runtime, documents)
    interrupted(runtime, ref, attempts=1, lease_left=60)
    assert JobLease(runtime.store, ref, owner="me", lease_s=30).renew() is False
    assert stored(runtime, ref).lease_owner == "host:1:dead"
