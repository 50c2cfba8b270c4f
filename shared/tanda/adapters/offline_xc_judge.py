"""The offline model's cross-check judge (role ``xc_judge``, XC-4): deterministic, built on
``tanda.numbers``, in Indonesian, Turkish and English.

Two statements are about *the same attribute* when each states a number of the same kind and unit
(an amount in rupiah, years of prison, a percentage, a date) after words that name the same thing:
the content words before the number back to the clause or the previous number (``pidana penjara
paling lama`` before ``6 (enam) tahun``; ``denda paling banyak`` before ``Rp1.000.000.000,00``),
which must share at least half of the shorter list. Then:

- the same attribute with **different values** → ``contradiction``;
- the same attribute with **the same value** (``tanda.numbers`` equality: ``Rp871,67 miliar`` is
  ``871.667.219.294``) → ``support``;
- otherwise → ``none``: it cannot see meaning, so it finds no contradiction a number does not
  show.

Two things keep it from reading different facts as one: statements about provisions (``Pasal 27
ayat (3)``; ``tanda.numbers.references``) are compared only when both name one and they name the
same (an unreferenced fragment like ``(4) dipidana … paling lama 6 (enam) tahun`` is about no
provision it can tell), and numbers stated for different years (a 2022 budget line against a
2023 one), like dates of different or unstated years (each law's own enactment date), are
different facts, not a contradiction. A value after a label and a colon (``Amount due: 851.78
NOK``) is named by the label, and two labels name the same thing only when they are the same
words (``Total VAT`` is not ``Total with VAT``). A contradiction
outweighs a support when one pair of numbers agrees and another does not. The explanation names the
attribute and both values verbatim, in the job's language (``tr``, ``id``, ``en``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from tanda.lang import DEFAULT_TEXT_LANG, Lang, guess_lang, is_function_word
from tanda.numbers import Quantity, QuantityKind, extract_quantities, same_quantity
from tanda.numbers.references import Provision, provisions, same_provision
from tanda.retrieval.analysis import index_terms

XcVerdict = Literal["contradiction", "support", "none"]

STATED: Final = frozenset(
    {QuantityKind.amount, QuantityKind.percent, QuantityKind.count, QuantityKind.date}
)
ATTRIBUTE_WORDS: Final = 8
"""Content words before a number that name what it is of, at most."""
MIN_SHARED: Final = 0.5
_CLAUSE: Final = re.compile(r"[,;:.()\[\]]|\s-\s|\bdan/atau\b|\band/or\b|\bve/veya\b")
_WORD: Final = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")

EXPLANATIONS: Final[dict[str, dict[XcVerdict, str]]] = {
    "en": {
        "contradiction": 'Both state "{attribute}", with different values: {a} in A, {b} in B.',
        "support": 'Both state "{attribute}" with the same value: {a} in A, {b} in B.',
    },
    "id": {
        "contradiction": 'Keduanya menyatakan "{attribute}" dengan nilai berbeda: {a} di A, {b} '
        "di B.",
        "support": 'Keduanya menyatakan "{attribute}" dengan nilai yang sama: {a} di A, {b} di B.',
    },
    "tr": {
        "contradiction": "İkisi de \"{attribute}\" için farklı değer veriyor: A'da {a}, B'de {b}.",
        "support": "İkisi de \"{attribute}\" için aynı değeri veriyor: A'da {a}, B'de {b}.",
    },
}


@dataclass(frozen=True, slots=True)
class _Stated:
    quantity: Quantity
    words: tuple[str, ...]
    """The content words before it, as written."""
    terms: frozenset[str]
    """The same, stemmed and folded."""
    label: bool = False
    """Named by a label before a colon (``Amount due: 851.78 NOK``): a name, compared whole."""


def _stated(text: str) -> tuple[list[_Stated], list[Provision]]:
    """The numbers ``text`` states, each with the words naming it, and the provisions it names."""
    lang: Lang = guess_lang(text) or DEFAULT_TEXT_LANG
    quantities = extract_quantities(text, lang)
    references = provisions(quantities)
    stated: list[_Stated] = []
    previous_end = 0
    for quantity in quantities:
        before = text[previous_end : quantity.start]
        previous_end = quantity.span[1]
        if quantity.kind not in STATED or quantity.range_part is not None:
            continue
        clauses = _CLAUSE.split(before)
        words = tuple(
            w for w in _WORD.findall(clauses[-1]) if not is_function_word(w, lang) and len(w) > 1
        )[-ATTRIBUTE_WORDS:]
        if not words and len(clauses) > 1 and before.rstrip().endswith(":"):
            # "Amount due: 851.78 NOK": the label before the colon names the value. Its small
            # words are kept, as terms too: "Total VAT" and "Total with VAT" are two totals.
            label = tuple(_WORD.findall(clauses[-2]))[-ATTRIBUTE_WORDS:]
            terms = frozenset(w.casefold() for w in label)
            if terms:
                stated.append(_Stated(quantity, label, terms, label=True))
            continue
        terms = frozenset(index_terms(" ".join(words), lang))
        if terms:
            stated.append(_Stated(quantity, words, terms))
    return stated, references


def _same_attribute(x: _Stated, y: _Stated) -> bool:
    a, b = x.quantity, y.quantity
    if a.kind != b.kind or a.unit != b.unit:
        return False
    if a.period is not None and b.period is not None and a.period != b.period:
        return False  # another year's figure is another fact
    if a.kind == QuantityKind.date and not (
        a.date and b.date and a.date[0] and a.date[0] == b.date[0]
    ):
        return False  # a date of another (or an unstated) year is another event
    if x.label and y.label:
        return x.terms == y.terms
    shared = len(x.terms & y.terms)
    return shared >= MIN_SHARED * min(len(x.terms), len(y.terms))


def judge_pair(a: str, b: str, lang: str) -> tuple[XcVerdict, str]:
    """The verdict on statements ``a`` and ``b`` and its explanation in ``lang``."""
    stated_a, provisions_a = _stated(a)
    stated_b, provisions_b = _stated(b)
    if (provisions_a or provisions_b) and not same_provision(provisions_a, provisions_b):
        return "none", ""  # different provisions, or one it cannot place
    agreeing: tuple[_Stated, _Stated] | None = None
    for x in stated_a:
        for y in stated_b:
            if not _same_attribute(x, y):
                continue
            if same_quantity(x.quantity, y.quantity):
                agreeing = agreeing or (x, y)
            else:
                return "contradiction", _explain("contradiction", x, y, lang)
    if agreeing is not None:
        return "support", _explain("support", *agreeing, lang)
    return "none", ""


def _explain(verdict: XcVerdict, x: _Stated, y: _Stated, lang: str) -> str:
    template = EXPLANATIONS.get(lang, EXPLANATIONS["en"])[verdict]
    return template.format(attribute=" ".join(x.words), a=x.quantity.surface, b=y.quantity.surface)
