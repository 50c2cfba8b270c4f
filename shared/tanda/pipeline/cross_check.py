"""A cross-check job cut into steps (XC-2, XC-4, XC-5; DESIGN §4 "Jobs"), with pydantic states
at every boundary so the same steps run in-process (the worker pool of ``tanda serve``,
``tanda cross-check --wait``: :mod:`tanda.pipeline.runners.cross_check`) and as the tasks of the
STANDARD state machine ``infra/statemachines/cross_check.asl.json``::

    (schedule) OpenScheduledJob ─┐
    (job) ───────────────────────┴► Prepare ─► Map(JudgeBatch) ─► Finish
                                       └──── Catch ─► MarkFailed ◄──┘

- :func:`prepare_cross_check` starts the job (``queued → running``), reads the documents' claims,
  entities and rules, selects the claims that take part (XC-6), generates the candidate pairs
  (XC-4) and cuts them into batches of node ids;
- :func:`judge_cross_check_batch` judges one batch (the claims read again by id);
- :func:`finish_cross_check` fills the findings from the server's records (XC-3) and stores the
  completed job — or fails it with ``judge_unavailable`` when every judge call failed;
- :func:`fail_cross_check` stores a failed job with its code and refunds it in the same write
  (XC-2); :func:`open_scheduled_job` creates the job a schedule starts.

Every write of a job is conditional on its version (``Store.replace_job``): a step that lost a
race re-reads the job and gives up once it is finished, so no job is completed twice, failed after
completing, or refunded twice.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tanda.contract.v1_cross_check import (
    ChannelCounts,
    CrossCheckDocument,
    CrossCheckStats,
    JobError,
    VerdictCounts,
)
from tanda.records.jobs import JOB_ID_PREFIX, CrossCheckJob

if TYPE_CHECKING:
    from tanda.crosscheck.inputs import XcCorpus
    from tanda.model_calls import ChatModel
    from tanda.ports import Embedder, SearchIndex, Store
    from tanda.settings import Settings

Clock = Callable[[], float]
WRITE_ATTEMPTS = 8
"""A step re-reads a job this many times at most when another write came first."""


class _State(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class XcJobRef(_State):
    tenant_id: str
    job_id: str


class XcJobInput(_State):
    """What the state machine starts with: a job (``POST``) or a schedule's document set."""

    job: XcJobRef


class XcSchedule(_State):
    """An EventBridge Scheduler run (XC-5): the tenant and its document set — ids, or every
    document of an ingest batch or a named selection. The template writes the ids as one
    comma-separated string and an unset parameter as ``""``: both are read here."""

    name: str = Field(min_length=1, max_length=128)
    tenant_id: str = Field(min_length=1)
    document_ids: list[str] = Field(default_factory=list)
    batch_id: str | None = None
    selection: str | None = None
    lang: str | None = None

    @field_validator("document_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("batch_id", "selection", "lang", mode="before")
    @classmethod
    def _unset(cls, value: object) -> object:
        return None if value == "" else value


class XcScheduleInput(_State):
    schedule: XcSchedule


class XcPair(_State):
    a: str
    b: str


class XcBatch(_State):
    job: XcJobRef
    index: int
    pairs: list[XcPair]
    lang: str
    labels: dict[str, str]
    scenario: str | None = None


class XcPlan(_State):
    job: XcJobRef
    stats: CrossCheckStats
    batches: list[XcBatch]
    max_concurrency: int = Field(ge=1, description="The Map's MaxConcurrencyPath.")


class XcFinding(_State):
    a: str
    b: str
    kind: Literal["contradiction", "support"]
    explanation: str


class XcBatchResult(_State):
    index: int
    findings: list[XcFinding] = Field(default_factory=list)
    verdicts: VerdictCounts
    dropped: int = 0
    model_calls: int = 0


class XcFinish(_State):
    job: XcJobRef
    stats: CrossCheckStats
    results: list[XcBatchResult]


class XcFailure(_State):
    job: XcJobRef
    error: str | None = Field(default=None, description="The failed step's error name.")


@dataclass(frozen=True)
class CrossCheckPorts:
    """What the steps read and write through (built by ``tanda.wiring``)."""

    store: Store
    index: SearchIndex
    model: ChatModel
    embedder: Embedder | None
    settings: Settings
    clock: Clock = time.time


# --- errors a step raises: their names are the state machine's error names -------------------


class CrossCheckStepError(Exception):
    code = "internal_error"
    message = "The cross-check could not be completed."


class DocumentsUnavailable(CrossCheckStepError):
    code = "documents_unavailable"
    message = "A document of this job is no longer available."


class JobAlreadyFinished(Exception):
    """The job is completed or failed already: nothing to do (a repeated start)."""


FAILURES: dict[str, tuple[str, str]] = {
    "DocumentsUnavailable": (DocumentsUnavailable.code, DocumentsUnavailable.message),
    "States.Timeout": ("timeout", "The job took longer than its state machine allows."),
    "Interrupted": (
        "interrupted",
        "The job was interrupted too often (its server stopped while it ran).",
    ),
    "JudgeUnavailable": ("judge_unavailable", "Every judge call failed; nothing was judged."),
}
"""A failure's error name → the job's ``error {code, message}`` (XC-2); anything else is an
``internal_error`` whose message says nothing of the cause."""


def job_error(name: str | None) -> JobError:
    code, message = FAILURES.get(
        name or "", (CrossCheckStepError.code, CrossCheckStepError.message)
    )
    return JobError(code=code, message=message)


_last_id_lock = threading.Lock()
_last_id: tuple[int, int] = (0, 0)


def new_job_id(now: float) -> str:
    """``xc_`` + the creation time in milliseconds (hex, fixed width) + 64 random bits: ids
    sort by creation, which the Store's listing relies on (newest first, paged by id).

    Two jobs one process opens within the same millisecond (a schedule's burst, a retrying
    client) would otherwise sort by their random bits; like a monotonic ULID, a later id of the
    same millisecond is the earlier one's random part plus one, so it sorts after it."""
    global _last_id
    millis = int(now * 1000)
    with _last_id_lock:
        last_millis, last_random = _last_id
        if millis <= last_millis and last_random < 2**64 - 1:
            millis, random_part = last_millis, last_random + 1
        else:
            random_part = secrets.randbits(63)  # leaves room to count up within a millisecond
        _last_id = (millis, random_part)
    return f"{JOB_ID_PREFIX}{millis:012x}{random_part:016x}"


# --- writing a job --------------------------------------------------------------------------------


def transition(
    store: Store,
    ref: XcJobRef,
    change: Callable[[CrossCheckJob], CrossCheckJob | None],
    *,
    refund: Callable[[CrossCheckJob], bool] = lambda job: False,
) -> CrossCheckJob | None:
    """Apply ``change`` to the stored job in one conditional write, re-reading it when another
    write came first. ``change`` returns the next version, or ``None`` to leave the job as it
    is; the job written (or ``None``) is returned."""
    for _ in range(WRITE_ATTEMPTS):
        job = store.job(ref.tenant_id, ref.job_id)
        if job is None:
            return None
        changed = change(job)
        if changed is None:
            return None
        if store.replace_job(changed, refund=refund(changed)):
            return changed
    raise CrossCheckStepError(f"job {ref.job_id} kept changing under its writer")


def fail_job(store: Store, ref: XcJobRef, error: JobError, *, now: float) -> CrossCheckJob | None:
    """Store the job failed with ``error``, refunded in the same write unless a test key paid
    nothing (XC-2); a finished job stays as it is."""

    def fail(job: CrossCheckJob) -> CrossCheckJob | None:
        if job.finished:
            return None
        return job.next(
            status="failed",
            error=error,
            finished_at=now,
            lease_owner=None,
            lease_until=None,
            refunded=not job.test_key,
        )

    return transition(store, ref, fail, refund=lambda job: job.refunded)


# --- the steps -----------------------------------------------------------------------------------


def prepare_cross_check(ports: CrossCheckPorts, ref: XcJobRef) -> XcPlan:
    """Start the job and plan its judging: claims → selection → candidates → batches."""
    from tanda.crosscheck import plan_cross_check
    from tanda.crosscheck.reader import read_corpus

    settings = ports.settings
    now = ports.clock()

    def start(job: CrossCheckJob) -> CrossCheckJob | None:
        if job.finished:
            raise JobAlreadyFinished(job.job_id)
        if job.status == "running":
            return None  # a runner that claimed it (the worker pool) is running it
        return job.next(status="running", started_at=now, attempts=job.attempts + 1)

    transition(ports.store, ref, start)
    job = ports.store.job(ref.tenant_id, ref.job_id)
    if job is None or job.finished:
        raise JobAlreadyFinished(ref.job_id)
    corpus = read_corpus(ports.index, job.tenant_id, job.documents)
    if corpus is None:
        raise DocumentsUnavailable()
    plan = plan_cross_check(
        corpus,
        budget=settings.xc_claim_budget,
        neighbours=settings.xc_neighbours,
        cap=settings.xc_max_candidates,
        embedder=ports.embedder,
    )
    candidates = plan.candidates
    stats = CrossCheckStats(
        documents=len(corpus.documents),
        claims=len(plan.claims),
        claims_available=len(corpus.claims),
        claims_by_document={
            d.document_id: sum(1 for c in plan.claims if c.document_id == d.document_id)
            for d in corpus.documents
        },
        similarity=candidates.similarity,
        channels=ChannelCounts(
            similarity=candidates.proposed["similarity"],
            shared_tokens=candidates.proposed["shared_tokens"],
            rule_violation=candidates.proposed["rule_violation"],
            entities=candidates.proposed["entities"],
        ),
        entity_candidates=candidates.entity_candidates,
        candidates=candidates.total,
        all_pairs=candidates.all_pairs,
        candidates_judged=len(candidates.candidates),
        candidates_capped=candidates.capped,
        verdicts=VerdictCounts(contradiction=0, support=0, none=0, failed=0),
        dropped=0,
        model_calls=0,
    )
    pairs = [XcPair(a=c.a.node_id, b=c.b.node_id) for c in candidates.candidates]
    size = settings.xc_batch_size
    labels = {d.document_id: d.label for d in job.documents}
    batches = []
    for n in range(math.ceil(len(pairs) / size)):
        batch = pairs[n * size : (n + 1) * size]
        # Only the labels of its own documents: the batches travel in one 256 KB state.
        shown = {corpus.by_node[node].document_id for p in batch for node in (p.a, p.b)}
        batches.append(
            XcBatch(
                job=ref,
                index=n,
                pairs=batch,
                lang=job.lang,
                labels={i: labels[i] for i in sorted(shown)},
                scenario=job.scenario,
            )
        )
    return XcPlan(
        job=ref, stats=stats, batches=batches, max_concurrency=settings.xc_judge_concurrency
    )


def judge_cross_check_batch(
    ports: CrossCheckPorts, batch: XcBatch, *, concurrency: int = 1
) -> XcBatchResult:
    """Judge one batch: each pair alone (XC-4). On the state machine the Map runs the batches
    at once and each judges its pairs one after another; in-process the same holds (the runner
    runs the batches on its pool)."""
    from tanda.crosscheck.judge import CrossCheckJudge
    from tanda.crosscheck.reader import read_claims

    claims = read_claims(
        ports.index, batch.job.tenant_id, [node for p in batch.pairs for node in (p.a, p.b)]
    )
    judge = CrossCheckJudge(
        ports.model, batch.labels, concurrency=concurrency, scenario=batch.scenario
    )
    known = [(claims[p.a], claims[p.b]) for p in batch.pairs if p.a in claims and p.b in claims]
    judged = judge.run(known, batch.lang)
    counts = {v: sum(1 for j in judged if j.verdict == v) for v in ("contradiction", "support")}
    return XcBatchResult(
        index=batch.index,
        findings=[
            XcFinding(
                a=j.a.node_id,
                b=j.b.node_id,
                kind="contradiction" if j.verdict == "contradiction" else "support",
                explanation=j.explanation,
            )
            for j in judged
            if j.verdict in ("contradiction", "support")
        ],
        verdicts=VerdictCounts(
            contradiction=counts["contradiction"],
            support=counts["support"],
            none=sum(1 for j in judged if j.verdict == "none"),
            # A claim gone since the plan was made cannot be judged: counted as failed.
            failed=sum(1 for j in judged if j.verdict == "failed") + len(batch.pairs) - len(known),
        ),
        dropped=sum(1 for j in judged if j.verdict == "dropped"),
        model_calls=len(judged),
    )


def failed_batch(batch: XcBatch) -> XcBatchResult:
    """A batch whose step failed as a whole: every pair counted ``failed`` (the state machine's
    ``BatchFailed`` state builds the same)."""
    return XcBatchResult(
        index=batch.index,
        verdicts=VerdictCounts(contradiction=0, support=0, none=0, failed=len(batch.pairs)),
    )


def finish_cross_check(ports: CrossCheckPorts, finish: XcFinish) -> XcJobRef:
    """Store the completed job: findings from the server's claim records (XC-3), in their one
    order, with the stats. Every judge call failed → the job fails (``judge_unavailable``) and is
    refunded instead."""
    from tanda.crosscheck.findings import assemble_findings
    from tanda.crosscheck.judge import JudgedPair
    from tanda.crosscheck.reader import read_claims

    ref = finish.job
    results = finish.results
    verdicts = VerdictCounts(
        contradiction=sum(r.verdicts.contradiction for r in results),
        support=sum(r.verdicts.support for r in results),
        none=sum(r.verdicts.none for r in results),
        failed=sum(r.verdicts.failed for r in results),
    )
    stats = finish.stats.model_copy(
        update={
            "verdicts": verdicts,
            "dropped": sum(r.dropped for r in results),
            "model_calls": sum(r.model_calls for r in results),
        }
    )
    now = ports.clock()
    if stats.candidates_judged and verdicts.failed == stats.candidates_judged:
        fail_job(ports.store, ref, job_error("JudgeUnavailable"), now=now)
        return ref
    job = ports.store.job(ref.tenant_id, ref.job_id)
    if job is None or job.finished:
        return ref
    found = [f for r in sorted(results, key=lambda r: r.index) for f in r.findings]
    claims = read_claims(ports.index, ref.tenant_id, [n for f in found for n in (f.a, f.b)])
    corpus = _corpus_of(job.documents, list(claims.values()))
    findings = assemble_findings(
        corpus,
        (
            JudgedPair(claims[f.a], claims[f.b], f.kind, f.explanation)
            for f in found
            if f.a in claims and f.b in claims
        ),
    )

    def complete(stored: CrossCheckJob) -> CrossCheckJob | None:
        if stored.finished:
            return None
        return stored.next(
            status="completed",
            findings=tuple(findings),
            stats=stats,
            finished_at=now,
            lease_owner=None,
            lease_until=None,
        )

    transition(ports.store, ref, complete)
    return ref


def _corpus_of(documents: Sequence[CrossCheckDocument], claims: Sequence[object]) -> XcCorpus:
    from tanda.crosscheck.inputs import XcClaim, XcCorpus, XcDocument

    return XcCorpus(
        documents=tuple(
            XcDocument(d.document_id, d.label, position) for position, d in enumerate(documents)
        ),
        claims=tuple(c for c in claims if isinstance(c, XcClaim)),
    )


def fail_cross_check(ports: CrossCheckPorts, failure: XcFailure) -> XcJobRef:
    """Store the job failed with the code of ``failure.error``, refunded (XC-2)."""
    fail_job(ports.store, failure.job, job_error(failure.error), now=ports.clock())
    return failure.job


def open_scheduled_job(ports: CrossCheckPorts, schedule: XcSchedule) -> XcJobInput:
    """The job a schedule starts (XC-5), stored like any other: charged as one ask to its tenant
    (never throttled: no caller waits), or stored failed when the tenant's balance does not
    cover it or its document set has fewer than two documents."""
    from tanda.ask.lang import answer_lang
    from tanda.records.documents import SearchScope

    settings = ports.settings
    now = ports.clock()
    scope = SearchScope(
        tenant_id=schedule.tenant_id,
        document_ids=tuple(schedule.document_ids) or None,
        batch_id=schedule.batch_id,
        selection=schedule.selection,
    )
    found = {d.document_id: d for d in ports.index.documents(scope)}
    order = schedule.document_ids or sorted(found)
    documents = tuple(
        CrossCheckDocument(document_id=i, label=found[i].title or i) for i in order if i in found
    )
    lang = answer_lang(ports.store, schedule.tenant_id, schedule.lang)
    job = CrossCheckJob(
        job_id=new_job_id(now),
        tenant_id=schedule.tenant_id,
        documents=documents,
        lang=lang,
        created_at=now,
        schedule=schedule.name,
        charged=Decimal(settings.ask_price),
    )
    ref = XcJobRef(tenant_id=job.tenant_id, job_id=job.job_id)
    if ports.store.tenant_profile(schedule.tenant_id).status == "suspended":
        # Issue 27: a suspended tenant's schedules stop; the listing shows the run not started.
        error = JobError(
            code="tenant_suspended",
            message="The tenant is suspended: the scheduled run did not start. "
            "Nothing was charged.",
        )
    elif len(documents) < 2 or len(documents) < len(schedule.document_ids):
        error = JobError(
            code="too_few_documents",
            message="The schedule's document set has fewer than two available documents.",
        )
    elif ports.store.create_job(job, opening=settings.initial_credits):
        return XcJobInput(job=ref)
    else:
        error = JobError(
            code="insufficient_credit",
            message="The credit balance did not cover the scheduled run. Nothing was charged.",
        )
    # A run that cannot start is stored failed, paying nothing, so the listing shows it.
    unpaid = job.model_copy(
        update={"status": "failed", "charged": Decimal("0.00"), "error": error, "finished_at": now}
    )
    ports.store.create_job(unpaid, opening=settings.initial_credits)
    return XcJobInput(job=ref)
