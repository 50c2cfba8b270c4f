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
PyStemmer object is not thread-safe.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from typing import Final, Literal

import Stemmer

Lang = Literal["id", "tr", "en"]
LANGS: Final[tuple[Lang, ...]] = ("id", "tr", "en")
DEFAULT_LANG: Final[Lang] = "id"

_SNOWBALL: Final[dict[Lang, str]] = {"id": "indonesian", "tr": "turkish", "en": "english"}

# A number with inner separators is one token; a word is letters/marks (and digits glued to them,
# like `5G`); an apostrophe suffix is captured so Turkish can drop it.
_TOKEN = re.compile(
    r"(?P<num>\d+(?:[.,/:\-]\d+)*)(?![^\W_])"
    r"|(?P<word>[^\W_]+)(?P<suffix>['’][^\W\d_]+)?",
)
_DIGIT_GROUP = re.compile(r"\d+")


# Small, general stopword lists: function words only. They drive the language guess and keep the
# most frequent words out of queries (their BM25 weight is ~0 and their posting lists are long).
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words(
        """
        yang dan di ke dari ini itu dengan untuk pada adalah dalam tidak akan atau juga oleh
        sebagai karena bahwa telah sudah tersebut ada bisa dapat para saat lebih secara antara
        kepada hingga sampai bagi seperti namun jika maka serta setelah sebelum tetapi apa siapa
        kapan dimana mana bagaimana berapa mengapa kenapa apakah manakah yaitu ialah merupakan
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
_TURKISH_LETTERS: Final = frozenset("çğışöüÇĞİŞÖÜ")


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


def lowercase(text: str, lang: Lang | None) -> str:
    """Lowercase as the language does: Turkish ``I`` → ``ı`` and ``İ`` → ``i``."""
    if lang == "tr":
        return text.replace("I", "ı").replace("İ", "i").lower()
    return text.replace("İ", "i").lower()  # `str.lower` alone gives "i̇" (i + combining dot)


def fold(term: str) -> str:
    """Language-agnostic matching form: diacritics off, dotless ``ı`` → ``i``, ``ß`` → ``ss``."""
    if term.isascii():
        return term
    decomposed = unicodedata.normalize("NFKD", term.replace("ı", "i"))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return stripped.casefold()


def tokenize(text: str, lang: Lang | None = None) -> list[str]:
    """Surface tokens in order, lowercased for ``lang``; numbers kept whole, then their groups."""
    lowered = lowercase(unicodedata.normalize("NFC", text), lang)
    tokens: list[str] = []
    for match in _TOKEN.finditer(lowered):
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


def _stemmer(lang: Lang) -> Stemmer._Stemmer:
    """One Snowball stemmer per language per thread (PyStemmer objects are not thread-safe)."""
    cache: dict[Lang, Stemmer._Stemmer] | None = getattr(_local, "stemmers", None)
    if cache is None:
        cache = {}
        _local.stemmers = cache
    stemmer = cache.get(lang)
    if stemmer is None:
        stemmer = Stemmer.Stemmer(_SNOWBALL[lang])
        cache[lang] = stemmer
    return stemmer


def stem(tokens: Sequence[str], lang: Lang) -> list[str]:
    """Snowball stems; numbers pass through unchanged."""
    stems: list[str] = _stemmer(lang).stemWords(tokens)
    return [token if token[0].isdigit() else s for token, s in zip(tokens, stems, strict=True)]


def guess_lang(text: str, default: Lang = DEFAULT_LANG) -> Lang:
    """A cheap guess: stopword hits per language plus Turkish-only letters; ties → ``default``."""
    words = [fold(t) for t in tokenize(text)]
    scores: dict[Lang, float] = {lang: 0.0 for lang in LANGS}
    for lang in LANGS:
        folded = _FOLDED_STOPWORDS[lang]
        scores[lang] = float(sum(1 for w in words if w in folded))
    scores["tr"] += 2.0 * sum(1 for ch in text if ch in _TURKISH_LETTERS)
    best = max(LANGS, key=lambda lang: (scores[lang], lang == default))
    return best if scores[best] > 0 else default


_FOLDED_STOPWORDS: Final[dict[Lang, frozenset[str]]] = {
    lang: frozenset(fold(w) for w in words) for lang, words in STOPWORDS.items()
}


def index_terms(text: str, lang: Lang) -> list[str]:
    """Document side: every token, stemmed for ``lang`` and folded (order kept, repeats kept)."""
    return [fold(t) for t in stem(tokenize(text, lang), lang)]


def query_terms(text: str, lang: Lang) -> list[str]:
    """Query side: like :func:`index_terms` without stopwords, distinct, in first-seen order.

    Stopwords are tested on the folded surface form, so ``kac`` is dropped like ``kaç``. A query
    made only of stopwords keeps them (better a weak match than none).
    """
    tokens = tokenize(text, lang)
    stops = _FOLDED_STOPWORDS[lang]
    kept = [t for t in tokens if fold(t) not in stops] or tokens
    return list(dict.fromkeys(fold(t) for t in stem(kept, lang)))


def surface_terms(text: str, lang: Lang | None = None) -> Iterator[str]:
    """Unstemmed, folded tokens: the exact-word view of a text."""
    return (fold(t) for t in tokenize(text, lang))
