"""The invoice's own arithmetic (issue 18): each rule sağlandı on a consistent invoice, IHLAL
naming the rule when one value is changed, DEĞERLENDİRİLEMEDİ when a value it needs is missing;
the KALEM ÖZETİ counts every line."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from tanda.invoices import Invoice, NotAnInvoice, evaluate_rules, line_summary, read_invoice
from tanda.invoices.model import Amount, InvoiceLine, TaxSubtotal, Totals
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
