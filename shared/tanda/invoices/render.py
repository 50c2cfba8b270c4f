"""The readable rendering of an invoice: the text that is searched, cited and judged (issue 18).

Header (number, type, dates, currency, seller and buyer with their tax ids, references), the line
table, document allowances and charges, the tax breakdown, the totals, payment terms and notes,
and the attachments by name only (their bytes are not text). Amounts are written as the document
writes them. A UBL-TR e-Fatura is rendered with the labels a printed e-Fatura carries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from tanda.invoices.model import (
    AllowanceCharge,
    Amount,
    Attachment,
    Invoice,
    InvoiceLine,
    Party,
    TaxSubtotal,
    percent_text,
)

_EN: Final[dict[str, str]] = {
    "invoice": "Invoice",
    "credit_note": "Credit note",
    "type": "Type",
    "profile": "Profile",
    "issue_date": "Issue date",
    "due_date": "Due date",
    "tax_point_date": "Tax point date",
    "delivery_date": "Delivery date",
    "period": "Invoicing period",
    "currency": "Currency",
    "tax_currency": "VAT accounting currency",
    "seller": "Seller",
    "buyer": "Buyer",
    "tax_office": "tax office",
    "order": "Order reference",
    "buyer_reference": "Buyer reference",
    "contract": "Contract reference",
    "preceding": "Preceding invoice",
    "despatch": "Despatch advice",
    "uuid": "UUID",
    "lines": "Lines",
    "line_no": "Line",
    "item": "Item",
    "quantity": "Quantity",
    "unit": "Unit",
    "unit_price": "Unit price",
    "line_allowances": "Allowances and charges",
    "net_amount": "Net amount",
    "vat": "VAT",
    "allowances_charges": "Allowances and charges",
    "allowance": "Allowance",
    "charge": "Charge",
    "taxes": "VAT breakdown",
    "tax_category": "Category",
    "rate": "Rate",
    "taxable": "Taxable amount",
    "tax_amount": "Tax amount",
    "exemption": "Exemption reason",
    "withholding": "Withholding",
    "totals": "Totals",
    "total_line_net": "Sum of line net amounts",
    "total_allowances": "Sum of allowances",
    "total_charges": "Sum of charges",
    "total_tax_exclusive": "Total without VAT",
    "total_tax": "Total VAT",
    "total_tax_inclusive": "Total with VAT",
    "total_prepaid": "Paid amount",
    "total_rounding": "Rounding amount",
    "total_withholding": "Withheld tax",
    "total_payable": "Amount due",
    "payment": "Payment",
    "payment_terms": "Payment terms",
    "payment_account": "Payment account",
    "payment_reference": "Payment reference",
    "notes": "Notes",
    "attachments": "Attachments",
    "attachment": "Attachment",
    "not_text": "embedded file, not text",
}
_TR: Final[dict[str, str]] = {
    **_EN,
    "invoice": "e-Fatura",
    "credit_note": "e-Fatura",
    "type": "Fatura tipi",
    "profile": "Senaryo",
    "issue_date": "Düzenleme tarihi",
    "due_date": "Son ödeme tarihi",
    "delivery_date": "Teslim tarihi",
    "period": "Fatura dönemi",
    "currency": "Para birimi",
    "seller": "Satıcı",
    "buyer": "Alıcı",
    "tax_office": "vergi dairesi",
    "order": "Sipariş no",
    "despatch": "İrsaliye no",
    "preceding": "İade edilen fatura",
    "uuid": "ETTN",
    "lines": "Mal ve hizmet kalemleri",
    "line_no": "Sıra no",
    "item": "Mal/hizmet",
    "quantity": "Miktar",
    "unit": "Birim",
    "unit_price": "Birim fiyat",
    "line_allowances": "İskonto/artırım",
    "net_amount": "Mal hizmet tutarı",
    "vat": "KDV oranı",
    "allowances_charges": "İskonto ve artırımlar",
    "allowance": "İskonto",
    "charge": "Artırım",
    "taxes": "Vergiler",
    "tax_category": "Vergi",
    "rate": "Oran",
    "taxable": "Matrah",
    "tax_amount": "Vergi tutarı",
    "exemption": "Muafiyet sebebi",
    "withholding": "Tevkifat",
    "totals": "Toplamlar",
    "total_line_net": "Mal hizmet toplam tutarı",
    "total_allowances": "Toplam iskonto",
    "total_charges": "Toplam artırım",
    "total_tax_exclusive": "Vergiler hariç toplam",
    "total_tax": "Hesaplanan KDV",
    "total_tax_inclusive": "Vergiler dahil toplam tutar",
    "total_prepaid": "Ön ödeme",
    "total_rounding": "Yuvarlama",
    "total_withholding": "Tevkifat tutarı",
    "total_payable": "Ödenecek tutar",
    "payment": "Ödeme",
    "payment_terms": "Ödeme koşulları",
    "payment_account": "Ödeme hesabı",
    "payment_reference": "Ödeme referansı",
    "notes": "Notlar",
    "attachments": "Ekler",
    "attachment": "Ek",
    "not_text": "gömülü dosya, metin değil",
}


@dataclass(frozen=True, slots=True)
class TextPart:
    """Lines under one section, each a paragraph."""

    section: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TablePart:
    section: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Rendering:
    title: str
    parts: tuple[TextPart | TablePart, ...]
    lang: str | None
    """``tr`` for a UBL-TR e-Fatura (its labels are Turkish); else unknown: the notes and line
    names decide when they say one of tanda's languages, else English, the labels'
    (:func:`tanda.retrieval.ingest.readers.read_xml`)."""


def labels_for(invoice: Invoice) -> dict[str, str]:
    return _TR if invoice.is_ubl_tr else _EN


def invoice_heading(invoice: Invoice) -> str:
    """``Invoice 12115118``, ``Credit note 018304 / 28865``, ``e-Fatura GIB2024000000001``: the
    root of every section path of the invoice."""
    labels = labels_for(invoice)
    return f"{labels[invoice.kind]} {invoice.number or '?'}"


def invoice_title(invoice: Invoice) -> str:
    """``Invoice 12115118 — De Koksmaat → ODIN 59 (2015-01-09)``."""
    parties = " → ".join(p.name or "?" for p in (invoice.seller, invoice.buyer))
    date = f" ({invoice.issue_date})" if invoice.issue_date else ""
    return f"{invoice_heading(invoice)} — {parties}{date}"


def render_invoice(invoice: Invoice) -> Rendering:
    labels = labels_for(invoice)
    heading = invoice_heading(invoice)
    parts: list[TextPart | TablePart] = [TextPart(heading, tuple(_header(invoice, labels)))]
    if invoice.lines:
        parts.append(_line_table(invoice, labels, f"{heading} > {labels['lines']}"))
    if invoice.allowances_charges:
        parts.append(
            TextPart(
                f"{heading} > {labels['allowances_charges']}",
                tuple(_allowance_charge(ac, labels) for ac in invoice.allowances_charges),
            )
        )
    if invoice.tax_subtotals:
        parts.append(_tax_table(invoice, labels, f"{heading} > {labels['taxes']}"))
    totals = tuple(total_lines(invoice))
    if totals:
        parts.append(TextPart(f"{heading} > {labels['totals']}", totals))
    payment = tuple(_payment(invoice, labels))
    if payment:
        parts.append(TextPart(f"{heading} > {labels['payment']}", payment))
    if invoice.notes:
        parts.append(TextPart(f"{heading} > {labels['notes']}", invoice.notes))
    if invoice.attachments:
        parts.append(
            TextPart(
                f"{heading} > {labels['attachments']}",
                tuple(_attachment(a, labels) for a in invoice.attachments),
            )
        )
    return Rendering(
        title=invoice_title(invoice),
        parts=tuple(parts),
        lang="tr" if invoice.is_ubl_tr else None,
    )


def line_table(invoice: Invoice) -> TablePart:
    """The line table as rendered: its section, header and cells."""
    labels = labels_for(invoice)
    return _line_table(invoice, labels, f"{invoice_heading(invoice)} > {labels['lines']}")


def _header(invoice: Invoice, labels: dict[str, str]) -> Iterator[str]:
    yield invoice_heading(invoice)
    facts = [
        (labels["type"], invoice.type_code),
        (labels["profile"], invoice.profile_id if invoice.is_ubl_tr else None),
        (labels["issue_date"], invoice.issue_date),
        (labels["due_date"], invoice.due_date),
        (labels["tax_point_date"], invoice.tax_point_date),
        (labels["delivery_date"], invoice.delivery_date),
        (labels["period"], _period(invoice.period)),
        (labels["currency"], invoice.currency),
        (labels["tax_currency"], invoice.tax_currency),
    ]
    yield " · ".join(f"{label}: {value}" for label, value in facts if value)
    yield f"{labels['seller']}: {party_text(invoice.seller, labels)}"
    yield f"{labels['buyer']}: {party_text(invoice.buyer, labels)}"
    references = [
        (labels["order"], invoice.order_reference),
        (labels["buyer_reference"], invoice.buyer_reference),
        (labels["contract"], invoice.contract_reference),
        (labels["preceding"], ", ".join(invoice.preceding_invoices)),
        (labels["despatch"], ", ".join(invoice.despatch_references)),
        (labels["uuid"], invoice.uuid),
    ]
    shown = " · ".join(f"{label}: {value}" for label, value in references if value)
    if shown:
        yield shown


def _period(period: tuple[str | None, str | None] | None) -> str | None:
    if period is None or not any(period):
        return None
    return f"{period[0] or '?'} – {period[1] or '?'}"


_ID_ORDER: Final = {"tax": 0, "legal": 1, "party": 2}


def party_text(party: Party, labels: dict[str, str]) -> str:
    """``De Koksmaat · VAT NL8200.98.395.B.01 · 57151520 · Postbus 7l, 1950 AB Velsen-Noord,
    NL``: the name, every id, the tax office and the address."""
    pieces = [party.name or "?"]
    # Tax ids, then legal ids, then other ids, whatever order the syntax wrote them in: one
    # invoice in UBL and in CII states its parties alike (a cross-check compares them, XC-4).
    ids = sorted(party.ids, key=lambda party_id: _ID_ORDER[party_id.kind])
    pieces.extend(party_id.label() for party_id in ids)
    if party.tax_office:
        pieces.append(f"{labels['tax_office']}: {party.tax_office}")
    address = party.address()
    if address:
        pieces.append(address)
    return " · ".join(pieces)


def _line_table(invoice: Invoice, labels: dict[str, str], section: str) -> TablePart:
    with_adjustments = any(line.allowances_charges for line in invoice.lines)
    currency = f" ({invoice.currency})" if invoice.currency else ""
    header = [
        labels["line_no"],
        labels["item"],
        labels["quantity"],
        labels["unit"],
        f"{labels['unit_price']}{currency}",
    ]
    if with_adjustments:
        header.append(labels["line_allowances"])
    header += [f"{labels['net_amount']}{currency}", labels["vat"]]
    rows = [_line_row(line, labels, with_adjustments) for line in invoice.lines]
    return TablePart(section, tuple(header), tuple(rows))


def _line_row(line: InvoiceLine, labels: dict[str, str], with_adjustments: bool) -> tuple[str, ...]:
    cells = [
        line.line_id,
        item_text(line),
        _surface(line.quantity),
        line.unit or "",
        price_text(line),
    ]
    if with_adjustments:
        cells.append("; ".join(_adjustment(ac, labels) for ac in line.allowances_charges))
    cells += [_surface(line.net_amount), line_tax_text(line)]
    return tuple(cells)


def item_text(line: InvoiceLine) -> str:
    name = line.name or line.description or ""
    if line.description and line.name and line.description != line.name:
        return f"{name} — {line.description}"
    return name


def price_text(line: InvoiceLine) -> str:
    """``9.95``, or ``9.95 per 10`` when the price is for a base quantity other than one."""
    price = _surface(line.price)
    base = line.price_base_quantity
    if price and base is not None and base.value != 1:
        return f"{price} per {base.surface}"
    return price


def line_tax_text(line: InvoiceLine) -> str:
    rate = percent_text(line.tax_rate) if line.tax_rate is not None else ""
    return " ".join(p for p in (line.tax_category, rate) if p)


def _adjustment(ac: AllowanceCharge, labels: dict[str, str]) -> str:
    sign = labels["charge"] if ac.is_charge else labels["allowance"]
    reason = f" ({ac.reason})" if ac.reason else ""
    return f"{sign} {_surface(ac.amount) or '?'}{reason}"


def _allowance_charge(ac: AllowanceCharge, labels: dict[str, str]) -> str:
    text = _adjustment(ac, labels)
    if ac.percent is not None and ac.base is not None:
        text += f", {percent_text(ac.percent)} × {ac.base.surface}"
    if ac.tax_category or ac.tax_rate is not None:
        rate = percent_text(ac.tax_rate) if ac.tax_rate is not None else ""
        text += f", {labels['vat']} {' '.join(p for p in (ac.tax_category, rate) if p)}"
    return text


def _tax_table(invoice: Invoice, labels: dict[str, str], section: str) -> TablePart:
    currency = f" ({invoice.currency})" if invoice.currency else ""
    header = (
        labels["tax_category"],
        labels["rate"],
        f"{labels['taxable']}{currency}",
        f"{labels['tax_amount']}{currency}",
        labels["exemption"],
    )
    rows = tuple(_tax_row(subtotal, labels) for subtotal in invoice.tax_subtotals)
    return TablePart(section, header, rows)


def _tax_row(subtotal: TaxSubtotal, labels: dict[str, str]) -> tuple[str, ...]:
    name = tax_name(subtotal)
    if subtotal.withholding:
        name = f"{labels['withholding']}: {name}"
    rate = percent_text(subtotal.rate) if subtotal.rate is not None else ""
    return (
        name,
        rate,
        _surface(subtotal.base),
        _surface(subtotal.tax),
        subtotal.exemption_reason or "",
    )


def tax_name(subtotal: TaxSubtotal) -> str:
    """``VAT S``, ``KDV (0015)``: the tax and its category or code."""
    scheme = subtotal.scheme or "VAT"
    detail = subtotal.category or subtotal.type_code
    if detail and subtotal.type_code and subtotal.category:
        detail = f"{subtotal.category}, {subtotal.type_code}"
    return f"{scheme} ({detail})" if subtotal.type_code else f"{scheme} {detail or ''}".strip()


def total_lines(invoice: Invoice) -> Iterator[str]:
    """``Amount due: 250.33 EUR``: one line per stated total (what the totals records quote)."""
    labels = labels_for(invoice)
    for key, amount in total_amounts(invoice):
        yield f"{labels[key]}: {money(amount, invoice.currency)}"


def total_amounts(invoice: Invoice) -> list[tuple[str, Amount]]:
    """The stated totals in the order they are rendered, by label key."""
    t = invoice.totals
    pairs = [
        ("total_line_net", t.line_net),
        ("total_allowances", t.allowances),
        ("total_charges", t.charges),
        ("total_tax_exclusive", t.tax_exclusive),
        ("total_tax", t.tax),
        ("total_tax_inclusive", t.tax_inclusive),
        ("total_prepaid", t.prepaid),
        ("total_rounding", t.rounding),
        ("total_withholding", t.withholding),
        ("total_payable", t.payable),
    ]
    return [(key, amount) for key, amount in pairs if amount is not None]


def money(amount: Amount, currency: str | None) -> str:
    unit = amount.currency or currency
    return f"{amount.surface} {unit}" if unit else amount.surface


def _payment(invoice: Invoice, labels: dict[str, str]) -> Iterator[str]:
    for terms in invoice.payment_terms:
        yield f"{labels['payment_terms']}: {terms}"
    for account in dict.fromkeys(invoice.payment_accounts):
        yield f"{labels['payment_account']}: {account}"
    if invoice.payment_reference:
        yield f"{labels['payment_reference']}: {invoice.payment_reference}"


def _attachment(attachment: Attachment, labels: dict[str, str]) -> str:
    name = attachment.filename or attachment.reference or "?"
    details = [d for d in (attachment.description, attachment.reference) if d and d != name]
    if attachment.size_bytes is not None:
        kind = attachment.mime_type or "file"
        details.append(f"{kind}, {attachment.size_bytes} bytes, {labels['not_text']}")
    if attachment.uri:
        details.append(attachment.uri)
    return f"{labels['attachment']}: {name}" + (f" ({'; '.join(details)})" if details else "")


def _surface(amount: Amount | None) -> str:
    return amount.surface if amount is not None else ""
