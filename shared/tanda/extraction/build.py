"""One document → its structure records (ASK-14): tables, line items and their summaries, entities,
claims that pass the quote check, rules evaluated against the document's own facts, and the terms
it defines (issue 22).

Pure: the document and its stored chunks in, records out (the model's claim proposals come in as
data; the ingest use case asks the model). Records are numbered in document order: by chunk, then
position in it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tanda.extraction.claims import ClaimProposal, claim_drafts
from tanda.extraction.definitions import definition_drafts
from tanda.extraction.drafts import DocumentContext, Draft, Fact, Numbering
from tanda.extraction.entities import prose_entities
from tanda.extraction.invoices import invoice_layers
from tanda.extraction.items import table_layers
from tanda.extraction.rules import find_rules, rule_drafts
from tanda.extraction.tables import read_tables
from tanda.invoices import Invoice
from tanda.numbers import extract_quantities
from tanda.records.documents import Chunk, Document
from tanda.records.structure import ClaimRecord, StructureRecord

_YEAR = re.compile(r"^(?:19|20)\d{2}$")


@dataclass(frozen=True, slots=True)
class StructureBuild:
    records: list[StructureRecord]
    claims_proposed: int
    claims_dropped: int  # proposals whose quote is not the stored text at any span


def build_structure(
    document: Document,
    chunks: Sequence[Chunk],
    proposals: Sequence[ClaimProposal] = (),
    invoice: Invoice | None = None,
) -> StructureBuild:
    """Every record of ``document`` from its ``chunks`` (in any order) and the claim proposals
    a model made for them. An invoice read from XML (issue 18) brings its exact values: its
    entities, line items, KALEM ÖZETİ and rules come from it instead of being read back from the
    rendered text (claims stay the model's)."""
    period = document.identity.period
    ctx = DocumentContext(
        document,
        lang=document.lang,
        period=int(period) if period and _YEAR.match(period) else None,
    )
    numbering = Numbering()
    ordered = sorted(chunks, key=lambda c: c.ordinal)
    if invoice is not None:
        invoice_drafts = invoice_layers(ctx, invoice, ordered, numbering)
        proposed = claim_drafts(ctx, proposals, numbering)
        # A proposal inside a statement the invoice makes itself (`Seller: Bluem BV · VAT …`)
        # says nothing more: one claim, not two a cross-check would pair with each other.
        stated: dict[str, list[tuple[int, int]]] = {}
        for d in invoice_drafts:
            if d.record_class is ClaimRecord:
                span = d.fields["span"]
                stated.setdefault(d.fields["chunk_id"], []).append((span["start"], span["end"]))
        kept = [
            d
            for d in proposed.drafts
            if not any(
                start <= d.fields["span"]["start"] and d.fields["span"]["end"] <= end
                for start, end in stated.get(d.fields["chunk_id"], ())
            )
        ]
        return _numbered([*invoice_drafts, *kept], len(proposals), proposed.dropped)
    tables = table_layers(ctx, read_tables(ordered), numbering)
    drafts: list[Draft] = list(tables.drafts)
    facts: list[Fact] = list(tables.facts)
    found = []
    seen: set[tuple[str, str]] = set()
    for chunk in ordered:
        if chunk.kind != "text":
            continue
        quantities = extract_quantities(chunk.text, chunk.lang or document.lang)
        prose = prose_entities(ctx, chunk, quantities, numbering, seen)
        drafts.extend(prose.drafts)
        facts.extend(prose.facts)
        found.extend(find_rules(ctx, chunk, quantities))
    claims = claim_drafts(ctx, proposals, numbering)
    drafts.extend(claims.drafts)
    by_id = {chunk.chunk_id: chunk for chunk in ordered}
    drafts.extend(rule_drafts(ctx, found, facts, tables.summaries, numbering, by_id))
    drafts.extend(definition_drafts(ctx, ordered, numbering))
    return _numbered(drafts, len(proposals), claims.dropped)


def _numbered(drafts: list[Draft], proposed: int, dropped: int) -> StructureBuild:
    drafts.sort(key=lambda d: d.order)
    records: list[StructureRecord] = [
        draft.record_class(**draft.fields, ordinal=ordinal) for ordinal, draft in enumerate(drafts)
    ]
    return StructureBuild(records, proposed, dropped)
