"""The structure records of an invoice (issue 18, ASK-14), from its XML model rather than read back
from text: every value is exact, and every record is anchored in the stored chunk line that
renders it (``quote == chunk.text[span]``).

- entities — the parties with their tax ids, the invoice, order, buyer, contract and preceding
  invoice references, the dates, the currency, every stated total and every tax amount;
- line items — one per invoice line, ``KALEM: kalem no=1, tanim=…, miktar=2 (EA), birim
  fiyat=9.95, tutar=19.90`` with its allowances and charges and its VAT;
- the KALEM ÖZETİ — the true line count, the stated line total (BT-106), the sum of the lines,
  whether they agree;
- rules — :func:`tanda.invoices.evaluate_rules`, one record each, its ``rule_id`` named;
- claims — every ``Label: value`` statement the rendering writes outside its tables, notes and
  attachments (``Amount due: 851.78 NOK``, ``Order reference: 123``, ``Seller: Bluem BV · VAT
  NL809163160B01 · …``): what the invoice states, for a cross-check to compare with another
  document (XC-3). The notes are prose; their claims are the model's, as for any document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from tanda.extraction.drafts import DocumentContext, Draft, Numbering
from tanda.extraction.tables import markdown_table
from tanda.extraction.text import folded_name, line_spans
from tanda.invoices import Invoice, RuleCheck, evaluate_rules, line_summary
from tanda.invoices.model import Amount, InvoiceLine, percent_text
from tanda.invoices.render import (
    invoice_heading,
    item_text,
    labels_for,
    line_table,
    line_tax_text,
    price_text,
    total_amounts,
)
from tanda.records.documents import Chunk
from tanda.records.structure import (
    CellType,
    ClaimRecord,
    ColumnRole,
    EntityRecord,
    LineItemRecord,
    LineItemSummaryRecord,
    RuleRecord,
    TableColumn,
    TableRecord,
    TotalCheck,
)

_ROWS: Final = re.compile(r"rows (\d+)–(\d+)$")
_RULE_TYPES: Final = {"sum": "invoice_total", "date": "date_order", "tax_rate": "tax_rate"}
_RULE_ANCHOR: Final = {
    "BR-CO-10": "total_line_net",
    "BR-CO-11": "total_allowances",
    "BR-CO-12": "total_charges",
    "BR-CO-13": "total_tax_exclusive",
    "BR-CO-14": "total_tax",
    "BR-CO-15": "total_tax_inclusive",
    "BR-CO-16": "total_payable",
}
"""The totals line a rule checks: where its record is anchored."""


class _Lines:
    """Every stored line of the invoice's chunks, findable by section and prefix, and the table
    rows by their number."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.lines: list[tuple[Chunk, int, int]] = []
        self.rows: dict[str, dict[int, tuple[Chunk, int, int]]] = {}
        for chunk in chunks:
            spans = list(line_spans(chunk.text))
            rows = _ROWS.search(chunk.section or "") if chunk.kind == "table" else None
            if rows is not None:
                table = (chunk.section or "").rsplit(" > ", 1)[0]
                first = int(rows.group(1))
                for offset, (start, end) in enumerate(spans[1:]):  # the header line first
                    self.rows.setdefault(table, {})[first + offset] = (chunk, start, end)
                continue
            self.lines.extend((chunk, start, end) for start, end in spans)

    def starting(self, prefix: str) -> tuple[Chunk, int, int] | None:
        for chunk, start, end in self.lines:
            if chunk.text.startswith(prefix, start):
                return chunk, start, end
        return None

    def row(self, table: str, number: int) -> tuple[Chunk, int, int] | None:
        return self.rows.get(table, {}).get(number)

    def first(self) -> tuple[Chunk, int, int] | None:
        return self.lines[0] if self.lines else None


def invoice_layers(
    ctx: DocumentContext, invoice: Invoice, chunks: Sequence[Chunk], numbering: Numbering
) -> list[Draft]:
    """Every invoice record of the document whose stored ``chunks`` render ``invoice``."""
    lines = _Lines(sorted(chunks, key=lambda c: c.ordinal))
    labels = labels_for(invoice)
    heading = invoice_heading(invoice)
    drafts: list[Draft] = []
    totals_at: dict[str, tuple[str, tuple[Chunk, int, int]]] = {}
    drafts.extend(_entities(ctx, invoice, lines, numbering, totals_at))
    table = f"{heading} > {labels['lines']}"
    table_record = _table(ctx, invoice, lines, table)
    table_id = None
    if table_record is not None:
        drafts.append(table_record)
        table_id = ctx.node_id("t1")
    for row_no, line in enumerate(invoice.lines, start=1):
        anchor = lines.row(table, row_no)
        if anchor is not None:
            drafts.append(_line_item(ctx, line, row_no, anchor, table_id))
    summary = _summary(ctx, invoice, lines, table, totals_at, table_id)
    if summary is not None:
        drafts.append(summary)
    drafts.extend(_rules(ctx, invoice, lines, numbering, totals_at))
    drafts.extend(_label_claims(ctx, invoice, chunks, numbering))
    return drafts


# --- claims ----

LABEL_CLAIMS_BY: Final = "invoice"
"""``proposed_by`` of the claims the invoice reader states (no model proposed them)."""
_SEPARATOR: Final = " · "


def _label_claims(
    ctx: DocumentContext, invoice: Invoice, chunks: Sequence[Chunk], numbering: Numbering
) -> Iterator[Draft]:
    """One claim per ``Label: value`` statement of the rendering's text lines, with the unlabelled
    pieces after it on its line (a party's ids and address). A label is one the renderer writes,
    so a colon inside a value (``Processor: Intel``) starts nothing."""
    labels = labels_for(invoice)
    heading = invoice_heading(invoice)
    prose = {f"{heading} > {labels['notes']}", f"{heading} > {labels['attachments']}"}
    # A party's tax office is a piece of its party's statement, not a statement of its own.
    inner = {labels["tax_office"]}
    starts = tuple(
        sorted({f"{label}: " for label in labels.values() if label not in inner}, key=len)
    )
    for chunk in sorted(chunks, key=lambda c: c.ordinal):
        if chunk.kind == "table" or chunk.section in prose:
            continue
        for start, end in line_spans(chunk.text):
            for first, last in _labelled(chunk.text, start, end, starts):
                statement = chunk.text[first:last]
                yield ctx.draft(
                    ClaimRecord,
                    numbering.next("c"),
                    chunk,
                    (first, last),
                    text=statement,
                    statement=statement,
                    proposed_by=LABEL_CLAIMS_BY,
                )


def _labelled(
    text: str, start: int, end: int, starts: tuple[str, ...]
) -> Iterator[tuple[int, int]]:
    """The spans of the line ``[start, end)`` that each begin with a label: its pieces split at
    `` · ``, an unlabelled piece belonging to the labelled one before it."""
    pieces: list[tuple[int, int]] = []
    at = start
    while (cut := text.find(_SEPARATOR, at, end)) >= 0:
        pieces.append((at, cut))
        at = cut + len(_SEPARATOR)
    pieces.append((at, end))
    current: tuple[int, int] | None = None
    for first, last in pieces:
        if text.startswith(starts, first, last):
            if current is not None:
                yield current
            current = (first, last)
        elif current is not None:
            current = (current[0], last)
    if current is not None:
        yield current


# --- entities ----


def _entities(
    ctx: DocumentContext,
    invoice: Invoice,
    lines: _Lines,
    numbering: Numbering,
    totals_at: dict[str, tuple[str, tuple[Chunk, int, int]]],
) -> Iterator[Draft]:
    """Entities of the invoice; ``totals_at`` learns the node id and line of each stated total
    (the rules and the KALEM ÖZETİ point at them)."""
    labels = labels_for(invoice)
    dates_line = lines.starting(f"{labels['type']}: ") or lines.starting(
        f"{labels['issue_date']}: "
    )
    facts: list[_Fact] = []
    if invoice.number:
        facts.append(_Fact("REFERENCE", f"{labels['invoice']} no", invoice.number, lines.first()))
    for key, value in (
        ("issue_date", invoice.issue_date),
        ("due_date", invoice.due_date),
        ("delivery_date", invoice.delivery_date),
    ):
        if value:
            facts.append(_Fact("DATE", labels[key], value, dates_line))
    if invoice.currency:
        facts.append(_Fact("REFERENCE", labels["currency"], invoice.currency, dates_line))
    for key, party in (("seller", invoice.seller), ("buyer", invoice.buyer)):
        anchor = lines.starting(f"{labels[key]}: ")
        facts.append(_Fact("PARTY", labels[key], party.name or "?", anchor))
        for party_id in party.ids:
            kind = {"tax": "tax id", "legal": "legal id", "party": "id"}[party_id.kind]
            facts.append(_Fact("REFERENCE", f"{labels[key]} {kind}", party_id.label(), anchor))
    for key, value in (
        ("order", invoice.order_reference),
        ("buyer_reference", invoice.buyer_reference),
        ("contract", invoice.contract_reference),
        ("preceding", ", ".join(invoice.preceding_invoices)),
        ("despatch", ", ".join(invoice.despatch_references)),
        ("uuid", invoice.uuid),
    ):
        if value:
            facts.append(_Fact("REFERENCE", labels[key], value, _containing(lines, value)))
    for key, amount in total_amounts(invoice):
        anchor = lines.starting(f"{labels[key]}: ")
        facts.append(_Fact("AMOUNT", labels[key], amount.surface, anchor, amount, key))
    for fact in facts:
        if fact.anchor is None:
            continue
        local = numbering.next("e")
        chunk, start, end = fact.anchor
        if fact.total_key is not None:
            totals_at[fact.total_key] = (ctx.node_id(local), fact.anchor)
        span = _within(chunk.text, start, end, fact.value)
        currency = fact.amount.currency or invoice.currency if fact.amount else None
        yield ctx.draft(
            EntityRecord,
            local,
            chunk,
            span,
            text=f"{fact.kind}: {fact.name} = {fact.value}" + (f" {currency}" if currency else ""),
            sequence=span[0],
            entity_type=fact.kind,
            name=fact.name,
            canonical=folded_name(fact.name),
            value=fact.value,
            normal=_amount_value(fact.amount, invoice.currency) if fact.amount else None,
        )


@dataclass(frozen=True, slots=True)
class _Fact:
    kind: str
    name: str
    value: str
    anchor: tuple[Chunk, int, int] | None
    amount: Amount | None = None
    total_key: str | None = None


def _containing(lines: _Lines, text: str) -> tuple[Chunk, int, int] | None:
    for chunk, start, end in lines.lines:
        if text in chunk.text[start:end]:
            return chunk, start, end
    return None


def _within(text: str, start: int, end: int, value: str) -> tuple[int, int]:
    """The span of ``value`` inside the line ``[start, end)``, or the whole line."""
    found = text.find(value, start, end)
    return (found, found + len(value)) if found >= 0 else (start, end)


def _amount_value(amount: Amount, currency: str | None) -> dict[str, Any]:
    return {
        "kind": "amount",
        "value": amount.value,
        "tolerance": Decimal(5).scaleb(-(amount.decimals + 1)),
        "unit": amount.currency or currency,
        "currency": amount.currency or currency,
    }


# --- line items and KALEM ÖZETİ ----


def kalem_text(line: InvoiceLine) -> str:
    """``KALEM: kalem no=1, tanim=PATAT FRITES 10MM 10KG, miktar=2 (EA), birim fiyat=9.95,
    tutar=19.90, KDV=S 6%``."""
    parts = [f"kalem no={line.line_id}", f"tanim={item_text(line)}"]
    if line.quantity is not None:
        unit = f" ({line.unit})" if line.unit else ""
        parts.append(f"miktar={line.quantity.surface}{unit}")
    price = price_text(line)
    if price:
        parts.append(f"birim fiyat={price}")
    for ac in line.allowances_charges:
        name = "artırım" if ac.is_charge else "iskonto"
        reason = f" ({ac.reason})" if ac.reason else ""
        parts.append(f"{name}={ac.amount.surface if ac.amount else '?'}{reason}")
    parts.append(f"tutar={line.net_amount.surface if line.net_amount else '?'}")
    tax = line_tax_text(line)
    if tax:
        parts.append(f"KDV={tax}")
    return "KALEM: " + ", ".join(parts)


_COLUMNS: Final[dict[str, tuple[CellType, ColumnRole]]] = {
    "line_no": ("text", "number"),
    "item": ("text", "description"),
    "quantity": ("count", "quantity"),
    "unit": ("text", "other"),
    "unit_price": ("amount", "unit_price"),
    "line_allowances": ("text", "other"),
    "net_amount": ("amount", "amount"),
    "vat": ("text", "other"),
}
"""What each column of the rendered line table is (``render._line_table``'s order)."""


def _table(ctx: DocumentContext, invoice: Invoice, lines: _Lines, table: str) -> Draft | None:
    """The line table as a table record (ASK-08: the table its line items and KALEM ÖZETİ belong
    to, as for any item table), with each cell's type and the exact values of the model, anchored
    on its header and the rows of its first chunk."""
    first_row = lines.row(table, 1)
    if first_row is None:
        return None
    chunk, start, end = first_row
    header_start = chunk.text.rfind("\n", 0, max(start - 1, 0)) + 1 if start else 0
    for row_no in range(2, len(invoice.lines) + 1):
        row = lines.row(table, row_no)
        if row is None or row[0].chunk_id != chunk.chunk_id:
            break
        end = row[2]
    part = line_table(invoice)
    keys = ["line_no", "item", "quantity", "unit", "unit_price"]
    if len(part.header) == len(keys) + 3:
        keys.append("line_allowances")
    keys += ["net_amount", "vat"]
    columns = tuple(
        TableColumn(name=name, type=_COLUMNS[key][0], role=_COLUMNS[key][1])
        for name, key in zip(part.header, keys, strict=True)
    )
    values = [
        {
            "quantity": line.quantity,
            "unit_price": line.price,
            "net_amount": line.net_amount,
        }
        for line in invoice.lines
    ]
    return ctx.draft(
        TableRecord,
        "t1",
        chunk,
        (header_start, end),
        text=f"{table}\n\n{markdown_table(part.header, part.rows)}",
        caption=table,
        header=part.header,
        columns=columns,
        rows=part.rows,
        cell_types=tuple(
            tuple(
                _COLUMNS[key][0] if cell else "empty" for key, cell in zip(keys, cells, strict=True)
            )
            for cells in part.rows
        ),
        values=tuple(
            tuple(
                amount.value if (amount := row_values.get(key)) is not None else None
                for key in keys
            )
            for row_values in values
        ),
        chunk_ids=tuple(
            dict.fromkeys(
                anchor[0].chunk_id
                for row_no in range(1, len(invoice.lines) + 1)
                if (anchor := lines.row(table, row_no)) is not None
            )
        ),
    )


def _line_item(
    ctx: DocumentContext,
    line: InvoiceLine,
    row_no: int,
    anchor: tuple[Chunk, int, int],
    table_id: str | None,
) -> Draft:
    chunk, start, end = anchor
    others = []
    if line.price is not None:
        others.append({"column": "birim fiyat", "surface": line.price.surface})
    if line.tax_rate is not None:
        others.append({"column": "KDV", "surface": percent_text(line.tax_rate)})
    amounts = []
    if line.net_amount is not None:
        amounts.append(
            {
                "column": "tutar",
                "surface": line.net_amount.surface,
                "normal": _amount_value(line.net_amount, None),
            }
        )
    quantity = (
        {"column": "miktar", "surface": line.quantity.surface}
        if line.quantity is not None
        else None
    )
    return ctx.draft(
        LineItemRecord,
        f"t1-i{row_no}",
        chunk,
        (start, end),
        text=kalem_text(line),
        parent_id=table_id,
        row_no=row_no,
        item_no=line.line_id,
        description=item_text(line),
        quantity=quantity,
        amounts=tuple(amounts),
        others=tuple(others),
        role="item",
    )


def _summary(
    ctx: DocumentContext,
    invoice: Invoice,
    lines: _Lines,
    table: str,
    totals_at: dict[str, tuple[str, tuple[Chunk, int, int]]],
    table_id: str | None,
) -> Draft | None:
    first_row = lines.row(table, 1)
    if first_row is None:
        return None
    chunk, start, _ = first_row
    header_start = chunk.text.rfind("\n", 0, max(start - 1, 0)) + 1 if start else 0
    header = (header_start, max(start - 1, header_start))
    summary = line_summary(invoice)
    labels = labels_for(invoice)
    head = f"KALEM ÖZETİ: {summary.line_count} kalem ({summary.line_count} satır)"
    checks: list[TotalCheck] = []
    stated = summary.stated_total
    if stated is None or summary.lines_sum is None:
        text = f"{head}; belgede kalemlerin toplamı belirtilmemiş"
    else:
        verdict = "uyuşuyor" if summary.agrees else "UYUŞMUYOR"
        text = (
            f"{head}; belge toplamı ({labels['total_line_net']})={stated.surface}; "
            f"kalemlerin toplamı={summary.lines_sum_surface}; {verdict}"
        )
        total_id = totals_at.get("total_line_net", ("", first_row))[0]
        checks.append(
            TotalCheck(
                total_id=total_id,
                label=labels["total_line_net"],
                column=labels["net_amount"],
                stated=stated.surface,
                stated_value=stated.value,
                items_sum=summary.lines_sum,
                items_sum_surface=summary.lines_sum_surface or "",
                items=summary.line_count,
                formula=f"{labels['total_line_net']} = Σ {summary.line_count} kalem",
                tolerance=Decimal(5).scaleb(-(stated.decimals + 1)),
                agrees=bool(summary.agrees),
            )
        )
    return ctx.draft(
        LineItemSummaryRecord,
        "t1-s",
        chunk,
        header,
        text=text,
        parent_id=table_id,
        item_count=summary.line_count,
        row_count=summary.line_count,
        stated_total=stated.surface if stated is not None else None,
        items_sum=summary.lines_sum,
        checks=tuple(checks),
        agrees=summary.agrees,
    )


# --- rules ----


def _rules(
    ctx: DocumentContext,
    invoice: Invoice,
    lines: _Lines,
    numbering: Numbering,
    totals_at: dict[str, tuple[str, tuple[Chunk, int, int]]],
) -> Iterator[Draft]:
    labels = labels_for(invoice)
    taxes = f"{invoice_heading(invoice)} > {labels['taxes']}"
    subtotal_rows = {id(s): n for n, s in enumerate(invoice.tax_subtotals, start=1)}
    subtotals = iter(invoice.tax_subtotals)
    for check in evaluate_rules(invoice):
        fact_id: str | None = None
        anchor: tuple[Chunk, int, int] | None
        if check.rule_id == "BR-CO-17":
            subtotal = next(subtotals)
            anchor = lines.row(taxes, subtotal_rows[id(subtotal)])
        elif check.rule_id == "DUE-DATE":
            anchor = lines.starting(f"{labels['type']}: ") or lines.first()
        else:
            key = _RULE_ANCHOR[check.rule_id]
            found = totals_at.get(key)
            fact_id, anchor = found if found is not None else (None, lines.first())
        if anchor is None:
            continue
        chunk, start, end = anchor
        yield ctx.draft(
            RuleRecord,
            numbering.next("r"),
            chunk,
            (start, end),
            text=rule_text(check),
            rule_type=_RULE_TYPES[check.kind],
            rule_id=check.rule_id,
            # What the rule is about, then what it requires: the proof chain's rule step says
            # "BR-CO-17 (VAT S 21%) Tax amount = taxable amount × rate" (ASK-11).
            subject=check.rule_id + (f" ({check.subject})" if check.subject else ""),
            condition=check.title,
            evaluation=check.evaluation,
            violations=_facts(check, fact_id, chunk, start, end, ("IHLAL", "UYARI")),
            satisfied_by=_facts(check, fact_id, chunk, start, end, ("sağlandı",)),
            reason=check.reason,
        )


def rule_text(check: RuleCheck) -> str:
    """``KURAL BR-CO-10 (Sum of invoice line net amounts = total line net amount): 19.90 + … =
    229.60 = 229.60 (stated) → sağlandı``."""
    subject = f" [{check.subject}]" if check.subject else ""
    return (
        f"KURAL {check.rule_id}{subject} ({check.title}): {check.expression} → {check.evaluation}"
    )


def _facts(
    check: RuleCheck,
    fact_id: str | None,
    chunk: Chunk,
    start: int,
    end: int,
    when: tuple[str, ...],
) -> tuple[dict[str, str], ...]:
    if check.evaluation not in when:
        return ()
    node_id = fact_id or f"{chunk.document_id}:{chunk.chunk_id}@{start}"
    return ({"node_id": node_id, "text": chunk.text[start:end], "value": check.stated or ""},)
