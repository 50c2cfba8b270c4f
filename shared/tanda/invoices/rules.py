"""The invoice's own arithmetic, evaluated deterministically (issue 18, ASK-08): the EN 16931
business rules that tie its totals together, the due date, and each tax subtotal against its rate.

Each check says ``sağlandı`` (holds), ``IHLAL`` (violated) or ``DEĞERLENDİRİLEMEDİ`` (a value it
needs is not stated), with the values involved written out, so a reader can redo it by hand. A
check of tanda's own that EN 16931 does not make (DUE-DATE) says ``UYARI`` (a warning) where it
does not hold: worth a reader's attention, never a violation of the standard (issue 23).
Sums are exact (``Decimal``); a stated amount is compared at the precision the document writes it:
it holds when it is within half a unit of its last written decimal of the computed value (a total
of ``229.60`` stands for anything in ``[229.595, 229.605]``). Everything here is linear in the
number of lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final, Literal

from tanda.invoices.model import AllowanceCharge, Amount, Invoice, TaxSubtotal, percent_text

Evaluation = Literal["IHLAL", "sağlandı", "DEĞERLENDİRİLEMEDİ", "UYARI"]
RuleKind = Literal["sum", "date", "tax_rate"]

SHOWN_TERMS: Final = 8
"""How many terms of a sum are written out in a check's expression; the rest is counted."""

_ZERO = Decimal(0)
_ZERO_TAX_CATEGORIES = frozenset({"E", "Z", "AE", "K", "G", "O"})
"""EN 16931 BR-E-09, BR-Z-09, BR-AE-09, BR-IC-09, BR-G-09, BR-O-09: these carry no tax."""


@dataclass(frozen=True, slots=True)
class RuleCheck:
    """One rule of one invoice, evaluated."""

    rule_id: str
    title: str
    kind: RuleKind
    evaluation: Evaluation
    expression: str
    """The values involved, as a reader redoes it: ``19.90 + 9.85 + … (20 lines) = 229.60``."""
    stated: str | None = None
    """The stated value the rule checks, as the document writes it."""
    computed: str | None = None
    """What the other values make it, at the stated value's precision."""
    reason: str | None = None
    """DEĞERLENDİRİLEMEDİ: the value that is missing."""
    subject: str | None = None
    """What it is about beyond the rule: a tax subtotal's label."""


@dataclass(frozen=True, slots=True)
class LineSummary:
    """KALEM ÖZETİ: every line of the invoice, whatever a reader is shown of them."""

    line_count: int
    stated_total: Amount | None
    lines_sum: Decimal | None
    lines_sum_surface: str | None
    agrees: bool | None
    """``None``: no total stated, or a line without an amount."""


def line_summary(invoice: Invoice) -> LineSummary:
    amounts = [line.net_amount for line in invoice.lines]
    stated = invoice.totals.line_net
    if any(a is None for a in amounts):
        return LineSummary(len(amounts), stated, None, None, None)
    total = sum((a.value for a in amounts if a is not None), start=_ZERO)
    places = stated.decimals if stated is not None else _max_places(amounts)
    surface = _at(total, places)
    agrees = None if stated is None else _within(stated, total)
    return LineSummary(len(amounts), stated, total, surface, agrees)


def evaluate_rules(invoice: Invoice) -> list[RuleCheck]:
    """Every rule that applies to ``invoice``, in a fixed order: the totals (BR-CO-10, -11, -12,
    -13, -14, -15, -16), the due date, then each tax subtotal (BR-CO-17)."""
    totals = invoice.totals
    allowances = [ac for ac in invoice.allowances_charges if not ac.is_charge]
    charges = [ac for ac in invoice.allowances_charges if ac.is_charge]
    checks = [_br_co_10(invoice)]
    if allowances or totals.allowances is not None:
        checks.append(_sum_of_parts("BR-CO-11", allowances, totals.allowances, "allowance"))
    if charges or totals.charges is not None:
        checks.append(_sum_of_parts("BR-CO-12", charges, totals.charges, "charge"))
    checks.append(_br_co_13(invoice, allowances, charges))
    taxed = [s for s in invoice.tax_subtotals if not s.withholding]
    if taxed and (totals.tax is not None or any(s.tax is None or s.tax.value for s in taxed)):
        # BT-110 is left out only when no VAT is due at all; then there is no total to check.
        checks.append(_br_co_14(invoice, taxed))
    checks.append(_br_co_15(invoice, taxed))
    checks.append(_br_co_16(invoice))
    if invoice.due_date is not None:
        checks.append(_due_date(invoice))
    places = document_places(invoice)
    checks.extend(_br_co_17(subtotal, places) for subtotal in invoice.tax_subtotals)
    return checks


def document_places(invoice: Invoice) -> int:
    """The precision the document keeps its money at: the most decimals any of its monetary
    amounts needs (trailing zeros do not count). A forint invoice writing ``18679.00`` throughout
    rounds its VAT to whole forints; a euro invoice with ``10.99`` rounds to cents."""
    totals = invoice.totals
    amounts: list[Amount | None] = [line.net_amount for line in invoice.lines]
    amounts += [ac.amount for ac in invoice.allowances_charges]
    amounts += [a for s in invoice.tax_subtotals for a in (s.base, s.tax)]
    amounts += [totals.line_net, totals.tax_exclusive, totals.tax, totals.tax_inclusive]
    amounts += [totals.payable]
    return max((_significant_places(a.value) for a in amounts if a is not None), default=2)


def _significant_places(value: Decimal) -> int:
    exponent = value.normalize().as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


TITLES: Final[dict[str, str]] = {
    "BR-CO-10": "Sum of invoice line net amounts = total line net amount",
    "BR-CO-11": "Sum of document allowances = total allowances",
    "BR-CO-12": "Sum of document charges = total charges",
    "BR-CO-13": "Total without VAT = line net amounts − allowances + charges",
    "BR-CO-14": "Total VAT = sum of the VAT category tax amounts",
    "BR-CO-15": "Total with VAT = total without VAT + total VAT",
    "BR-CO-16": "Amount due = total with VAT − paid amount + rounding amount",
    "DUE-DATE": "The payment due date is not before the issue date",
    "BR-CO-17": "VAT category tax amount = taxable amount × rate, rounded",
}


def _br_co_10(invoice: Invoice) -> RuleCheck:
    summary = line_summary(invoice)
    stated = invoice.totals.line_net
    terms = [line.net_amount for line in invoice.lines]
    if stated is None:
        return _unknown("BR-CO-10", "sum", "no total line net amount (BT-106) is stated")
    if summary.lines_sum is None:
        missing = next(line.line_id for line in invoice.lines if line.net_amount is None)
        return _unknown("BR-CO-10", "sum", f"line {missing} states no net amount (BT-131)")
    label = f"({_count(len(terms), invoice.line_label)})"
    return _compare("BR-CO-10", f"{_sum_text(terms)} {label}", summary.lines_sum, stated)


def _sum_of_parts(
    rule_id: str, parts: Sequence[AllowanceCharge], stated: Amount | None, label: str
) -> RuleCheck:
    amounts = [part.amount for part in parts]
    if any(a is None for a in amounts):
        return _unknown(rule_id, "sum", f"a document {label} states no amount")
    total = sum((a.value for a in amounts if a is not None), start=_ZERO)
    if stated is None:
        return _unknown(rule_id, "sum", f"no total of the document {label}s is stated")
    text = _sum_text(amounts) if amounts else "0"
    return _compare(rule_id, f"{text} ({_count(len(amounts), label)})", total, stated)


def _br_co_13(
    invoice: Invoice, allowances: Sequence[AllowanceCharge], charges: Sequence[AllowanceCharge]
) -> RuleCheck:
    totals = invoice.totals
    if totals.tax_exclusive is None:
        return _unknown("BR-CO-13", "sum", "no invoice total without VAT (BT-109) is stated")
    if totals.line_net is None:
        return _unknown("BR-CO-13", "sum", "no total line net amount (BT-106) is stated")
    allowance = _stated_or_sum(totals.allowances, allowances)
    charge = _stated_or_sum(totals.charges, charges)
    if allowance is None or charge is None:
        return _unknown("BR-CO-13", "sum", "a document allowance or charge states no amount")
    computed = totals.line_net.value - allowance[0] + charge[0]
    expression = f"{totals.line_net.surface} − {allowance[1]} + {charge[1]}"
    return _compare("BR-CO-13", expression, computed, totals.tax_exclusive)


def _stated_or_sum(
    stated: Amount | None, parts: Sequence[AllowanceCharge]
) -> tuple[Decimal, str] | None:
    if stated is not None:
        return stated.value, stated.surface
    amounts = [part.amount for part in parts]
    if any(a is None for a in amounts):
        return None
    total = sum((a.value for a in amounts if a is not None), start=_ZERO)
    return total, _at(total, _max_places(amounts)) if amounts else "0"


def _br_co_14(invoice: Invoice, taxed: Sequence[TaxSubtotal]) -> RuleCheck:
    stated = invoice.totals.tax
    if stated is None:
        return _unknown("BR-CO-14", "sum", "no invoice total VAT amount (BT-110) is stated")
    amounts = [s.tax for s in taxed]
    if any(a is None for a in amounts):
        return _unknown("BR-CO-14", "sum", "a tax subtotal states no tax amount (BT-117)")
    total = sum((a.value for a in amounts if a is not None), start=_ZERO)
    expression = f"{_sum_text(amounts)} ({_count(len(amounts), 'tax subtotal')})"
    return _compare("BR-CO-14", expression, total, stated)


def _br_co_15(invoice: Invoice, taxed: Sequence[TaxSubtotal]) -> RuleCheck:
    totals = invoice.totals
    if totals.tax_inclusive is None:
        return _unknown("BR-CO-15", "sum", "no invoice total with VAT (BT-112) is stated")
    if totals.tax_exclusive is None:
        return _unknown("BR-CO-15", "sum", "no invoice total without VAT (BT-109) is stated")
    # BT-110 may be left out when no VAT is due (category O, or only exempt lines): then it is 0.
    tax, tax_text = (totals.tax.value, totals.tax.surface) if totals.tax else (_ZERO, "0")
    if totals.tax is None and any(s.tax is not None and s.tax.value for s in taxed):
        return _unknown("BR-CO-15", "sum", "no invoice total VAT amount (BT-110) is stated")
    computed = totals.tax_exclusive.value + tax
    expression = f"{totals.tax_exclusive.surface} + {tax_text}"
    return _compare("BR-CO-15", expression, computed, totals.tax_inclusive)


def _br_co_16(invoice: Invoice) -> RuleCheck:
    totals = invoice.totals
    if totals.payable is None:
        return _unknown("BR-CO-16", "sum", "no amount due for payment (BT-115) is stated")
    if totals.tax_inclusive is None:
        return _unknown("BR-CO-16", "sum", "no invoice total with VAT (BT-112) is stated")
    computed = totals.tax_inclusive.value
    expression = totals.tax_inclusive.surface
    prepaid = totals.prepaid
    computed -= prepaid.value if prepaid else _ZERO
    expression += f" − {prepaid.surface if prepaid else '0'}"
    rounding = totals.rounding
    computed += rounding.value if rounding else _ZERO
    expression += f" + {rounding.surface if rounding else '0'}"
    if invoice.is_ubl_tr and totals.withholding is not None:
        # UBL-TR: the withheld KDV (tevkifat) goes from the buyer to the tax office, not the seller.
        computed -= totals.withholding.value
        expression += f" − {totals.withholding.surface} (tevkifat)"
    return _compare("BR-CO-16", expression, computed, totals.payable)


def _due_date(invoice: Invoice) -> RuleCheck:
    due, issued = invoice.due_date or "", invoice.issue_date
    if issued is None:
        return _unknown("DUE-DATE", "date", "no issue date (BT-2) is stated")
    expression = f"due {due}, issued {issued}"
    if not (_iso_date(due) and _iso_date(issued)):
        return _unknown("DUE-DATE", "date", f"dates not in YYYY-MM-DD form ({expression})")
    holds = due >= issued  # ISO dates compare as text
    return RuleCheck(
        rule_id="DUE-DATE",
        title=TITLES["DUE-DATE"],
        kind="date",
        # Issue 23: a tanda rule, not EN 16931 (which sets no order of BT-9 and BT-2): a due date
        # before the issue date is a warning, not a violation.
        evaluation="sağlandı" if holds else "UYARI",
        expression=f"{due} ≥ {issued}" if holds else f"{due} < {issued}",
        stated=due,
        computed=issued,
    )


def _iso_date(text: str) -> bool:
    return len(text) == 10 and text[4] == "-" and text[7] == "-" and text.replace("-", "").isdigit()


def _br_co_17(subtotal: TaxSubtotal, places: int) -> RuleCheck:
    subject = subtotal.label()
    tax, base, rate = subtotal.tax, subtotal.base, subtotal.rate
    if tax is None:
        return _unknown("BR-CO-17", "tax_rate", "the subtotal states no tax amount", subject)
    if rate is None and subtotal.category in _ZERO_TAX_CATEGORIES:
        return _compare("BR-CO-17", f"category {subtotal.category}: no tax", _ZERO, tax, subject)
    if rate is None:
        return _unknown("BR-CO-17", "tax_rate", "the subtotal states no rate", subject)
    if base is None:
        return _unknown("BR-CO-17", "tax_rate", "the subtotal states no taxable amount", subject)
    computed = base.value * rate / 100
    expression = f"{base.surface} × {percent_text(rate)}"
    # Rounded at the document's precision, never finer than the amount is written.
    return _compare("BR-CO-17", expression, computed, tax, subject, min(places, tax.decimals))


def _compare(
    rule_id: str,
    expression: str,
    computed: Decimal,
    stated: Amount,
    subject: str | None = None,
    places: int | None = None,
) -> RuleCheck:
    places = stated.decimals if places is None else places
    holds = _within(stated, computed, places)
    written = _at(computed, stated.decimals)
    if holds and places < stated.decimals and Decimal(written) != stated.value:
        # A forint invoice writes 18679.00 for 69180.00 × 27% = 18678.60: whole units.
        written = _at(computed, places)
        expression += f" = {_at(computed, stated.decimals)} ≈ {written} (the document's precision)"
    else:
        expression += f" = {written}"
    relation = "=" if holds else "≠"
    return RuleCheck(
        rule_id=rule_id,
        title=TITLES[rule_id],
        kind="tax_rate" if rule_id == "BR-CO-17" else "sum",
        evaluation="sağlandı" if holds else "IHLAL",
        expression=f"{expression} {relation} {stated.surface} (stated)",
        stated=stated.surface,
        computed=written,
        subject=subject,
    )


def _unknown(rule_id: str, kind: RuleKind, reason: str, subject: str | None = None) -> RuleCheck:
    return RuleCheck(
        rule_id=rule_id,
        title=TITLES[rule_id],
        kind=kind,
        evaluation="DEĞERLENDİRİLEMEDİ",
        expression=reason,
        reason=reason,
        subject=subject,
    )


def _within(stated: Amount, computed: Decimal, places: int | None = None) -> bool:
    """The stated amount equals ``computed`` at ``places`` decimals (default: as many as it is
    written with): within half a unit of the last one, either rounding of an exact half."""
    places = stated.decimals if places is None else places
    half_unit = Decimal(5).scaleb(-(places + 1))
    return abs(stated.value - computed) <= half_unit


def _at(value: Decimal, places: int) -> str:
    """``value`` written with ``places`` decimals (half up), as the document would write it."""
    quantum = Decimal(1).scaleb(-places)
    rounded = value.quantize(quantum, rounding="ROUND_HALF_UP")
    return format(rounded.copy_abs() if rounded.is_zero() else rounded, "f")  # never "-0.00"


def _max_places(amounts: Iterable[Amount | None]) -> int:
    return max((a.decimals for a in amounts if a is not None), default=2)


def _sum_text(amounts: Sequence[Amount | None]) -> str:
    """``19.90 + 9.85 + … + 3.90``: the first terms and the last, never every term of a long sum."""
    surfaces = [a.surface if a is not None else "?" for a in amounts]
    if not surfaces:
        return "0"
    if len(surfaces) <= SHOWN_TERMS:
        return " + ".join(surfaces).replace("+ -", "− ")
    shown = [*surfaces[: SHOWN_TERMS - 1], "…", surfaces[-1]]
    return " + ".join(shown).replace("+ -", "− ")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
