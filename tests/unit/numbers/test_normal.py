"""A quantity in normal form: what it states, whatever way it is written (ASK-14, ASK-11)."""

from __future__ import annotations

from decimal import Decimal

from tanda.numbers import QuantityKind, extract_quantities
from tanda.numbers.normal import duration_days, normal_form, plain_decimal


def _one(text: str, lang: str | None = None):  # type: ignore[no-untyped-def]
    (quantity,) = extract_quantities(text, lang)
    return quantity


def test_a_scaled_amount_in_normal_form() -> None:
    form = normal_form(_one("Rp 4.874,35 miliar"))
    assert (form.kind, form.value, form.currency, form.scale) == (
        QuantityKind.amount,
        Decimal("4874350000000.00"),
        "IDR",
        "miliar",
    )
    assert form.value_text == "4874350000000"
    assert form.tolerance == Decimal("0.005") * 10**9


def test_a_bare_cell_takes_what_its_column_and_document_state() -> None:
    cell = _one("102.34")
    assert normal_form(cell).kind is QuantityKind.count
    percent = normal_form(cell, kind=QuantityKind.percent)
    assert (percent.kind, percent.unit) == (QuantityKind.percent, "%")
    money = normal_form(_one("54,72 M"), kind=QuantityKind.amount, unit="IDR", period=2023)
    assert (money.kind, money.currency, money.period) == (QuantityKind.amount, "IDR", 2023)


def test_what_a_surface_states_wins_over_its_context() -> None:
    form = normal_form(_one("$ 5 million"), kind=QuantityKind.amount, unit="IDR", period=2023)
    assert form.currency == "USD"
    assert normal_form(_one("5 %"), kind=QuantityKind.amount, unit="IDR").unit == "%"
    (amount, _) = extract_quantities("Belanja Rp 5 miliar pada 2021", "id")
    assert normal_form(amount, period=2023).period == 2021


def test_a_declared_table_scale_applies_to_a_surface_without_one() -> None:
    quantities = extract_quantities("(dalam ribuan rupiah) 1.500", "id")
    form = normal_form(quantities[-1])
    assert form.value == 1_500_000 and form.tolerance == 500


def test_durations_read_in_days() -> None:
    assert duration_days(normal_form(_one("14 hari"))) == 14
    assert duration_days(normal_form(_one("en geç 30 gün"))) == 30
    assert duration_days(normal_form(_one("2 bulan"))) == 60
    assert duration_days(normal_form(_one("1 tahun"))) == 365
    assert duration_days(normal_form(_one("Rp 5"))) is None


def test_plain_decimals_have_no_exponent_and_no_trailing_zeros() -> None:
    assert plain_decimal(Decimal("4.87435E+12")) == "4874350000000"
    assert plain_decimal(Decimal("0.500")) == "0.5"
    assert plain_decimal(Decimal("-0")) == "0"
