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

from tanda.lang import DEFAULT_TEXT_LANG, fold, is_function_word, normalize_lang
from tanda.retrieval.analysis import stem, tokenize
from tanda.retrieval.sentences import after_enumerator, sentence_spans, without_enumerator

__all__ = [
    "after_enumerator",
    "content_terms",
    "folded_name",
    "line_spans",
    "locate_quote",
    "normalise_space",
    "quote_matches",
    "sentence_spans",
    "without_enumerator",
]

_SPACE = re.compile(r"\s+")


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
    language = normalize_lang(lang) or DEFAULT_TEXT_LANG
    tokens = [
        t
        for t in tokenize(text, language)
        if not t[0].isdigit() and len(t) > 1 and not is_function_word(t, language)
    ]
    return frozenset(fold(t) for t in stem(tokens, language)) if tokens else frozenset()
