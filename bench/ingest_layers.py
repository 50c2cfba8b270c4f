"""Ingest cost of the structure layers (issue 14, "Ingest cost"): the demo corpus with and without
them, embedded defaults (SQLite index, offline model proposing the claims).

Run: ``.venv/bin/python bench/ingest_layers.py [--rounds N] [CORPUS]`` → prints a table, writes
``bench/results/ingest_layers.json``. Every run is a fresh process ingesting into a fresh index,
as ``tanda ingest`` does (no cache of one run helps the next); the modes alternate, and the
medians of wall and CPU time are compared. Target: with the layers at most 1.5× the time without.
The corpus is ``../shared/data/corpus`` (what ``make demo`` ingests) when it is there, else
``demo/corpus``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "ingest_layers.json"
TARGET_RATIO = 1.5


def default_corpus() -> Path:
    for parent in ROOT.parents:
        shared = parent / "shared" / "data" / "corpus"
        if shared.is_dir():
            return shared
    return ROOT / "demo" / "corpus"


def _label(corpus: Path) -> str:
    """``../shared/data/corpus`` or ``demo/corpus``: where the corpus is, not whose machine."""
    if corpus.is_relative_to(ROOT):
        return corpus.relative_to(ROOT).as_posix()
    parts = corpus.resolve().parts
    return "../" + "/".join(parts[parts.index("shared") :]) if "shared" in parts else str(corpus)


def run_once(corpus: Path, layers: bool) -> dict[str, Any]:
    """One ingest in this process (called in a child): wall and CPU seconds, what was written."""
    import time

    from tanda.adapters.offline import OfflineModel
    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.service.ingest import StructureLayers, ingest_paths

    with tempfile.TemporaryDirectory() as home:
        path = Path(home) / "index.sqlite"
        index = SqliteSearchIndex(path)
        wall, cpu = time.perf_counter(), time.process_time()
        report = ingest_paths(
            index,
            None,
            [corpus],
            tenant="bench",
            layers=StructureLayers(OfflineModel()) if layers else None,
        )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        index.close()
        size = sum(p.stat().st_size for p in Path(home).iterdir())
    structure = report.structure
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "documents": report.documents,
        "chunks": report.chunks,
        "index_bytes": size,
        "structure": structure.model_dump(exclude={"failed"}) if structure else None,
    }


def measure(corpus: Path, layers: bool) -> dict[str, Any]:
    code = (
        "import json, sys; sys.path.insert(0, 'bench'); from ingest_layers import run_once; "
        f"print(json.dumps(run_once(__import__('pathlib').Path({str(corpus)!r}), {layers})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", nargs="?", type=Path, default=default_corpus())
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, Any]]] = {"without": [], "with": []}
    for round_no in range(args.rounds):
        order = (False, True) if round_no % 2 == 0 else (True, False)
        for layers in order:
            runs["with" if layers else "without"].append(measure(args.corpus, layers))
    summary: dict[str, Any] = {}
    for mode, results in runs.items():
        summary[mode] = {
            "wall_s_median": round(statistics.median(r["wall_s"] for r in results), 3),
            "cpu_s_median": round(statistics.median(r["cpu_s"] for r in results), 3),
            "wall_s_runs": [round(r["wall_s"], 3) for r in results],
            "cpu_s_runs": [round(r["cpu_s"], 3) for r in results],
            "index_bytes": results[-1]["index_bytes"],
            "documents": results[-1]["documents"],
            "chunks": results[-1]["chunks"],
        }
    summary["with"]["structure"] = runs["with"][-1]["structure"]
    wall_ratio = summary["with"]["wall_s_median"] / summary["without"]["wall_s_median"]
    cpu_ratio = summary["with"]["cpu_s_median"] / summary["without"]["cpu_s_median"]
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "corpus": _label(args.corpus),
        "rounds": args.rounds,
        "note": "one fresh process and index per run, modes alternating; medians compared; "
        "2 shared vCPUs, so wall time carries other processes' noise, CPU time less so",
        "target_ratio": TARGET_RATIO,
        "wall_ratio": round(wall_ratio, 3),
        "cpu_ratio": round(cpu_ratio, 3),
        "meets_target": wall_ratio <= TARGET_RATIO,
        **summary,
    }
    RESULTS.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for mode in ("without", "with"):
        s = summary[mode]
        print(
            f"{mode:>8} layers: wall {s['wall_s_median']:.2f} s, cpu {s['cpu_s_median']:.2f} s, "
            f"index {s['index_bytes'] / 1e6:.1f} MB"
        )
    print(f"ratio: wall {wall_ratio:.2f}×, cpu {cpu_ratio:.2f}× (target ≤ {TARGET_RATIO}×)")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
