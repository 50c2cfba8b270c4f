"""``tanda ingest PATH… [--tenant T] [--batch B] [--selection NAME]… [--no-progress]``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tanda.service.ingest import IngestReport, StructureLayers, ingest_paths


def ingest_command(args: argparse.Namespace) -> int:
    """Exit 0 when something was ingested or nothing failed; 2 when no PATH exists; 1 when
    every readable source failed. With ``--remote``/``--manifest``: start the bulk import on
    AWS instead (:func:`remote_command`)."""
    remote = getattr(args, "remote", None)
    manifest = getattr(args, "manifest", None)
    if remote is not None or manifest is not None:
        return remote_command(args, prefix=remote, manifest=manifest)
    if not args.paths:
        print("tanda ingest: give PATHs, or --remote PREFIX / --manifest KEY", file=sys.stderr)
        return 2
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


def remote_command(args: argparse.Namespace, *, prefix: str | None, manifest: str | None) -> int:
    """``tanda ingest --remote PREFIX`` (issue 26): start the Distributed Map over the tenant's
    import objects, as ``POST /v1/batches/{batch_id}/import`` does. Exit 0 once started (print
    the import's id; ``GET /v1/batches/{batch_id}`` shows its progress), 2 on a usage error."""
    import json

    from tanda.errors import TandaError
    from tanda.service.imports import start_import
    from tanda.wiring import build_runtime

    if args.paths or (prefix is not None and manifest is not None):
        print(
            "tanda ingest: --remote/--manifest take no PATH, and only one of them", file=sys.stderr
        )
        return 2
    batch = args.batch or time.strftime("import-%Y%m%dT%H%M%SZ", time.gmtime())
    runtime = build_runtime()
    try:
        started = start_import(
            runtime.bulk_imports,
            args.tenant,
            batch,
            prefix=prefix,
            manifest=manifest,
            selections=tuple(args.selection or ()),
        )
    except (TandaError, ValueError) as error:
        print(f"tanda ingest: {error}", file=sys.stderr)
        return 2
    print(json.dumps(started.model_dump(mode="json"), indent=2))
    return 0
