"""Cross-check jobs as the Store keeps them (XC-1, XC-2; DESIGN §6 "Credits and jobs").

A job moves ``queued → running → completed | failed`` and every move is one conditional write
on its ``version`` (``Store.replace_job``), so two runners can never both start it, both finish
it, or refund it twice. ``attempts`` counts the runs that started it; a run holds a *lease*
(``lease_owner`` until ``lease_until``) that it renews while it works, so when its process dies
the next worker pool sees the lease run out and resumes the job — or fails it, once it has been
started ``TANDA_XC_MAX_ATTEMPTS`` times — and no job stays ``running`` forever.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tanda.contract.v1_cross_check import (
    FINISHED,
    CrossCheckDocument,
    CrossCheckFinding,
    CrossCheckStats,
    JobError,
    JobStatus,
)

JOB_ID_PREFIX = "xc_"


class CrossCheckJob(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    job_id: str
    tenant_id: str
    status: JobStatus = "queued"
    documents: tuple[CrossCheckDocument, ...]
    lang: str = Field(description="The language of the findings' explanations (resolved).")
    created_at: float
    started_at: float | None = None
    finished_at: float | None = None
    version: int = Field(default=0, ge=0, description="Bumped by every write after the first.")
    attempts: int = Field(default=0, ge=0, description="Runs that started it.")
    lease_owner: str | None = None
    lease_until: float | None = None
    schedule: str | None = Field(default=None, description="The schedule that started it.")
    scenario: str | None = Field(
        default=None, description="Scripted model only: the scenario its judge calls use."
    )
    charged: Decimal = Field(default=Decimal("0.00"), description="Credits taken at creation.")
    test_key: bool = False
    refunded: bool = False
    findings: tuple[CrossCheckFinding, ...] = ()
    stats: CrossCheckStats | None = None
    error: JobError | None = None

    @property
    def document_ids(self) -> tuple[str, ...]:
        return tuple(d.document_id for d in self.documents)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def next(self, **changes: Any) -> CrossCheckJob:
        """This job with ``changes``, one version on: what ``Store.replace_job`` writes."""
        return self.model_copy(update={**changes, "version": self.version + 1})

    def lease_expired(self, now: float) -> bool:
        """A running job whose runner stopped renewing its lease (its process died)."""
        return self.status == "running" and (self.lease_until is None or self.lease_until <= now)


class JobPage(BaseModel):
    """One page of a tenant's jobs, newest first; ``next_after`` continues the listing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    jobs: tuple[CrossCheckJob, ...]
    next_after: str | None = None


def erase_findings(job: CrossCheckJob, document_id: str) -> tuple[CrossCheckJob, int] | None:
    """``job`` with every finding that quotes ``document_id`` replaced by an erased marker
    (issue 26): that side keeps its document and node ids and is marked ``erased`` with no
    statement, quote, page or span, and the explanation (the model's words about both claims)
    is emptied; the other side, the kinds and the job's counts stay. ``None`` when no finding
    quotes it (or all are erased already); else the job one version on, and how many findings
    changed."""
    changed = 0
    findings: list[CrossCheckFinding] = []
    for finding in job.findings:
        sides = {
            name: side
            for name, side in (("a", finding.a), ("b", finding.b))
            if side.document_id == document_id and not side.erased
        }
        if not sides:
            findings.append(finding)
            continue
        changed += 1
        update: dict[str, Any] = {"explanation": ""}
        for name, side in sides.items():
            update[name] = side.model_copy(
                update={
                    "statement": "",
                    "quote": "",
                    "page_no": None,
                    "span": side.span.model_copy(update={"start": 0, "end": 0}),
                    "erased": True,
                }
            )
        findings.append(finding.model_copy(update=update))
    if not changed:
        return None
    return job.next(findings=tuple(findings)), changed
