"""What the candidate channels compare of one claim (XC-4): its content terms, its distinctive
tokens, the numbers it states and its language. Pure: ``tanda.numbers`` reads the numbers,
``tanda.retrieval.analysis`` the terms.

Distinctive tokens are what two documents rarely share by chance: a reference (``Pasal 27 ayat
(3)``, ``No. 11/2008``), an amount with its currency, a percentage, a date, a code made of letters
and digits (``INV-2023-0042``). Years and bare counts are not: every statute of 2008 says 2008.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from tanda.crosscheck.inputs import XcClaim
from tanda.lang import DEFAULT_TEXT_LANG, Lang, guess_lang
from tanda.numbers import Quantity, QuantityKind, extract_quantities
from tanda.numbers.references import provisions
from tanda.retrieval.analysis import query_terms

VALUE_KINDS: Final = frozenset(
    {QuantityKind.amount, QuantityKind.percent, QuantityKind.count, QuantityKind.date}
)
"""The numbers a statement *states* (what two statements can disagree on); years and reference
numbers place it instead."""
_CODE: Final = re.compile(
    r"(?<![\w./-])(?=[\w./-]*\d)(?=[\w./-]*[^\W\d_])\w+(?:[./-]\w+)+(?![\w/-])", re.UNICODE
)
_MIN_TERM_CHARS: Final = 3


@dataclass(frozen=True, slots=True)
class ClaimFeatures:
    terms: frozenset[str]
    tokens: frozenset[str]
    values: tuple[Quantity, ...]
    lang: Lang | None


def claim_features(claim: XcClaim) -> ClaimFeatures:
    text = claim.statement
    lang = guess_lang(text)
    analysed = lang or DEFAULT_TEXT_LANG
    terms = frozenset(
        t
        for t in query_terms(text, analysed)
        if len(t) >= _MIN_TERM_CHARS and not any(ch.isdigit() for ch in t)
    )
    codes = [m for m in _CODE.finditer(text) if _is_code(m, extract_quantities(m.group(), lang))]
    quantities = [
        q
        for q in extract_quantities(text, lang)
        if not any(m.start() <= q.start and q.span[1] <= m.end() for m in codes)
    ]
    return ClaimFeatures(
        terms=terms,
        tokens=frozenset(
            [*distinctive_tokens(quantities), *(f"code:{m.group().casefold()}" for m in codes)]
        ),
        values=tuple(q for q in quantities if q.kind in VALUE_KINDS and q.range_part is None),
        lang=lang,
    )


def _is_code(match: re.Match[str], inside: list[Quantity]) -> bool:
    """A code is not a number ``tanda.numbers`` reads whole (``Rp1.000.000``, ``11/2008``)."""
    return not any(q.start == 0 and q.span[1] == len(match.group()) for q in inside) and not any(
        q.kind in (QuantityKind.amount, QuantityKind.percent) for q in inside
    )


def distinctive_tokens(quantities: list[Quantity]) -> list[str]:
    """The provisions (``tanda.numbers.references``), law numbers, amounts, percentages and
    dates among ``quantities``, as tokens."""
    tokens = ["ref:" + "/".join(f"{label}={n}" for label, n in p) for p in provisions(quantities)]
    for quantity in quantities:
        if quantity.kind == QuantityKind.ordinal and quantity.label == "number":
            tokens.append(f"number:{quantity.value}{quantity.suffix or ''}")
        elif quantity.kind == QuantityKind.amount:
            tokens.append(f"amount:{quantity.unit}:{_plain(quantity.value)}")
        elif quantity.kind == QuantityKind.percent:
            tokens.append(f"percent:{_plain(quantity.value)}")
        elif quantity.kind == QuantityKind.date and quantity.date is not None:
            tokens.append("date:" + "-".join(str(part) for part in quantity.date))
    return list(dict.fromkeys(tokens))


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def differing_values(a: ClaimFeatures, b: ClaimFeatures) -> bool:
    """Both state a number of the same kind and unit, and no such pair is equal: the strongest
    cheap sign that they disagree (never a verdict: the judge decides)."""
    comparable = [
        (x, y) for x in a.values for y in b.values if x.kind == y.kind and x.unit == y.unit
    ]
    return bool(comparable) and not any(x.value == y.value for x, y in comparable)
