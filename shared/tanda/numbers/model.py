"""What a numeric surface means: the ``Quantity`` and the outcomes of comparing them (V2-08)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Literal

RangePart = Literal["low", "high"]


class QuantityKind(StrEnum):
    """What a number is about; only quantities of compatible kinds are ever compared equal."""

    amount = "amount"  # money: a currency is stated (Rp, TL, $, €, rupiah, lira, dollar …)
    percent = "percent"  # %, persen, percent, yüzde; percentage points and basis points too
    # anything else with a magnitude: bare numbers, people, km, ha, years of prison. (The member
    # shadows str.count on purpose: "count" is the kind's name on the wire.)
    count = "count"  # type: ignore[assignment]
    year = "year"  # a calendar/fiscal year: 2023, TA 2023, FY19, 2023 yılı
    date = "date"  # 18 Desember 2023, August 31st, 2022, 31.12.2023, June 26th
    time = "time"  # 7 pm, 1:34 PM, pukul 14.30 WIB (value: minutes after midnight)
    ordinal = (
        "ordinal"  # reference numbers and positions: Pasal 5, ayat (1), Nomor 27, 27/2022, ke-5
    )


class MatchReason(StrEnum):
    """Why two quantities are, or are not, the same."""

    equal = "equal"
    kind_mismatch = "kind_mismatch"
    unit_mismatch = "unit_mismatch"
    scale_mismatch = "scale_mismatch"  # same digits, different scale: 5 miliar vs 5 juta
    value_mismatch = "value_mismatch"
    label_mismatch = "label_mismatch"  # reference numbers of different things: Pasal 5 vs ayat (5)


class UnmatchedReason(StrEnum):
    """Why a claim's quantity withholds ``supported``."""

    not_found = "not_found"  # no quantity of the source equals it
    period_mismatch = "period_mismatch"  # equal values exist, but only for another period
    reference_mismatch = "reference_mismatch"  # Pasal 67 claimed; the source cites other Pasal


@dataclass(frozen=True, slots=True)
class Quantity:
    """One numeric surface of a text and what it states.

    ``span`` is ``(start, end)`` in code points (``text[start:end] == surface``), covering the
    currency, sign, scale and unit that belong to the number. ``value`` is ``number × factor``.
    ``decimals`` is how many digits the surface states after its decimal separator: it sets the
    precision at which the value is compared (see ``tolerance``).
    """

    span: tuple[int, int]
    surface: str
    kind: QuantityKind
    value: Decimal
    number: Decimal
    decimals: int = 0
    scale: str | None = None  # the scale word as written: miliar, M, jt, bn, milyon …
    factor: Decimal = Decimal(1)
    unit: str | None = None  # IDR, TRY, USD, EUR, GBP, %, pp, bp, pt, person, km, ha, t, yr …
    period: int | None = None  # the year stated nearby for this quantity (FY19 → 2019)
    label: str | None = None  # ordinals: article, paragraph, number, chapter, enumerator …
    suffix: str | None = None  # ordinals: the letter of ``Pasal 28D``
    date: tuple[int | None, int, int | None] | None = None  # (year, month, day) of a date
    range_part: RangePart | None = None  # ``5–7 persen`` gives a low and a high quantity
    implied_unit: str | None = None  # from a declaration in the text: ``(dalam rupiah)``
    implied_factor: Decimal | None = None  # from a declaration: ``(in millions)``
    lang: str | None = None  # the convention the surface was read with (id, tr, en, None)
    noun: str | None = None  # unitless counts: the word counted (``30 customers`` → customers);
    # a year: the word after it (``2000 peserta``, a count its four digits made a year)

    @property
    def start(self) -> int:
        return self.span[0]

    @property
    def end(self) -> int:
        return self.span[1]

    @property
    def tolerance(self) -> Decimal:
        """Half a unit of the last digit the surface states, at its scale.

        ``Rp871,67 miliar`` → 0.005 × 10⁹; ``871.667.219.294`` → 0.5.
        """
        return Decimal(5).scaleb(-(self.decimals + 1)) * self.factor

    @property
    def effective_unit(self) -> str | None:
        return self.unit if self.unit is not None else self.implied_unit


@dataclass(frozen=True, slots=True)
class Match:
    """The outcome of ``compare``: equal or not, why, and the tolerance that was applied."""

    equal: bool
    reason: MatchReason
    tolerance: Decimal | None = None

    def __bool__(self) -> bool:
        return self.equal


@dataclass(frozen=True, slots=True)
class Unmatched:
    """A quantity of a claim that the source does not state (as written, or for that period)."""

    quantity: Quantity
    reason: UnmatchedReason
    nearest: Quantity | None = None  # the source quantity that came closest, for explanations
    detail: str = ""
