"""Where a value the answer states is written in its sources (ASK-11 ``observed``).

``exact``: the same digits in a source the statement cites (``40.470,00`` in ``Rp 40.470,00``);
``tolerant``: the same value written otherwise there, by :func:`tanda.numbers.compare`
(``871.667.219.294`` for ``Rp871,67 miliar``, ``(1,421)`` for ``-1,421``); ``relocated``: found
either way, but only in a source the statement does not cite; ``unverified``: in no source.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import lru_cache

from tanda.contract.proof import ObservedGround, SourceLayer
from tanda.numbers import Quantity, QuantityKind, compare, extract_quantities

_CORE = re.compile(r"\d(?:[\d.,\s\u00a0\u202f]*\d)?")
_SPACES = re.compile(r"[\s\u00a0\u202f]+")
_MAGNITUDES = frozenset({QuantityKind.amount, QuantityKind.count, QuantityKind.percent})

GROUND_ORDER: dict[str, int] = {
    "exact": 0,
    "tolerant": 1,
    "relocated": 2,
    "unverified": 3,
    "refuted": 4,
}
"""Weakest link first is the highest number."""


@dataclass(frozen=True, slots=True)
class ProofSource:
    """A numbered source the answer could cite: a passage or an evidence item (``[S#]``)."""

    no: int
    text: str
    page_no: int | None = None
    layer: SourceLayer = "passage"
    lang: str | None = None
    """The document's language when known (``(197)`` is −197 in English, an enumerator in
    Indonesian); ``None`` guesses it."""


@dataclass(frozen=True, slots=True)
class Grounding:
    ground: ObservedGround
    source: ProofSource | None = None
    source_value: str | None = None

    @property
    def found(self) -> bool:
        return self.ground != "unverified"


UNVERIFIED = Grounding("unverified")


def digits_of(surface: str) -> str:
    """The number as written, without currency, sign, scale or unit: ``Rp 40.470,00`` →
    ``40.470,00``; spaces inside it dropped."""
    m = _CORE.search(surface)
    return _SPACES.sub("", m.group()) if m else surface


_Window = tuple[Decimal, tuple[tuple[Decimal, int], ...]]  # a tolerance, (value, position)s sorted


@dataclass(frozen=True, slots=True)
class _Indexed:
    """One source's quantities, and where to look among them for a value.

    ``compare`` says two magnitudes are equal only within their tolerances, so a value need only
    be compared with the source's magnitudes in a window around it (by value, by the negated
    value for a deduction, by the number as written for an operand) — one window per tolerance
    the source's surfaces have — and with everything a window cannot rule out (years, dates,
    references, surfaces under a declared scale).
    """

    quantities: tuple[Quantity, ...]
    tolerances: tuple[Decimal, ...]
    by_value: tuple[_Window, ...]
    by_number: tuple[_Window, ...]
    unwindowed: tuple[int, ...]

    def near(self, q: Quantity, tolerance: Decimal, *, operand: bool) -> list[int]:
        """Positions of every quantity that could equal ``q`` (by any of the three readings),
        in source order; all of them when ``q`` itself has no single reading."""
        if q.kind not in _MAGNITUDES or q.implied_factor is not None:
            return list(range(len(self.quantities)))
        found = set(self.unwindowed)
        for width, pairs in self.by_value:
            reach = max(tolerance, width)
            found.update(_window(pairs, q.value, reach))
            found.update(_window(pairs, -q.value, reach))
        if operand:
            for width, pairs in self.by_number:
                found.update(_window(pairs, q.value, max(tolerance, width)))
        return sorted(found)


def _window(pairs: tuple[tuple[Decimal, int], ...], center: Decimal, reach: Decimal) -> list[int]:
    low = bisect_left(pairs, (center - reach, -1))
    high = bisect_right(pairs, (center + reach, sys.maxsize))  # after every position
    return [i for _, i in pairs[low:high]]


def _windows(entries: list[tuple[Decimal, Decimal, int]]) -> tuple[_Window, ...]:
    """``(tolerance, value, position)`` entries → one sorted window per tolerance."""
    grouped: dict[Decimal, list[tuple[Decimal, int]]] = {}
    for tolerance, value, position in entries:
        grouped.setdefault(tolerance, []).append((value, position))
    return tuple((tolerance, tuple(sorted(pairs))) for tolerance, pairs in grouped.items())


@lru_cache(maxsize=256)
def source_quantities(text: str, lang: str | None) -> _Indexed:
    """A source is looked up for many values: its quantities are read and indexed once."""
    quantities = tuple(
        q
        for q in extract_quantities(text, lang)
        if not (q.kind is QuantityKind.ordinal and q.label == "enumerator")
    )
    tolerances = tuple(q.tolerance for q in quantities)
    windowed = [
        i for i, q in enumerate(quantities) if q.kind in _MAGNITUDES and q.implied_factor is None
    ]
    return _Indexed(
        quantities=quantities,
        tolerances=tolerances,
        by_value=_windows([(tolerances[i], quantities[i].value, i) for i in windowed]),
        by_number=_windows(
            [(tolerances[i] / quantities[i].factor, quantities[i].number, i) for i in windowed]
        ),
        unwindowed=tuple(sorted(set(range(len(quantities))) - set(windowed))),
    )


def _deduction(s: Quantity) -> Quantity | None:
    """``(16)`` in a table is a deduction of 16: its amount, for an answer that writes it so."""
    if s.value < 0 and "(" in s.surface:
        return replace(s, value=-s.value, number=-s.number)
    return None


def _as_written(s: Quantity) -> Quantity:
    """``Rp 4.874,35 M`` as the bare number ``4.874,35``: what an operation copies from it."""
    return replace(
        s,
        kind=QuantityKind.count,
        value=s.number,
        factor=Decimal(1),
        scale=None,
        unit=None,
        implied_unit=None,
        implied_factor=None,
        noun=None,
    )


def _bare(q: Quantity) -> bool:
    return q.kind is QuantityKind.count and q.unit is None and q.scale is None


def _apart(
    q: Quantity, q_tolerance: Decimal, s: Quantity, s_value: Decimal, s_tolerance: Decimal
) -> bool:
    """Two magnitudes no reading can make equal: ``compare`` need not be asked. (With a
    declared scale a surface has a second reading: then ``compare`` decides.)"""
    return (
        q.kind in _MAGNITUDES
        and s.kind in _MAGNITUDES
        and q.implied_factor is None
        and s.implied_factor is None
        and abs(q.value - s_value) > max(q_tolerance, s_tolerance)
    )


def _match(q: Quantity, source: ProofSource, *, operand: bool) -> Grounding | None:
    best: Grounding | None = None
    own = q.tolerance
    index = source_quantities(source.text, source.lang)
    for position in index.near(q, own, operand=operand):
        s, tolerance = index.quantities[position], index.tolerances[position]
        if not _apart(q, own, s, s.value, tolerance) and compare(q, s).equal:
            same = digits_of(q.surface) == digits_of(s.surface) and (q.value < 0) == (s.value < 0)
            if same:
                return Grounding("exact", source, s.surface)
            if best is None:
                best = Grounding("tolerant", source, s.surface)
        elif best is None and q.value > 0 and not _apart(q, own, s, -s.value, tolerance):
            amount = _deduction(s)
            if amount is not None and compare(q, amount).equal:
                best = Grounding("tolerant", source, s.surface)
        if (
            best is None
            and operand
            and _bare(q)
            and s.kind in _MAGNITUDES
            and (s.scale is not None or s.unit is not None)
            and not _apart(q, own, s, s.number, tolerance / s.factor)
            and compare(q, _as_written(s)).equal
        ):
            # `4.874,35 / 5.000 = 97,49%` computes with the numbers as the source writes them,
            # currency and scale word left out (they cancel, or the result states them).
            best = Grounding("tolerant", source, s.surface)
    if best is None and q.kind is QuantityKind.year:
        # A year the source states inside a date, a fiscal year or a reference's year.
        for s in index.quantities:
            if s.period == q.value or (s.date is not None and s.date[0] == q.value):
                return Grounding("tolerant", source, s.surface)
    return best


def ground(
    q: Quantity,
    cited: Collection[int],
    sources: Sequence[ProofSource],
    *,
    operand: bool = False,
) -> Grounding:
    """How ``q`` is grounded: in a cited source first, then anywhere else among ``sources``.
    An ``operand`` of a shown operation may be the bare number a source writes with a currency
    or a scale word."""
    elsewhere: Grounding | None = None
    best: Grounding | None = None
    for source in sources:
        found = _match(q, source, operand=operand)
        if found is None:
            continue
        if source.no in cited:
            if found.ground == "exact":
                return found
            best = best or found
        elif elsewhere is None:
            elsewhere = Grounding("relocated", source, found.source_value)
    return best or elsewhere or UNVERIFIED


def weakest(grounds: Sequence[str]) -> str:
    return max(grounds, key=GROUND_ORDER.__getitem__, default="exact")
