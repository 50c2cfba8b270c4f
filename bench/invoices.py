"""Invoices (issue 18): the ingest time of every EN 16931 example of the shared data, and how a
synthetic invoice of up to 5 000 lines scales — reading, rendering, the KALEM ÖZETİ and the rules
must stay linear in the number of lines.

Run from the repository root: ``.venv/bin/python bench/invoices.py`` → prints tables, writes
``bench/results/invoices.json``.

(1) Per example: ``ingest_paths`` of that one file into a real SQLite index (read, render, chunk,
write; no embedder), median of ``RUNS`` runs, each into a fresh tenant so every run adds it.
(2) Synthetic: ``ubl/ubl-tc434-example1.xml`` (20 lines) with its lines repeated to N lines,
renumbered, and its VAT subtotals and totals recomputed so every rule holds; per N the best of
``SYNTHETIC_RUNS`` times of each stage and the time per line. Linear means the time per line stays
flat as N grows.
"""

from __future__ import annotations

import gc
import itertools
import json
import platform
import statistics
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Callable
from copy import deepcopy
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from defusedxml.ElementTree import fromstring  # noqa: E402

from tanda.adapters.sqlite_index import SqliteSearchIndex  # noqa: E402
from tanda.extraction.build import build_structure  # noqa: E402
from tanda.invoices import (  # noqa: E402
    NotAnInvoice,
    evaluate_rules,
    line_summary,
    read_invoice,
    render_invoice,
)
from tanda.records.documents import SearchScope  # noqa: E402
from tanda.retrieval.ingest.chunking import chunk_blocks  # noqa: E402
from tanda.retrieval.ingest.parsed import ParsedDocument  # noqa: E402
from tanda.retrieval.ingest.readers import read_xml  # noqa: E402
from tanda.service.ingest import ingest_paths  # noqa: E402

EXAMPLES = ROOT.parent / "shared" / "data" / "corpus" / "invoices_en16931"
RESULTS = ROOT / "bench" / "results" / "invoices.json"
RUNS = 5
SYNTHETIC_RUNS = 9
TENANTS = itertools.count()
"""A fresh tenant for every ingest run, so every run adds its document."""
SIZES = (500, 1000, 2000, 5000)
CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
NS = {"cac": CAC, "cbc": CBC}


def _times_ms(run: Callable[[], object], runs: int) -> list[float]:
    """Wall times of ``runs`` runs, the cyclic garbage collector paused as ``timeit`` does: its
    full collections grow with every object alive in the process, not with the code measured."""
    times = []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            times.append((time.perf_counter() - start) * 1000)
        finally:
            gc.enable()
    return times


def median_ms(run: Callable[[], object], runs: int = RUNS) -> float:
    return round(statistics.median(_times_ms(run, runs)), 3)


def best_ms(run: Callable[[], object], runs: int = SYNTHETIC_RUNS) -> float:
    """The fastest of ``runs``: on a machine shared with other work, the least disturbed run is
    the one that shows how the code scales."""
    return round(min(_times_ms(run, runs)), 3)


def per_example() -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        index = SqliteSearchIndex(Path(tmp) / "index.sqlite")
        try:
            for path in sorted(EXAMPLES.glob("*/*")):
                if path.suffix.lower() != ".xml":
                    continue

                def ingest(path: Path = path) -> None:
                    report = ingest_paths(index, None, [path], tenant=f"t{next(TENANTS)}")
                    assert report.added == 1, report.skipped

                data = path.read_bytes()
                invoice = read_invoice(data)
                assert not isinstance(invoice, NotAnInvoice)
                rows.append(
                    {
                        "example": path.relative_to(EXAMPLES).as_posix(),
                        "bytes": len(data),
                        "lines": len(invoice.lines),
                        "ingest_ms": median_ms(ingest),
                        "read_ms": median_ms(lambda data=data: read_invoice(data)),
                        "rules_ms": median_ms(
                            lambda invoice=invoice: (evaluate_rules(invoice), line_summary(invoice))
                        ),
                    }
                )
        finally:
            index.close()
    return rows


def synthetic(lines: int) -> bytes:
    """Example 1 with ``lines`` lines (its 20 repeated, renumbered), its VAT subtotals and totals
    recomputed from them so every rule holds."""
    root = fromstring((EXAMPLES / "ubl" / "ubl-tc434-example1.xml").read_bytes())
    originals = root.findall("cac:InvoiceLine", NS)
    for line in originals:
        root.remove(line)
    by_rate: dict[str, Decimal] = defaultdict(Decimal)
    total = Decimal(0)
    for number in range(lines):
        line = deepcopy(originals[number % len(originals)])
        _set(line, "cbc:ID", str(number + 1))
        amount = Decimal(_get(line, "cbc:LineExtensionAmount"))
        rate = _get(line, "cac:Item/cac:ClassifiedTaxCategory/cbc:Percent")
        by_rate[rate] += amount
        total += amount
        root.append(line)
    tax_total = root.find("cac:TaxTotal", NS)
    assert tax_total is not None
    vat = Decimal(0)
    for subtotal in tax_total.findall("cac:TaxSubtotal", NS):
        rate = _get(subtotal, "cac:TaxCategory/cbc:Percent")
        base = by_rate[rate]
        tax = (base * Decimal(rate) / 100).quantize(Decimal("0.01"), ROUND_HALF_UP)
        vat += tax
        _set(subtotal, "cbc:TaxableAmount", f"{base:.2f}")
        _set(subtotal, "cbc:TaxAmount", f"{tax:.2f}")
    _set(tax_total, "cbc:TaxAmount", f"{vat:.2f}")
    monetary = root.find("cac:LegalMonetaryTotal", NS)
    _set(monetary, "cbc:LineExtensionAmount", f"{total:.2f}")
    _set(monetary, "cbc:TaxExclusiveAmount", f"{total:.2f}")
    _set(monetary, "cbc:TaxInclusiveAmount", f"{total + vat:.2f}")
    _set(monetary, "cbc:PayableAmount", f"{total + vat:.2f}")
    return ET.tostring(root)


def _get(element: ET.Element, path: str) -> str:
    found = element.find(path, NS)
    assert found is not None and found.text is not None, path
    return found.text.strip()


def _set(element: ET.Element | None, path: str, text: str) -> None:
    assert element is not None
    found = element.find(path, NS)
    assert found is not None, path
    found.text = text


def scaling() -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            data = synthetic(size)
            invoice = read_invoice(data)
            assert not isinstance(invoice, NotAnInvoice)
            checks = evaluate_rules(invoice)
            assert {c.evaluation for c in checks} == {"sağlandı"}, checks
            summary = line_summary(invoice)
            assert summary.line_count == size and summary.agrees
            parsed = read_xml(data)
            assert isinstance(parsed, ParsedDocument)
            folder = Path(tmp) / f"n{size}"
            folder.mkdir()
            (folder / "invoice.xml").write_bytes(data)
            index = SqliteSearchIndex(Path(tmp) / f"index-{size}.sqlite")
            try:
                timings = {
                    "read_ms": best_ms(lambda data=data: read_invoice(data)),
                    "render_and_chunk_ms": best_ms(
                        lambda invoice=invoice: chunk_blocks(read_xml_blocks(invoice))
                    ),
                    "kalem_ozeti_ms": best_ms(lambda invoice=invoice: line_summary(invoice)),
                    "rules_ms": best_ms(lambda invoice=invoice: evaluate_rules(invoice)),
                    "ingest_ms": best_ms(
                        lambda folder=folder, index=index: ingest_paths(
                            index, None, [folder], tenant=f"t{next(TENANTS)}"
                        )
                    ),
                    "records_ms": records_ms(index, folder, invoice),
                }
            finally:
                index.close()
            rows.append(
                {
                    "lines": size,
                    "bytes": len(data),
                    **timings,
                    "us_per_line": {
                        key.removesuffix("_ms"): round(value * 1000 / size, 2)
                        for key, value in timings.items()
                    },
                }
            )
    return rows


def records_ms(index: SqliteSearchIndex, folder: Path, invoice: Any) -> float:
    """The invoice's structure records (entities, the line table, line items, KALEM ÖZETİ, rules,
    its `Label: value` claims) built from its stored chunks, without a model's proposals."""
    tenant = f"t{next(TENANTS)}"
    ingest_paths(index, None, [folder], tenant=tenant)
    scope = SearchScope(tenant_id=tenant)
    (document,) = index.documents(scope)
    chunks = index.document_chunks(scope, document.document_id)
    return best_ms(lambda: build_structure(document, chunks, (), invoice))


def read_xml_blocks(invoice: Any) -> Any:
    """The blocks ``read_xml`` builds, from an already-read invoice (render only)."""
    from tanda.invoices import TablePart
    from tanda.retrieval.ingest.parsed import Paragraph, TableBlock, TextBlock

    blocks: list[Any] = []
    for part in render_invoice(invoice).parts:
        if isinstance(part, TablePart):
            blocks.append(TableBlock(section=part.section, header=part.header, rows=part.rows))
        else:
            blocks.append(TextBlock(part.section, tuple(Paragraph(line) for line in part.lines)))
    return blocks


def main() -> None:
    examples = per_example()
    head = f"{'example':55} {'bytes':>9} {'lines':>5} {'ingest ms':>9} {'read ms':>8}"
    print(f"{head} {'rules ms':>8}")
    for row in examples:
        print(
            f"{row['example']:55} {row['bytes']:>9} {row['lines']:>5} {row['ingest_ms']:>9.2f}"
            f" {row['read_ms']:>8.2f} {row['rules_ms']:>8.3f}"
        )
    ingest = [row["ingest_ms"] for row in examples]
    middle, worst = statistics.median(ingest), max(ingest)
    print(f"ingest per example: median {middle:.2f} ms, max {worst:.2f} ms")
    scaled = scaling()
    head = f"\n{'lines':>6} {'read':>8} {'render':>8} {'özet':>8} {'rules':>8}"
    print(f"{head} {'ingest':>9} {'records':>8}  µs/line")
    for row in scaled:
        print(
            f"{row['lines']:>6} {row['read_ms']:>8.1f} {row['render_and_chunk_ms']:>8.1f}"
            f" {row['kalem_ozeti_ms']:>8.2f} {row['rules_ms']:>8.2f} {row['ingest_ms']:>9.1f}"
            f" {row['records_ms']:>8.1f}  {row['us_per_line']}"
        )
    first, last = scaled[0]["us_per_line"], scaled[-1]["us_per_line"]
    growth = {key: round(last[key] / first[key], 2) if first[key] else None for key in first}
    print(f"time per line at {SIZES[-1]} lines ÷ at {SIZES[0]}: {growth}")
    RESULTS.write_text(
        json.dumps(
            {
                "machine": {"python": platform.python_version(), "platform": platform.platform()},
                "runs": {"examples": RUNS, "synthetic": SYNTHETIC_RUNS},
                "statistic": {"examples": "median", "synthetic": "best of runs"},
                "examples": examples,
                "ingest_ms_median": statistics.median(ingest),
                "ingest_ms_max": max(ingest),
                "synthetic": scaled,
                "per_line_growth_first_to_last": growth,
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
