"""A quantity in normal form: what it states, whatever way it is written (ASK-14, ASK-11).

The structure layers store an entity's value both verbatim (``4.874,35 M``) and in this form
(``4874350000000``, scale ``M``, currency unknown, period 2023); the proof chain compares values in
it. Two surfaces of the same statement have the same ``value`` within their ``tolerance``
(``tanda.numbers.compare`` decides equality; this module only says what one surface states).

A table cell often states less than its column does: ``102.34`` under ``persentase`` is a percent,
``54,72 M`` under ``anggaran`` of a 2023 budget is money of 2023. :func:`normal_form` takes what the
context states (``kind``, ``unit``, ``period``) and applies it only where the surface is silent.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from tanda.numbers.model import Quantity, QuantityKind

CURRENCIES = frozenset({"IDR", "TRY", "USD", "EUR", "GBP"})
"""The units that make a quantity an amount of money (``Quantity.unit`` spells them so)."""

DURATION_UNITS = frozenset({"yr", "mo", "d", "h", "min"})
"""Counting units that measure time: ``30 hari``, ``en geç 14 gün``, ``6 (enam) tahun``."""

_DAYS_PER_UNIT = {"d": Decimal(1), "mo": Decimal(30), "yr": Decimal(365)}


@dataclass(frozen=True, slots=True)
class NormalForm:
    """What one numeric surface states. ``value`` is ``number × factor`` with its sign (dates:
    ``YYYYMMDD``; times: minutes after midnight); ``tolerance`` is half a unit of the last digit
    the surface states, at its scale (``tanda.numbers.Quantity.tolerance``)."""

    kind: QuantityKind
    value: Decimal
    tolerance: Decimal
    scale: str | None = None
    factor: Decimal = Decimal(1)
    unit: str | None = None
    currency: str | None = None
    period: int | None = None
    date: tuple[int | None, int, int | None] | None = None
    label: str | None = None

    @property
    def value_text(self) -> str:
        """``value`` as a plain decimal string: no exponent, no trailing zeros
        (``4874350000000``, ``0.5``, ``-64260000000``)."""
        return plain_decimal(self.value)

    @property
    def is_duration(self) -> bool:
        return self.kind is QuantityKind.count and self.unit in DURATION_UNITS


def plain_decimal(value: Decimal) -> str:
    """``Decimal`` → its shortest plain string: ``Decimal('4.87435E+12')`` → ``4874350000000``."""
    if value == 0:
        return "0"
    text = format(value.normalize(), "f")
    return text


def normal_form(
    quantity: Quantity,
    *,
    kind: QuantityKind | None = None,
    unit: str | None = None,
    period: int | None = None,
) -> NormalForm:
    """``quantity`` in normal form. ``kind``, ``unit`` and ``period`` are what the context states
    (a column, a document): they apply only to a bare count (a table cell) and only where the
    surface states nothing of its own — a surface that says ``Rp`` is rupiah in any column."""
    stated_kind = quantity.kind
    stated_unit = quantity.effective_unit
    if kind is not None and stated_kind is QuantityKind.count and stated_unit is None:
        stated_kind = kind
        if kind is QuantityKind.percent:
            stated_unit = "%"
    if (
        stated_unit is None
        and unit is not None
        and stated_kind
        in (
            QuantityKind.count,
            QuantityKind.amount,
        )
    ):
        stated_unit = unit
        if unit in CURRENCIES:
            stated_kind = QuantityKind.amount
    factor = quantity.factor
    value = quantity.value
    tolerance = quantity.tolerance
    if quantity.scale is None and quantity.implied_factor is not None:
        # A declaration of the text (`(in thousands)`) scales a surface that states no scale.
        factor = quantity.implied_factor
        value = quantity.value * factor
        tolerance = quantity.tolerance * factor
    return NormalForm(
        kind=stated_kind,
        value=value,
        tolerance=tolerance,
        scale=quantity.scale,
        factor=factor,
        unit=stated_unit,
        currency=stated_unit if stated_unit in CURRENCIES else None,
        period=quantity.period if quantity.period is not None else period,
        date=quantity.date,
        label=quantity.label,
    )


def duration_days(form: NormalForm) -> Decimal | None:
    """A duration in days (a month counts 30, a year 365); ``None`` for anything else or a unit
    finer than a day. What a deadline rule compares (``paling lambat 14 hari``)."""
    if not form.is_duration or form.unit not in _DAYS_PER_UNIT:
        return None
    return form.value * _DAYS_PER_UNIT[str(form.unit)]
