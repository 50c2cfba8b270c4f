"""The languages tanda reads — Indonesian, Turkish, English — and the one guess of a text's
language (kernel, DESIGN §2: standard library only, imported by the numbers, the text analysis,
ingest and the offline model alike).

One word list: the function words of each language. They drive the guess, and the text analysis
keeps them out of queries (``tanda.retrieval.analysis.query_terms``). Content words that lean to
a language (``anggaran``, ``bütçe``, ``revenue``) are left out on purpose: they cross languages in
the documents tanda reads (an Indonesian table says ``total``, a Turkish text cites ``Rupiah``),
and a stopword list must not drop them from a query.

One rule: each word of the text that is a function word of a language counts one for it, each
Turkish-only letter two for Turkish; the language with the most wins. A tie, or fewer than
``min_hits``, is no evidence: ``None``, and each caller says what it falls back to (the search
analysis to :data:`DEFAULT_TEXT_LANG`, the numbers to reading ambiguous separators language-free).

Two defaults, for two questions: the language a *text* is read in when nothing says
(:data:`DEFAULT_TEXT_LANG`, the corpus's), and the language an *answer* is written in when
neither the request nor the tenant says (:data:`DEFAULT_ANSWER_LANG`, ASK-07).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from typing import Final, Literal

Lang = Literal["id", "tr", "en"]
LANGS: Final[tuple[Lang, ...]] = ("id", "tr", "en")
DEFAULT_TEXT_LANG: Final[Lang] = "id"
"""The language a text — a query, a document, a claim — is analysed in when its caller does not
say and the guess finds no evidence: the search analysis, extraction and the offline judges."""
DEFAULT_ANSWER_LANG: Final[Lang] = "tr"
"""The language of an answer or an explanation when neither the request nor the tenant's stored
default says (ASK-07: ``/v1/ask``, cross-check explanations)."""
LANGUAGE_NAMES: Final[dict[Lang, str]] = {
    "tr": "Turkish (Türkçe)",
    "id": "Indonesian (Bahasa Indonesia)",
    "en": "English",
}
"""How a model is told which language to write in."""

GUESS_SAMPLE_CHARS: Final = 20_000
"""A guess reads at most this much of the text's start: enough to tell three languages apart, and
bounded for a whole document."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Small, general lists: function words only (their BM25 weight is ~0 and their posting lists are
# long, so a query loses nothing by dropping them).
FUNCTION_WORDS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words(
        """
        yang dan di ke dari ini itu dengan untuk pada adalah dalam tidak akan atau juga oleh
        sebagai karena bahwa telah sudah tersebut ada bisa dapat para saat lebih secara antara
        kepada hingga sampai bagi seperti namun jika maka serta setelah sebelum tetapi apa siapa
        kapan dimana mana bagaimana berapa keberapa keberapakah mengapa kenapa apakah manakah yaitu
        ialah merupakan menurut
        nya pun lah kah sebuah seorang suatu sang si tak belum masih harus ia mereka kami kita
        saya anda dia kamu beliau
        """
    ),
    "tr": _words(
        """
        ve ile bir bu şu o da de mi mı mu mü için gibi kadar daha çok en ne neden nasıl hangi
        kim kimin kime kaç nerede nereye zaman olan olarak ise ya veya ama fakat ancak her
        hem diğer bazı sonra önce göre üzerinde arasında tarafından hangisi nedir midir mıdır
        olmuştur olmak olup oldu idi ki çünkü eğer yani şey bunu bunun buna onu onun ona
        """
    ),
    "en": _words(
        """
        the a an and or of to in on at by for with from as is are was were be been being it its
        this that these those which who whom whose what when where why how do does did not no
        but if then than so such can could will would shall should may might must has have had
        there their they them he she his her we our you your i me my into about over after
        before between under during also
        """
    ),
}
TURKISH_LETTERS: Final = frozenset("çğışöüÇĞİŞÖÜ")

# A word is letters/marks and digits glued to them; an apostrophe splits (``Türkiye'nin``).
_WORD = re.compile(r"[^\W_]+")


def normalize_lang(lang: str | None) -> Lang | None:
    """``"tr"``, ``"TR"``, ``"tr-TR"``, ``"tur"``, ``"turkish"`` → ``"tr"``; unknown → ``None``."""
    if not lang:
        return None
    code = lang.strip().lower().replace("_", "-").split("-", 1)[0]
    aliases: dict[str, Lang] = {
        "id": "id", "in": "id", "ind": "id", "indonesian": "id", "bahasa": "id",
        "tr": "tr", "tur": "tr", "turkish": "tr", "türkçe": "tr",
        "en": "en", "eng": "en", "english": "en",
    }  # fmt: skip
    return aliases.get(code)


def fold(term: str) -> str:
    """Language-agnostic matching form: diacritics off, dotless ``ı`` → ``i``, ``ß`` → ``ss``."""
    if term.isascii():
        return term
    decomposed = unicodedata.normalize("NFKD", term.replace("ı", "i"))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return stripped.casefold()


_FOLDED_FUNCTION_WORDS: Final[dict[Lang, frozenset[str]]] = {
    lang: frozenset(fold(w) for w in words) for lang, words in FUNCTION_WORDS.items()
}


_LOWER_FUNCTION_WORDS: Final[dict[Lang, frozenset[str]]] = {
    lang: frozenset(unicodedata.normalize("NFC", w) for w in words)
    for lang, words in FUNCTION_WORDS.items()
}


@functools.lru_cache(maxsize=65_536)
def is_function_word(word: str, lang: Lang) -> bool:
    """Whether ``word`` (any case) is a function word of ``lang``. A word typed without Turkish
    letters is read as any of the words it may stand for (``kac`` is, like ``kaç``); a word
    written with them is read as written: ``ölmüştür`` (died) is not ``olmuştur`` (has been),
    nor ``öldü`` ``oldu`` — folded, they are one. Memoised: every query's every word is asked
    (issue 28)."""
    lower = unicodedata.normalize("NFC", word.replace("İ", "i").lower())
    if lower.isascii() or lower in _LOWER_FUNCTION_WORDS[lang]:
        return fold(lower) in _FOLDED_FUNCTION_WORDS[lang]
    return False


def guess_lang(text: str, *, min_hits: int = 1, min_distinct: int = 1) -> Lang | None:
    """The language of ``text`` by the rule of this module; ``None`` on a tie or under
    ``min_hits`` (a document's language, which is stored, asks for more than a query's).

    ``min_distinct``: as many *distinct* function words of the winner at least, unless letters
    only Turkish writes speak for it — a text in a language tanda does not read says a few short
    words of ours over and over (Dutch ``de``, the, and ``en``, and, are Turkish ``de`` and
    ``en``), not several of them."""
    sample = unicodedata.normalize("NFC", text[:GUESS_SAMPLE_CHARS])
    # `str.lower` alone gives "i̇" (i + combining dot) for "İ".
    # Counted per distinct word, folded once each (a document's sample of thousands of words
    # holds a few hundred distinct ones: issue 28, ingest guesses every document's language).
    # A plain dict and no fold call for an ASCII word: every search guesses its query's
    # language, ~11 -> ~6 us a query (issue 28).
    words: dict[str, int] = {}
    for word, count in Counter(_WORD.findall(sample.replace("İ", "i").lower())).items():
        if not word.isascii():
            word = fold(word)
        words[word] = words.get(word, 0) + count
    scores = {
        lang: sum(words[w] for w in _FOLDED_FUNCTION_WORDS[lang].intersection(words))
        for lang in LANGS
    }
    if not sample.isascii():
        scores["tr"] += 2 * sum(map(sample.count, TURKISH_LETTERS))
    best = max(scores.values())
    if best < max(1, min_hits):
        return None
    winners = [lang for lang in LANGS if scores[lang] == best]
    if len(winners) != 1:
        return None
    winner = winners[0]
    # (a query's guess, min_distinct 1, never counts them: every search guesses one)
    if (
        min_distinct > 1
        and not (winner == "tr" and not _TURKISH_ONLY.isdisjoint(sample))
        and len(_FOLDED_FUNCTION_WORDS[winner].intersection(words)) < min_distinct
    ):
        return None
    return winner


_TURKISH_ONLY: Final = frozenset("ğışĞİŞ")
"""Letters no other language written near ours uses (``ö``, ``ü``, ``ç`` are German's, French's
too)."""
