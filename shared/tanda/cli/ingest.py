"""``tanda ingest PATH… [--tenant T] [--batch B] [--selection NAME]… [--no-progress]``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tanda.service.ingest import IngestReport, StructureLayers, ingest_paths


def ingest_command(args: argparse.Namespace) -> int:
    """Exit 0 when something was ingested or nothing failed; 2 when no PATH exists; 1 when
    every readable source failed."""
    paths = [Path(p) for p in args.paths]
    missing = [p for p in paths if not p.exists()]
    if len(missing) == len(paths):
        names = ", ".join(str(p) for p in missing)
        print(f"tanda ingest: no such path: {names}", file=sys.stderr)
        return 2
    from tanda.wiring import build_runtime

    runtime = build_runtime()
    progress = not args.no_progress and sys.stderr.isatty()
    layers = StructureLayers(model=runtime.model) if runtime.settings.structure_layers else None
    started = time.perf_counter()
    report = ingest_paths(
        runtime.search_index,
        runtime.embedder,
        paths,
        tenant=args.tenant,
        batch=args.batch,
        selections=tuple(args.selection or ()),
        progress=progress,
        layers=layers,
    )
    elapsed = time.perf_counter() - started
    print_summary(report, elapsed_s=elapsed, lexical_only=runtime.embedder is None)
    return exit_code(report)


def exit_code(report: IngestReport) -> int:
    return 1 if report.failed and report.documents == 0 else 0


def print_summary(report: IngestReport, *, elapsed_s: float, lexical_only: bool) -> None:
    for line in report.summary_lines():
        print(line)
    note = " (no embedder: lexical search only)" if lexical_only else ""
    print(f"took {elapsed_s:.1f} s{note}")
