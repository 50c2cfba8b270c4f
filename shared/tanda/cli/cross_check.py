"""``tanda cross-check DOC_ID DOC_ID … [--wait]``: a cross-check job from the terminal (and so
from cron), as the local operator — metered like a ``dip_test_`` key, never charged
(docs/cross-check.md).

Embedded, the job is queued in the Store; with ``--wait`` this process runs it (holding its lease,
as ``tanda serve``'s worker pool would) and prints the findings, else a running ``tanda serve``
picks it up. With ``TANDA_RUNNER=stepfunctions`` the state machine runs it and ``--wait`` polls.
``tanda cross-check --job XC_ID [--wait]`` shows (or waits for, or runs) an existing job.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.contract.v1_cross_check import FindingSide, V1CrossCheckJob

WAIT_TIMEOUT_S = 24 * 3600.0
POLL_S = 2.0
DIM = "\x1b[2m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
RESET = "\x1b[0m"


def render_job(view: V1CrossCheckJob, *, color: bool = False) -> str:
    def paint(style: str, text: str) -> str:
        return f"{style}{text}{RESET}" if color else text

    labels = {d.document_id: d.label for d in view.documents}
    lines = [f"{view.id} {view.status} · {len(view.documents)} documents"]
    lines += [f"  {d.document_id}: {d.label}" for d in view.documents]
    if view.error is not None:
        lines.append(paint(RED, f"  failed: {view.error.message} ({view.error.code})"))
    if view.findings is not None:
        kinds = [f.kind for f in view.findings]
        lines.append(
            f"  {len(kinds)} findings: {kinds.count('contradiction')} contradictions, "
            f"{kinds.count('support')} support"
        )

    def side(name: str, found: FindingSide) -> str:
        page = f" · p. {found.page_no}" if found.page_no is not None else ""
        where = f"{labels.get(found.document_id, found.document_id)}{page} · {found.node_id}"
        return f"    {name}  {where}\n       “{found.quote}”"

    for finding in view.findings or []:
        style = RED if finding.kind == "contradiction" else GREEN
        lines.append(paint(style, f"  {finding.kind}: ") + finding.explanation)
        lines += [side("A", finding.a), side("B", finding.b)]
    if view.stats is not None:
        s = view.stats
        c = s.channels
        lines.append(
            paint(
                DIM,
                f"  claims {s.claims} of {s.claims_available} · candidates {s.candidates} of "
                f"{s.all_pairs} pairs (similarity {c.similarity}, shared tokens "
                f"{c.shared_tokens}, rules {c.rule_violation}, entities {c.entities}) · judged "
                f"{s.candidates_judged} · capped {s.candidates_capped} · dropped {s.dropped} · "
                f"similarity by {s.similarity}",
            )
        )
    return "\n".join(lines)


def cross_check_command(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from tanda.auth import Principal
    from tanda.contract.v1_cross_check import V1CrossCheckRequest
    from tanda.errors import TandaError
    from tanda.service.cross_check import (
        cross_check_status,
        run_queued_job,
        start_cross_check,
        wait_for_cross_check,
    )
    from tanda.wiring import build_runtime

    operator = Principal(
        tenant_id=args.tenant, partner_id="local-cli", subject="local-cli", is_test=True
    )
    runtime = build_runtime()
    here = runtime.runs_jobs_here
    try:
        if args.job is not None:
            if args.document_ids:
                print("tanda cross-check: give DOC_IDs or --job, not both", file=sys.stderr)
                return 2
            job_id = args.job
        else:
            try:
                body = V1CrossCheckRequest(document_ids=args.document_ids, lang=args.lang)
            except ValidationError as error:
                for problem in error.errors():
                    where = ".".join(str(p) for p in problem["loc"]) or "request"
                    print(f"tanda cross-check: {where}: {problem['msg']}", file=sys.stderr)
                return 2
            job_id = start_cross_check(runtime, operator, body, launch=not here).id
        if args.wait:
            if here:
                run_queued_job(runtime, args.tenant, job_id)
            view = wait_for_cross_check(
                runtime, operator, job_id, timeout_s=WAIT_TIMEOUT_S, poll_s=POLL_S
            )
        else:
            view = cross_check_status(runtime, operator, job_id)
    except TandaError as error:
        print(f"tanda cross-check: {error.message} ({error.code})", file=sys.stderr)
        return 1
    if args.json:
        print(view.model_dump_json(indent=2, exclude_none=True))
    else:
        print(render_job(view, color=sys.stdout.isatty()))
    if view.status == "queued" and here:
        print(
            f"queued: a running `tanda serve` picks it up; `tanda cross-check --job {view.id} "
            "--wait` runs it here",
            file=sys.stderr,
        )
    return 1 if view.status == "failed" else 0
