"""Spans in stored text: sentences, the quote check, folded names (ASK-14, KB-05).

Every record is anchored in the text of the chunk it was read from. The quote check is the one
rule every reader applies again: a quote stands only if it equals the stored text at its span,
whitespace normalised (runs of blanks and line breaks read as one space). Nothing else is
forgiven — not case, not punctuation, not a changed digit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Final

from tanda.lang import DEFAULT_LANG, fold, is_function_word, normalize_lang
from tanda.retrieval.analysis import stem, tokenize

_SPACE = re.compile(r"\s+")
# A sentence ends at . ! ? ; followed by blanks and a capital, a digit, a quote or a bracket; a line
# break always ends one (a list item, a table row, a heading).
_SENTENCE_END = re.compile(r"(?<=[.!?;:])[ \t]+(?=[\"'“(\[A-ZÀ-ÖØ-ÞÇĞİÖŞÜ0-9])|\n")
# The word before a full stop: letters, or letters with inner stops ("s.d", "S.H").
_WORD_BEFORE_STOP = re.compile(r"(?<![^\W\d_])[^\W\d_](?:[^\W\d_]|\.(?=[^\W\d_]))*(?=\.$)")
_DOTTED_INITIALS = re.compile(r"[^\W\d_](?:\.[^\W\d_])+")
_ROMAN_NUMERAL = re.compile(r"C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ABBREVIATIONS: Final = _words(
    """
    Dr dr Drs Dra Prof Ir H Hj KH Tn Ny Nn Sdr Sdri Bpk Yth Moh Muh Mhd No Nr Jl Jln Gg Kab Kec
    Kel Prov Rp hlm Mr Mrs Ms Jr Sr St vs etc Fig Vol Yrd Doç Av Sn Uzm Op Hz Bkz
    """
)
"""Words a full stop abbreviates without ending the sentence (Indonesian, Turkish, English titles
and street, number and page words); single capitals and Roman numerals are abbreviations too."""
# A list or ayat number opening a sentence: "(2) ", "(l) " (OCR), "a. ", "b) ", "12. ", "6a. ".
_ENUMERATOR = re.compile(
    r"(?:\(\s*(?:[0-9lI]{1,3}[a-z]?|[a-z])\s*\)|[0-9]{1,3}[a-z]?[.)]|[a-z][.)]|[ivx]{2,4}[.)])"
    r"(?:\s+|$)"
)


def normalise_space(text: str) -> str:
    """Runs of whitespace → one space, ends stripped: how quotes and stored text are compared."""
    return _SPACE.sub(" ", text).strip()


def quote_matches(stored: str, start: int, end: int, quote: str) -> bool:
    """The quote check: ``quote`` equals ``stored[start:end]``, whitespace normalised, and the
    span lies inside the stored text. An empty quote never matches."""
    if not 0 <= start < end <= len(stored):
        return False
    wanted = normalise_space(quote)
    return bool(wanted) and normalise_space(stored[start:end]) == wanted


def locate_quote(stored: str, quote: str) -> tuple[int, int] | None:
    """Where ``quote`` is in ``stored`` (first place, whitespace-insensitive between words), as
    code points from its first to its last non-blank character; ``None`` when it is not there."""
    wanted = normalise_space(quote)
    if not wanted:
        return None
    at = stored.find(wanted)  # the common case: the quote as stored, spacing and all
    if at >= 0:
        return at, at + len(wanted)
    flat, offsets = _flattened(stored)
    at = flat.find(wanted)
    if at < 0:
        return None
    return offsets[at], offsets[at + len(wanted) - 1] + 1


@lru_cache(maxsize=64)
def _flattened(stored: str) -> tuple[str, tuple[int, ...]]:
    """``stored`` with every run of whitespace read as one space, and where each of its
    characters is in ``stored`` (cached: one chunk is searched for many quotes)."""
    chars: list[str] = []
    offsets: list[int] = []
    blank = False
    for index, char in enumerate(stored):
        if char.isspace():
            if not blank and chars:
                chars.append(" ")
                offsets.append(index)
            blank = True
            continue
        blank = False
        chars.append(char)
        offsets.append(index)
    return "".join(chars), tuple(offsets)


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """Sentences of ``text`` as ``(start, end)``, blanks trimmed, in order. Lines end sentences;
    a full stop after an initial (``J. J. Abrams``), a Roman numeral (``II. Dünya Savaşı``) or an
    abbreviation (``Drs. H. Uso``, ``No. 1``) does not. A sentence starts after the list or ayat
    number that opens it (``(2) Setiap …`` → ``Setiap …``): the number is the document's
    printing, not a word of the sentence."""
    start = 0
    for boundary in _SENTENCE_END.finditer(text):
        at = boundary.start()
        if boundary.group() != "\n" and not _ends_sentence(text, start, at):
            continue
        yield from _trimmed(text, start, at)
        start = boundary.end()
    yield from _trimmed(text, start, len(text))


def _ends_sentence(text: str, start: int, at: int) -> bool:
    """Whether the stop just before ``at`` ends the sentence begun at ``start``."""
    if text[at - 1] != ".":
        return True
    if _ENUMERATOR.fullmatch(text[start:at].strip()):
        return False  # "1. Data Pribadi …": the number opens the sentence
    word = _WORD_BEFORE_STOP.search(text, start, at)
    if word is None:
        return True
    token = word.group()
    if len(token) == 1:
        return not token.isupper()  # "William E. Simon", "S. Nishijima"
    return not (
        token in _ABBREVIATIONS
        or _DOTTED_INITIALS.fullmatch(token) is not None
        or _ROMAN_NUMERAL.fullmatch(token) is not None
    )


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    start = after_enumerator(text, start, end)
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end


def after_enumerator(text: str, start: int, end: int) -> int:
    """Where the words of ``text[start:end]`` begin: after the list or ayat numbers opening it
    (``(2) a. Setiap`` → ``Setiap``), else ``start``."""
    while (number := _ENUMERATOR.match(text, start, end)) is not None:
        start = number.end()
    return start


def without_enumerator(text: str) -> str:
    """``text`` without the list or ayat number it opens with: ``(2) Setiap …`` → ``Setiap …``."""
    stripped = text.lstrip()
    return stripped[after_enumerator(stripped, 0, len(stripped)) :]


def folded_name(name: str) -> str:
    """A name in the form names are matched in: lower case, accents and dotless ``ı`` folded,
    spacing collapsed (``Belanja  Barang`` = ``belanja barang``; ``Ödeme`` = ``odeme``)."""
    return fold(normalise_space(name).replace("İ", "i").lower())


def line_spans(text: str) -> Iterator[tuple[int, int]]:
    """Every line of ``text`` as ``(start, end)`` without its line break (empty lines too)."""
    start = 0
    for index, char in enumerate(text):
        if char == "\n":
            yield start, index
            start = index + 1
    yield start, len(text)


@lru_cache(maxsize=4096)
def content_terms(text: str, lang: str | None) -> frozenset[str]:
    """The stemmed, folded content words of ``text`` (function words and numbers left out): what
    a rule's subject and a fact's name are matched on (``pembayaran`` = ``Pembayaran``)."""
    language = normalize_lang(lang) or DEFAULT_LANG
    tokens = [
        t
        for t in tokenize(text, language)
        if not t[0].isdigit() and len(t) > 1 and not is_function_word(t, language)
    ]
    return frozenset(fold(t) for t in stem(tokens, language)) if tokens else frozenset()
