"""Are two quantities the same statement? And which of a claim's quantities does a source lack?

The equality rule (V2-08), in order:

1. **Kind.** amount ~ amount, percent ~ percent, year ~ year, date ~ date, time ~ time,
   ordinal ~ ordinal (same label). A *bare* count (no unit, no scale word) may stand for an amount
   or a percent: table cells and prose drop the currency and the ``%`` (a scale word may stay:
   ``4.874,35 M``). A year is a period: a count equals it only when the year counts a noun
   (``2000 peserta``, read as a year for its form) and the count, bare and whole, counts the
   same one, exactly (``2.000 peserta``); ``2,019 employees`` is not ``FY2019``.
2. **Unit.** Both stated → they must be the same (IDR ≠ USD, % ≠ percentage points ≠ points).
   One missing → allowed only when the unitless side is a count and its own text does not imply
   another unit (a declaration like ``(dalam rupiah)`` or ``(dollars in thousands)``).
3. **Value at the precision of the less precise surface.** ``|a − b| ≤ max(tol a, tol b)`` where a
   surface's tolerance is half a unit of its last stated digit at its scale: ``Rp871,67 miliar``
   (tol 0.005 × 10⁹) equals ``871.667.219.294``; ``Rp 5 miliar`` never equals ``Rp 5 juta``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from functools import lru_cache

from tanda.lang import normalize_lang
from tanda.numbers.extract import extract_quantities
from tanda.numbers.model import (
    Match,
    MatchReason,
    Quantity,
    QuantityKind,
    Unmatched,
    UnmatchedReason,
)

_MAGNITUDE = frozenset({QuantityKind.amount, QuantityKind.count, QuantityKind.percent})
_CHECKED = frozenset(
    {
        QuantityKind.amount,
        QuantityKind.percent,
        QuantityKind.count,
        QuantityKind.year,
        QuantityKind.date,
        QuantityKind.time,
    }
)
_NEVER_CHECKED_LABELS = frozenset({"enumerator"})
_SCALE_SHIFTS = (3, 6, 9, 12, -3, -6, -9, -12)


def _bare(q: Quantity) -> bool:
    """A plain number: no unit, no scale word (``2000``, ``63.63``)."""
    return q.kind is QuantityKind.count and q.unit is None and q.scale is None


def _unitless(q: Quantity) -> bool:
    """A count without a unit, scale word allowed (``4.874,35 M``, ``871.667.219.294``)."""
    return q.kind is QuantityKind.count and q.unit is None


def _stand_in(q: Quantity) -> bool:
    """A unitless count that counts no noun may stand for money or a percent (a table cell)."""
    return _unitless(q) and q.noun is None


def compare(a: Quantity, b: Quantity) -> Match:
    """Whether ``a`` and ``b`` state the same quantity, and why (see the module docstring)."""
    if a.kind is QuantityKind.ordinal or b.kind is QuantityKind.ordinal:
        return _compare_ordinals(a, b)
    if a.kind is QuantityKind.date or b.kind is QuantityKind.date:
        return _compare_dates(a, b)
    if a.kind is QuantityKind.year or b.kind is QuantityKind.year:
        return _compare_years(a, b)
    if a.kind is QuantityKind.time or b.kind is QuantityKind.time:
        return _compare_times(a, b)
    if a.kind is not b.kind and not (_stand_in(a) or _stand_in(b)):
        return Match(False, MatchReason.kind_mismatch)
    unit_a, unit_b = a.effective_unit, b.effective_unit
    if unit_a != unit_b:
        # One side without a unit: only a bare number may stand for the other's unit, and only
        # when its own text implies nothing else.
        missing = a if unit_a is None else b if unit_b is None else None
        if missing is None or not _unitless(missing):
            return Match(False, MatchReason.unit_mismatch)
    return _compare_values(a, b)


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """``compare(a, b).equal``."""
    return compare(a, b).equal


def _candidates(q: Quantity) -> list[tuple[Decimal, Decimal]]:
    """``(value, tolerance)`` readings of a surface: as written, and at a declared scale."""
    readings = [(q.value, q.tolerance)]
    if q.implied_factor is not None and q.scale is None:
        implied_tol = Decimal(5).scaleb(-(q.decimals + 1)) * q.implied_factor
        readings.append((q.number * q.implied_factor, implied_tol))
    return readings


def _compare_values(a: Quantity, b: Quantity) -> Match:
    best: Decimal | None = None
    for value_a, tol_a in _candidates(a):
        for value_b, tol_b in _candidates(b):
            tolerance = max(tol_a, tol_b)
            if abs(value_a - value_b) <= tolerance:
                return Match(True, MatchReason.equal, tolerance)
            best = tolerance if best is None else best
    if _off_by_a_scale(a, b):
        return Match(False, MatchReason.scale_mismatch, best)
    return Match(False, MatchReason.value_mismatch, best)


def _off_by_a_scale(a: Quantity, b: Quantity) -> bool:
    """``5 miliar`` vs ``5 juta``, ``Rp600.000.000`` vs ``Rp600 miliar``: equal but for 10^(3k)."""
    if a.value == 0 or b.value == 0:
        return False
    tolerance = max(a.tolerance, b.tolerance)
    for shift in _SCALE_SHIFTS:
        if abs(a.value - b.value.scaleb(shift)) <= tolerance.scaleb(max(shift, 0)):
            return True
    return False


def _compare_years(a: Quantity, b: Quantity) -> Match:
    for year, other in ((a, b), (b, a)):
        # A year is a period, not an amount of anything: a count equals it only when the "year"
        # is a count its four digits made one — it counts a noun ("2000 peserta") — and the
        # count counts the same noun, exactly ("2.000 peserta"). "2,019 employees" is no FY2019.
        if (
            year.kind is QuantityKind.year
            and other.kind is not QuantityKind.year
            and not (
                _bare(other)
                and other.decimals == 0
                and year.noun is not None
                and other.noun == year.noun
            )
        ):
            return Match(False, MatchReason.kind_mismatch)
    equal = a.value == b.value
    return Match(equal, MatchReason.equal if equal else MatchReason.value_mismatch, Decimal(0))


def _compare_times(a: Quantity, b: Quantity) -> Match:
    if a.kind is not b.kind:
        # "Let's make it 7." vs "7 pm": a bare whole hour equals a full hour on the clock.
        clock, other = (a, b) if a.kind is QuantityKind.time else (b, a)
        hour, minute = divmod(int(clock.value), 60)
        if not (_bare(other) and other.decimals == 0 and other.noun is None and minute == 0):
            return Match(False, MatchReason.kind_mismatch)
        equal = int(other.value) % 12 == hour % 12 and 0 <= other.value <= 24
        return Match(equal, MatchReason.equal if equal else MatchReason.value_mismatch)
    equal = a.value == b.value
    return Match(equal, MatchReason.equal if equal else MatchReason.value_mismatch)


def _compare_dates(a: Quantity, b: Quantity) -> Match:
    if a.date is None or b.date is None:
        return Match(False, MatchReason.kind_mismatch)
    # A part one side leaves out (no year, no day) does not contradict the other side.
    for part_a, part_b in zip(a.date, b.date, strict=True):
        if part_a is not None and part_b is not None and part_a != part_b:
            return Match(False, MatchReason.value_mismatch)
    return Match(True, MatchReason.equal)


def _compare_ordinals(a: Quantity, b: Quantity) -> Match:
    if a.kind is not b.kind:
        return Match(False, MatchReason.kind_mismatch)
    if a.label != b.label:
        return Match(False, MatchReason.label_mismatch)
    equal = a.value == b.value and (a.suffix or "") == (b.suffix or "")
    if equal and a.period is not None and b.period is not None and a.period != b.period:
        equal = False  # UU 27/2022 is not UU 27/2008
    return Match(equal, MatchReason.equal if equal else MatchReason.value_mismatch)


@lru_cache(maxsize=512)
def _source_quantities(text: str, lang: str | None) -> tuple[Quantity, ...]:
    """A passage is the source of many segments: its quantities are extracted once."""
    return tuple(extract_quantities(text, lang))


def find_in(
    claim_text: str,
    source_text: str,
    lang: str | None = None,
    *,
    source_lang: str | None = None,
) -> list[Unmatched]:
    """The claim's quantities that no quantity of the source equals (V2-08).

    Checked: amounts, percents, counts, years, dates and times. Reference numbers (``Pasal 67``,
    ``Nomor 27``) are checked only when the source has references of the same label, so a claim
    citing ``Pasal 68`` against a source about ``Pasal 67`` is reported. An equal value that the
    source states only for another period than the claim's is a ``period_mismatch``.
    The judge uses this only to withhold ``supported``, never to grant it.
    ``source_lang`` defaults to ``lang``; ``None`` guesses each text's language on its own.
    """
    lang = normalize_lang(lang)
    claims = extract_quantities(claim_text, lang)
    if not claims:
        return []
    sources = _source_quantities(source_text, normalize_lang(source_lang) or lang)
    source_years = {
        q.period for q in sources if q.period is not None
    }  # years, dates with a year, FY/TA, references' years
    unmatched: list[Unmatched] = []
    for q in claims:
        if q.kind is QuantityKind.ordinal:
            miss = _check_reference(q, sources)
        elif q.kind is QuantityKind.year:
            miss = (
                None
                if q.period in source_years
                or any(_compare_years(q, s).equal for s in sources if _bare(s))
                else Unmatched(q, UnmatchedReason.not_found, None, "year not in the source")
            )
        elif q.kind in _CHECKED:
            miss = _check_quantity(q, sources)
        else:  # pragma: no cover - every kind is handled above
            miss = None
        if miss is not None:
            unmatched.append(miss)
    return unmatched


def _check_reference(q: Quantity, sources: Sequence[Quantity]) -> Unmatched | None:
    if q.label in _NEVER_CHECKED_LABELS:
        return None
    same_label = [s for s in sources if s.kind is QuantityKind.ordinal and s.label == q.label]
    if not same_label or any(compare(q, s).equal for s in same_label):
        return None
    return Unmatched(q, UnmatchedReason.reference_mismatch, same_label[0], f"{q.label} differs")


def _check_quantity(q: Quantity, sources: Sequence[Quantity]) -> Unmatched | None:
    equal: list[Quantity] = []
    nearest: Quantity | None = None
    nearest_reason = ""
    for s in sources:
        result = compare(q, s)
        if result.equal:
            equal.append(s)
        elif nearest is None and result.reason in (
            MatchReason.scale_mismatch,
            MatchReason.unit_mismatch,
        ):
            nearest, nearest_reason = s, result.reason.value
    if not equal:
        return Unmatched(q, UnmatchedReason.not_found, nearest, nearest_reason)
    if q.period is None or any(s.period is None or s.period == q.period for s in equal):
        return None
    return Unmatched(
        q,
        UnmatchedReason.period_mismatch,
        equal[0],
        f"stated for {equal[0].period}, claimed for {q.period}",
    )


_STATED_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def period_conflict(
    claim_text: str, periods: Sequence[str], lang: str | None = None
) -> Unmatched | None:
    """Issue 25: the claim's first year (a year it names, or the period of a figure) that none of
    ``periods`` — the periods its sources state in their identity (a portal dataset's fiscal
    year) — is: a 2022 figure never supports a 2023 claim. ``None`` when the sources state no
    period or the claim names none of another."""
    stated = {int(y) for period in periods for y in _STATED_YEAR.findall(period)}
    if not stated:
        return None
    for q in extract_quantities(claim_text, normalize_lang(lang)):
        year = q.period
        if year is None and q.kind is QuantityKind.year:
            year = int(q.value)
        if year is not None and year not in stated:
            return Unmatched(
                q, UnmatchedReason.period_mismatch, None, f"stated for {sorted(stated)}"
            )
    return None
