"""The question, read once (issue 22): one typed :class:`QuestionAnalysis` per request, handed to
retrieval, the agent, ``/v1/ask``'s evidence picker and page scope, and the offline reader.

What it reads, in Indonesian, Turkish and English:

- **language** — :func:`tanda.lang.guess_lang`, else the default;
- **question word and kind** — what the question asks for: a ``time`` (*kapan*, *ne zaman*,
  *when*), a ``number`` (*berapa*, *kaç*, *how many*), a ``person`` or organisation (*siapa*,
  *kim*, *who*), a ``place`` (*di mana*, *nerede*, *where*), a ``definition`` (*apa yang dimaksud
  dengan X*, *X nedir*, *what is X*), a ``reason`` (*mengapa*, *neden*, *why*), a ``manner``
  (*bagaimana*, *nasıl*, *how*), else a ``thing``;
- **focus terms** — the content words the answer must be about, each with its stem (the index
  analysis), its weight (a name or a number 2, an attribute word such as *tahun*, *nama*, *letak*
  — which the answer usually states by its value rather than by the word — ½, any other word 1),
  and whether it is a name or a number; question words, function words and the words that frame a
  question (*dimaksud*, *pengertian*, *nedir*, *mean*) are not focus;
- **negation** — *tidak*, *bukan*, *değil*, *not* …: a question asking what is *not* so;
- **the defined term** of a definition question (``data pribadi``);
- **the articles it names** (``Pasal 33``, ``Madde 5``, ``Article 12``): a statute's article is
  found by its section path, not by the words of its text (:func:`article_numbers`);
- **page references** (ASK-09, :func:`tanda.retrieval.pages.requested_pages`) and the question's
  **shape**: asks for items or amounts, for a table, for a list (ASK-08, ASK-10).

Pure: no I/O. The cue lists are general language resources, like the function words of
:mod:`tanda.lang` — nothing in them is about any partner's documents.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from tanda.lang import (
    DEFAULT_TEXT_LANG,
    LANGS,
    Lang,
    fold,
    guess_lang,
    is_function_word,
    normalize_lang,
)
from tanda.numbers.lexicon import CARDINAL_WORDS, roman_numeral
from tanda.retrieval.analysis import CURRENCY_BEFORE_AMOUNT, lowercase, query_terms, stem
from tanda.retrieval.edits import one_edit
from tanda.retrieval.equivalents import compounds, equivalents
from tanda.retrieval.frames import ALL_FRAMES, FOLDED_FRAMES
from tanda.retrieval.pages import requested_pages

QuestionKind = Literal[
    "time", "number", "person", "place", "definition", "reason", "manner", "thing"
]

NAME_WEIGHT: Final = 2.0
TERM_WEIGHT: Final = 1.0
ATTRIBUTE_WEIGHT: Final = 0.5


class FocusTerm(BaseModel):
    """One content word of the question."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    surface: str
    """As written, lowercased for the language."""
    stem: str
    """As the index analyses it: stemmed and folded (``pemilu`` → ``pilu``); a name only when the
    stemmer cut its ending (``Pemilu`` stays ``pemilu``, ``Bertengah`` ``bertengah``)."""
    weight: float
    name: bool = False
    number: bool = False
    acronym: bool = False
    """Written in capitals (``RI``, ``UMC``): the text may spell it out."""
    group: int | None = None
    """Consecutive capitalised words of the question form one name (``Kepala Kepolisian RI``):
    the terms of one group share this number."""
    alternatives: tuple[str, ...] = ()
    """Matching keys of words that say the same (:mod:`tanda.retrieval.equivalents`): ``vat``,
    ``kdv`` for ``ppn``."""


class QuestionAnalysis(BaseModel):
    """Everything a request needs to know about its question, read once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    lang: Lang
    kind: QuestionKind
    question_word: str | None = None
    focus: tuple[FocusTerm, ...] = ()
    terms: tuple[str, ...] = ()
    """What retrieval searches for: :func:`~tanda.retrieval.analysis.query_terms`."""
    negated: bool = False
    defined_term: str | None = None
    articles: tuple[str, ...] = ()
    """The article numbers the question names, lower-cased (``33``, ``28i``)."""
    article_parts: tuple[str, ...] = ()
    """The parts of a named article the question asks for, lower-cased: ``3`` of ``Pasal 33
    ayat (3)``, ``1`` of ``angka 1``, ``a`` of ``huruf a`` or ``Section 3(a)`` — a statute
    writes the part as ``(3)``, ``1.``, ``a.`` before its text."""
    pages: tuple[int, ...] | None = None
    asks_items: bool = False
    asks_table: bool = False
    asks_list: bool = False
    asks_several: bool = False
    """Its question word asks for several (``apa saja``, ``siapa saja``: what all, who all): what
    answers lists them."""

    @property
    def focus_weight(self) -> float:
        return sum(term.weight for term in self.focus)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.surface for t in self.focus if t.name)

    @property
    def numbers(self) -> tuple[str, ...]:
        return tuple(t.surface for t in self.focus if t.number)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- the cues -----------------------------------------------------------------------------------

# (pattern, kind) tried in order; the first match names the question word and the kind. Patterns
# run on the lowercased question with Turkish dotted capitals folded.
_CASE: Final = r"(?:[ıiuü]|[ıiuü]?n?[dt][ae](?:n|ki)?|[ıiuü]n|[ıiuü]?ne|[ae])?"
"""A Turkish noun's case ending (``yılı``, ``yılında``, ``yıldaki``, ``yıldan``, ``yılın``,
``yerine``, ``ile``): a cue names the noun, not a longer word starting with it."""
_KIND_CUES: Final[dict[Lang, tuple[tuple[str, QuestionKind], ...]]] = {
    "id": (
        (r"\b(?:tahun|tanggal|abad|bulan|hari)\s+(?:ke\s*)?berapa(?:kah)?\b", "time"),
        (r"\bsejak\s+kapan\b", "time"),
        (r"\bkapan(?:kah)?\b|\bbilamana\b", "time"),
        (r"\bsiapa(?:kah)?\b", "person"),
        # "di mana", and "di daerah mana" (a place noun between).
        (r"\b(?:di|ke|dari)\s*(?:\w+\s+)?mana(?:kah)?\b|\bletak(?:nya)?\b", "place"),
        (r"\bberapa(?:kah)?\b|\bseberapa\b", "number"),
        (r"\b(?:mengapa|kenapa)\b|\bapa\s+(?:sebab|alasan|penyebab)\w*", "reason"),
        (r"\bbagaimana(?:kah)?\b", "manner"),
        (r"\bapa(?:kah)?\b|\bmanakah\b", "thing"),
    ),
    "tr": (
        # The noun after "hangi" with its case endings only: "hangi yıldız" (star), "hangi
        # tarihçi" (historian), "hangi ilaç" (drug) ask for no time or place.
        (
            rf"\bne\s+zaman\w*|\bhangi\s+(?:(?:yüzyıl|yıl|tarih|ay|gün){_CASE}\b|dönem\w*)"
            r"|\bkaç\s+yılında\b",
            "time",
        ),
        (r"\bkim(?:dir|di|in|e|i|ler\w*|se)?\b", "person"),
        (
            r"\bnere\w*|\bhangi\s+(?:(?:şehir|şehr|ülke|bölge|kent|kıta|eyalet)\w*"
            rf"|(?:il|yer){_CASE}\b)",
            "place",
        ),
        # "kaç" and its forms ("yüzde kaçı", "kaçtır"), not "kaçırdı" (missed).
        (
            r"(?:\byüzde\s+)?\bkaç(?:[ıi]n?[ıa]?|[ıi]nda|t[ıa]r?|[ıi]d[ıi]r|[ıi]yd[ıi])?\b"
            r"|\bne\s+kadar\w*",
            "number",
        ),
        # "neye neden olur" asks what something causes, not why.
        (r"(?<!neye\s)\bneden\b|\bniçin\b|\bniye\b|\bne\s+sebep\w*", "reason"),
        (r"\bnasıl\b", "manner"),
        # "ne" and its forms only — not any word starting so ("nehri", "Newton", "nesne").
        (
            r"\bne(?:yi|ye|yin|yle|yden|yde|ydi|ydir|ymiş|dir|dirler|ler|leri|lere|lerin|lerdi"
            r"|lerden|lerdir)?\b|\bhangi\w*",
            "thing",
        ),
    ),
    "en": (
        (r"\b(?:what|which|in\s+what)\s+(?:year|date|century|decade|month|day)\b", "time"),
        (r"\bwhen\b", "time"),
        (r"\bwho(?:m|se)?\b", "person"),
        (r"\bwhere\b|\b(?:what|which)\s+(?:country|city|place|region|state|town)\b", "place"),
        (r"\bhow\s+(?:many|much|long|far|old|big|large|tall|high)\b", "number"),
        (r"\bwhy\b|\bwhat\s+caused\b", "reason"),
        (r"\bhow\b", "manner"),
        (r"\bwhat\b|\bwhich\b", "thing"),
    ),
}

# Definition questions, with the defined term as ``x``; tried on the question without its
# closing punctuation, case kept (the term is reported as written).
_DEFINITION: Final[dict[Lang, tuple[re.Pattern[str], ...]]] = {
    "id": tuple(
        re.compile(p, re.IGNORECASE)
        for p in (
            r"^(?:apa|apakah|siapa|siapakah)\s+(?:yang\s+)?(?:di\s?maksud|dimaksudkan)"
            r"(?:\s+(?:dengan|dari|oleh))?\s+(?P<x>.+)$",
            r"^(?:apa|apakah)\s+(?:itu|arti|pengertian|definisi|maksud|makna)\s+"
            r"(?:(?:dari|kata|istilah)\s+)*(?P<x>.+)$",
            r"^(?:apa|apakah)\s+(?:yang\s+)?(?:disebut|dinamakan)\s+(?:dengan\s+)?(?P<x>.+)$",
            # a short form's long form: "Apa kepanjangan SPBE?", "SPBE singkatan dari apa?"
            r"^(?:apa|apakah)\s+(?:kepanjangan|singkatan)\s+(?:(?:dari|kata|istilah)\s+)*"
            r"(?P<x>.+)$",
            r"^(?P<x>.+?)\s+(?:adalah\s+)?(?:kepanjangan|singkatan)\s+(?:dari\s+)?(?:apa|apakah)$",
            r"^(?:apa|apakah)\s+(?P<x>.+?)\s+itu$",
            r"^(?:pengertian|definisi|arti|makna|maksud)\s+(?:(?:dari|kata|istilah)\s+)*(?P<x>.+)$",
            r"^(?P<x>.+?)\s+(?:adalah|ialah)\s*(?:apa|apakah)?$",
        )
    ),
    "tr": tuple(
        re.compile(p, re.IGNORECASE)
        for p in (
            r"^(?P<x>.+?)(?:['’]?n?[ıiuü]n)?\s+(?:tanımı|anlamı)\s+(?:nedir|ne\w*)$",
            r"^(?P<x>.+?)\s+(?:ne\s+demek(?:tir)?|ne\s+anlama\s+gel\w+|nedir|neye\s+denir)$",
        )
    ),
    "en": tuple(
        re.compile(p, re.IGNORECASE)
        for p in (
            r"^what\s+(?:is|are)\s+meant\s+by\s+(?P<x>.+)$",
            r"^what\s+does\s+(?P<x>.+?)\s+mean$",
            r"^(?:define|definition\s+of|meaning\s+of|the\s+definition\s+of)\s+(?P<x>.+)$",
            r"^what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<x>.+)$",
        )
    ),
}
_MAX_DEFINED_WORDS: Final = 5
_CONTEXT_AFTER_TERM: Final[dict[Lang, frozenset[str]]] = {
    "id": frozenset({"dalam", "di", "pada", "bagi"}),
    "tr": frozenset(),
    "en": frozenset({"in", "under", "within"}),
}
"""A word that, after a defined term, begins the context the term is meant in (``… dengan genin
dalam manga Naruto``, ``what is equity in accounting``), not more of the term."""
# A phrase naming something *of* something else, or a superlative, asks for a thing.
_ATTRIBUTE_OF: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(r"(?!)"),
    "tr": re.compile(
        r"\w['’]?n?[ıiuü]n\b|\ben\s|\bhangi\b|\w['’]?[dt][ae](?:ki)?\b", re.IGNORECASE
    ),
    "en": re.compile(
        r"\b(?:of|in|for|on|at|by|to|the\s+\w+est|most|largest|first|last)\b", re.IGNORECASE
    ),
}
"""A defined term is a short noun phrase: ``what is the capital of France`` asks for a thing."""

# Weak words: what the question asks *about* its subject, which an answer usually states by its
# value rather than by the word (the year, not "tahun"; the place, not "letak"), and the light
# verbs a question is built with (Turkish "etti", "olan").
_ATTRIBUTE_WORDS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words(
        """
        nama tahun tanggal bulan hari abad waktu letak lokasi tempat luas panjang lebar tinggi
        berat lama jumlah banyak besar asal pertama kali utama julukan sebutan judul istilah
        kata jenis bentuk nilai angka total ibu kota ibukota anggaran realisasi persentase
        tentang terhadap menjadi dilakukan melakukan memiliki mempunyai terdapat digunakan
        menggunakan berada terjadi diadakan dibuat membuat berasal mulai sebutan disebut
        terkenal populer daerah wilayah kawasan
        """
    ),
    "tr": _words(
        """
        ad adı adıdır isim ismi yıl yılı yılında tarih tarihi tarihte yer yeri yerde sayı sayısı
        miktar miktarı ilk kez defa ana tür türü başkent başkenti toplam bütçe bütçesi
        gerçekleşme oran oranı kabul sahip olmuş olduğu olduğunu etti eder etmek
        etmiştir etmektedir edilen edildi edilmiştir olan oldu olmuştur olarak yaptı yapılan
        yapmıştır yapmaktadır bulunan bulunmaktadır ünlü meşhur bölge bölgesi
        """
    ),
    "en": _words(
        """
        name named year date time place location first number amount total kind type called
        capital budget realisation realization percentage did does do made make become
        became used use have has had known famous popular region territory area size
        """
    ),
}

_NEGATIONS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("tidak bukan tanpa belum tak non"),
    "tr": _words("değil değildir olmayan olmadan hiç yok"),
    "en": _words("not no never without isn't aren't wasn't weren't doesn't don't didn't"),
}

_ITEMS: Final = re.compile(
    r"(?<!\w)(?:"
    # Turkish: line item, quantity, piece, amount, breakdown, detail, total, how many/much, price
    r"kalem\w*|miktar\w*|adet\w*|tutar\w*|döküm\w*|ayrıntı\w*|toplam\w*|kaç|ne\s+kadar|"
    r"fiyat\w*|bedel\w*"
    # Indonesian
    r"|rinci\w*|perinci\w*|item\w*|barang\w*|jumlah\w*|berapa|nilai\w*|anggaran\w*|"
    r"realisasi\w*|harga\w*|total\w*|uraian\w*"
    # English
    r"|items?|line\s+items?|amounts?|quantit\w*|how\s+(?:much|many)|breakdown|break\s+down|"
    r"totals?|sum|prices?|costs?|figures?"
    r")(?!\w)",
    re.IGNORECASE,
)
_TABLE_SHAPED: Final = re.compile(
    r"(?<!\w)(?:"
    # Turkish: table, column, row, compare, "which amounts/items/…", by year
    r"tablo\w*|sütun\w*|satır\w*|karşılaştır\w*|hangi\s+\w+l[ae]r\w*|"
    r"miktarlar\w*|tutarlar\w*|rakamlar\w*|yıllara\s+göre"
    # Indonesian
    r"|tabel\w*|kolom\w*|baris\w*|bandingkan\w*|perbandingan\w*|angka-angka|per\s+tahun"
    # English
    r"|tables?|columns?|rows?|compar\w*|which\s+(?:amounts|values|figures|items)|"
    r"amounts|figures|values|by\s+year"
    r")(?!\w)",
    re.IGNORECASE,
)
_ASKS_SEVERAL: Final = re.compile(
    r"(?<!\w)(?:apa|siapa|mana|berapa)(?:kah)?\s+saja(?!\w)", re.IGNORECASE
)
"""Indonesian question words asking for several: ``apa saja`` (what all), ``siapa saja``."""
_LISTING: Final = re.compile(
    r"(?<!\w)(?:"
    # Turkish stems: all, every, list, sort, breakdown, line item, detailed, one by one
    r"tüm\w*|bütün\w*|hepsi\w*|liste\w*|sırala\w*|döküm\w*|kalem\w*|ayrıntı\w*|"
    r"tek\s+tek|her\s+bir"
    # Indonesian stems
    r"|semua\w*|seluruh\w*|daftar\w*|sebutkan\w*|rinci\w*|perinci\w*|uraikan\w*|setiap|"
    r"masing-masing|satu\s+per\s+satu"
    # English words
    r"|list|lists|listing|all|every|each|itemi[sz]e\w*|enumerate\w*|breakdown|break\s+down"
    r")(?!\w)",
    re.IGNORECASE,
)

_WORD: Final = re.compile(
    rf"(?i:{CURRENCY_BEFORE_AMOUNT})"
    r"|\d+(?:[.,/:\-]\d+)*(?:['’][^\W\d_]+)?(?![^\W_])|[^\W_]+(?:['’][^\W\d_]+)?"
)
"""A word, its apostrophe suffix with it (``Türkiye'nin``, ``1981'de``: one word, not two); a
currency before an amount is a word of its own (``Rp5.000.000``), as the index reads it."""
_QUOTES: Final = "\"'“”‘’«»"
_CLOSING: Final = "?!.。？！ \t\n"


def cues(text: str) -> str:
    """``text`` for cue matching: Python's case-insensitive matching does not fold the Turkish
    dotted capital I to ``i``."""
    return text.replace("İ", "i").replace("I\u0307", "i")


def asks_for_items(question: str) -> bool:
    """The question asks for items, amounts or a breakdown (ASK-08: line items are shown)."""
    return _ITEMS.search(cues(question)) is not None


def asks_for_a_table(question: str) -> bool:
    """The question is table-shaped: several values, a comparison, rows or columns (ASK-08)."""
    return _TABLE_SHAPED.search(cues(question)) is not None


def asks_for_a_list(question: str) -> bool:
    """The question asks for a list, a breakdown or every item (ASK-10: the larger budget)."""
    return _LISTING.search(cues(question)) is not None


def without_listing_words(question: str) -> str:
    """``question`` without the words that ask for a list: what it is a list *of*."""
    return _LISTING.sub(" ", cues(question))


def without_item_words(question: str) -> str:
    """What a question asking for items asks for items *of* (``Berapa realisasi Pajak Daerah?``
    → ``Pajak Daerah``): its words without those asking for items, amounts or a list."""
    return _ITEMS.sub(" ", without_listing_words(question))


# -- reading a question -------------------------------------------------------------------------


def question_kind(text: str, lang: Lang) -> tuple[QuestionKind, str | None]:
    """The kind of answer ``text`` asks for and the words that say so — never a question word
    that is part of a name (:func:`_in_name`: ``Doktor Kim``, Turkish for Doctor Who)."""
    cued = cues(text)  # the offsets below are of this text, which may be shorter ("I\u0307")
    matches = list(_WORD.finditer(cued))
    words = [m.group() for m in matches]
    spans = [m.span() for n, m in enumerate(matches) if _in_name(words, n)]
    for start, end in reversed(spans):
        cued = cued[:start] + "\u2026" * (end - start) + cued[end:]
    lowered = lowercase(cued, lang)
    for pattern, kind in _KIND_CUES[lang]:
        found = re.search(pattern, lowered)
        if found:
            return kind, found.group(0)
    return "thing", None


def _definition(text: str, lang: Lang) -> tuple[str, str] | None:
    """A definition question's term, as written (``Apa yang dimaksud dengan data pribadi?`` →
    ``data pribadi``), and the words the question says of it: the term with the context it is
    meant in (``genin`` and ``genin dalam manga naruto``); ``None`` for any other question."""
    stripped = " ".join(text.split()).rstrip(_CLOSING)
    for pattern in _DEFINITION[lang]:
        found = pattern.match(stripped)
        if not found:
            continue
        term = found.group("x").strip().strip(_QUOTES).rstrip(_CLOSING).strip()
        term = re.sub(r"\s+(?:itu|tersebut|ini)$", "", term, flags=re.IGNORECASE).strip(_QUOTES)
        said = term
        words = term.split()
        for n, word in enumerate(words[1:], start=1):
            if fold(word.lower()) in _CONTEXT_AFTER_TERM[lang]:
                # "genin dalam manga Naruto": the term is "genin"; the rest says where it is
                # meant (its words stay the question's focus).
                words = words[:n]
                term = " ".join(words)
                break
        if not words or len(words) > _MAX_DEFINED_WORDS or re.search(r"[\d()\[\]]", term):
            return None  # a term has no figures or asides
        if any(_is_frame(w.lower(), lang) or is_function_word(w, lang) for w in words):
            return None  # "what is the year when …", "X ve Y nedir": not one term
        if _ATTRIBUTE_OF[lang].search(term):
            return None  # "the capital of France", "Amazon'un en büyük kolu": a thing, not a term
        return term, said
    return None


MENDED_MIN_LETTERS: Final = 7
"""A question's first word this long, one letter from a question word as long, is that word
misspelt (``berapkah``, ``sipakah``, ``dimankah``); a shorter one may be a word of its own
(``adakah``, ``kapal``)."""


_SHORTHAND: Final = {
    "yg": "yang",
    "dgn": "dengan",
    "utk": "untuk",
    "tdk": "tidak",
    "dlm": "dalam",
    "krn": "karena",
    "thn": "tahun",
    "brp": "berapa",
    "kpn": "kapan",
    "dmn": "dimana",
    "bgmn": "bagaimana",
    "sbg": "sebagai",
    "tsb": "tersebut",
    "pd": "pada",
    "org": "orang",
}
"""Indonesian shorthand as people type a question (``Apa yg dimaksud dgn …``)."""
_SHORT_WORD: Final = re.compile(
    r"(?<![\w'’])(" + "|".join(_SHORTHAND) + r")(?![\w'’])", re.IGNORECASE
)
_JOINED_FRAME: Final = re.compile(r"(?<!\w)(yang)(dimaksud|disebut)(?!\w)", re.IGNORECASE)


def _mended(text: str) -> str:
    """``text`` with Indonesian shorthand written out (``yg`` → ``yang``), a framing phrase
    typed as one word split (``yangdimaksud``), and its first word read as the question word it
    misspells, when it is one letter (:func:`tanda.retrieval.edits.one_edit`) from exactly one
    question word of :data:`MENDED_MIN_LETTERS` letters or more in the languages tanda reads."""
    text = _SHORT_WORD.sub(
        # written in capitals it is an acronym (``PD II``), not shorthand
        lambda m: m.group(1) if m.group(1).isupper() else _SHORTHAND[m.group(1).lower()],
        text,
    )
    text = _JOINED_FRAME.sub(r"\1 \2", text)
    found = _FIRST_WORD.match(text)
    if found is None:
        return text
    word = fold(found.group(1).lower())
    if len(word) < MENDED_MIN_LETTERS or word in ALL_FRAMES:
        return text
    near = [c for c in one_edit(word) if len(c) >= MENDED_MIN_LETTERS and c in ALL_FRAMES]
    if len(near) != 1:
        return text
    return text[: found.start(1)] + near[0] + text[found.end(1) :]


_FIRST_WORD: Final = re.compile(r"\s*([^\W\d_]+)")


def _is_frame(word: str, lang: Lang) -> bool:
    """A word that frames a question in ``lang`` — or in another language tanda reads: a
    question word is never what an answer is about, whatever the guess said."""
    folded = fold(word)
    return folded in FOLDED_FRAMES[lang] or folded in ALL_FRAMES


def _asking_lang(text: str, *, anywhere: bool = False) -> Lang | None:
    """The language whose question word opens ``text`` (``Kapan novel We Need to Talk About
    Kevin dirilis?`` is Indonesian, whatever its English title says) — or closes it, where a
    Turkish question puts it (``Melfi Kontu kimdi?``), or, ``anywhere``, is its first word that
    is one language's question word (``Gurular kimleri kontrol eder?``); ``None`` when there is
    none."""
    words = _WORD.findall(cues(text))
    for word in words if anywhere else words[:1] + words[-1:]:
        folded = fold(word.lower())
        langs = [lang for lang in LANGS if folded in FOLDED_FRAMES[lang]]
        if len(langs) == 1:
            return langs[0]
    return None


_FOLDED_ATTRIBUTES: Final = {
    lang: frozenset(fold(w) for w in words) for lang, words in _ATTRIBUTE_WORDS.items()
}
NEGATION_WORDS: Final = {
    lang: frozenset(fold(w) for w in words) for lang, words in _NEGATIONS.items()
}
"""The words that deny, folded, per language."""


_TITLES: Final = _words(
    """
    santo santa saint st kiai kyai haji hajah raden sultan raja ratu nabi presiden jenderal
    prof dr ir drs sri kanjeng nyi pangeran tuan bapak ibu syekh sheikh king queen sir lord
    mr mrs ms dan and ve the of van von de der al bin binti ibn
    """
)
"""Honorifics, titles and the small words inside names: part of a name, not what tells it."""
_HONORIFICS: Final = _words(
    """
    santo santa saint st kiai kyai haji hajah raden prof dr ir drs sri kanjeng nyi tuan syekh
    sheikh sir mr mrs ms
    """
)
"""The titles that only honour the name after them (unlike ``Raja``, ``Presiden``, which say
what the person is): a text may name the person without them."""
_ROMAN: Final = re.compile(r"^[IVXLC]+$")


def _in_name(words: Sequence[str], position: int) -> bool:
    """Whether the word at ``position`` of a question's ``words`` continues a name: written
    with a capital after a word written with one, not first (``Doktor Kim ne sıklıkta seyahat
    eder?`` — ``Kim`` is the Doctor's name there, not "who")."""
    return (
        0 < position < len(words)
        and words[position][:1].isupper()
        and words[position - 1][:1].isupper()
    )


def _focus(
    text: str, lang: Lang, kind_words: str | None, frames: frozenset[str] = frozenset()
) -> tuple[FocusTerm, ...]:
    """The question's content words, in order, each once; ``frames`` are more words that frame
    this question (lower-cased)."""
    words = [m.group(0) for m in _WORD.finditer(cues(text))]
    cue_words = {fold(w) for w in (kind_words or "").split()}
    # surface, name, number, group, honorific
    kept: list[tuple[str, bool, bool, int | None, bool]] = []
    acronyms: set[str] = set()
    decades: dict[str, frozenset[str]] = {}
    group = 0
    in_name = False
    for position, word in enumerate(words):
        # The suffix is grammar, not a word asked (``168'in``, ``1990's``).
        bare = re.split(r"['’]", word)[0] if lang == "tr" or word[0].isdigit() else word
        lower = lowercase(bare, lang)
        folded = fold(lower)
        capital = bare[:1].isupper()
        acronym = len(bare) >= 2 and bare.isupper() and not _ROMAN.match(bare)
        following = position + 1 < len(words) and words[position + 1][:1].isupper()
        # Turkish writes an apostrophe before the suffix of a proper name only (``Surabaya'nın``):
        # a name, though the question opens with it.
        suffixed = lang == "tr" and bare != word
        name = (
            (acronym or (capital and (position > 0 or following or suffixed)))
            and folded not in _TITLES
            and not (
                lang == "tr"
                and _FROM_PLACE.fullmatch(folded)
                and not following
                and not (position > 0 and words[position - 1][:1].isupper())
            )
        )
        if not (capital and (position > 0 or following or suffixed)):
            in_name = False
        elif not in_name:
            group, in_name = group + 1, True
        if (
            folded in cue_words
            or lower in frames
            or _is_frame(lower, lang)
            or is_function_word(lower, lang)
        ):
            continue
        if lower[0].isdigit():
            kept.append((lower, False, True, None, False))
            decades[lower] = _decade_years(word)
            continue
        honorific = capital and following and folded in _HONORIFICS
        kept.append((lower, name, False, group if name else None, honorific))
        if acronym:
            acronyms.add(lower)
    if not kept:
        return ()
    stems = stem([surface for surface, *_ in kept], lang)
    # Words side by side that together say what one word says (``orang tua`` — ``ayah``;
    # ``Peraturan Daerah`` — ``Perda``) — unless a word after them makes them another thing
    # (``orang tua tiri``, a step-parent).
    said_together: dict[str, set[str]] = {}
    lowered = [fold(lowercase(w, lang)) for w in words]
    for together, keys in compounds(lang):
        size = len(together)
        for at in range(len(lowered) - size + 1):
            if tuple(lowered[at : at + size]) != together:
                continue
            after = words[at + size] if at + size < len(words) else ""
            if (
                after[:1].islower()
                and not is_function_word(lowercase(after, lang), lang)
                and fold(after) not in cue_words
            ):
                continue
            for word in together:
                said_together.setdefault(word, set()).update(keys)
    terms: dict[str, FocusTerm] = {}
    for (surface, name, number, in_group, honorific), stemmed in zip(kept, stems, strict=True):
        key = surface if number else fold(stemmed)
        if name and not fold(surface).startswith(key):
            # A name is not a word of the language: the stemmer may only cut an ending off it
            # (``Yunani'nin``), never a prefix (``Bertengah`` is not ``tengah``, ``Pemilu`` not
            # ``pilu``).
            key = fold(surface)
        if key in terms or not key:
            continue
        if number or name:
            weight = NAME_WEIGHT
        elif (
            honorific
            or fold(surface) in _FOLDED_ATTRIBUTES[lang]
            or key in _FOLDED_ATTRIBUTES[lang]
        ):
            weight = ATTRIBUTE_WEIGHT
        else:
            weight = TERM_WEIGHT
        same = equivalents(lang)
        alternatives = (
            same.get(key, frozenset())
            | same.get(fold(surface), frozenset())
            | said_together.get(fold(surface), set())
        ) - {key}
        if number:
            alternatives |= _number_said_otherwise(surface, lang) | decades.get(
                surface, frozenset()
            )
        terms[key] = FocusTerm(
            surface=surface,
            stem=key,
            weight=weight,
            name=name,
            number=number,
            group=in_group,
            acronym=surface in acronyms,
            alternatives=tuple(sorted(alternatives)),
        )
    return tuple(terms.values())


_FROM_PLACE: Final = re.compile(r"\w{3,}l[iu](?:n[iu]n)?")
"""A Turkish word saying where someone is from (``Hintli``, ``Ankaralı``, ``Hintlinin``):
capitalised, but — standing alone, not inside a name (``Osmanlı İmparatorluğu``, ``Gündüz
Okulu``) — an attribute of the one asked about, not a name the answer must say."""
_DECADE: Final = re.compile(r"(\d{1,3}0)['’-]?(?:l[ae]r\w*|an|s)", re.IGNORECASE)


def _decade_years(word: str) -> frozenset[str]:
    """The years of a decade the question names (``80'lerde``, ``70lerde``, ``1980-an``,
    ``1980s``) — a text says it by one of them (``1981'de``) or as the decade (``1980'lerin``).
    A decade of two digits is of the last century from 30 (``80'ler``), of this one below."""
    match = _DECADE.fullmatch(word)
    if match is None:
        return frozenset()
    start = int(match.group(1))
    if start < 100:
        start += 1900 if start >= 30 else 2000
    if not 1000 <= start <= 2090:
        return frozenset()
    return frozenset(str(year) for year in range(start, start + 10))


def _number_said_otherwise(surface: str, lang: Lang) -> frozenset[str]:
    """How a text may say a whole number the question writes in digits, as matching keys: in a
    word of the question's language (``4`` — ``dört``, ``empat``) or in Roman numerals (``Phase
    2`` — ``Phase II``; from 2: ``I`` is as often a pronoun or a letter)."""
    if not surface.isdecimal():  # "¹" is a digit int() does not read
        return _decimal_zeros(surface)
    value = int(surface)
    said = set()
    word = CARDINAL_WORDS[lang].get(value)
    if word is not None:
        said.add(fold(lowercase(word, lang)))
    if 1 < value < 40:
        said.add(roman_numeral(value))
    return frozenset(said)


_GROUPED: Final = re.compile(r"\d{1,3}(?:([.,])\d{3})+")
_ZERO_CENTS: Final = re.compile(r"(\d{1,3}(?:([.,])\d{3})*)([.,])0{1,2}")


def _decimal_zeros(surface: str) -> frozenset[str]:
    """An amount written with thousands separators, with and without zero cents: ``5.000.000``
    — ``5.000.000,00`` (statutes write the cents), ``1,250.00`` — ``1,250``."""
    grouped = _GROUPED.fullmatch(surface)
    if grouped is not None:
        cents = "," if grouped.group(1) == "." else "."
        return frozenset({f"{surface}{cents}00"})
    zero = _ZERO_CENTS.fullmatch(surface)
    if zero is not None and zero.group(2) != zero.group(3):
        return frozenset({zero.group(1)})
    return frozenset()


_ARTICLE_WORD: Final = r"(?:pasal|madde|article|section)"
"""What statutes call an article, in the languages tanda reads."""
_PART_WORD: Final = r"(?:ayat|angka|huruf|paragraph|subsection|fıkra|bent)"
"""What they call a part of one (a paragraph, an item, a letter)."""
_ARTICLE: Final = re.compile(rf"(?<!\w){_ARTICLE_WORD}\s+(\d+[a-z]?)(?!\w)", re.IGNORECASE)
"""An article of a statute named by its number (``Pasal 67``, ``Pasal 28I``, ``MADDE 5``,
``Article 12``, ``Section 3``)."""
_PART: Final = re.compile(
    rf"(?<!\w){_ARTICLE_WORD}\s+\d+[a-z]?(?:(?:\s*,|\s+(?:dan|atau|and|or|ve))?(?:"
    r"(?P<bracket>\s*\((?P<b>\d{1,3}|[a-z])\))"
    rf"|(?P<named>\s+{_PART_WORD}\s*"
    r"\(?(?P<n>\d{1,3}|[a-z])\)?(?!\w))))+",
    re.IGNORECASE,
)
"""An article with the parts named after it (``Pasal 33 ayat (3)``, ``Pasal 1 angka 1``,
``Section 3(a)``, ``Pasal 65 ayat (1) dan ayat (2)``)."""
_PART_NAMED: Final = re.compile(
    rf"\s*\((\d{{1,3}}|[a-z])\)|\s+{_PART_WORD}\s*"
    r"\(?(\d{1,3}|[a-z])\)?(?!\w)",
    re.IGNORECASE,
)
ARTICLE_FRAMES: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("bunyi berbunyi isi isinya mengatur diatur ketentuan"),
    "tr": _words(
        "hüküm hükmü hükümleri içerik içeriği diyor der söyler düzenler yazıyor yazar yazılı"
    ),
    "en": _words("say says said state states provide provides content contents text wording"),
}
"""Words asking what a named article says (``Apa bunyi Pasal 33``, ``What does Article 5
say``): with an article named, they frame the question — the answer is the article's text."""
BREACH_WORDS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("melanggar pelanggaran dilanggar melanggarnya"),
    "tr": _words("ihlal ihlali ihlalinde ihlaline aykırı aykırılık aykırılığı"),
    "en": _words(
        "violate violates violating violated violation violations breach breaches breaching "
        "contravene contravenes contravening contravention"
    ),
}
"""Words naming the breach of a named article (``pidana bagi yang melanggar Pasal 65``): a
statute says it by citing the article in its penalty clause (``… sebagaimana dimaksud dalam
Pasal 65 ayat (1) dipidana …``), never in the word — with an article named, they frame the
question."""


_MADDE_AFTER: Final = re.compile(
    r"(?<![\w.])(\d+)\s*(?:\.|['’]?\s*(?:nci|ncı|ncu|ncü|inci|ıncı|uncu|üncü))\s+"
    r"madde(?:si|sinde|sine|sini|sinin|nin|de|ye)?(?!\w)",
    re.IGNORECASE,
)
"""A Turkish article named by its ordinal first (``5. maddesi``, ``12 nci madde``)."""
_INLINE_ARTICLE: Final = re.compile(
    rf"(?m)^[ \t]*{_ARTICLE_WORD}\s+(\d+[a-z]?)[ \t]*(?:[-–—.:]|$)",
    re.IGNORECASE,
)
"""An article's heading opening a line of its text (``Madde 2 – Tebliğ …``, ``MADDE 5-``,
``Article 3.``, ``Pasal 7`` alone): a statute whose articles are no sections of their own."""


def article_numbers(text: str) -> tuple[str, ...]:
    """The article numbers ``text`` names, lower-cased, once each in order (``67``, ``28i``;
    Turkish also ``5. maddesi``)."""
    found = [(m.start(), m.group(1).lower()) for m in _ARTICLE.finditer(text)]
    found += [(m.start(), m.group(1)) for m in _MADDE_AFTER.finditer(text)]
    return tuple(dict.fromkeys(number for _, number in sorted(found)))


def inline_articles(text: str) -> list[tuple[int, str]]:
    """Where each article heading opens a line of ``text`` (:data:`_INLINE_ARTICLE`), with its
    number lower-cased, in order."""
    return [(m.start(), m.group(1).lower()) for m in _INLINE_ARTICLE.finditer(text)]


def article_parts(text: str) -> tuple[tuple[str, ...], str]:
    """The parts of named articles ``text`` asks for (``3`` of ``Pasal 33 ayat (3)``), once each
    in order, and ``text`` with each part reference cut after its article (``Pasal 33``): the
    part is where the answer is, not a word it says. A Turkish article named ordinal first
    (``2. maddesi``) is written ``madde 2``, as its heading writes it."""
    parts: list[str] = []

    def cut(match: re.Match[str]) -> str:
        whole = match.group(0)
        head = _ARTICLE.match(whole)
        assert head is not None  # _PART begins with an article
        for part in _PART_NAMED.finditer(whole, head.end()):
            parts.append((part.group(1) or part.group(2)).lower())
        return whole[: head.end()]

    cut_text = _PART.sub(cut, _MADDE_AFTER.sub(lambda m: f"madde {m.group(1)}", text))
    return tuple(dict.fromkeys(parts)), cut_text


def cited_parts(text: str, articles: Sequence[str]) -> frozenset[str]:
    """The parts ``text`` cites of ``articles`` (``2`` of ``sebagaimana dimaksud dalam Pasal 65
    ayat (2)``), lower-cased; empty when it cites none of them by a part."""
    found: set[str] = set()
    for match in _PART.finditer(text):
        whole = match.group(0)
        head = _ARTICLE.match(whole)
        if head is None or head.group(1).lower() not in articles:
            continue
        found.update(
            (part.group(1) or part.group(2)).lower()
            for part in _PART_NAMED.finditer(whole, head.end())
        )
    return frozenset(found)


def in_article(section: str | None, articles: Sequence[str]) -> bool:
    """Whether a section path (``BAB XIV > Pasal 33 > ayat (2)``) has a component that is one
    of ``articles`` — the text is that article, not one citing it (``Penjelasan > Pasal 33``, the
    article's explanation, is the article too). A component may go on with the article's title
    (a Markdown heading ``Section 3 — Payment terms``, ``MADDE 5 – Tanımlar``)."""
    if not section or not articles:
        return False
    for part in section.split(" > "):
        named = _ARTICLE.match(part.strip())
        if named is not None and named.group(1).lower() in articles:
            return True
    return False


@lru_cache(maxsize=256)
def analyze_question(text: str, lang: str | None = None) -> QuestionAnalysis:
    """Read ``text`` once. ``lang`` is the question's language when the caller knows it (a
    hint, as ``SearchQuery.lang``); else it is guessed. The analysis is immutable and cached:
    the same question read again by another step of the request costs nothing."""
    asked = text
    text = _mended(text)
    language: Lang = (
        normalize_lang(lang)
        or _asking_lang(text)
        or guess_lang(text)
        or _asking_lang(text, anywhere=True)
        or DEFAULT_TEXT_LANG
    )
    kind, word = question_kind(text, language)
    definition = _definition(text, language)
    defined = definition[0] if definition is not None else None
    if definition is not None:
        kind = "definition"
    articles = article_numbers(text)
    parts, unparted = article_parts(text) if articles else ((), text)
    focus = _focus(
        definition[1] if definition is not None else unparted,
        language,
        word,
        ARTICLE_FRAMES[language] | BREACH_WORDS[language] if articles else frozenset(),
    )
    words = {fold(lowercase(w, language)) for w in _WORD.findall(cues(text))}
    return QuestionAnalysis(
        text=asked,
        lang=language,
        kind=kind,
        question_word=word,
        focus=focus,
        terms=tuple(query_terms(text, language)),
        negated=bool(words & NEGATION_WORDS[language]),
        defined_term=defined,
        articles=articles,
        article_parts=parts,
        pages=requested_pages(text),
        asks_items=asks_for_items(text),
        asks_table=asks_for_a_table(text),
        asks_list=asks_for_a_list(text),
        asks_several=_ASKS_SEVERAL.search(text) is not None,
    )


def as_question(question: str | QuestionAnalysis) -> QuestionAnalysis:
    """``question`` as analysed: a request hands its one analysis down; a bare text (a test, a
    caller that has none) is analysed here."""
    return question if isinstance(question, QuestionAnalysis) else analyze_question(question)
