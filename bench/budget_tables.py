"""KALEM ÖZETİ on every budget table of the demo corpus (issue 14, "Budget tables").

Run: ``.venv/bin/python bench/budget_tables.py [FOLDER]`` → prints the count, writes
``bench/results/budget_tables.json``. Every CSV under ``../shared/data/corpus/apbd_jatim`` is read
and chunked as ``tanda ingest`` reads it, and its structure built (no model involved): how many
tables' items sum to their stated totals, and for each one that does not, which totals disagree
and by how much. These are findings in the data, not errors of the reader; the test
``tests/unit/extraction/test_budget_tables.py`` keeps them as fixtures (it recomputes them from the
shared data and compares).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

from tanda.extraction import build_structure
from tanda.records.structure import LineItemSummaryRecord
from tanda.retrieval.ingest.parsed import ParsedDocument
from tanda.retrieval.ingest.readers import read_csv
from tanda.service.ingest import build_document

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "budget_tables.json"


def default_folder() -> Path:
    for parent in ROOT.parents:
        folder = parent / "shared" / "data" / "corpus" / "apbd_jatim"
        if folder.is_dir():
            return folder
    return ROOT / "demo" / "corpus" / "apbd"


def summary_of(path: Path, key: str) -> LineItemSummaryRecord:
    """The KALEM ÖZETİ of one CSV, read as ``tanda ingest`` reads it."""
    parsed = read_csv(path.read_bytes(), path=PurePosixPath(key))
    assert isinstance(parsed, ParsedDocument), parsed
    document, chunks = build_document(
        parsed,
        tenant="bench",
        document_id=key,
        source=key,
        digest=key,
        batch=None,
        selections=(),
        metadata={},
    )
    (summary,) = [
        r for r in build_structure(document, chunks).records if r.kind == "line_item_summary"
    ]
    assert isinstance(summary, LineItemSummaryRecord)
    return summary


def findings(folder: Path) -> dict[str, Any]:
    tables: list[dict[str, Any]] = []
    labels: Counter[str] = Counter()
    agreeing = 0
    for path in sorted(folder.rglob("*.csv")):
        key = path.relative_to(folder).as_posix()
        summary = summary_of(path, f"apbd_jatim/{key}")
        failing = [c for c in summary.checks if not c.agrees]
        if summary.agrees:
            agreeing += 1
            continue
        labels.update(f"{c.label} ({c.column})" for c in failing)
        tables.append(
            {
                "table": key,
                "items": summary.item_count,
                "checks": len(summary.checks),
                "disagreeing": [
                    {
                        "total": c.label,
                        "column": c.column,
                        "stated": c.stated,
                        "items_sum": c.items_sum_surface,
                        "formula": c.formula,
                    }
                    for c in failing
                ],
            }
        )
    total = agreeing + len(tables)
    return {
        "tables": total,
        "agreeing": agreeing,
        "disagreeing": len(tables),
        "disagreeing_totals": dict(labels.most_common()),
        "note": "a table agrees when every stated total (account head, net financing, surplus) "
        "equals the sum of its items within the rounding its surfaces show (half a last digit "
        "each). Every disagreement is in the financing accounts, and they are the data's own: "
        "the net Pembiayaan Daerah stated as 0,00 while Penerimaan − Pengeluaran is not (52 "
        "realisasi, 27 anggaran); Pengeluaran Pembiayaan Daerah realisasi stated as 0,00 while "
        "its items are not (26); and, in 14 of the 2023 tables, Penerimaan Pembiayaan Daerah "
        "realisasi equal to its SiLPA alone, the other receipts listed under it (0,02–1,30 M) "
        "left out of the stated total",
        "disagreeing_tables": tables,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", nargs="?", type=Path, default=default_folder())
    args = parser.parse_args()
    if not args.folder.is_dir():
        sys.exit(f"no such folder: {args.folder}")
    result = findings(args.folder)
    RESULTS.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{result['tables']} tables: {result['agreeing']} sum to their stated totals, "
        f"{result['disagreeing']} do not"
    )
    for label, count in result["disagreeing_totals"].items():
        print(f"  {count:>3} × {label}")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
