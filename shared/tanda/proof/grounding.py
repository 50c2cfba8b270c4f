"""Where a value the answer states is written in its sources (ASK-11 ``observed``).

``exact``: the same digits in a source the statement cites (``40.470,00`` in ``Rp 40.470,00``);
``tolerant``: the same value written otherwise there, by :func:`tanda.numbers.compare`
(``871.667.219.294`` for ``Rp871,67 miliar``, ``(1,421)`` for ``-1,421``); ``relocated``: found
either way, but only in a source the statement does not cite; ``unverified``: in no source.
"""

from __future__ import annotations

import re
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


@lru_cache(maxsize=256)
def source_quantities(text: str, lang: str | None) -> tuple[Quantity, ...]:
    """A source is looked up for many values: its quantities are read once."""
    return tuple(
        q
        for q in extract_quantities(text, lang)
        if not (q.kind is QuantityKind.ordinal and q.label == "enumerator")
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


def _match(q: Quantity, source: ProofSource, *, operand: bool) -> Grounding | None:
    best: Grounding | None = None
    for s in source_quantities(source.text, source.lang):
        if compare(q, s).equal:
            same = digits_of(q.surface) == digits_of(s.surface) and (q.value < 0) == (s.value < 0)
            if same:
                return Grounding("exact", source, s.surface)
            if best is None:
                best = Grounding("tolerant", source, s.surface)
        elif best is None and q.value > 0:
            amount = _deduction(s)
            if amount is not None and compare(q, amount).equal:
                best = Grounding("tolerant", source, s.surface)
        if (
            best is None
            and operand
            and _bare(q)
            and s.kind in _MAGNITUDES
            and (s.scale is not None or s.unit is not None)
            and compare(q, _as_written(s)).equal
        ):
            # `4.874,35 / 5.000 = 97,49%` computes with the numbers as the source writes them,
            # currency and scale word left out (they cancel, or the result states them).
            best = Grounding("tolerant", source, s.surface)
    if best is None and q.kind is QuantityKind.year:
        # A year the source states inside a date, a fiscal year or a reference's year.
        for s in source_quantities(source.text, source.lang):
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
