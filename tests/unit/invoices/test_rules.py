"""The invoice's own arithmetic (issue 18): each rule sağlandı on a consistent invoice, IHLAL
naming the rule when one value is changed, DEĞERLENDİRİLEMEDİ when a value it needs is missing;
the KALEM ÖZETİ counts every line."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from tanda.invoices import Invoice, NotAnInvoice, evaluate_rules, line_summary, read_invoice
from tanda.invoices.model import AllowanceCharge, Amount, InvoiceLine, TaxSubtotal, Totals
from tanda.invoices.rules import RuleCheck, document_places
from tests.unit.invoices.samples import cii, ubl_tr


def _read(data: bytes) -> Invoice:
    invoice = read_invoice(data)
    assert not isinstance(invoice, NotAnInvoice)
    return invoice


def _by_rule(checks: list[RuleCheck]) -> dict[str, list[RuleCheck]]:
    out: dict[str, list[RuleCheck]] = {}
    for check in checks:
        out.setdefault(check.rule_id, []).append(check)
    return out


def _violations(invoice: Invoice) -> list[str]:
    return [c.rule_id for c in evaluate_rules(invoice) if c.evaluation == "IHLAL"]


def test_given_a_consistent_efatura_when_evaluated_then_every_rule_holds() -> None:
    checks = evaluate_rules(_read(ubl_tr()))
    assert {c.evaluation for c in checks} == {"sağlandı"}
    assert [c.rule_id for c in checks] == [
        "BR-CO-10",
        "BR-CO-11",
        "BR-CO-13",
        "BR-CO-14",
        "BR-CO-15",
        "BR-CO-16",
        "DUE-DATE",
        "BR-CO-17",
        "BR-CO-17",
    ]


def test_given_the_withholding_when_the_amount_due_is_checked_then_tevkifat_is_subtracted() -> None:
    (check,) = _by_rule(evaluate_rules(_read(ubl_tr())))["BR-CO-16"]
    assert check.expression == ("1200.00 − 0 + 0 − 100.00 (tevkifat) = 1100.00 = 1100.00 (stated)")


def test_given_one_line_amount_changed_when_evaluated_then_br_co_10_is_violated() -> None:
    invoice = _read(ubl_tr(line_1="650.00"))
    assert _violations(invoice) == ["BR-CO-10"]
    (check,) = _by_rule(evaluate_rules(invoice))["BR-CO-10"]
    assert check.expression == ("650.00 + 400.00 (2 invoice lines) = 1050.00 ≠ 1000.00 (stated)")
    assert (check.stated, check.computed) == ("1000.00", "1050.00")


def test_given_a_wrong_vat_total_when_evaluated_then_the_vat_rules_are_violated() -> None:
    # The KDV total and its subtotal both say 210.00 where 20 % of 1000.00 is 200.00.
    invoice = _read(ubl_tr(kdv="210.00"))
    assert _violations(invoice) == ["BR-CO-15", "BR-CO-17"]
    checks = _by_rule(evaluate_rules(invoice))
    assert checks["BR-CO-15"][0].expression == "1000.00 + 210.00 = 1210.00 ≠ 1200.00 (stated)"
    assert checks["BR-CO-17"][0].subject == "KDV (0015) 20%"
    assert checks["BR-CO-17"][0].expression == "1000.00 × 20% = 200.00 ≠ 210.00 (stated)"


def test_given_a_due_date_before_the_issue_date_when_evaluated_then_due_date_is_a_warning() -> None:
    # Issue 23: DUE-DATE is tanda's own check, not an EN 16931 rule: it warns, never violates.
    invoice = _read(ubl_tr(due_date="2024-04-30"))
    assert _violations(invoice) == []
    (check,) = _by_rule(evaluate_rules(invoice))["DUE-DATE"]
    assert check.evaluation == "UYARI"
    assert check.expression == "2024-04-30 < 2024-05-02"


def test_given_no_due_date_when_evaluated_then_the_due_date_rule_does_not_apply() -> None:
    invoice = replace(_read(cii()), due_date=None)
    assert "DUE-DATE" not in _by_rule(evaluate_rules(invoice))


def test_given_a_missing_total_when_evaluated_then_not_evaluable_with_the_reason() -> None:
    invoice = _read(cii())
    invoice = replace(invoice, totals=replace(invoice.totals, line_net=None))
    (check,) = _by_rule(evaluate_rules(invoice))["BR-CO-10"]
    assert check.evaluation == "DEĞERLENDİRİLEMEDİ"
    assert check.reason == "no total line net amount (BT-106) is stated"


def test_given_a_line_without_an_amount_when_summarised_then_no_sum_is_claimed() -> None:
    invoice = _read(cii())
    line = replace(invoice.lines[0], net_amount=None)
    invoice = replace(invoice, lines=(line,))
    summary = line_summary(invoice)
    assert (summary.line_count, summary.lines_sum, summary.agrees) == (1, None, None)
    (check,) = _by_rule(evaluate_rules(invoice))["BR-CO-10"]
    assert check.reason == "line 1 states no net amount (BT-131)"


def test_given_whole_unit_amounts_when_vat_is_checked_then_it_rounds_at_that_precision() -> None:
    # A forint invoice writes every amount as NNN.00: 69180.00 × 27 % = 18678.60 is 18679.
    subtotal = TaxSubtotal(
        base=Amount(Decimal("69180.00"), "69180.00"),
        tax=Amount(Decimal("18679.00"), "18679.00"),
        category="S",
        rate=Decimal(27),
    )
    invoice = replace(_read(cii()), tax_subtotals=(subtotal,), lines=(), totals=Totals())
    assert document_places(invoice) == 0
    (check,) = _by_rule(evaluate_rules(invoice))["BR-CO-17"]
    assert check.evaluation == "sağlandı"
    assert check.expression == (
        "69180.00 × 27% = 18678.60 ≈ 18679 (the document's precision) = 18679.00 (stated)"
    )


def test_given_cents_when_vat_is_off_by_one_cent_then_it_is_violated() -> None:
    subtotal = TaxSubtotal(
        base=Amount(Decimal("183.23"), "183.23"),
        tax=Amount(Decimal("11.00"), "11.00"),
        category="S",
        rate=Decimal(6),
    )
    invoice = replace(_read(cii()), tax_subtotals=(subtotal,))
    (check,) = _by_rule(evaluate_rules(invoice))["BR-CO-17"]
    assert check.evaluation == "IHLAL"
    assert check.expression == "183.23 × 6% = 10.99 ≠ 11.00 (stated)"


def test_given_an_exempt_category_without_a_rate_when_checked_then_its_tax_must_be_zero() -> None:
    subtotal = TaxSubtotal(
        base=Amount(Decimal("3200.00"), "3200.00"),
        tax=Amount(Decimal("0.00"), "0.00"),
        category="O",
    )
    invoice = replace(_read(cii()), tax_subtotals=(subtotal,))
    (check,) = _by_rule(evaluate_rules(invoice))["BR-CO-17"]
    assert check.evaluation == "sağlandı"


def test_given_many_lines_when_the_sum_is_written_then_only_the_first_and_last_terms_show() -> None:
    line = InvoiceLine(line_id="1", name="x", net_amount=Amount(Decimal("1.00"), "1.00"))
    lines = tuple(replace(line, line_id=str(n)) for n in range(1, 5001))
    invoice = _read(cii())
    invoice = replace(
        invoice,
        lines=lines,
        totals=replace(invoice.totals, line_net=Amount(Decimal("5000.00"), "5000.00")),
    )
    (check,) = _by_rule(evaluate_rules(invoice))["BR-CO-10"]
    assert check.evaluation == "sağlandı"
    assert check.expression.startswith("1.00 + 1.00 + 1.00 + 1.00 + 1.00 + 1.00 + 1.00 + … + 1.00")
    assert "(5000 invoice lines) = 5000.00 = 5000.00 (stated)" in check.expression
    summary = line_summary(invoice)
    assert (summary.line_count, summary.lines_sum_surface, summary.agrees) == (
        5000,
        "5000.00",
        True,
    )


# --- at the limit (issue 23 item 13) -----------------------------------------------------------


def test_given_a_rounding_amount_when_the_amount_due_is_checked_then_it_is_added() -> None:
    # BR-CO-16: amount due = total with VAT − paid + rounding (BT-114); 119.00 + 0.01 = 119.01.
    invoice = _read(cii())
    totals = replace(
        invoice.totals,
        rounding=Amount(Decimal("0.01"), "0.01"),
        payable=Amount(Decimal("119.01"), "119.01"),
    )
    (check,) = _by_rule(evaluate_rules(replace(invoice, totals=totals)))["BR-CO-16"]
    assert check.evaluation == "sağlandı"
    wrong = replace(totals, payable=Amount(Decimal("118.99"), "118.99"))
    (refused,) = _by_rule(evaluate_rules(replace(invoice, totals=wrong)))["BR-CO-16"]
    assert refused.evaluation == "IHLAL"


def test_given_an_exact_half_cent_of_vat_when_checked_then_either_rounding_is_accepted() -> None:
    # 12.25 × 18 % = 2.205: 2.21 and 2.20 are both the document's rounding; 2.22 is not.
    def vat(stated: str) -> str:
        subtotal = TaxSubtotal(
            base=Amount(Decimal("12.25"), "12.25"),
            tax=Amount(Decimal(stated), stated),
            category="S",
            rate=Decimal(18),
        )
        invoice = replace(_read(cii()), tax_subtotals=(subtotal,))
        (check,) = _by_rule(evaluate_rules(invoice))["BR-CO-17"]
        return check.evaluation

    assert [vat(s) for s in ("2.21", "2.20", "2.22")] == ["sağlandı", "sağlandı", "IHLAL"]


# --- every rule's outcome as a reader sees it (issue 23 item 13: mutation survivors) -----------


def _amount(surface: str) -> Amount:
    return Amount(Decimal(surface), surface)


def _check(invoice: Invoice, rule_id: str) -> RuleCheck:
    (check,) = _by_rule(evaluate_rules(invoice))[rule_id]
    return check


def _unknown(
    rule_id: str, kind: str, title: str, reason: str, subject: str | None = None
) -> RuleCheck:
    return RuleCheck(
        rule_id=rule_id,
        title=title,
        kind=kind,  # type: ignore[arg-type]
        evaluation="DEĞERLENDİRİLEMEDİ",
        expression=reason,
        reason=reason,
        subject=subject,
    )


SUM_13 = "Total without VAT = line net amounts − allowances + charges"
SUM_14 = "Total VAT = sum of the VAT category tax amounts"
SUM_15 = "Total with VAT = total without VAT + total VAT"
SUM_16 = "Amount due = total with VAT − paid amount + rounding amount"
DUE = "The payment due date is not before the issue date"


def _cii(**totals: Amount | None) -> Invoice:
    invoice = _read(cii())
    return replace(invoice, totals=replace(invoice.totals, **totals))


def _with_subtotal(invoice: Invoice, tax: Amount | None) -> Invoice:
    (subtotal,) = invoice.tax_subtotals
    return replace(invoice, tax_subtotals=(replace(subtotal, tax=tax),))


def test_given_a_missing_value_when_evaluated_then_each_rule_names_exactly_what_is_missing() -> (
    None
):
    # ASK-08: a rule that cannot be evaluated says which value (BT-…) the document leaves out.
    no_line_net = _cii(line_net=None)
    assert _check(no_line_net, "BR-CO-13") == _unknown(
        "BR-CO-13", "sum", SUM_13, "no total line net amount (BT-106) is stated"
    )
    no_net = _cii(tax_exclusive=None)
    assert _check(no_net, "BR-CO-13") == _unknown(
        "BR-CO-13", "sum", SUM_13, "no invoice total without VAT (BT-109) is stated"
    )
    assert _check(no_net, "BR-CO-15") == _unknown(
        "BR-CO-15", "sum", SUM_15, "no invoice total without VAT (BT-109) is stated"
    )
    no_vat_total = _cii(tax=None)
    assert _check(no_vat_total, "BR-CO-14") == _unknown(
        "BR-CO-14", "sum", SUM_14, "no invoice total VAT amount (BT-110) is stated"
    )
    assert _check(no_vat_total, "BR-CO-15") == _unknown(
        "BR-CO-15", "sum", SUM_15, "no invoice total VAT amount (BT-110) is stated"
    )
    no_subtotal_tax = _with_subtotal(_read(cii()), None)
    assert _check(no_subtotal_tax, "BR-CO-14") == _unknown(
        "BR-CO-14", "sum", SUM_14, "a tax subtotal states no tax amount (BT-117)"
    )
    assert _check(no_subtotal_tax, "BR-CO-17") == _unknown(
        "BR-CO-17",
        "tax_rate",
        "VAT category tax amount = taxable amount × rate, rounded",
        "the subtotal states no tax amount",
        "VAT S 19%",
    )
    # Neither the total nor the subtotal states the VAT: still a rule the reader is told about.
    nothing = _with_subtotal(_cii(tax=None), None)
    assert _check(nothing, "BR-CO-14").reason == "no invoice total VAT amount (BT-110) is stated"


def test_given_a_line_without_an_amount_when_evaluated_then_br_co_10_is_a_sum_not_evaluated() -> (
    None
):
    invoice = _read(cii())
    invoice = replace(invoice, lines=(replace(invoice.lines[0], net_amount=None),))
    assert _check(invoice, "BR-CO-10") == _unknown(
        "BR-CO-10",
        "sum",
        "Sum of invoice line net amounts = total line net amount",
        "line 1 states no net amount (BT-131)",
    )
    assert _check(_cii(line_net=None), "BR-CO-10").kind == "sum"
    summary = line_summary(invoice)
    assert summary.stated_total is not None  # the stated total is still reported
    assert summary.stated_total.surface == "100.00"


def test_given_no_issue_date_or_no_iso_date_when_evaluated_then_the_due_date_is_not_evaluated() -> (
    None
):
    invoice = _read(cii())
    assert _check(replace(invoice, issue_date=None), "DUE-DATE") == _unknown(
        "DUE-DATE", "date", DUE, "no issue date (BT-2) is stated"
    )
    # CII dates in another format than 102 are kept verbatim; none of these is YYYY-MM-DD.
    for due in ("09.02.2024", "20240209", "2024002-10"):
        reason = f"dates not in YYYY-MM-DD form (due {due}, issued 2024-01-10)"
        assert _check(replace(invoice, due_date=due), "DUE-DATE") == _unknown(
            "DUE-DATE", "date", DUE, reason
        )
    issued = replace(invoice, issue_date="10.01.2024")  # the due date alone is ISO
    assert _check(issued, "DUE-DATE").evaluation == "DEĞERLENDİRİLEMEDİ"


def test_given_a_due_date_on_or_after_the_issue_date_when_evaluated_then_it_holds() -> None:
    invoice = _read(cii())
    expected = RuleCheck(
        rule_id="DUE-DATE",
        title=DUE,
        kind="date",
        evaluation="sağlandı",
        expression="2024-02-09 ≥ 2024-01-10",
        stated="2024-02-09",
        computed="2024-01-10",
    )
    assert _check(invoice, "DUE-DATE") == expected
    # at the limit: due on the day of issue holds
    same_day = _check(replace(invoice, due_date="2024-01-10"), "DUE-DATE")
    assert (same_day.evaluation, same_day.expression) == ("sağlandı", "2024-01-10 ≥ 2024-01-10")


def _with_parts(invoice: Invoice, *parts: tuple[bool, str | None]) -> Invoice:
    return replace(
        invoice,
        allowances_charges=tuple(
            AllowanceCharge(is_charge=charge, amount=None if a is None else _amount(a))
            for charge, a in parts
        ),
    )


def test_given_allowances_and_charges_when_evaluated_then_each_total_is_checked_apart() -> None:
    # BR-CO-11, -12, -13: 100.00 − 10.00 + 5.00 = 95.00.
    invoice = _with_parts(
        _cii(
            allowances=_amount("10.00"),
            charges=_amount("5.00"),
            tax_exclusive=_amount("95.00"),
        ),
        (False, "10.00"),
        (True, "5.00"),
    )
    assert _check(invoice, "BR-CO-11") == RuleCheck(
        rule_id="BR-CO-11",
        title="Sum of document allowances = total allowances",
        kind="sum",
        evaluation="sağlandı",
        expression="10.00 (1 allowance) = 10.00 = 10.00 (stated)",
        stated="10.00",
        computed="10.00",
    )
    assert _check(invoice, "BR-CO-12").expression == "5.00 (1 charge) = 5.00 = 5.00 (stated)"
    assert _check(invoice, "BR-CO-12").title == "Sum of document charges = total charges"
    assert _check(invoice, "BR-CO-13").expression == (
        "100.00 − 10.00 + 5.00 = 95.00 = 95.00 (stated)"
    )
    # A charge taken as an allowance (or the other way round) is a violation.
    swapped = replace(invoice, totals=replace(invoice.totals, tax_exclusive=_amount("105.00")))
    assert _check(swapped, "BR-CO-13").evaluation == "IHLAL"
    added = replace(invoice, totals=replace(invoice.totals, tax_exclusive=_amount("115.00")))
    assert _check(added, "BR-CO-13").evaluation == "IHLAL"


def test_given_the_stated_allowance_total_when_br_co_13_is_checked_then_it_uses_that_total() -> (
    None
):
    # The document's own total (BT-107) enters BR-CO-13, even when BR-CO-11 finds it wrong.
    invoice = _with_parts(
        _cii(allowances=_amount("12.00"), charges=_amount("5.00"), tax_exclusive=_amount("93.00")),
        (False, "10.00"),
        (True, "4.00"),
    )
    assert _check(invoice, "BR-CO-11").evaluation == "IHLAL"
    assert _check(invoice, "BR-CO-12").evaluation == "IHLAL"
    assert _check(invoice, "BR-CO-13").expression == (
        "100.00 − 12.00 + 5.00 = 93.00 = 93.00 (stated)"
    )


def test_given_parts_without_their_total_when_evaluated_then_br_co_13_sums_the_parts() -> None:
    invoice = _with_parts(
        _cii(tax_exclusive=_amount("87.0")), (False, "10.5"), (False, "2.5"), (True, "0.5")
    )
    assert _check(invoice, "BR-CO-11") == _unknown(
        "BR-CO-11",
        "sum",
        "Sum of document allowances = total allowances",
        "no total of the document allowances is stated",
    )
    assert _check(invoice, "BR-CO-12").reason == "no total of the document charges is stated"
    assert _check(invoice, "BR-CO-13").expression == "100.00 − 13.0 + 0.5 = 87.5 ≠ 87.0 (stated)"
    assert _check(invoice, "BR-CO-13").evaluation == "IHLAL"


def test_given_no_parts_when_evaluated_then_the_missing_sums_read_as_zero() -> None:
    assert _check(_read(cii()), "BR-CO-13").expression == (
        "100.00 − 0 + 0 = 100.00 = 100.00 (stated)"
    )
    zero = _check(_cii(allowances=_amount("0.00")), "BR-CO-11")
    assert (zero.evaluation, zero.expression) == (
        "sağlandı",
        "0 (0 allowances) = 0.00 = 0.00 (stated)",
    )


def test_given_a_part_without_an_amount_when_evaluated_then_its_sums_are_not_evaluated() -> None:
    no_allowance = _with_parts(_read(cii()), (False, None), (True, "5.00"))
    assert _check(no_allowance, "BR-CO-11") == _unknown(
        "BR-CO-11",
        "sum",
        "Sum of document allowances = total allowances",
        "a document allowance states no amount",
    )
    assert _check(no_allowance, "BR-CO-13") == _unknown(
        "BR-CO-13", "sum", SUM_13, "a document allowance or charge states no amount"
    )
    no_charge = _with_parts(_read(cii()), (True, None))
    assert _check(no_charge, "BR-CO-12").reason == "a document charge states no amount"
    assert _check(no_charge, "BR-CO-13").reason == (
        "a document allowance or charge states no amount"
    )


def test_given_only_exempt_vat_when_evaluated_then_br_co_14_checks_a_zero_total() -> None:
    exempt = TaxSubtotal(base=_amount("100.00"), tax=_amount("0.00"), category="E")
    invoice = replace(_cii(tax=_amount("0.00")), tax_subtotals=(exempt,))
    assert _check(invoice, "BR-CO-14").expression == (
        "0.00 (1 tax subtotal) = 0.00 = 0.00 (stated)"
    )
    # no VAT total stated and none due: BR-CO-14 does not apply, BR-CO-15 adds 0
    silent = replace(_cii(tax=None), tax_subtotals=(exempt,))
    assert "BR-CO-14" not in _by_rule(evaluate_rules(silent))
    assert _check(silent, "BR-CO-15").expression == "100.00 + 0 = 100.00 ≠ 119.00 (stated)"
    # a VAT total without any subtotal: nothing to add it up from
    bare = replace(_read(cii()), tax_subtotals=())
    assert "BR-CO-14" not in _by_rule(evaluate_rules(bare))


@pytest.mark.parametrize("where", ["line", "allowance", "subtotal", "total"])
def test_given_cents_anywhere_in_the_document_when_vat_is_checked_then_it_is_checked_in_cents(
    where: str,
) -> None:
    # BR-CO-17 at the document's precision: 69180.00 × 27 % = 18678.60 is 18679 on an invoice
    # kept in whole units, but a document that writes cents anywhere is held to cents.
    forint = TaxSubtotal(
        base=_amount("69180.00"), tax=_amount("18679.00"), category="S", rate=Decimal(27)
    )
    invoice = replace(_read(cii()), tax_subtotals=(forint,))
    assert _check(invoice, "BR-CO-17").evaluation == "sağlandı"
    cents = _amount("0.50")
    if where == "line":
        invoice = replace(invoice, lines=(replace(invoice.lines[0], net_amount=cents),))
    elif where == "allowance":
        invoice = _with_parts(invoice, (False, "0.50"))
    elif where == "subtotal":
        other = TaxSubtotal(base=cents, tax=_amount("0.00"), category="E")
        invoice = replace(invoice, tax_subtotals=(forint, other))
    else:
        invoice = replace(invoice, totals=replace(invoice.totals, payable=cents))
    (vat, *_) = _by_rule(evaluate_rules(invoice))["BR-CO-17"]
    assert (vat.evaluation, vat.expression) == (
        "IHLAL",
        "69180.00 × 27% = 18678.60 ≠ 18679.00 (stated)",
    )


def test_given_round_amounts_when_vat_is_checked_then_whole_units_are_the_finest_precision() -> (
    None
):
    # 1000 × 27 % = 270, stated 300: amounts in tens or thousands never widen the tolerance.
    subtotal = TaxSubtotal(
        base=_amount("1000.00"), tax=_amount("300.00"), category="S", rate=Decimal(27)
    )
    invoice = replace(_read(cii()), tax_subtotals=(subtotal,), lines=(), totals=Totals())
    assert document_places(invoice) == 0
    assert _check(invoice, "BR-CO-17").evaluation == "IHLAL"


def _lines(*surfaces: str) -> Invoice:
    line = InvoiceLine(line_id="1", name="x", net_amount=None)
    lines = tuple(
        replace(line, line_id=str(n), net_amount=_amount(s)) for n, s in enumerate(surfaces, 1)
    )
    total = sum((Decimal(s) for s in surfaces), start=Decimal(0))
    return replace(_cii(line_net=_amount(f"{total:.2f}")), lines=lines)


def test_given_up_to_eight_lines_when_the_sum_is_written_then_every_term_shows() -> None:
    eight = [f"{n}.00" for n in range(1, 9)]
    assert _check(_lines(*eight), "BR-CO-10").expression == (
        "1.00 + 2.00 + 3.00 + 4.00 + 5.00 + 6.00 + 7.00 + 8.00 (8 invoice lines) = 36.00 = 36.00 "
        "(stated)"
    )
    nine = [f"{n}.00" for n in range(1, 10)]
    assert _check(_lines(*nine), "BR-CO-10").expression == (
        "1.00 + 2.00 + 3.00 + 4.00 + 5.00 + 6.00 + 7.00 + … + 9.00 (9 invoice lines) = 45.00 = "
        "45.00 (stated)"
    )


def test_given_a_credited_line_when_the_sum_is_written_then_it_is_subtracted() -> None:
    assert _check(_lines("100.00", "-10.00"), "BR-CO-10").expression == (
        "100.00 − 10.00 (2 invoice lines) = 90.00 = 90.00 (stated)"
    )
    many = [*(f"{n}.00" for n in range(1, 9)), "-3.00"]
    assert _check(_lines(*many), "BR-CO-10").expression == (
        "1.00 + 2.00 + 3.00 + 4.00 + 5.00 + 6.00 + 7.00 + … − 3.00 (9 invoice lines) = 33.00 = "
        "33.00 (stated)"
    )


def test_given_one_line_when_the_sum_is_written_then_it_counts_one_line() -> None:
    assert _check(_read(cii()), "BR-CO-10").expression == (
        "100.00 (1 invoice line) = 100.00 = 100.00 (stated)"
    )


def test_given_no_lines_when_evaluated_then_the_sum_is_zero_at_cents() -> None:
    invoice = replace(_cii(line_net=_amount("0.00")), lines=())
    assert _check(invoice, "BR-CO-10").expression == ("0 (0 invoice lines) = 0.00 = 0.00 (stated)")
    summary = line_summary(replace(invoice, totals=Totals()))
    assert (summary.line_count, summary.lines_sum_surface) == (0, "0.00")


def test_given_a_stated_total_when_lines_are_summarised_then_the_sum_is_written_like_it() -> None:
    summary = line_summary(_lines("50.5", "49.5"))
    assert (summary.lines_sum_surface, summary.agrees) == ("100.00", True)
    assert summary.stated_total is not None and summary.stated_total.surface == "100.00"


def test_given_an_invoice_stating_no_amount_at_all_when_evaluated_then_nothing_is_evaluable() -> (
    None
):
    invoice = replace(_read(cii()), lines=(), totals=Totals(), tax_subtotals=(), due_date=None)
    checks = evaluate_rules(invoice)
    assert [(c.rule_id, c.evaluation) for c in checks] == [
        ("BR-CO-10", "DEĞERLENDİRİLEMEDİ"),
        ("BR-CO-13", "DEĞERLENDİRİLEMEDİ"),
        ("BR-CO-15", "DEĞERLENDİRİLEMEDİ"),
        ("BR-CO-16", "DEĞERLENDİRİLEMEDİ"),
    ]


def test_given_no_amount_due_or_total_with_vat_when_evaluated_then_br_co_15_16_say_so() -> None:
    no_gross = _cii(tax_inclusive=None)
    assert _check(no_gross, "BR-CO-15") == _unknown(
        "BR-CO-15", "sum", SUM_15, "no invoice total with VAT (BT-112) is stated"
    )
    assert _check(no_gross, "BR-CO-16") == _unknown(
        "BR-CO-16", "sum", SUM_16, "no invoice total with VAT (BT-112) is stated"
    )
    assert _check(_cii(payable=None), "BR-CO-16") == _unknown(
        "BR-CO-16", "sum", SUM_16, "no amount due for payment (BT-115) is stated"
    )


def test_given_a_prepaid_amount_and_a_rounding_when_the_amount_due_is_checked_then_both_count() -> (
    None
):
    # BR-CO-16: 119.00 − 19.00 + 0.01 = 100.01.
    invoice = _cii(prepaid=_amount("19.00"), rounding=_amount("0.01"), payable=_amount("100.01"))
    check = _check(invoice, "BR-CO-16")
    assert (check.evaluation, check.expression) == (
        "sağlandı",
        "119.00 − 19.00 + 0.01 = 100.01 = 100.01 (stated)",
    )
    assert _check(_cii(prepaid=_amount("19.00")), "BR-CO-16").evaluation == "IHLAL"


def test_given_an_efatura_without_withholding_when_checked_then_nothing_is_withheld() -> None:
    invoice = _read(ubl_tr())
    invoice = replace(invoice, totals=replace(invoice.totals, withholding=None))
    assert _check(invoice, "BR-CO-16").expression == (
        "1200.00 − 0 + 0 = 1200.00 ≠ 1100.00 (stated)"
    )


def test_given_a_subtotal_without_rate_or_base_when_checked_then_br_co_17_says_which() -> None:
    def vat(**fields: object) -> RuleCheck:
        subtotal = TaxSubtotal(base=_amount("100.00"), tax=_amount("19.00"), category="S")
        return _check(
            replace(_read(cii()), tax_subtotals=(replace(subtotal, **fields),)), "BR-CO-17"
        )

    title = "VAT category tax amount = taxable amount × rate, rounded"
    assert vat() == _unknown("BR-CO-17", "tax_rate", title, "the subtotal states no rate", "VAT S")
    assert vat(rate=Decimal(19), base=None) == _unknown(
        "BR-CO-17", "tax_rate", title, "the subtotal states no taxable amount", "VAT S 19%"
    )
    assert vat(rate=Decimal(19)) == RuleCheck(
        rule_id="BR-CO-17",
        title=title,
        kind="tax_rate",
        evaluation="sağlandı",
        expression="100.00 × 19% = 19.00 = 19.00 (stated)",
        stated="19.00",
        computed="19.00",
        subject="VAT S 19%",
    )
    # a zero-rated category that states its rate is computed like any other
    zero = vat(category="Z", rate=Decimal(0), tax=_amount("0.00"))
    assert zero.expression == "100.00 × 0% = 0.00 = 0.00 (stated)"
    exempt = vat(category="O", tax=_amount("0.00"))
    assert (exempt.expression, exempt.subject) == (
        "category O: no tax = 0.00 = 0.00 (stated)",
        "VAT O",
    )


def test_given_an_exact_half_when_vat_is_written_then_it_rounds_half_up() -> None:
    def vat(base: str, rate: int, stated: str) -> RuleCheck:
        subtotal = TaxSubtotal(
            base=_amount(base), tax=_amount(stated), category="S", rate=Decimal(rate)
        )
        return _check(replace(_read(cii()), tax_subtotals=(subtotal,)), "BR-CO-17")

    # 12.25 × 18 % = 2.205: written 2.21; the stated 2.20 is the document's other rounding.
    assert vat("12.25", 18, "2.21").expression == "12.25 × 18% = 2.21 = 2.21 (stated)"
    assert vat("12.25", 18, "2.20").expression == "12.25 × 18% = 2.21 = 2.20 (stated)"
    # 99.94 × 10 % = 9.994: 9.99 is within half a cent, 10.00 (0.006 off) is not.
    assert vat("99.94", 10, "9.99").evaluation == "sağlandı"
    assert vat("99.94", 10, "10.00").evaluation == "IHLAL"


def test_given_a_negative_sum_when_written_then_its_sign_shows_and_a_rounded_zero_has_none() -> (
    None
):
    assert _check(_lines("-10.00"), "BR-CO-10").expression == (
        "-10.00 (1 invoice line) = -10.00 = -10.00 (stated)"
    )
    almost = replace(
        _lines("0.996", "-1.000"), totals=replace(_lines().totals, line_net=_amount("0.00"))
    )
    assert _check(almost, "BR-CO-10").expression == (
        "0.996 − 1.000 (2 invoice lines) = 0.00 = 0.00 (stated)"
    )
