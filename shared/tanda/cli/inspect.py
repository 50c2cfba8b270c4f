"""``tanda inspect DOCUMENT_ID [--tenant T] [--kind KIND]… [--json]``: a document's structure
records (ASK-14; docs/evidence.md), as the index holds them."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from tanda.records.structure import NodeKind, StructureRecord

_HEADINGS = {
    "table": "tables",
    "line_item": "line items",
    "line_item_summary": "KALEM ÖZETİ",
    "entity": "entities",
    "claim": "claims",
    "rule": "rules",
    "definition": "definitions",
}
_ORDER: tuple[NodeKind, ...] = (
    "table",
    "line_item_summary",
    "line_item",
    "entity",
    "claim",
    "rule",
    "definition",
)


def inspect_command(args: argparse.Namespace) -> int:
    """Exit 0 with the records; 1 when the tenant has no such document."""
    from tanda.service.structure import document_structure
    from tanda.wiring import build_runtime

    runtime = build_runtime()
    found = document_structure(
        runtime.search_index, args.tenant, args.document_id, tuple(args.kind or ()) or None
    )
    if found is None:
        print(
            f"tanda inspect: no document {args.document_id!r} in tenant {args.tenant!r}",
            file=sys.stderr,
        )
        return 1
    if args.json:
        payload = {
            "document": found.document.model_dump(mode="json"),
            "records": [record.model_dump(mode="json") for record in found.records],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    for line in render(found.document.title, found.document.document_id, found.records):
        print(line)
    if found.document.structure_version is None and not found.records:
        print(
            "no structure records: ingested without the layers (TANDA_STRUCTURE_LAYERS=false) or "
            "before them; `tanda ingest` the source again to build them"
        )
    return 0


def render(title: str, document_id: str, records: list[StructureRecord]) -> list[str]:
    """The records grouped by kind, in document order within a kind: local id, page, evidence."""
    counts = Counter(record.kind for record in records)
    violations = sum(1 for r in records if r.kind == "rule" and r.evaluation == "IHLAL")
    summary = " · ".join(f"{_HEADINGS[kind]}: {counts[kind]}" for kind in _ORDER if counts[kind])
    lines = [f"{title}  ({document_id})", summary + (f" ({violations} IHLAL)" * bool(violations))]
    prefix = f"{document_id}:"
    for kind in _ORDER:
        chosen = [r for r in records if r.kind == kind]
        if not chosen:
            continue
        lines.append("")
        lines.append(f"== {_HEADINGS[kind]}")
        for record in chosen:
            local = record.node_id.removeprefix(prefix)
            page = f"p.{record.page_no}" if record.page_no is not None else ""
            text = record.text
            if record.kind == "table":
                text = f"{record.caption}: {len(record.rows)} rows × {len(record.header)} columns"
            lines.append(f"{local:<10} {page:>6}  {text}")
            if (
                record.kind in ("claim", "rule", "definition")
                and " ".join(record.quote.split()) != text
            ):
                lines.append(f"{'':<18}“{' '.join(record.quote.split())}”")
    return lines
