"""Numbers on real tables: ``tanda eval numbers PATH`` on TAT-QA (issue 17, docs/evaluation.md).

Every gold answer of TAT-QA with a ``scale`` (thousand, million, billion, percent) is written the
way a person writes it in English, Indonesian and Turkish — at the table's precision
(``$1,496.5 million``, ``US$1.496,5 juta``, ``1.496,5 milyon dolar``), rounded to the next scale
(``1,5 milyar dolar``), as a percent (``12.5%``, ``12,5 persen``, ``%12,5``, ``yüzde 12,5``) —
and ``tanda.numbers.find_in`` must find each one in the answer's source, as the judge calls it
(each text's language guessed). The same digits at a neighbouring scale (``1.496,5 miliar``)
must not be found (V2-08).

The source is what a cited passage holds: an answer that is a table cell is its row under the
table's header rows, as ingest renders a table (``a | b | c``), below the scale the table
declares (``(in millions)``); a derived answer (arithmetic over cells) is its value as TAT-QA
states it under the same declaration.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, Literal

from tanda.numbers import find_in
from tanda.retrieval.ingest.chunking import render_row

Lang = Literal["en", "id", "tr"]
LANGS: tuple[Lang, ...] = ("en", "id", "tr")
SCALES = ("thousand", "million", "billion", "percent")
_LADDER = ("thousand", "million", "billion", "trillion")

DECLARATIONS = {
    "thousand": "(in thousands)",
    "million": "(in millions)",
    "billion": "(in billions)",
}
SCALE_WORDS: dict[Lang, dict[str, str]] = {
    "en": {
        "thousand": "thousand",
        "million": "million",
        "billion": "billion",
        "trillion": "trillion",
    },
    "id": {"thousand": "ribu", "million": "juta", "billion": "miliar", "trillion": "triliun"},
    "tr": {"thousand": "bin", "million": "milyon", "billion": "milyar", "trillion": "trilyon"},
}
FRAMES: dict[Lang, str] = {
    "en": "The reported figure is {}.",
    "id": "Nilai yang dilaporkan adalah {}.",
    "tr": "Tabloda verilen değer {} olarak raporlandı.",
}

_VALUE = re.compile(
    r"^(?P<neg>[-−(])?\s*(?P<cur>\$)?\s*(?P<neg2>[-(])?\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*%?\)?"
    r"(?:\s*(?:thousand|million|billion))?$"
)


@dataclass(frozen=True)
class Written:
    """A number as TAT-QA writes it: ``$1,496.5``, ``(114)``, ``-12.6``, ``13.2%``."""

    number: Decimal
    """Absolute value."""
    decimals: int
    negative: bool
    currency: bool


def read_value(text: str) -> Written | None:
    """TAT-QA's English surface → its parts; ``None`` for what is not one number."""
    match = _VALUE.match(text.strip().replace("$ ", "$"))
    if match is None:
        return None
    digits = match.group("num").replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    try:
        number = Decimal(digits)
    except InvalidOperation:  # pragma: no cover - the pattern admits only digits
        return None
    negative = match.group("neg") is not None or match.group("neg2") is not None
    return Written(number, decimals, negative, match.group("cur") is not None)


def format_number(number: Decimal, decimals: int, lang: Lang) -> str:
    """``1496.5`` → ``1,496.5`` (en), ``1.496,5`` (id, tr)."""
    text = f"{number:,.{decimals}f}"
    if lang == "en":
        return text
    return text.replace(",", "_").replace(".", ",").replace("_", ".")


ABBREVIATIONS: dict[Lang, dict[str, str]] = {
    "en": {"thousand": "k", "million": "m", "billion": "bn", "trillion": "tn"},
    "id": {"thousand": "rb", "million": "jt", "billion": "M", "trillion": "T"},
    "tr": {"thousand": "bin", "million": "mn", "billion": "mlr", "trillion": "trilyon"},
}


def written_as(
    value: Written,
    scale: str,
    lang: Lang,
    *,
    number: Decimal | None = None,
    decimals: int | None = None,
    abbreviated: bool = False,
) -> str:
    """The value as a person writes it in ``lang`` at ``scale`` (a scale or ``percent``):
    ``$1,496.5 million``, ``US$1.496,5 juta``, ``1.496,5 milyon dolar``; abbreviated
    ``$1,496.5m``, ``US$1.496,5 jt``, ``1.496,5 mn dolar``; percents ``12.5%`` or ``12.5
    percent``, ``12,5%`` or ``12,5 persen``, ``%12,5`` or ``yüzde 12,5``."""
    shown = format_number(
        value.number if number is None else number,
        value.decimals if decimals is None else decimals,
        lang,
    )
    signed = f"-{shown}" if value.negative else shown
    if scale == "percent":
        if abbreviated:
            return {"en": f"{signed}%", "id": f"{signed}%", "tr": f"%{signed}"}[lang]
        return {"en": f"{signed} percent", "id": f"{signed} persen", "tr": f"yüzde {signed}"}[lang]
    word = (ABBREVIATIONS if abbreviated else SCALE_WORDS)[lang][scale]
    if lang == "en" and abbreviated:
        return f"${signed}{word}"  # `m`, `bn` glued to the digits, as headlines write them
    if not value.currency:
        return f"{signed} {word}"
    return {"en": f"${signed} {word}", "id": f"US${signed} {word}", "tr": f"{signed} {word} dolar"}[
        lang
    ]


@dataclass(frozen=True)
class ScaledAnswer:
    uid: str
    value_text: str
    value: Written
    scale: str
    source: str
    from_cell: bool


def _header_rows(table: Sequence[Sequence[str]]) -> int:
    """Leading rows whose first cell is empty: the column headings (years, captions)."""
    count = 0
    for row in table:
        if row and str(row[0]).strip():
            break
        count += 1
    return count


def _source_of(
    table: Sequence[Sequence[str]], value_text: str, value: Written, scale: str
) -> tuple[str, bool]:
    declaration = DECLARATIONS.get(scale)
    lines = [declaration] if declaration else []
    headers = _header_rows(table)
    wanted = value_text.strip()
    for number, row in enumerate(table):
        if number >= headers and any(str(cell).strip() == wanted for cell in row):
            lines += [render_row([str(c).strip() for c in r]) for r in table[:headers]]
            lines.append(render_row([str(c).strip() for c in row]))
            return "\n".join(lines), True
    # A derived value, written as a table cell would be (grouped thousands: 1,972 is no year).
    shown = ("-" if value.negative else "") + format_number(value.number, value.decimals, "en")
    lines.append(f"Value: {shown}{'%' if scale == 'percent' else ''}")
    return "\n".join(lines), False


@dataclass(frozen=True)
class Skipped:
    uid: str
    answer: str
    why: str


def _is_column_year(text: str, table: Sequence[Sequence[str]]) -> bool:
    """A year that heads a column (``In which year…?`` → ``2019``): not a value at a scale,
    whatever scale the annotation gives it."""
    stripped = text.strip()
    return (
        stripped.isdecimal()
        and 1900 <= int(stripped) <= 2100
        and any(str(cell).strip() == stripped for cell in (table[0] if table else ()))
    )


def scaled_answers(tatqa: Sequence[dict[str, Any]]) -> Iterator[ScaledAnswer | Skipped]:
    """Every numeric answer with a scale, with its source; a ``Skipped`` for an answer with a
    scale that is not one number, or is a column's year."""
    for entry in tatqa:
        table = entry.get("table", {}).get("table", [])
        for question in entry.get("questions", []):
            scale = question.get("scale") or ""
            if scale not in SCALES:
                continue
            uid = str(question.get("uid", ""))
            answers = question["answer"]
            for answer in answers if isinstance(answers, list) else [answers]:
                text = str(answer)
                value = read_value(text)
                if value is None:
                    yield Skipped(uid, text, "not one number")
                elif _is_column_year(text, table):
                    yield Skipped(uid, text, "a column's year")
                else:
                    source, from_cell = _source_of(table, text, value, scale)
                    yield ScaledAnswer(uid, text, value, scale, source, from_cell)


@dataclass(frozen=True)
class Check:
    uid: str
    lang: Lang
    claim: str
    source: str
    expect_found: bool
    found: bool

    @property
    def correct(self) -> bool:
        return self.found == self.expect_found


def _rounded_up_a_scale(value: Written) -> Decimal | None:
    """The value one scale up at one decimal (``1,234.5 million`` → ``1.2 billion``), when it
    reaches 1 there."""
    up = value.number / 1000
    return up.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP) if up >= 1 else None


Finder = Callable[[str, str], Sequence[object]]
"""``(claim, source)`` → the claim's quantities the source does not state (``find_in``)."""


def checks_for(answer: ScaledAnswer, finder: Finder = find_in) -> Iterator[Check]:
    def check(lang: Lang, surface: str, expect_found: bool) -> Check:
        claim = FRAMES[lang].format(surface)
        found = not finder(claim, answer.source)
        return Check(answer.uid, lang, claim, answer.source, expect_found, found)

    value = answer.value
    for lang in LANGS:
        if answer.scale == "percent":
            for abbreviated in (False, True):
                yield check(lang, written_as(value, "percent", lang, abbreviated=abbreviated), True)
            if value.number:  # a percent is not the same digits in thousands
                yield check(lang, written_as(value, "thousand", lang), False)
            continue
        step = _LADDER.index(answer.scale)
        up = _rounded_up_a_scale(value)
        for abbreviated in (False, True):
            if abbreviated and lang == "en" and not value.currency:
                continue  # a bare `1,496.5m` could be metres
            yield check(lang, written_as(value, answer.scale, lang, abbreviated=abbreviated), True)
            if up is not None:
                at_next = written_as(
                    value, _LADDER[step + 1], lang, number=up, decimals=1, abbreviated=abbreviated
                )
                yield check(lang, at_next, True)
        for other in (_LADDER[step - 1] if step else None, _LADDER[step + 1]):
            # Zero is zero at every scale: no wrong scale to tell apart.
            if other is not None and answer.value.number:
                yield check(lang, written_as(answer.value, other, lang), False)


def numbers_report(
    tatqa: Sequence[dict[str, Any]], *, misses: int = 50, finder: Finder = find_in
) -> dict[str, Any]:
    checks: list[Check] = []
    skipped: list[dict[str, str]] = []
    answers = 0
    by_scale: Counter[str] = Counter()
    for answer in scaled_answers(tatqa):
        if isinstance(answer, Skipped):
            skipped.append({"uid": answer.uid, "answer": answer.answer, "why": answer.why})
            continue
        answers += 1
        by_scale[answer.scale] += 1
        checks += checks_for(answer, finder)
    wrong = [c for c in checks if not c.correct]

    def share(selected: Sequence[Check]) -> float | None:
        return round(sum(c.correct for c in selected) / len(selected), 4) if selected else None

    return {
        "answers": answers,
        "answers_by_scale": dict(sorted(by_scale.items())),
        "checks": len(checks),
        "share_correct": share(checks),
        "share_correct_by_lang": {
            lang: share([c for c in checks if c.lang == lang]) for lang in LANGS
        },
        "found_when_equal": share([c for c in checks if c.expect_found]),
        "not_found_at_another_scale": share([c for c in checks if not c.expect_found]),
        "misses_total": len(wrong),
        "misses": [
            {
                "uid": c.uid,
                "lang": c.lang,
                "claim": c.claim,
                "source": c.source,
                "expected": "found" if c.expect_found else "not found",
            }
            for c in wrong[:misses]
        ],
        "skipped_not_a_number": skipped,
    }
