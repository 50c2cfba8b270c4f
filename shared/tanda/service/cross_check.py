"""The use cases behind ``/v1/cross-check`` (XC-1 … XC-6; docs/cross-check.md), and what the CLI
and the MCP tool ``cross_check`` (XC-5) call: start a job, read it, list them, wait for one.

``POST``: the throttle and the balance (429, 402, ``service.metering``: kind ``cross_check``,
priced as one ask) → every document must be the caller's (404 otherwise, not saying which) → the
explanation language (the /v1/ask chain) → ONE write stores the job and charges it (or meters a
``dip_test_`` key; 402 when concurrent calls spent the balance) → the job is handed to whoever
runs jobs. A failure after that never turns the POST into an error: a job that cannot be handed
over is stored ``failed`` and refunded, and ``GET`` says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from tanda.ask.lang import answer_lang
from tanda.contract.v1_cross_check import (
    CROSS_CHECK_VERSION,
    CrossCheckCost,
    CrossCheckDocument,
    CrossCheckJobSummary,
    JobError,
    V1CrossCheckAccepted,
    V1CrossCheckJob,
    V1CrossCheckList,
    V1CrossCheckRequest,
)
from tanda.credits import as_credits
from tanda.errors import DocumentNotFound, NotFound, PaymentRequired
from tanda.pipeline.cross_check import XcJobRef, fail_job, new_job_id
from tanda.records.documents import SearchScope
from tanda.records.jobs import CrossCheckJob
from tanda.service.metering import admit_v1_call, call_ref, price_of

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.pipeline.runners.cross_check import JobLauncher
    from tanda.service.runtime import Runtime

LAUNCH_FAILED = JobError(
    code="launch_failed", message="The job could not be started. Nothing was charged."
)


class JobNotFound(NotFound):
    code = "job_not_found"
    message = "No such cross-check job."


def caller_documents(
    runtime: Runtime, tenant_id: str, document_ids: Sequence[str]
) -> tuple[CrossCheckDocument, ...]:
    """The named documents of the tenant, in the order named; 404 when any is not the tenant's
    (unknown and another tenant's read alike, XC-1)."""
    scope = SearchScope(tenant_id=tenant_id, document_ids=tuple(document_ids))
    found = {d.document_id: d for d in runtime.search_index.documents(scope)}
    if any(document_id not in found for document_id in document_ids):
        raise DocumentNotFound()
    return tuple(CrossCheckDocument(document_id=i, label=found[i].title or i) for i in document_ids)


def start_cross_check(
    runtime: Runtime,
    principal: Principal,
    body: V1CrossCheckRequest,
    *,
    scenario: str | None = None,
    launch: bool = True,
    clock: Callable[[], float] = time.time,
) -> V1CrossCheckAccepted:
    """Queue a job and charge it once (XC-1, XC-2). ``launch=False`` leaves it queued for a
    worker pool (``tanda cross-check`` without ``--wait``)."""
    admit_v1_call(runtime, principal, "cross_check", clock=clock)
    documents = caller_documents(runtime, principal.tenant_id, body.document_ids)
    now = clock()
    job = CrossCheckJob(
        job_id=new_job_id(now),
        tenant_id=principal.tenant_id,
        documents=documents,
        lang=answer_lang(runtime.store, principal.tenant_id, body.lang),
        created_at=now,
        # ASK-12: a dip_test_ key is metered, never charged.
        charged=as_credits(
            Decimal(0) if principal.is_test else price_of(runtime.settings, "cross_check")
        ),
        test_key=principal.is_test,
        scenario=scenario,
    )
    # XC-2: charged once, as one ask, in the write that creates the job.
    opening = runtime.settings.initial_credits
    if not runtime.store.create_job(job, opening=opening, ref=call_ref(principal)):
        raise PaymentRequired()
    if launch:
        hand_over(runtime.cross_check_jobs, runtime, job, clock)
    return V1CrossCheckAccepted(id=job.job_id, status=job.status, documents=list(documents))


def hand_over(
    launcher: JobLauncher, runtime: Runtime, job: CrossCheckJob, clock: Callable[[], float]
) -> None:
    try:
        launcher.launch(job)
    except Exception:
        fail_job(
            runtime.store,
            XcJobRef(tenant_id=job.tenant_id, job_id=job.job_id),
            LAUNCH_FAILED,
            now=clock(),
        )


PARTIAL_WARNING: dict[str, str] = {
    "tr": (
        "Kısmi inceleme: {total} aday çiftten {capped} tanesi sınırı aştığı için "
        "değerlendirilmedi; bulgular eksik olabilir."
    ),
    "id": (
        "Pemeriksaan sebagian: {capped} dari {total} pasangan kandidat melampaui batas dan tidak "
        "dinilai; temuan mungkin tidak lengkap."
    ),
    "en": (
        "Partial check: {capped} of {total} candidate pairs were over the judging cap and were "
        "not judged; findings may be missing."
    ),
}
"""A job whose candidates were capped says so in the explanations' language (XC-4)."""


def partial_warning(job: CrossCheckJob, capped: int) -> str:
    total = job.stats.candidates if job.stats is not None else capped
    template = PARTIAL_WARNING.get(job.lang, PARTIAL_WARNING["en"])
    return template.format(capped=capped, total=total)


def job_view(job: CrossCheckJob) -> V1CrossCheckJob:
    """A job as ``GET /v1/cross-check/{id}`` shows it (XC-2)."""
    view = V1CrossCheckJob(id=job.job_id, status=job.status, documents=list(job.documents))
    if job.status == "completed":
        capped = job.stats.candidates_capped if job.stats is not None else 0
        return view.model_copy(
            update={
                "version": CROSS_CHECK_VERSION,
                "findings": list(job.findings),
                "stats": job.stats,
                # XC-4 (issue 23): candidates over the cap were never judged — say so.
                "coverage": "partial" if capped else "complete",
                "warnings": [partial_warning(job, capped)] if capped else None,
                "cost": CrossCheckCost(
                    credits_charged=as_credits(job.charged), test_key=job.test_key
                ),
            }
        )
    if job.status == "failed":
        return view.model_copy(update={"error": job.error})
    return view


def cross_check_status(runtime: Runtime, principal: Principal, job_id: str) -> V1CrossCheckJob:
    """The caller's job (XC-2): free, never throttled; another tenant's id is a 404."""
    job = runtime.store.job(principal.tenant_id, job_id)
    if job is None:
        raise JobNotFound()
    return job_view(job)


def cross_check_jobs(
    runtime: Runtime,
    principal: Principal,
    *,
    scheduled: bool | None,
    limit: int,
    cursor: str | None,
) -> V1CrossCheckList:
    """The caller's jobs, newest first, a page at a time (``scheduled``: only those a schedule
    started, XC-5)."""
    page = runtime.store.jobs(principal.tenant_id, scheduled=scheduled, limit=limit, after=cursor)
    return V1CrossCheckList(
        jobs=[
            CrossCheckJobSummary(
                id=job.job_id,
                status=job.status,
                documents=list(job.documents),
                created_at=job.created_at,
                finished_at=job.finished_at,
                schedule=job.schedule,
            )
            for job in page.jobs
        ],
        next_cursor=page.next_after,
    )


def wait_for_cross_check(
    runtime: Runtime,
    principal: Principal,
    job_id: str,
    *,
    timeout_s: float,
    poll_s: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> V1CrossCheckJob:
    """Poll the job until it is completed or failed, or ``timeout_s`` passed; the job as last
    read (XC-5: what the MCP tool returns)."""
    deadline = clock() + timeout_s
    while True:
        view = cross_check_status(runtime, principal, job_id)
        if view.status in ("completed", "failed") or clock() >= deadline:
            return view
        sleep(min(poll_s, max(0.0, deadline - clock())))


def run_queued_job(runtime: Runtime, tenant_id: str, job_id: str) -> bool:
    """Run one queued job in this process (``tanda cross-check --wait``), holding its lease as
    the worker pool would; ``False`` when it was not to take (finished, or running under
    another live lease)."""
    return runtime.run_job_here(XcJobRef(tenant_id=tenant_id, job_id=job_id))
