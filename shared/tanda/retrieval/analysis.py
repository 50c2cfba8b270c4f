"""Language-aware text analysis for Indonesian, Turkish and English (issue 3, hybrid search).

One pipeline for documents and queries, so both sides meet on the same terms:

1. **tokenize** — Unicode words; numbers stay whole with their separators (``10.723,82``,
   ``27/2022``) and also yield their digit groups, so ``UU 27/2022`` meets ``Nomor 27 Tahun 2022``.
   A Turkish apostrophe suffix (``Türkiye'nin``) is dropped: it inflects a proper noun.
2. **lowercase for the language** — Turkish maps ``I`` → ``ı`` and ``İ`` → ``i``; every language
   maps ``İ`` → ``i`` (``str.lower`` would leave a stray combining dot).
3. **stem** — Snowball (PyStemmer) for the document's or query's language, which needs the real
   letters (``ı``, ``ş``, ``ğ``) to find the suffixes.
4. **fold** — language-agnostic: diacritics removed and dotless ``ı`` → ``i``, so a query typed
   without Turkish letters (``kac``, ``isik``) matches ``kaç``, ``ışık``.

Everything here is a pure function; the Snowball stemmer objects are cached per thread because a
PyStemmer object is not thread-safe. The languages, their function words (the query stopwords),
``fold`` and the language guess are :mod:`tanda.lang`.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Final

import Stemmer

from tanda.lang import FUNCTION_WORDS, Lang, fold, is_function_word

_SNOWBALL: Final[dict[Lang, str]] = {"id": "indonesian", "tr": "turkish", "en": "english"}

# A number with inner separators is one token; a word is letters/marks (and digits glued to them,
# like `5G`); an apostrophe suffix is captured so Turkish can drop it. A currency written before
# an amount without a space (`Rp5.000.000,00`, as Indonesian statutes write it; `USD1,250.00`) is
# a word of its own, not the amount's first letters: the amount stays a number.
CURRENCY_BEFORE_AMOUNT: Final = r"(?:rp|idr|usd|eur|gbp|jpy|sgd|myr|aud|cny|chf|tl)(?=\d)"
"""A currency code written right before an amount (lower-case; match it ignoring case on text
that is not lowered)."""
_TOKEN = re.compile(
    rf"(?P<currency>{CURRENCY_BEFORE_AMOUNT})"
    r"|(?P<num>\d+(?:[.,/:\-]\d+)*)(?![^\W_])"
    r"|(?P<word>[^\W_]+)(?P<suffix>['’][^\W\d_]+)?",
)
_DIGIT_GROUP = re.compile(r"\d+")


def lowercase(text: str, lang: Lang | None) -> str:
    """Lowercase as the language does: Turkish ``I`` → ``ı`` and ``İ`` → ``i``."""
    if lang == "tr":
        return text.replace("I", "ı").replace("İ", "i").lower()
    return text.replace("İ", "i").lower()  # `str.lower` alone gives "i̇" (i + combining dot)


def tokenize(text: str, lang: Lang | None = None) -> list[str]:
    """Surface tokens in order, lowercased for ``lang``; numbers kept whole, then their groups."""
    lowered = lowercase(unicodedata.normalize("NFC", text), lang)
    tokens: list[str] = []
    for match in _TOKEN.finditer(lowered):
        currency = match.group("currency")
        if currency is not None:
            tokens.append(currency)
            continue
        number = match.group("num")
        if number is not None:
            tokens.append(number)
            groups = _DIGIT_GROUP.findall(number)
            if len(groups) > 1:
                tokens.extend(groups)
            continue
        tokens.append(match.group("word"))
        suffix = match.group("suffix")
        if suffix is not None and lang != "tr":
            tokens.append(suffix[1:])  # English `don't` → don, t; a Turkish suffix is inflection
    return tokens


_local = threading.local()


def _stemmer(lang: Lang, *, cached: bool = True) -> Stemmer._Stemmer:
    """One Snowball stemmer per language per thread (PyStemmer objects are not thread-safe).

    ``cached=False``: one with PyStemmer's own word cache off, for :func:`_term`, which keeps
    its own — behind it PyStemmer's cache only ever misses, and a miss costs ~5× the stem (a
    list per word, its purges), lists the garbage collector keeps in its oldest generation
    until they trigger its full collections, a third of a bulk ingest's time (issue 28)."""
    name = "stemmers" if cached else "uncached_stemmers"
    cache: dict[Lang, Stemmer._Stemmer] | None = getattr(_local, name, None)
    if cache is None:
        cache = {}
        setattr(_local, name, cache)
    stemmer = cache.get(lang)
    if stemmer is None:
        stemmer = Stemmer.Stemmer(_SNOWBALL[lang])
        if not cached:
            stemmer.maxCacheSize = 0
        cache[lang] = stemmer
    return stemmer


def stem(tokens: Sequence[str], lang: Lang) -> list[str]:
    """Snowball stems; numbers pass through unchanged."""
    stems: list[str] = _stemmer(lang).stemWords(tokens)
    return [token if token[0].isdigit() else s for token, s in zip(tokens, stems, strict=True)]


_TERM_CACHE_MAX: Final = 500_000
"""Words kept per language in the term cache (a word's stem and fold never change); cleared when
full. Ingest reads the same words over and over: the cache makes analysis ~2× faster (issue 28)."""
_term_cache: dict[Lang, dict[str, str]] = {}


def _term(word: str, lang: Lang, cache: dict[str, str]) -> str:
    """``word`` stemmed for ``lang`` (a token starting with a digit is kept) and folded."""
    term = cache.get(word)
    if term is None:
        if len(cache) >= _TERM_CACHE_MAX:
            cache.clear()
        term = fold(word if word[0].isdigit() else _stemmer(lang, cached=False).stemWord(word))
        cache[word] = term
    return term


_PIECE_CACHE_MAX: Final = 200_000
"""Whitespace-separated pieces kept per language in the piece cache (cleared when full: the
frequent pieces come back at once); ~180 B each with their terms."""
_piece_cache: dict[Lang, dict[str, str]] = {}
"""Each piece's terms joined by one space (``""`` when it holds no token): what
:func:`index_text` joins, so a warm chunk is looked up and joined in C (issue 28)."""


def _piece(piece: str, lang: Lang) -> str:
    """The terms of one whitespace-free piece of lowered text joined by one space (``""`` when
    it holds no token), cached: a piece's terms are always the same for one language."""
    cache = _piece_cache.setdefault(lang, {})
    found = cache.get(piece)
    if found is not None:
        return found
    words = _term_cache.setdefault(lang, {})
    terms: list[str] = []
    for currency, number, word, suffix in _TOKEN.findall(piece):
        if currency:
            terms.append(_term(currency, lang, words))
            continue
        if number:
            terms.append(number if number.isascii() else fold(number))
            if not number.isdigit():  # separators inside: its digit groups too
                groups = _DIGIT_GROUP.findall(number)
                if len(groups) > 1:
                    terms.extend(fold(group) for group in groups)
            continue
        terms.append(_term(word, lang, words))
        if suffix and lang != "tr":
            terms.append(_term(suffix[1:], lang, words))
    if len(cache) >= _PIECE_CACHE_MAX:
        cache.clear()
    cache[piece] = found = " ".join(terms)
    return found


def _split(text: str, lang: Lang) -> list[str]:
    """The lowered text's whitespace-separated pieces. A token never spans whitespace (numbers,
    words and apostrophe suffixes hold none, and the number's look-ahead stops at it), so each
    piece (``pendidikan,``, ``(uu``, ``27/2022)``, ``istanbul'da``) is looked up in a
    per-language cache: the tokenizing regex and the stemmer run once per distinct piece, not
    once per token (issue 28)."""
    return lowercase(unicodedata.normalize("NFC", text), lang).split()


def index_terms(text: str, lang: Lang) -> list[str]:
    """Document side: every token, stemmed for ``lang`` and folded (order kept, repeats kept):
    the terms of :func:`index_text`, the stream the index stores.

    The same terms as ``[fold(t) for t in stem(tokenize(text, lang), lang)]`` (a unit test holds
    them equal), through the piece and word caches."""
    return index_text(text, lang).split()


def index_text(text: str, lang: Lang) -> str:
    """Every term of ``text`` joined by single spaces: the stream the index stores. When every
    piece is cached (nearly every chunk once an ingest is under way) the pieces' streams are
    looked up and joined without a Python loop; a piece without a token adds nothing."""
    pieces = _split(text, lang)
    cache = _piece_cache.setdefault(lang, {})
    for _ in range(2):
        try:
            return " ".join(filter(None, map(cache.__getitem__, pieces)))
        except KeyError:  # pieces not seen yet: their terms computed, then joined as above
            for piece in pieces:
                if piece not in cache:
                    _piece(piece, lang)
    # the cache filled up and was cleared between this text's pieces
    return " ".join(filter(None, [_piece(piece, lang) for piece in pieces]))


def query_terms(text: str, lang: Lang) -> list[str]:
    """Query side: like :func:`index_terms` without stopwords, distinct, in first-seen order.

    Stopwords are tested on the folded surface form, so ``kac`` is dropped like ``kaç``. A query
    made only of stopwords keeps them (better a weak match than none).
    """
    tokens = tokenize(text, lang)
    kept = [t for t in tokens if not is_function_word(t, lang)] or tokens
    # Stemmed and folded through the term cache, as ingest does: the same terms (issue 28).
    cache = _term_cache.setdefault(lang, {})
    return list(dict.fromkeys(_term(t, lang, cache) for t in kept))


def surface_terms(text: str, lang: Lang | None = None) -> Iterator[str]:
    """Unstemmed, folded tokens: the exact-word view of a text."""
    return (fold(t) for t in tokenize(text, lang))


def term_key(text: str) -> str:
    """The language-free matching form of a defined term (issue 22): its unstemmed folded tokens
    (:func:`surface_terms`) joined by one space — quotes, case, accents and spacing fall away
    (``“Açık rıza”`` → ``acik riza``, ``Data  Pribadi`` → ``data pribadi``). A definition record
    stores it at ingest; the question side computes it from the X of "what is X" and looks the
    definitions up by it (``RecordQuery.terms``). Unstemmed, so a term never meets another that
    only shares a stem (``pengendali`` ≠ ``pengendalian``)."""
    return " ".join(surface_terms(text))


@cache
def _function_keys(lang: Lang) -> frozenset[str]:
    words = sorted(FUNCTION_WORDS[lang])
    return frozenset(fold(w) for w in words) | frozenset(fold(s) for s in stem(words, lang))


def reads_as_function_word(key: str, word: str, lang: Lang) -> bool:
    """Whether ``key`` — the folded ``word`` or its folded stem — is what a function word of
    ``lang`` reads as, ``word`` being none as written: Turkish ``öldü`` (died) folds to ``oldu``
    (was) and stems to ``ol`` as ``olmuştur`` does, so a list of word groups (opposites,
    equivalents) keying it so would find a death in every sentence saying something was."""
    return key in _function_keys(lang) and not is_function_word(word, lang)
