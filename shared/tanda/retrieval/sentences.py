"""Sentences of stored text: the one splitter every reader of a passage uses — the claims and
rules read at ingest (``tanda.extraction``), the offline reader choosing the sentence that
answers (:mod:`tanda.retrieval.reading`), the chunker cutting a long paragraph
(:mod:`tanda.retrieval.ingest.chunking`) and the offline judge reading a statement and its
passages (``tanda.adapters.offline_judge``, which also ends a clause at a semicolon)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

# A sentence ends at . ! ? ; followed by blanks and a capital, a digit, a quote or a bracket; a line
# break always ends one (a list item, a table row, a heading).
_SENTENCE_END = re.compile(
    r"(?<=[.!?;:])[ \t]+(?=[\"'“(\[A-ZÀ-ÖØ-ÞÇĞİÖŞÜ0-9])|(?<=\])[ \t]+(?=[A-ZÀ-ÖØ-ÞÇĞİÖŞÜ])|\n"
)
# A stop followed by reference marks ends a sentence too: "… sastra.[1] Selain …", "….[1][2] Ia …".
_REFERENCED_STOP = re.compile(r"[.!?](?:\[[\w\s,–-]{1,12}\])+$")
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


def sentence_spans(text: str, *, numbered: bool = False) -> Iterator[tuple[int, int]]:
    """Sentences of ``text`` as ``(start, end)``, blanks trimmed, in order. Lines end sentences;
    a full stop after an initial (``J. J. Abrams``), a Roman numeral (``II. Dünya Savaşı``) or an
    abbreviation (``Drs. H. Uso``, ``No. 1``) does not. A sentence starts after the list or ayat
    number that opens it (``(2) Setiap …`` → ``Setiap …``): the number is the document's
    printing, not a word of the sentence — unless ``numbered``, for a caller that cuts the text
    into sentences and must keep every word of it (the chunker)."""
    start = 0
    for boundary in _SENTENCE_END.finditer(text):
        at = boundary.start()
        if boundary.group() != "\n" and not _ends_sentence(text, start, at):
            continue
        yield from _trimmed(text, start, at, numbered)
        start = boundary.end()
    yield from _trimmed(text, start, len(text), numbered)


WHOLE_MAX_CHARS: Final = 600
"""A piece cut inside a sentence is joined to what follows only while the whole stays shorter."""


def whole_sentence_spans(
    text: str, *, numbered: bool = False, max_chars: int = WHOLE_MAX_CHARS
) -> Iterator[tuple[int, int]]:
    """:func:`sentence_spans`, a piece cut inside a sentence joined to what follows it on the
    same line: one ending with a colon, or opening a bracket it does not close (``Santo Georgius
    (English: Saint George, …)``, ``… (bahasa Inggris: Global Positioning System) adalah …``) —
    what a reader of the text takes for one sentence: the offline reader's units, the proof's
    statements. A piece stays cut when the whole would reach ``max_chars``."""
    spans = list(sentence_spans(text, numbered=numbered))
    begin: int | None = None
    for number, (start, end) in enumerate(spans):
        first = start if begin is None else begin
        following = spans[number + 1][0] if number + 1 < len(spans) else end
        if (
            number + 1 < len(spans)
            and _unfinished(text[first:end], max_chars)
            and "\n" not in text[end:following]
        ):
            begin = first
            continue
        begin = None
        yield first, end


def _unfinished(piece: str, max_chars: int) -> bool:
    return len(piece) < max_chars and (piece.endswith(":") or piece.count("(") > piece.count(")"))


def sentences(text: str, *, numbered: bool = False) -> list[str]:
    """The sentences of ``text`` (:func:`sentence_spans`) as strings."""
    return [text[start:end] for start, end in sentence_spans(text, numbered=numbered)]


def _ends_sentence(text: str, start: int, at: int) -> bool:
    """Whether the stop just before ``at`` ends the sentence begun at ``start``."""
    if text[at - 1] == "]":
        return _REFERENCED_STOP.search(text, start, at) is not None
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


def _trimmed(text: str, start: int, end: int, numbered: bool) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    if not numbered:
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
