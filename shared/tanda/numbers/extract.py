"""Text → ``Quantity`` list: every numeric surface with its value, scale, unit, kind and period.

One pass of one precompiled pattern finds each surface; small anchored patterns read what stands
just before it (currency, sign, ``%``, ``Pasal``) and just after it (scale, unit). Separators are
decided per surface, so a text may mix ``4.874,35`` and ``1,700.00`` (the APBD tables do).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace
from decimal import Decimal

from tanda.lang import guess_lang, normalize_lang
from tanda.numbers import lexicon as lx
from tanda.numbers.model import Quantity, QuantityKind

_ONE = Decimal(1)
_LEFT_WINDOW = 30
_FORWARD_PERIOD_WINDOW = 40
_CURRENCIES = frozenset({"IDR", "TRY", "USD", "EUR", "GBP"})
_PERCENT_UNITS = frozenset({"%", "pp", "bp"})
_DECLARABLE = frozenset({QuantityKind.amount, QuantityKind.count})


class _Lang:
    """The language of a text, guessed only when a surface needs it (keeps the hot path short)."""

    __slots__ = ("_guessed", "_text", "value")

    def __init__(self, text: str, lang: str | None) -> None:
        self._text = text
        self.value = normalize_lang(lang)
        self._guessed = self.value is not None

    def get(self) -> str | None:
        if not self._guessed:
            self.value = guess_lang(self._text)
            self._guessed = True
        return self.value


def parse_number(raw: str, lang: str | None) -> tuple[Decimal, int]:
    """``(number, decimals)`` of a digit string with separators, decided for this surface.

    Both separators → the last one is the decimal mark. One kind, repeated → thousands. One
    occurrence followed by other than three digits → decimal mark. ``1.500`` / ``1,500`` (one
    separator, three digits) are ambiguous: id/tr read a dot as thousands and a comma as decimals,
    en the reverse; with no language both are read as thousands.
    """
    digits = raw.replace(" ", "").replace("\u00a0", "").replace("\u202f", "")
    spaced = len(digits) != len(raw)
    dots, commas = digits.count("."), digits.count(",")
    decimal_mark: str | None
    if dots and commas:
        decimal_mark = "." if digits.rfind(".") > digits.rfind(",") else ","
    elif dots + commas == 0:
        decimal_mark = None
    else:
        sep = "." if dots else ","
        if dots + commas > 1:
            decimal_mark = None
        else:
            head, tail = digits.split(sep)
            if spaced or len(tail) != 3 or head == "0":
                decimal_mark = sep
            elif lang in ("id", "tr"):
                decimal_mark = "," if sep == "," else None
            elif lang == "en":
                decimal_mark = "." if sep == "." else None
            else:
                decimal_mark = None
    if decimal_mark is None:
        return Decimal(digits.replace(".", "").replace(",", "")), 0
    thousands = "," if decimal_mark == "." else "."
    whole, _, frac = digits.replace(thousands, "").partition(decimal_mark)
    return Decimal(f"{whole}.{frac}"), len(frac)


def _is_ambiguous(raw: str) -> bool:
    """One separator followed by exactly three digits: ``1.500`` / ``1,500``."""
    return len(raw) >= 5 and raw[-4] in ".," and raw.count(".") + raw.count(",") == 1


def extract_quantities(text: str, lang: str | None = None) -> list[Quantity]:
    """Every numeric surface of ``text``, in order, with spans in code points."""
    language = _Lang(text, lang)
    declaration = _declaration(text)
    stated_unit = _stated_unit(text)
    out: list[Quantity] = []
    done = 0
    for digits in lx.DIGITS.finditer(text):
        at = digits.start()
        if at < done:
            continue
        m = None
        if at and not text[at - 1].isdigit():
            before = lx.WORD_BEFORE.search(text, max(0, at - 12), at)
            if before is not None:
                m = lx.AT_WORD.match(text, before.start())
        if m is None:
            m = lx.AT_DIGIT.match(text, at)
        if m is None:
            continue
        done = m.end()
        group = m.lastgroup
        if group == "num":
            q = _number(text, m, language, out)
            if q is not None:
                if declaration != (None, None) and q.scale is None and q.kind in _DECLARABLE:
                    q = replace(
                        q,
                        implied_factor=declaration[0],
                        implied_unit=declaration[1] if q.unit is None else None,
                    )
                if stated_unit is not None and q.unit is None and q.kind in _DECLARABLE:
                    # Issue 25: a source's stated unit holds for its scaled figures too (`9,5 M`).
                    q = replace(q, implied_unit=q.implied_unit or stated_unit)
                out.extend(_range(text, out, q))
        elif group is not None:
            out.extend(_special(text, m, group))
    if any(q.kind is QuantityKind.year or q.date is not None for q in out):
        out = _assign_periods(text, out)
    return out


def _bare(q: Quantity) -> bool:
    return q.kind is QuantityKind.count and q.unit is None and q.scale is None


def _stated_unit(text: str) -> str | None:
    """The unit a portal or MCP passage's identity states (``Satuan: rupiah``), if any."""
    m = lx.STATED_UNIT.search(text) if ":" in text else None
    return lx.DECLARED_UNITS.get(re.sub(r"\s+", " ", m.group("unit").lower())) if m else None


def _declaration(text: str) -> tuple[Decimal | None, str | None]:
    lowered = text.lower()
    m = None
    for word in lx.DECLARATION_WORDS:
        at = lowered.find(word)
        if at >= 0:
            m = lx.DECLARATION.search(text, max(0, at - 25), at + len(word) + 25)
            if m is not None:
                break
    if m is None:
        return None, None
    groups = m.groupdict()
    scale = next((groups[k] for k in groups if k.startswith("scale") and groups[k]), None)
    unit = next((groups[k] for k in groups if k.startswith("unit") and groups[k]), None)
    factor = lx.DECLARED_SCALES.get(scale.lower()) if scale else None
    return factor, (lx.DECLARED_UNITS.get(re.sub(r"\s+", " ", unit.lower())) if unit else None)


def _first(groups: dict[str, str | None], *names: str) -> str:
    """The first of ``names`` that matched (``""`` if none did)."""
    for name in names:
        value = groups.get(name)
        if value:
            return value
    return ""


def _special(text: str, m: re.Match[str], group: str) -> list[Quantity]:
    """Dates, clock times, ``27/2022`` and ``FY19``: surfaces whose shape says what they are."""
    span = m.span()
    surface = m.group()
    g: dict[str, str | None] = m.groupdict()  # AT_DIGIT and AT_WORD name different groups
    if group in ("dmy", "mdy", "my", "numdate"):
        year_s = _first(g, "y1", "y2", "y3", "y4", "y5")
        day_s = _first(g, "d1", "d2", "d4", "d5")
        if group == "numdate":
            month = int(_first(g, "m4", "m5"))
        else:
            month = lx.MONTHS[_first(g, "m1", "m2", "m3").lower()]
        day = int(day_s) if day_s else None
        year = int(year_s) if year_s else None
        if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
            return []
        value = Decimal((year or 0) * 10000 + month * 100 + (day or 0))
        date = (year, month, day)
        return [Quantity(span, surface, QuantityKind.date, value, value, date=date, period=year)]
    if group == "clock":
        hours = int(_first(g, "hh", "hh2"))
        minutes = int(_first(g, "mm") or 0)
        ampm = _first(g, "ap", "ap2").lower().replace(".", "")
        if ampm == "pm" and hours < 12:
            hours += 12
        elif ampm == "am" and hours == 12:
            hours = 0
        if hours > 24 or minutes > 59:
            return []
        value = Decimal(hours * 60 + minutes)
        return [Quantity(span, surface, QuantityKind.time, value, value)]
    if group == "refslash":
        number_s = _first(g, "rn")
        number, year = int(number_s), int(_first(g, "ry"))
        if 1900 <= number <= 2100:  # 2019/2020: two years, not a regulation number
            first = (span[0], span[0] + len(number_s))
            second = (m.start("ry"), m.end("ry"))
            return [_year(text, first, number), _year(text, second, year)]
        value = Decimal(number)
        return [
            Quantity(span, surface, QuantityKind.ordinal, value, value, label="number", period=year)
        ]
    # fy
    digits = _first(g, "fyy")
    year = int(digits) if len(digits) == 4 else 2000 + int(digits)
    return [_year(text, span, year)]


def _year(text: str, span: tuple[int, int], year: int) -> Quantity:
    value = Decimal(year)
    return Quantity(span, text[span[0] : span[1]], QuantityKind.year, value, value, period=year)


def _number(text: str, m: re.Match[str], language: _Lang, out: list[Quantity]) -> Quantity | None:
    raw = m.group()
    start, end = m.span()
    prev_end = out[-1].end if out else 0
    lo = max(prev_end, start - _LEFT_WINDOW)

    # What stands before: currency (with a sign after it), %, a reference label, a sign, "(".
    unit: str | None = None
    negative = False
    left = start
    # Cheap gates on the nearest non-blank character keep the anchored searches off the hot path
    # (a table cell like "3.877,20 M" needs none of them).
    near = _nearest_char(text, start, lo)
    cur = (
        lx.LEFT_CURRENCY.search(text, max(lo, start - 7), start)
        if near in lx.CURRENCY_TAIL_CHARS
        else None
    )
    if cur is not None:
        unit = lx.PREFIX_CURRENCY[cur.group().strip(" \u00a0-−(").lower()]
        negative = cur["sign"] is not None
        left = cur.start()
    elif start > 0 and text[start - 1].isalpha():
        return None  # glued to a word: A2, SK No255262A, 2O23 (OCR)
    if unit is None and near in lx.PERCENT_TAIL_CHARS:
        pct = lx.LEFT_PERCENT.search(text, max(lo, start - 12), start)
        if pct is not None:
            unit, left = "%", pct.start()
    label: str | None = None
    ref = (
        lx.LEFT_REF.search(text, max(lo, start - 13), start)
        if unit is None and (near.isalpha() or near in ".-")
        else None
    )
    if ref is None and unit is None and lx.SAYILI.match(text, end):
        label = "number"  # 6698 sayılı Kanun
    if ref is not None:
        label = lx.REF_LABELS[ref["label"].lower()]
        left = ref.start()
    paren_open = (
        (left > lo and text[left - 1] == "(")
        or (cur is not None and cur["paren"] is not None)
        or (ref is not None and text[start - 1] == "(")
    )
    if not negative and left > lo and text[left - 1] in "-−" and not _range_joined(text, out, left):
        before = text[left - 2] if left >= 2 else " "
        if not before.isalnum():
            negative, left = True, left - 1

    # What stands after: ")", %, an echo "(lima)", a scale, a unit.
    r = lx.RIGHT.match(text, end)
    assert r is not None  # every group of RIGHT is optional
    stop = end
    closed = r["close"] is not None and paren_open
    if closed:
        stop = r.end("close")
    if r["pct"] and unit is None:
        unit, stop = "%", r.end("pct")
    scale: str | None = None
    factor = _ONE
    if r["scale"] and label is None:
        scale, factor = _scale(r["scale"], raw, text, end, r.start("scale"), unit, language)
        if scale is not None:
            # "jt." and "mn." keep their dot; "miliar." ends a sentence.
            dotted = r["scale"].endswith(".") and len(r["scale"]) > 4
            stop = r.end("scale") - dotted
    right_unit = _unit_word(r["unit"]) if r["unit"] else None
    if right_unit is not None and label is None:
        right_unit = _accept_unit(text, r.end("unit"), right_unit, unit)
        if right_unit is not None:
            unit, stop = right_unit, r.end("unit")
    # An echo "(enam miliar rupiah)" repeats the number in words; it is never part of the span.
    if stop == end and end < len(text) and text[end].isalpha():
        if lx.ORDINAL_SUFFIX.match(text, end):
            sfx = lx.ORDINAL_SUFFIX.match(text, end)
            assert sfx is not None
            label, stop = label or "ordinal", sfx.end()
        elif label is not None and (letter := lx.REF_LETTER.match(text, end)) is not None:
            stop = letter.end()
        else:
            return None  # 4G, 3D, COVID19-style tokens are names, not quantities

    number, decimals = parse_number(raw, language.get() if _is_ambiguous(raw) else language.value)
    if closed and not negative:
        # "(1.234)", "$(9.8) million", "(48.3)%" are negatives; "(1)" is an enumerator in id/tr.
        if label is None and (unit is not None or decimals or _grouped(raw) or _lang_en(language)):
            negative = True
            if cur is None or cur["paren"] is None:
                left -= 1
        elif label is None:
            label = "enumerator"
    if negative:
        number = -number
    kind = _kind(text, raw, start, stop, lo, unit, scale, label, closed)
    if kind is QuantityKind.time:
        hours, _, minutes = raw.replace(".", ":").partition(":")
        value = Decimal(int(hours) * 60 + int(minutes))
        span = (start, stop)
        return Quantity(span, text[start:stop], kind, value, value, lang=language.value)
    if label is not None and kind is QuantityKind.ordinal:
        suffix = text[end:stop] if stop > end and text[end:stop].isalpha() else None
        if label == "enumerator":
            left, stop = start - 1, end + 1
        return Quantity(
            (left, stop),
            text[left:stop],
            kind,
            number,
            number,
            label=label,
            suffix=suffix,
            lang=language.value,
        )
    noun: str | None = None
    if kind in (QuantityKind.count, QuantityKind.year) and unit is None:
        after = lx.NOUN_AFTER.match(text, stop)
        if after is not None and after.group(1).lower() not in lx.NOT_NOUNS:
            noun = after.group(1).lower()
    if kind is QuantityKind.year:
        # A year's noun: "2000 peserta" may be 2,000 participants read as a year for its form.
        return Quantity(
            (start, end),
            raw,
            kind,
            number,
            number,
            period=int(number),
            lang=language.value,
            noun=noun,
        )
    return Quantity(
        (left, stop),
        text[left:stop],
        kind,
        number * factor,
        number,
        decimals=decimals,
        scale=scale,
        factor=factor,
        unit=unit,
        lang=language.value,
        noun=noun,
    )


def _nearest_char(text: str, start: int, lo: int) -> str:
    """The first character before ``start`` that is not a space or ``(`` (``""`` if none)."""
    i = start - 1
    while i >= lo and text[i] in " \u00a0(":
        i -= 1
    return text[i] if i >= lo else ""


def _grouped(raw: str) -> bool:
    return "." in raw or "," in raw or " " in raw


def _lang_en(language: _Lang) -> bool:
    return language.get() == "en"


def _unit_word(word: str) -> str | None:
    return lx.UNIT_WORDS.get(re.sub(r"\s+", " ", word.lower()))


def _accept_unit(text: str, after: int, unit: str, prefix_unit: str | None) -> str | None:
    """A unit word after a number belongs to it unless it heads a period (``tahun 2023``) or
    contradicts the currency written before the number (``Rp 5 miliar tahun …``)."""
    if unit == "yr" and re.match(r"\s*(?:anggaran\s*)?\d", text[after : after + 12]):
        return None
    if prefix_unit is not None:
        return unit if unit == prefix_unit else None
    return unit


def _scale(
    word: str,
    raw: str,
    text: str,
    end: int,
    at: int,
    unit: str | None,
    language: _Lang,
) -> tuple[str | None, Decimal]:
    """The factor of a scale word; single letters depend on the language and on a currency."""
    bare = word.rstrip(".")
    found = lx.SCALE_WORDS.get(bare.lower())
    if found is not None and len(bare) > 1:
        if bare.lower() == "bin" and language.get() not in ("tr", None):
            return None, _ONE  # "bin" is Turkish; in id/en text it is a name particle
        return bare, found
    glued = at == end
    lang = language.get()
    if bare == "M":
        # Budget tables in id/tr write miliar as M (4.874,35 M); English M is million.
        if lang == "en" or (lang is None and "," not in raw):
            return bare, lx.MILLION
        return bare, lx.BILLION
    if bare == "T":
        return bare, lx.TRILLION
    if bare in ("K", "k") and (glued or unit in _CURRENCIES):
        return bare, lx.THOUSAND
    if bare in ("B", "b") and lang != "id" and (glued or unit in _CURRENCIES):
        return bare, lx.BILLION
    if bare == "m" and lang != "id" and unit in _CURRENCIES:
        return bare, lx.MILLION
    return None, _ONE


def _kind(
    text: str,
    raw: str,
    start: int,
    stop: int,
    lo: int,
    unit: str | None,
    scale: str | None,
    label: str | None,
    closed: bool,
) -> QuantityKind:
    if label is not None:
        return QuantityKind.ordinal
    if unit in _PERCENT_UNITS:
        return QuantityKind.percent
    if unit in _CURRENCIES:
        return QuantityKind.amount
    if (
        unit is None
        and scale is None
        and lx.CLOCK_NUMBER.fullmatch(raw)
        and (lx.LEFT_TIME.search(text, lo, start) or lx.TIMEZONE.match(text, stop))
    ):
        return QuantityKind.time
    if (
        unit is None
        and scale is None
        and not closed
        and raw.isdecimal()
        and len(raw) == 4
        and 1900 <= int(raw) <= 2100
        and lx.LEFT_COUNT.search(text, lo, start) is None
    ):
        return QuantityKind.year
    return QuantityKind.count


def _range_joined(text: str, out: list[Quantity], at: int) -> bool:
    """True when ``text[at - 1]`` is the dash of a range whose first number ends just before."""
    if not out:
        return False
    gap = text[out[-1].end : at]
    return len(gap) <= 3 and gap.strip() in ("-", "–", "—", "")


def _range(text: str, out: list[Quantity], q: Quantity) -> list[Quantity]:
    """``5–7 persen``, ``Rp 5 s.d. 7 miliar``, ``%5-7``: each end takes what the other states."""
    if not out:
        return [q]
    low = out[-1]
    if low.kind not in (QuantityKind.count, QuantityKind.amount, QuantityKind.percent):
        return [q]
    if q.kind not in (QuantityKind.count, QuantityKind.amount, QuantityKind.percent):
        return [q]
    if q.start - low.end > 16 or low.range_part is not None:
        return [q]
    if not lx.RANGE_JOIN.fullmatch(text, low.end, q.start):
        return [q]
    unit = low.unit or q.unit
    if low.unit and q.unit and low.unit != q.unit:
        return [q]
    scale_src = q if q.scale is not None else low
    kind = q.kind if q.kind is not QuantityKind.count else low.kind
    fixed_low = replace(
        low,
        unit=unit,
        kind=kind,
        scale=scale_src.scale,
        factor=scale_src.factor,
        value=low.number * scale_src.factor,
        range_part="low",
    )
    fixed_high = replace(
        q,
        unit=unit,
        kind=kind,
        scale=scale_src.scale,
        factor=scale_src.factor,
        value=q.number * scale_src.factor,
        range_part="high",
    )
    out[-1] = fixed_low
    return [fixed_high]


def _assign_periods(text: str, quantities: list[Quantity]) -> list[Quantity]:
    """The year each quantity is stated for, read from its sentence.

    A year right after the quantity (``$62.6 million in FY18``: no comma, no other quantity in
    between, not a label like ``(2018:``) wins; else the nearest year before it in the sentence;
    else none (a guess could only produce false period mismatches).
    """
    bounds = [m.end() for m in lx.SENTENCE_END.finditer(text)]
    sentence_of = [bisect.bisect_right(bounds, q.start) for q in quantities]
    is_year = [
        q.kind is QuantityKind.year or (q.kind is QuantityKind.date and q.period is not None)
        for q in quantities
    ]
    result = list(quantities)
    for i, q in enumerate(quantities):
        if is_year[i] or q.kind is QuantityKind.time or q.period:
            continue
        sentence = sentence_of[i]
        period: int | None = None
        # Forward: the next quantity of the sentence, if it is a year right after this one.
        j = i + 1
        while j < len(quantities) and sentence_of[j] == sentence and not is_year[j]:
            j += 1
        if j < len(quantities) and sentence_of[j] == sentence and j == i + 1:
            y = quantities[j]
            gap = text[q.end : y.start]
            if (
                len(gap) <= _FORWARD_PERIOD_WINDOW
                and "," not in gap
                and lx.BASE_YEAR_CUE.search(gap) is None
                and text[y.end : y.end + 1] != ":"
            ):
                period = y.period
        if period is None:
            j = i - 1
            while j >= 0 and sentence_of[j] == sentence:
                if is_year[j]:
                    period = quantities[j].period
                    break
                j -= 1
        if period is not None:
            result[i] = replace(q, period=period)
    return result
