"""Who runs cross-check jobs (XC-2, XC-5; DESIGN §4 "Jobs"). A ``JobLauncher`` is handed each
new job: in-process, :class:`CrossCheckWorkers` — the bounded worker pool of ``tanda serve`` —
picks it up from the Store; on AWS, :class:`StepFunctionsJobs` starts one execution of the STANDARD
state machine per job. Both chain the same steps (:mod:`tanda.pipeline.cross_check`); neither
reimplements one.

The pool (embedded):

- jobs wait ``queued`` in the Store, so a job created by another process (``tanda cross-check``
  without ``--wait``, a second server on the same file) is run too; ``launch`` only wakes the
  pool, which also looks every ``lease_s / 3`` seconds;
- a worker *claims* a job with one conditional write — ``running``, one more attempt, a lease of
  ``TANDA_XC_LEASE_S`` in its name — and renews the lease every third of it while it works;
- a ``running`` job whose lease ran out lost its process: the next pool that sees it resumes it
  from the start (its steps are deterministic) — or, once it was started
  ``TANDA_XC_MAX_ATTEMPTS`` times, fails it with ``interrupted`` and refunds it. No job stays
  ``running`` forever.

The same pool ingests uploaded documents (issue 26): with ``process_upload`` (the per-document
handler, ``tanda.service.uploads.process_upload``, handed in by the factory) it also takes the
Store's open uploads — ``queued``, or ``processing`` under a lease that ran out — each on a worker
of the same budget; the handler claims it (one conditional write) and holds its lease itself.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from tanda.pipeline.cross_check import (
    CrossCheckPorts,
    JobAlreadyFinished,
    XcBatch,
    XcBatchResult,
    XcFailure,
    XcFinish,
    XcJobInput,
    XcJobRef,
    fail_cross_check,
    fail_job,
    failed_batch,
    finish_cross_check,
    job_error,
    judge_cross_check_batch,
    prepare_cross_check,
    transition,
)

if TYPE_CHECKING:
    from tanda.ports import Store
    from tanda.records.jobs import CrossCheckJob

ProcessUpload = Callable[[str, str, str], object]
"""``(tenant_id, document_id, owner)`` → ingest that upload under ``owner``'s lease."""

log = logging.getLogger(__name__)

OPEN_JOBS_READ = 100
"""Open jobs one look of the pool reads (oldest first)."""


class JobLauncher(Protocol):
    def launch(self, job: CrossCheckJob) -> None:
        """Hand a new ``queued`` job to whoever runs jobs. Raises when it cannot (the caller
        fails the job, refunded)."""
        ...


def ref_of(job: CrossCheckJob) -> XcJobRef:
    return XcJobRef(tenant_id=job.tenant_id, job_id=job.job_id)


# --- the in-process chain -----------------------------------------------------------------------


def run_cross_check(ports: CrossCheckPorts, ref: XcJobRef) -> None:
    """One job, in this process: the steps the state machine chains, with the same fallbacks —
    a batch that fails is counted failed pair by pair (``BatchFailed``), any other failure fails
    the job with its code (``MarkFailed``)."""
    try:
        plan = prepare_cross_check(ports, ref)
    except JobAlreadyFinished:
        return
    except Exception as error:
        log.warning("cross-check %s failed to start", ref.job_id, exc_info=True)
        fail_cross_check(ports, XcFailure(job=ref, error=type(error).__name__))
        return

    def judged(batch: XcBatch) -> XcBatchResult:
        try:
            return judge_cross_check_batch(ports, batch)
        except Exception:
            log.warning("cross-check %s: batch %s failed", ref.job_id, batch.index, exc_info=True)
            return failed_batch(batch)

    with ThreadPoolExecutor(
        max_workers=max(1, min(plan.max_concurrency, len(plan.batches) or 1)),
        thread_name_prefix="tanda-xc-batch",
    ) as pool:
        results = list(pool.map(judged, plan.batches))
    try:
        finish_cross_check(ports, XcFinish(job=ref, stats=plan.stats, results=results))
    except Exception as error:
        log.warning("cross-check %s failed to finish", ref.job_id, exc_info=True)
        fail_cross_check(ports, XcFailure(job=ref, error=type(error).__name__))


# --- leases -----------------------------------------------------------------------------------


def claim_job(
    store: Store,
    job: CrossCheckJob,
    *,
    owner: str,
    lease_s: float,
    max_attempts: int,
    now: float,
) -> CrossCheckJob | None:
    """Take ``job`` for ``owner`` in one conditional write: a queued job, or a running one whose
    lease ran out (resumed from the start). One started ``max_attempts`` times already is failed
    (``interrupted``) and refunded instead. ``None`` when another worker came first, or the job
    was not to take."""
    if not (job.status == "queued" or job.lease_expired(now)):
        return None
    if job.attempts >= max_attempts:
        fail_job(store, ref_of(job), job_error("Interrupted"), now=now)
        return None
    claimed = job.next(
        status="running",
        attempts=job.attempts + 1,
        started_at=job.started_at or now,
        lease_owner=owner,
        lease_until=now + lease_s,
    )
    return claimed if store.replace_job(claimed) else None


class JobLease:
    """Renews ``owner``'s lease on a running job every third of ``lease_s`` until the block
    ends; stops as soon as the job is no longer running under it."""

    def __init__(
        self,
        store: Store,
        ref: XcJobRef,
        *,
        owner: str,
        lease_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store, self.ref, self.owner, self.lease_s, self.clock = (
            store,
            ref,
            owner,
            lease_s,
            clock,
        )
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._renew_until_stopped, name="tanda-xc-lease", daemon=True
        )

    def __enter__(self) -> JobLease:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def renewing(self) -> bool:
        return self._thread.is_alive()

    def renew(self) -> bool:
        """Move the lease on; ``False`` once the job is not running under ``owner``."""

        def renewed(job: CrossCheckJob) -> CrossCheckJob | None:
            if job.status != "running" or job.lease_owner != self.owner:
                return None
            return job.next(lease_until=self.clock() + self.lease_s)

        try:
            return transition(self.store, self.ref, renewed) is not None
        except Exception:
            log.warning("lease of %s not renewed", self.ref.job_id, exc_info=True)
            return True  # try again at the next third

    def _renew_until_stopped(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            if not self.renew():
                return


def default_owner() -> str:
    """This process, as a lease names it."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


# --- the worker pool ---------------------------------------------------------------------------


class CrossCheckWorkers:
    """The bounded in-process pool of ``tanda serve`` (see the module docstring)."""

    def __init__(
        self,
        ports: CrossCheckPorts,
        *,
        workers: int,
        lease_s: float,
        max_attempts: int,
        owner: str | None = None,
        run: Callable[[CrossCheckPorts, XcJobRef], None] = run_cross_check,
        process_upload: ProcessUpload | None = None,
    ) -> None:
        self.ports = ports
        self._process_upload = process_upload
        self.workers = workers
        self.lease_s = lease_s
        self.max_attempts = max_attempts
        self.owner = owner or default_owner()
        self._run = run
        self._lock = threading.Lock()
        self._running: dict[tuple[str, str], threading.Thread] = {}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._loop: threading.Thread | None = None

    def start(self) -> None:
        """Start looking for jobs (once): open jobs left by a previous process are resumed."""
        with self._lock:
            if self._loop is not None:
                return
            self._loop = threading.Thread(target=self._look, name="tanda-xc-pool", daemon=True)
            self._loop.start()

    def launch(self, job: CrossCheckJob) -> None:
        self.start()
        self._wake.set()

    def wake(self) -> None:
        """Look for work now (an upload was queued), starting the pool if it was not."""
        self.start()
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop looking; jobs running finish on their (daemon) threads or are resumed later."""
        self._stop.set()
        self._wake.set()
        if self._loop is not None:
            self._loop.join(timeout)

    def running(self) -> list[tuple[str, str]]:
        with self._lock:
            return [key for key, thread in self._running.items() if thread.is_alive()]

    def run_job(self, ref: XcJobRef) -> bool:
        """Claim one job and run it on this thread (``tanda cross-check --wait``); ``False``
        when it was not to take (finished, or running under another live lease)."""
        job = self.ports.store.job(ref.tenant_id, ref.job_id)
        if job is None:
            return False
        claimed = self._claim(job)
        if claimed is None:
            return False
        self._work(ref)
        return True

    def _claim(self, job: CrossCheckJob) -> CrossCheckJob | None:
        return claim_job(
            self.ports.store,
            job,
            owner=self.owner,
            lease_s=self.lease_s,
            max_attempts=self.max_attempts,
            now=self.ports.clock(),
        )

    def _look(self) -> None:
        while not self._stop.is_set():
            try:
                self._take_open_jobs()
            except Exception:
                log.warning("the cross-check pool could not read the open jobs", exc_info=True)
            self._wake.wait(self.lease_s / 3)
            self._wake.clear()

    def _take_open_jobs(self) -> None:
        free = self.workers - len(self.running())
        if free <= 0:
            return
        now = self.ports.clock()
        for job in self.ports.store.open_jobs(limit=OPEN_JOBS_READ):
            key = (job.tenant_id, job.job_id)
            if free <= 0 or self._stop.is_set():
                return
            with self._lock:
                if key in self._running and self._running[key].is_alive():
                    continue
            if not (job.status == "queued" or job.lease_expired(now)):
                continue
            if self._claim(job) is None:
                continue
            thread = threading.Thread(
                target=self._work, args=(ref_of(job),), name="tanda-xc-worker", daemon=True
            )
            with self._lock:
                self._running[key] = thread
            thread.start()
            free -= 1
        self._take_open_uploads(free)

    def _take_open_uploads(self, free: int) -> None:
        process = self._process_upload
        if process is None or free <= 0:
            return
        now = self.ports.clock()
        for upload in self.ports.store.open_uploads(limit=OPEN_JOBS_READ):
            if free <= 0 or self._stop.is_set():
                return
            key = (f"upload:{upload.tenant_id}", upload.document_id)
            with self._lock:
                if key in self._running and self._running[key].is_alive():
                    continue
            if not upload.claimable(now):
                continue
            thread = threading.Thread(
                target=self._ingest,
                args=(process, upload.tenant_id, upload.document_id),
                name="tanda-upload-worker",
                daemon=True,
            )
            with self._lock:
                self._running[key] = thread
            thread.start()
            free -= 1

    def _ingest(self, process: ProcessUpload, tenant_id: str, document_id: str) -> None:
        try:
            process(tenant_id, document_id, self.owner)
        except Exception:
            log.exception("upload %s: the worker stopped", document_id)
        finally:
            with self._lock:
                self._running.pop((f"upload:{tenant_id}", document_id), None)
            self._wake.set()

    def _work(self, ref: XcJobRef) -> None:
        try:
            with JobLease(
                self.ports.store,
                ref,
                owner=self.owner,
                lease_s=self.lease_s,
                clock=self.ports.clock,
            ):
                self._run(self.ports, ref)
        except Exception:
            log.exception("cross-check %s: the worker stopped", ref.job_id)
        finally:
            with self._lock:
                self._running.pop((ref.tenant_id, ref.job_id), None)
            self._wake.set()


# --- AWS ----------------------------------------------------------------------------------------


class StepFunctionsJobs:
    """One execution of the STANDARD cross-check state machine per job, named after it (a
    repeated start of the same job is refused by Step Functions, never run twice). ``client``
    is a boto3 ``stepfunctions`` client (injected in tests)."""

    def __init__(self, client: Any, state_machine_arn: str) -> None:
        if not state_machine_arn:
            raise ValueError("TANDA_CROSS_CHECK_STATE_MACHINE_ARN is not set")
        self.client = client
        self.state_machine_arn = state_machine_arn

    def launch(self, job: CrossCheckJob) -> None:
        self.client.start_execution(
            stateMachineArn=self.state_machine_arn,
            name=job.job_id,
            input=XcJobInput(job=ref_of(job)).model_dump_json(),
        )
