"""Which sentence of the retrieved passages answers the question — and whether any does (issue 22).

The reader of the offline model (the embedded default's agent and ``/v1/ask`` synthesis) and of
the lexical reranker. It knows no meaning, only the question's analysis
(:class:`~tanda.retrieval.question.QuestionAnalysis`) and the text, so it asks what a careful
extractive reader asks of each sentence (or table row, read under its header):

- **covered** — the weighted share of the question's focus terms the unit itself holds (a name
  or a number weighs 2, an attribute word ½, any other word 1; stems compared as the index
  compares them, a stem also meeting a longer or shorter form of itself, a name also a spelling
  one letter off);
- **placed** — the same share for the unit *in its place*: with its passage's identity (title,
  section, dataset, period) and the rest of its passage, which name the subject a sentence
  speaks of (``Ia lahir …``);
- **kind** — whether it holds an answer of the kind asked for: a year or a date for a time, a
  number for a number, a name the question does not already say for a person or a place, the
  defined term followed by a definition for a definition, a cause for a reason; for anything
  else, something the question does not already say.

A unit *answers* only when its place holds every number of the question, more than half the
words of each of its names, at least half of its content words (the one, when it has one; in
Turkish, one of them; every one, for a unit of a passage retrieval ranked below the first), at
least :data:`PLACED_MIN` of the focus weight, and no opposite of a word of the question
(:mod:`tanda.retrieval.opposites`) nor the opposite polarity (a denial of a word the question
asks about; a negated question's words undenied); the unit itself holds a fair share
(:data:`COVERED_MIN`), the words that narrow the question (``yang murah``, ``the cheapest``) and
an answer of the asked kind (for "how large" an area, for "how high" a length). A name no passage
read holds anywhere is missing everywhere (``Kabupaten Mantan Barat``), unless said in short.
Units that answer lead, best first (a number or date next to a word of the question before one
that is not); when none does, the documents do not answer the question, and the offline model
says so (:mod:`tanda.not_found`). No rule here is about any one set of documents: the thresholds
are shares of the question, the same for every partner, and the word lists are general language.
It is word matching: a synonym and a changed word look alike to it (docs/evaluation.md "Answers
that answer").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Container, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property, lru_cache
from typing import Final

from tanda.lang import Lang, fold, is_function_word
from tanda.numbers import QuantityKind, extract_quantities
from tanda.numbers.lexicon import CARDINAL_WORDS
from tanda.retrieval.analysis import index_terms, lowercase, stem, surface_terms, tokenize
from tanda.retrieval.drafting import ALIAS_ID
from tanda.retrieval.equivalents import SHORT_IN_CAPITALS, abbreviations
from tanda.retrieval.opposites import opposite_pairs
from tanda.retrieval.question import (
    NEGATION_WORDS,
    TERM_WEIGHT,
    FocusTerm,
    QuestionAnalysis,
    cited_parts,
    in_article,
    inline_articles,
)
from tanda.retrieval.roots import id_roots
from tanda.retrieval.sentences import whole_sentence_spans, without_enumerator
from tanda.retrieval.spelling import correctable, corrections

PLACED_MIN: Final = 0.5
"""The share of the focus weight a unit's place must hold to answer."""
COVERED_MIN: Final = 0.34
"""The share of the focus weight the unit itself must hold to answer."""
ANSWERS_AT_LEAST: Final = 0.75
"""A passage whose best unit answers scores at least this (the reranker's top band)."""
MAX_UNIT_CHARS: Final = 600
"""A longer unit (a paragraph the splitter could not cut) is read, but never the answer; its
bracketed asides (translations, other scripts, reference marks) are not counted."""
MIN_UNIT_CHARS: Final = 12
PHRASE_BONUS: Final = 0.1
"""What holding every pair of the question's consecutive focus words side by side adds."""
CONTENT_BONUS: Final = 0.1
"""What a unit saying itself every content word of the question adds (in proportion): the
question's names are context that the passage's title gives every sentence; its other words
tell the sentence that says what is asked (``didirikan … oleh``) from one that only names the
subject."""
CLOSE_TO_BEST: Final = 0.85
"""A further unit is shown beside the best one only when it scores this share of the best's."""
SENTENCE_CLOSE_TO_BEST: Final = 0.7
"""The same for a further sentence: each one answers on its own; a table row is one fact among
many rows that name the question's words."""
DEFINIENDUM_BONUS: Final = 0.1
"""What a definition question's unit opening with the defined term adds."""
NEAR_BONUS: Final = 0.05
"""What a number or a date standing next to a word of the question adds."""
RANK_BONUS: Final = 0.1
"""What being in the first retrieved passage adds to a unit's score (half of it the second's …)."""
LABEL_BONUS: Final = 0.1
"""What a table row whose label the question says whole adds."""
ABOUT_BONUS: Final = 0.1
"""What a unit of a passage whose document's title says the question's names adds."""
OTHER_YEAR_COST: Final = 0.15
"""What a unit costs that names a year other than the one the question names, and not that one
("2010 itibariyle … nüfusu" is not answered by "2014 yılında … nüfusla")."""
ORDINAL_BONUS: Final = 0.1
"""What a unit saying itself the ordinal that tells which one is asked (``ikinci seviye``) adds."""
EQUIVALENT_COST: Final = 0.05
"""What each focus word met only through an equivalent or a near form costs a unit's score."""
NAME_FUZZY_MIN: Final = 6
"""A name this long meets a spelling one letter off (``Prancis`` / ``Perancis``)."""
HEAD_LETTERS: Final = 5
"""Turkish words sharing their first this many letters meet (the "first five" stem of Turkish
retrieval)."""
FUZZY_STEM_MIN: Final = 5
"""A stem meets a longer or shorter form of itself only when the shorter has this many letters."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TIME_KINDS: Final = frozenset({QuantityKind.year, QuantityKind.date, QuantityKind.time})
_YEAR: Final = re.compile(
    r"(?<![\d.,])(?:1\d{3}|20\d{2}|\d{1,4}\s?(?:SM|M|BC|AD|BCE|CE|MÖ|MS))(?!\d)"
)
_YEAR_DIGITS: Final = r"(?:1[5-9]|20)\d{2}"
_BARE_YEAR: Final = re.compile(rf"^{_YEAR_DIGITS}$")
_REFERENCE_WORDS: Final = (
    r"(?<!\w)(?:pasal|ayat|angka|huruf|madde(?:si|nin)?|fıkra(?:sı|sının)?|bent(?:i|inin)?|"
    r"article|section|paragraph|subsection)"
)
_REFERENCE: Final = re.compile(
    _REFERENCE_WORDS + r"\s*\(?\d+[a-z]?\)?(?:\s*(?:,|dan|and|ve|atau|or)?\s*\(\d+[a-z]?\))*",
    re.IGNORECASE,
)
"""The number of an article or of its part (``Pasal 65 ayat (1)``, ``ayat (4) dan (5)``,
``Madde 5``, ``Section 3``): where a statute says something, not a quantity it states — unless
the question names such a part (``Pasal berapa …?`` asks for one)."""
_REFERENCE_WORD: Final = re.compile(_REFERENCE_WORDS + r"(?!\w)", re.IGNORECASE)
_CENTURY: Final = re.compile(
    r"\b(?:abad|milenium|yüzyıl\w*|binyıl\w*|century|centuries|millennium|dekade|dasawarsa|"
    r"decade|periode|era|dönem\w*|çağ\w*|period|reign)\b|\b(?:tahun|yılı\w*|year)\s+\d+|"
    r"\d{3,4}(?:-an|'?l[ae]r\w*|s)\b",
    re.IGNORECASE,
)
_DATE_OF_AN_ACT: Final = re.compile(
    r"\b(?:pada|sejak)\s+tanggal\s+di\w+|\b(?:yayımı|yayımlandığı|kabulü)\s+tarihinde\b|"
    r"\b(?:on|from)\s+the\s+(?:date|day)\s+(?:of\s+its\s+\w+|(?:on\s+which\s+)?it\s+is\s+\w+)",
    re.IGNORECASE,
)
"""A date told by an act rather than a calendar — how a statute says when it comes into force
(``mulai berlaku pada tanggal diundangkan``, ``yayımı tarihinde yürürlüğe girer``, ``on the date
of its promulgation``)."""
_TIME_OF_AN_EVENT: Final[dict[Lang, re.Pattern[str]]] = {
    # An era by its name and a span back from now are a time in Indonesian too ("pada masa
    # Neolitikum", "10.000 tahun yang lalu"); an event ("setelah …") was measured and left out:
    # it cost more than it gave.
    "id": re.compile(
        r"(?<!\w)(?:masa|zaman|era)\s+[A-Z]\w+|\d[\d.,]*\s+(?:tahun|abad)\s+(?:yang\s+)?lalu\b|"
        r"(?<!\w)(?:pada|selama|semasa|sejak)\s+(?:masa\s+)?Perang\s+[A-Z]|"
        r"(?<!\w)(?:dalam\s+hal|apabila|bilamana|manakala)(?!\w)"
    ),
    "tr": re.compile(
        r"\w+['’]?\w*\s+(?:sonunda|başında|başlarında|sonlarında|sırasında|esnasında|"
        r"öncesinde|sonrasında|ortasında|sonuna\s+kadar)(?!\w)|"
        r"\w+['’]?[dt][ae]n\s+(?:önce|sonra)(?!\w)|"
        r"\w+[dt][ıiuü]ğ[ıiuü]n[dt][ae](?!\w)|\d[\d.,]*\s+yıl\s+önce(?!\w)",
        re.IGNORECASE,
    ),
    "en": re.compile(
        r"\b\d[\d.,]*\s+years?\s+ago\b|\b(?:during|in|since)\s+(?:the\s+)?(?:[A-Z]\w+\s+)+War\b"
    ),
}
"""A time told otherwise than by a calendar: an era, a span back from now, a war, and in Turkish
an event (``I. Dünya Savaşı’nın sonunda``, at the end of; ``Savaşı'ndan önce``, before;
``aktif olduğunda``, when it is)."""
_MONTHS: Final = re.compile(
    r"\b(?:januari|februari|maret|april|mei|juni|juli|agustus|september|oktober|november|"
    r"desember|ocak|şubat|mart|nisan|mayıs|haziran|temmuz|ağustos|eylül|ekim|kasım|aralık|"
    r"january|february|march|may|june|july|august|october|december)\b",
    re.IGNORECASE,
)
_SCALE_AND_TENS: Final[dict[Lang, str]] = {
    "id": "puluhan ratusan ribuan jutaan belas puluh ratus ribu juta miliar triliun",
    "tr": "milyon milyar",
    "en": "million billion dozen",
}
_NUMBER_WORDS: Final[dict[Lang, frozenset[str]]] = {
    # the small numbers said as one word (the numbers' own table), and the words that scale or
    # count in tens
    lang: frozenset(CARDINAL_WORDS[lang].values()) | _words(scales)
    for lang, scales in _SCALE_AND_TENS.items()
}
_REASON: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(
        r"\b(?:karena|sebab|akibat|disebabkan|alasan|dikarenakan|agar|supaya|lantaran)\b", re.I
    ),
    # ... and what a reason is said before: "bu nedenle", "therefore"
    "tr": re.compile(
        r"\b(?:çünkü|nedeniyle|dolayı|dolayısıyla|sebebiyle|yüzünden|yüzden|nedenle|sayesinde|"
        r"için|amacıyla)\b",
        re.I,
    ),
    "en": re.compile(
        r"\b(?:because|due\s+to|since|as\s+a\s+result|caused|owing|so\s+that|therefore|"
        r"thus|hence)\b",
        re.I,
    ),
}
_COPULA: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(
        r"\b(?:adalah|ialah|merupakan|yaitu|yakni|disebut|artinya|berarti|didefinisikan|"
        r"diartikan|dikenal\s+sebagai|mengacu|merujuk|menunjuk|bermakna|"
        r"dalam\s+(?:pengertian|arti))\b|:",
        re.I,
    ),
    "tr": re.compile(
        r"(?:\b(?:olarak\s+tanımlan\w*|denir|demektir|anlamına\s+gel\w*|ifade\s+eder|"
        r"olarak\s+bilinir|anlamında|manasına)\b|[dt][ıiuü]r\b|:)",
        re.I,
    ),
    "en": re.compile(
        # "X was enacted …" is a passive, not what X is.
        r"\b(?:(?:is|are|was|were)\s+(?:also\s+)?known\s+as|(?:is|are|was|were)(?!\s+\w+ed\b)|"
        r"means|refers\s+to|"
        r"defined\s+as|known\s+as|stands\s+for|in\s+the\s+sense\s+of)\b|:",
        re.I,
    ),
}
_NAMING: Final = re.compile(
    r"disebut|dikenal\s+sebagai|denir|olarak\s+bilinir|(?:(?:is|are|was|were)\s+(?:also\s+)?)?"
    r"known\s+as",
    re.I,
)
"""A marker that gives the name *after* it to what is said before it (``… yang bekerja di bidang
geometri disebut ahli ilmu ukur``): the term it defines closes the sentence, never precedes it."""
_NAME_START: Final = re.compile(r"(?<![\w'’])[A-ZÀ-ÖØ-ÞÇĞİÖŞÜ][\w'’\-]*")


@dataclass(frozen=True)
class ReadPassage:
    """A passage as the reader sees it: its citation key, text and identity lines."""

    key: str
    text: str
    identity: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unit:
    """A sentence of a passage, or a table row read under its header."""

    key: str
    text: str
    header: str | None = None
    passage: int = 0
    """The rank of its passage among those read (0 = first)."""
    position: int = 0
    """Its place in its passage."""
    part: str | None = None
    """The number or letter a statute wrote before it (``3`` of ``(3) Bumi …``, ``a`` of ``a.
    berdampak …``), lower-cased: the part of an article it is."""
    article: str | None = None
    """The article whose heading opens a line of the passage before it (``2`` under ``Madde 2 –
    Tebliğ …``), lower-cased: a statute whose articles are no sections of their own."""
    items: tuple[str, ...] = ()
    """A list's lead-in (``… meliputi:``): the item lines its passage writes right after it
    (``a. data dan informasi kesehatan;``, ``b. data biometrik;`` …), each whitespace joined —
    what an answer quotes after it: the lead-in names what the list is of, the items answer."""


@dataclass(frozen=True)
class UnitReading:
    unit: Unit
    covered: float
    placed: float
    kind: bool
    missing_names: tuple[str, ...] = ()
    """Names and numbers of the question its place does not hold."""
    opposite: bool = False
    """It holds the opposite of a word of the question, and not the word itself."""
    missing_words: int = 0
    """Content words of the question (not names, numbers or attribute words) its place lacks."""
    allowed_missing: int = 0
    """How many of them may be missing: fewer than half (a question is often written in other
    words than the text), none when the question has only one (it is what it asks about)."""
    score: float = 0.0
    elsewhere: bool = False
    """The question names an article, a passage that is the article answers, and this unit's
    passage is not it (an amendment list, a clause citing the article)."""

    @property
    def relevance(self) -> float:
        """0–1: what the unit holds of the question (0.3), what its place holds (0.4) and an
        answer of the asked kind (0.3, in proportion to what its place holds: an answer of the
        right kind about something else is no answer) — the score without the retrieval's
        order."""
        return _relevance(self.covered, self.placed, self.kind)

    @property
    def answers(self) -> bool:
        return (
            _unit_chars(self.unit.text) <= MAX_UNIT_CHARS
            and not self.missing_names
            and not self.opposite
            and self.missing_words <= self.allowed_missing
            and self.placed >= PLACED_MIN
            and self.covered >= COVERED_MIN
            and self.kind
            and not self.elsewhere
        )


def _unit_chars(text: str) -> int:
    """A unit's length without its bracketed asides: ``Pertempuran Semenanjung Kerch (German:
    …) (Russian: …) adalah …`` is one sentence, however long its names in other languages."""
    return len(_ASIDE.sub("", text)) if len(text) > MAX_UNIT_CHARS else len(text)


def _relevance(covered: float, placed: float, kind: bool) -> float:
    return 0.3 * covered + placed * (0.4 + (0.3 if kind else 0.0))


@dataclass(frozen=True)
class Reading:
    """Every unit read, best first."""

    ranked: list[UnitReading] = field(default_factory=list)

    @property
    def best(self) -> UnitReading | None:
        return self.ranked[0] if self.ranked else None

    @property
    def answers(self) -> bool:
        return self.best is not None and self.best.answers

    def answering(self, limit: int) -> list[UnitReading]:
        """At most ``limit`` units that each answer, best first — those after the first only when
        they score at least :data:`CLOSE_TO_BEST` of its score for a table row (an answer, not a
        list of every row that mentions the question's words), :data:`SENTENCE_CLOSE_TO_BEST`
        for a sentence. A unit repeating one already taken from the same passage word for word
        (a table whose row is written twice) is not taken again."""
        seen: set[tuple[str, str]] = set()
        units = []
        for r in self.ranked:
            said = (r.unit.key, " ".join(r.unit.text.split()))
            if r.answers and said not in seen:
                seen.add(said)
                units.append(r)
        units = units[:limit]
        if not units:
            return []
        return [
            r
            for r in units
            if r.score
            >= (CLOSE_TO_BEST if r.unit.header is not None else SENTENCE_CLOSE_TO_BEST)
            * units[0].score
        ]


# -- units ----------------------------------------------------------------------------------------


def passage_units(passage: ReadPassage, rank: int = 0) -> list[Unit]:
    """A table's rows under its header (``a | b`` lines), else the passage's sentences — a piece
    the splitter cut at a colon inside a line read with what follows it."""
    return list(_passage_units(passage.key, passage.text, rank))


@lru_cache(maxsize=4096)
def _passage_units(key: str, passage: str, rank: int) -> tuple[Unit, ...]:
    """A table's rows under its header (``a | b`` lines), else the passage's sentences."""
    lines = [line.strip() for line in passage.splitlines() if line.strip()]
    if len(lines) >= 2 and " | " in lines[0]:
        header = lines[0]
        cells = header.count("|")
        rows = [line for line in lines[1:] if line.count("|") == cells]
        if rows:
            return tuple(
                Unit(key, " ".join(row.split()), header, rank, n) for n, row in enumerate(rows)
            )
    units: list[Unit] = []
    headings = inline_articles(passage)
    for start, end in whole_sentence_spans(passage, max_chars=MAX_UNIT_CHARS):
        text = " ".join(passage[start:end].split())
        if len(text) >= MIN_UNIT_CHARS and any(ch.isalpha() for ch in text):
            marker = _PART_BEFORE.search(passage, max(0, start - 8), start)
            part = marker.group(1).lower() if marker is not None else None
            under = [number for at, number in headings if at <= start]
            article = under[-1] if under else None
            items = _list_items(passage, end) if text.endswith(":") else ()
            units.append(Unit(key, text, None, rank, len(units), part, article, items))
    return tuple(units)


_ITEM_LINE: Final = re.compile(r"[.\s]*(?:[a-z]|\d{1,3})[.)]{1,2}\s+\S|[-•–]\s+\S", re.IGNORECASE)
"""A line a list item opens: ``a. …``, ``1. …``, ``b) …``, ``- …`` (an article's ``(3)`` opens
its next part, not an item)."""
MAX_ITEMS_CHARS: Final = 600
"""A lead-in quotes its items up to this many characters, whole items only."""


def _list_items(passage: str, end: int) -> tuple[str, ...]:
    """The item lines right after a lead-in ending at ``end``: whole lines each opened by an
    item's letter, number or bullet, up to the first line that is not one (the next part of an
    article, a sentence) or :data:`MAX_ITEMS_CHARS`."""
    rest = passage[end:]
    if not rest.lstrip(" \t").startswith(("\n", "\r")):
        return ()  # the list is written on the lead-in's line: its own sentences
    items: list[str] = []
    size = 0
    for line in rest.splitlines():
        line = " ".join(line.split())
        if not line:
            continue
        if not _ITEM_LINE.match(line) or size + len(line) > MAX_ITEMS_CHARS:
            break
        items.append(line.lstrip(". "))  # an OCR'd dot before the letter is no part of it
        size += len(line) + 1
    return tuple(items)


_PART_BEFORE: Final = re.compile(r"(?:^|(?<=\s))\(?(\d{1,3}|[a-z])[.)]\s*$", re.IGNORECASE)
"""An article's part number or letter right before a sentence (``(3) ``, ``1. ``, ``a. ``)."""


# -- matching -------------------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def _terms(text: str, lang: Lang) -> frozenset[str]:
    return frozenset(index_terms(text, lang))


@lru_cache(maxsize=8192)
def _surfaces(text: str) -> frozenset[str]:
    return frozenset(surface_terms(text))


class _Keys:
    """What a focus term may meet in a text, built once per text: its stems and folded words,
    and — only when a term needs them — the beginnings and endings of its stems (a stem meeting
    a longer form of itself) and its longer words with one letter dropped (a name spelt one
    letter off)."""

    def __init__(
        self,
        stems: frozenset[str],
        surfaces: frozenset[str],
        lang: Lang,
        capitals: frozenset[str] = frozenset(),
        text: str = "",
    ) -> None:
        self.stems = stems
        self.surfaces = surfaces
        self.words = stems | surfaces
        self.lang = lang
        self.capitals = capitals
        """Words written in capitals (``ABD``, ``USA``), folded."""
        self.text = text

    @cached_property
    def written(self) -> frozenset[str]:
        """The words written with letters folding drops, as written (lower-cased): ``öldü``
        (died) is not ``oldu`` (was), whose folded keys are one (issue 22)."""
        return frozenset(w for w in tokenize(self.text, self.lang) if not w.isascii())

    def meets(self, group: frozenset[str]) -> bool:
        """Whether the text holds a key of ``group`` (of :mod:`tanda.retrieval.opposites`): a
        folded word or stem, or a word keyed as written."""
        return not self.words.isdisjoint(group) or not self.written.isdisjoint(group)

    @cached_property
    def roots(self) -> frozenset[str]:
        """The roots each word may have (:func:`tanda.retrieval.roots.id_roots`), in Indonesian
        only."""
        if self.lang != "id":
            return frozenset()
        return frozenset(r for w in self.surfaces for r in id_roots(w))

    @cached_property
    def by_head(self) -> dict[str, list[str]]:
        """The words by their first :data:`VERB_ROOT_MIN` letters, in Turkish only."""
        out: dict[str, list[str]] = {}
        if self.lang == "tr":
            for w in self.surfaces:
                if len(w) >= VERB_ROOT_MIN:
                    out.setdefault(w[:VERB_ROOT_MIN], []).append(w)
        return out

    @cached_property
    def heads(self) -> frozenset[str]:
        """The first :data:`HEAD_LETTERS` letters of each longer word, in Turkish only."""
        if self.lang != "tr":
            return frozenset()
        return frozenset(w[:HEAD_LETTERS] for w in self.surfaces if len(w) >= HEAD_LETTERS)

    @cached_property
    def affixes(self) -> frozenset[str]:
        return frozenset(
            piece
            for word in self.stems
            if len(word) > FUZZY_STEM_MIN - 1
            for n in range(FUZZY_STEM_MIN - 1, len(word))
            for piece in (word[:n], word[-n:])
        )

    @cached_property
    def beginnings(self) -> frozenset[str]:
        return frozenset(
            word[:n]
            for word in self.stems
            if len(word) > FUZZY_STEM_MIN - 1
            for n in range(FUZZY_STEM_MIN - 1, len(word))
        )

    @cached_property
    def deletes(self) -> frozenset[str]:
        """The longer words with one letter dropped — not those written in capitals: an
        acronym one letter off is another one (``FALINTIL`` is not ``Fatintil``)."""
        return frozenset(
            variant
            for word in self.surfaces
            if len(word) >= NAME_FUZZY_MIN - 1 and word not in self.capitals
            for variant in _deletes(word)
        )


@lru_cache(maxsize=8192)
def _keys(text: str, lang: Lang) -> _Keys:
    capitals = frozenset(fold(w.lower()) for w in _CAPITALS.findall(text))
    stems = _terms(text, lang) | _apostrophe_words(text, lang)
    stems |= _abbreviated(text, lang)
    # A short form written in capitals, keyed so (``UU``): a question's long form meets it so.
    stems |= {w.upper() for w in capitals if len(w) <= SHORT_IN_CAPITALS}
    if _LIFE_SPAN.search(_REFERENCE_MARK.sub("", text)):
        # "Petrus Lombardus (1100 – 21 Juli 1160)": a person's years in brackets say when they
        # were born and when they died, without the words.
        stems |= _life_keys(lang)
    return _Keys(stems, _surfaces(text), lang, capitals, text)


_APOSTROPHE_WORD: Final = re.compile(r"[^\W\d_]+['’][^\W\d_]+(?:['’][^\W\d_]+)*")


def _apostrophe_words(text: str, lang: Lang) -> frozenset[str]:
    """The words of ``text`` written with an apostrophe inside, whole, with either apostrophe
    (``ma'ruf``, ``ma’ruf``): the tokenizer splits them (a Turkish suffix falls away), but a
    question names ``Ma'ruf Amin``, ``O'Neal``, ``Bahá'í`` as written."""
    if "'" not in text and "’" not in text:
        return frozenset()
    words = {fold(lowercase(w, lang)) for w in _APOSTROPHE_WORD.findall(text)}
    return frozenset(form for w in words for form in (w, w.replace("’", "'"), w.replace("'", "’")))


def _abbreviated(text: str, lang: Lang) -> frozenset[str]:
    """The short forms (:data:`~tanda.retrieval.equivalents.ABBREVIATIONS`) of the long forms
    ``text`` writes out: ``Peraturan Daerah`` holds ``perda``, as a question may write it (a
    question writing the long form meets a text writing the short one through its words'
    alternatives, :func:`~tanda.retrieval.equivalents.compounds`)."""
    said = _surfaces(text)
    # Only a long form whose every word the text says can be written out in it: the text is
    # tokenized again, in order, only then (most texts write none).
    candidates = [(short, long) for short, long, words in abbreviations(lang) if words <= said]
    if not candidates:
        return frozenset()
    joined = f" {' '.join(surface_terms(text, lang))} "
    return frozenset(short for short, long in candidates if f" {long} " in joined)


_LIFE_SPAN: Final = re.compile(
    r"[A-ZÀ-ÖØ-ÞÇĞİÖŞÜ][\w'’.-]*,?\s*"
    r"\([^()]*?(?<!\d)\d{3,4}(?!\d)[^()\d]*?[-–—][^()]*?(?<!\d)\d{3,4}(?!\d)[^()]*\)"
)
"""A bracket right after a name holding two years joined by a dash: a life's span."""
_REFERENCE_MARK: Final = re.compile(r"\[\d{1,3}\]")
"""A reference mark (``Lombardia[1][2]``): not a number of the text, taken out before a life
span is looked for."""
_LIFE_WORDS: Final[dict[Lang, str]] = {
    "id": "lahir dilahirkan kelahiran meninggal wafat kematian",
    "tr": "doğdu doğmuş doğum doğumu öldü ölmüş ölüm ölümü vefat",
    "en": "born birth died dead death",
}


@cache
def _life_keys(lang: Lang) -> frozenset[str]:
    """What a life's span in brackets says: the words of being born and of dying, as keys (made
    when first asked, not at import)."""
    listed = [lowercase(w, lang) for w in _LIFE_WORDS[lang].split()]
    return frozenset(fold(w) for w in listed) | frozenset(fold(s) for s in stem(listed, lang))


_CAPITALS: Final = re.compile(r"(?<![\w'’])[A-ZÀ-ÖØ-ÞÇĞİÖŞÜ]{2,}(?![a-zà-öø-ÿçğıöşü])")


def _deletes(word: str) -> set[str]:
    """``word`` and every form of it with one letter dropped."""
    return {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}


_RANGE_PARTS: Final = re.compile(r"(?<=\d)[-–—/](?=\d)")
VERB_ROOT_MIN: Final = 4
_VERB_ENDINGS: Final = tuple(
    sorted(
        (
            fold(e)
            for e in _words(
                """
                mıştır miştir muştur müştür mışlardır mişlerdir mış miş muş müş dılar diler dular
                düler tılar tiler tular tüler dı di du dü tı ti tu tü dır dir dur dür tır tir tur
                tür ıyordu iyordu uyordu üyordu yordu ıyor iyor uyor üyor yor acak ecek mak mek
                ması mesi maktadır mektedir yan yen an en ar er ır ir ur ür
                """
            )
        ),
        key=len,
        reverse=True,
    )
)
"""Turkish tense and mood endings, folded, longest first: the Snowball stemmer reads nouns, and
leaves a verb's endings on (``oynamıştır`` → ``oynamış``)."""


@lru_cache(maxsize=4096)
def _verb_root(word: str) -> str:
    """A Turkish word (folded) without its longest tense or mood ending, when what is left has
    :data:`VERB_ROOT_MIN` letters or more (``oynamistir`` → ``oyna``, met by ``oynayan``,
    ``oynadi``); else ``""`` (``girmistir``: ``gir`` is too short to tell a verb by)."""
    ending = next((e for e in _VERB_ENDINGS if word.endswith(e)), "")
    return word[: -len(ending)] if ending and len(word) - len(ending) >= VERB_ROOT_MIN else ""


_PASSIVE: Final = ("il", "ul")
"""The Turkish passive suffix after a consonant, folded (``yaz`` / ``yazıl``, ``kur`` /
``kurul``, ``aç`` / ``açıl``). After a vowel it is ``n`` (``oyna`` / ``oynan``), which also ends
roots of other words (``kaza`` accident, ``kazan`` win): not read."""


_TR_VOWELS: Final = "aeıioöuü"


def _dropped_vowel(term: FocusTerm, keys: _Keys) -> bool:
    """A Turkish word whose last syllable's narrow vowel drops before a vowel suffix meets
    its suffixed form: ``nehir`` / ``Nehri``, ``şehir`` / ``şehrin``, ``isim`` / ``ismi``."""
    word = _plain_stem(term)
    if len(word) < VERB_ROOT_MIN or word[-2] not in "iıuü" or word[-1] in _TR_VOWELS:
        return False
    if word[-3] in _TR_VOWELS:
        return False
    dropped = word[:-2] + word[-1]
    return any(
        w.startswith(dropped) and len(w) > len(dropped) and w[len(dropped)] in _TR_VOWELS
        for w in keys.by_head.get(dropped[:VERB_ROOT_MIN], ())
    )


def _plain_stem(term: FocusTerm) -> str:
    """The question's word as written, folded, its case ending off when the stemmer took one
    (``nehirde`` → ``nehir``)."""
    surface = fold(term.surface)
    return (
        term.stem if surface.startswith(term.stem) and len(term.stem) >= VERB_ROOT_MIN else surface
    )


def _suffixed_short_word(word: str, keys: _Keys) -> bool:
    """A Turkish word of :data:`VERB_ROOT_MIN` letters as the question writes it (``müze``,
    ``batı``, ``yasa``) meets the text's word that is it with a suffix (``müzesi``, ``batıya``,
    ``yasası``) — the stemmer cuts the short bare word and its suffixed forms at different
    places. The suffix must begin as one does after such a word: after a vowel with a buffer
    or case consonant (``yasak``, ``karar`` and ``ortaokul`` are other words), after a
    consonant with a vowel or a case consonant."""
    if len(word) != VERB_ROOT_MIN:
        return False
    after = "synldtm" if word[-1] in _TR_VOWELS else _TR_VOWELS + "ldtm"
    return any(
        w.startswith(word) and len(w) > len(word) and w[len(word)] in after
        for w in keys.by_head.get(word, ())
    )


@lru_cache(maxsize=4096)
def _other_voice(stem: str) -> frozenset[str]:
    """A Turkish verb stem (folded) in the other voice: ``yazıldı`` answers ``yazdı`` (wrote),
    ``açtı`` answers ``açıldı``. Roots of two letters or more only."""
    if len(stem) < 2 or stem[-1] in "aeiou":
        return frozenset()
    voices = {stem + suffix for suffix in _PASSIVE}
    for suffix in _PASSIVE:
        if stem.endswith(suffix) and len(stem) - len(suffix) >= 2:
            voices.add(stem[: -len(suffix)])
    return frozenset(voices)


def _holds(term: FocusTerm, keys: _Keys) -> bool:
    """Whether the text of ``keys`` holds ``term``: its stem or folded word, a word of its group
    (:mod:`tanda.retrieval.equivalents`), a longer or shorter form of its stem (at least
    :data:`FUZZY_STEM_MIN` - 1 letters in common at one end: ``merdeka`` / ``kemerdekaan``), and
    for a name of :data:`NAME_FUZZY_MIN` letters or more, a spelling one letter off."""
    words = keys.words
    if term.stem in words or any(other in words for other in term.alternatives):
        return True
    if term.number:
        # A range the question writes with a hyphen (``1620-21``) is held by its numbers, however
        # the text joins them (``1620–21``).
        parts = _RANGE_PARTS.split(term.stem)
        return len(parts) > 1 and all(part in words for part in parts)
    if term.acronym:
        # An acronym is said as it is or not at all: one letter more or less is another one
        # (``KASAD`` is not ``Kasai``, whose stem the stemmer cuts to ``kasa``).
        return False
    if keys.lang == "tr" and not term.name:
        # Turkish piles its suffixes on a word the stemmer often cuts at different places
        # (``bırakılmıştır`` / ``bırakılan``): words sharing their first five letters meet.
        head = fold(term.surface)[:HEAD_LETTERS]
        if len(head) == HEAD_LETTERS and head in keys.heads:
            return True
        if not words.isdisjoint(_other_voice(term.stem)):
            return True
        root = _verb_root(fold(term.surface))
        if root and any(w.startswith(root) for w in keys.by_head.get(root[:VERB_ROOT_MIN], ())):
            return True
        if _suffixed_short_word(fold(term.surface), keys) or _dropped_vowel(term, keys):
            return True
    if keys.lang == "id" and not term.name and not keys.roots.isdisjoint(id_roots(term.surface)):
        # Snowball cuts the affixes of one root differently (``mengesahkan`` → ``esah``,
        # ``disahkan`` → ``sahkan``): words meet by the roots their affixes leave.
        return True
    stem = term.stem
    if len(stem) >= FUZZY_STEM_MIN - 1:
        # A name varies only in its ending (``Jepang`` / ``Jepangnya``): its end is no other name
        # (``Bertengah`` is not ``Tengah``).
        if stem in (keys.beginnings if term.name else keys.affixes):
            return True
        for n in range(FUZZY_STEM_MIN - 1, len(stem)):
            if stem[:n] in words or (not term.name and stem[-n:] in words):
                return True
    if term.name:
        folded = fold(term.surface)
        if len(folded) >= NAME_FUZZY_MIN and not _deletes(folded).isdisjoint(keys.deletes):
            return True
    return False


def _near_spellings(question: QuestionAnalysis, everywhere: Sequence[_Keys]) -> QuestionAnalysis:
    """``question`` with each focus word that no passage read holds (:func:`_holds`, anywhere
    in any of them) met through the passages' words one letter from it (issue 22, V2-19): the
    question's ``stalakmit`` through ``Stalagmit``, ``homeostatis`` through ``Homeostasis`` — a
    typo, as retrieval corrects one (:mod:`tanda.retrieval.spelling`: words of
    :data:`~tanda.retrieval.spelling.MIN_LETTERS` letters or more, letters only; the word the
    most passages say, ties kept). A word some passage holds is matched as it is, never loosely;
    names (their own spelling rule, :data:`NAME_FUZZY_MIN`) and numbers are left alone; only
    one word of a question is read so. The near word counts as a near form
    (:data:`EQUIVALENT_COST`)."""
    loose = [
        n
        for n, t in enumerate(question.focus)
        if not (t.name or t.number) and (correctable(t.stem) or correctable(fold(t.surface)))
    ]
    if not loose or not everywhere:
        return question
    unheld = [n for n in loose if not any(_holds(question.focus[n], k) for k in everywhere)]
    if not unheld:
        return question

    # Never a word written in capitals: an acronym one letter off is another (``FALINTIL`` is
    # not ``Fatintil``).
    said = frozenset().union(*(keys.words - keys.capitals for keys in everywhere))

    def said_by(words: Sequence[str]) -> dict[str, int]:
        """How many passages say each word (a word none says is left out)."""
        return {
            w: sum(1 for keys in everywhere if w in keys.words) for w in said.intersection(words)
        }

    near: dict[int, tuple[str, ...]] = {}
    for n in unheld:
        term = question.focus[n]
        found = corrections(dict.fromkeys((term.stem, fold(term.surface))), said_by)
        if found:
            near[n] = tuple(dict.fromkeys(w for words in found.values() for w in words))
    if len(near) != 1:
        # One word at most is read loosely: two words of the question each one letter from a
        # word of the passages are more likely another subject than a question mistyped twice
        # ("jerut jerang" is not "jeruk … Jepang").
        return question
    ((n, words),) = near.items()
    focus = list(question.focus)
    focus[n] = focus[n].model_copy(update={"alternatives": focus[n].alternatives + words})
    return question.model_copy(update={"focus": tuple(focus)})


# -- the kind of answer ---------------------------------------------------------------------------


def holds_kind(question: QuestionAnalysis, text: str) -> bool:
    """Whether ``text`` holds an answer of the kind ``question`` asks for."""
    kind = question.kind
    asked = {fold(t.surface) for t in question.focus}
    if kind == "time":
        if (
            _YEAR.search(text)
            or _MONTHS.search(text)
            or _CENTURY.search(text)
            or _DATE_OF_AN_ACT.search(text)
            or _TIME_OF_AN_EVENT[question.lang].search(text)
        ):
            return True
        quantities = extract_quantities(text, question.lang)
        return any(q.kind in _TIME_KINDS for q in quantities)
    if kind == "number":
        if _asks_duration(question) and _YEAR_SPAN.search(text):
            return True  # "how long": from one year to another
        measure = _asked_measure(question)
        if measure is not None:
            # "How large": an area, not any number of the sentence; "how high": a length.
            return _MEASURES[measure][1].search(text) is not None
        # A quantity the question does not state; a year is a time, not how many or how much,
        # and the number of an article or its part ("sebagaimana dimaksud pada ayat (1)") is a
        # place in a statute.
        counted = text if _REFERENCE_WORD.search(question.text) else _REFERENCE.sub(" ", text)
        numbers = {n for n in re.findall(r"\d+(?:[.,]\d+)*", counted) if not _BARE_YEAR.match(n)}
        if numbers - set(question.numbers):
            return True
        words = {fold(w) for w in surface_terms(text)}
        return bool(words & {fold(w) for w in _NUMBER_WORDS[question.lang]})
    if kind == "place" and question.lang == "id":
        return _place_said(question, text)
    if kind in ("person", "place"):
        # The article a statute cites (``sebagaimana dimaksud dalam Pasal 58 ayat (2)``) is where
        # it says something, not who or where.
        named = _names(_REFERENCE.sub(" ", text), agents=kind == "person", asked=asked)
        if any(fold(name.lower()) not in asked for name in named):
            return True
        if kind == "person" and _subject_of(question, text):
            return True
        if kind == "person" and not any(t.name for t in question.focus):
            # "Siapakah orang tua?" asks who parents are, a kind of person: a definition
            # answers ("Orang tua adalah ayah dan/atau ibu …").
            return _defines(question, text)
        return kind == "place" and _turkish_where(question, text)
    if kind == "definition":
        return _defines(question, text)
    if kind == "reason":
        return _REASON[question.lang].search(text) is not None
    # manner, thing: something the question does not already say
    said = {t.stem for t in question.focus}
    if len(_terms(text, question.lang) - said) >= 2:
        return True
    # A labelled value ("Payment account: NL13RABO0377815500"): the label says what is asked,
    # the value after it, one word or more, is the answer.
    labelled = _LABELLED.match(text)
    if labelled is not None and _terms(labelled.group(1), question.lang) - said:
        return True
    # "Bahasa Negara ialah Bahasa Indonesia": what it is may be said in the question's own words,
    # one of them said after the copula and not before it.
    copula = _IS.get(question.lang)
    parts = copula.split(text, maxsplit=1) if copula is not None else []
    if len(parts) == 2:
        subject, predicate = (_terms(part, question.lang) & said for part in parts)
        return bool(subject) and bool(predicate - subject)
    return False


_IS: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(r"\s(?:ialah|adalah|merupakan)\s", re.I),
    "en": re.compile(r"\s(?:is|are|was|were)\s", re.I),
}
"""The word that says what a subject is (Turkish says it with a suffix: not read)."""


_LABELLED: Final = re.compile(r"[^\W\d_][^:\n]{0,60}:\s+(\S.*)", re.DOTALL)
"""A line ``Label: value`` (a label of letters first, short; a value after it)."""


_TR_WHERE: Final[dict[str, re.Pattern[str]]] = {
    # "nerede" (where) is answered in the locative, "nereden" (from where) in the ablative:
    # "dağlık bölgelerde", "bir uydu platformundan" — a place need not be a name.
    "nerede": re.compile(r"(?<!\w)\w{3,}?(?:n?[dt][ae])(?!\w)"),
    "nereden": re.compile(r"(?<!\w)\w{3,}?(?:n?[dt][ae]n)(?!\w)"),
}
_TR_NOT_PLACES: Final = tuple(
    fold(w)
    for w in _words(
        "yıl sıra zaman dönem süre tarih ay gün hafta saat sonra önce sırada ayrıca halde durum "
        "biçim şekil oran ölçü"
    )
)
"""What a Turkish locative says that is not where: a time, a manner, a measure."""


def _turkish_where(question: QuestionAnalysis, text: str) -> bool:
    """A Turkish place question answered by a word in the case it asks for that the question
    does not say and that is not a time, a manner or a measure."""
    if question.lang != "tr" or question.question_word not in _TR_WHERE:
        return False
    asked = {t.stem for t in question.focus}
    found = [m.group() for m in _TR_WHERE[question.question_word].finditer(lowercase(text, "tr"))]
    folded = [(s, fold(s)) for s in stem(found, "tr")]
    return any(
        s not in asked and f not in asked and not f.startswith(_TR_NOT_PLACES) for s, f in folded
    )


_NUMBER_THEN: Final = r"\d(?:[\d.,]*\d)?\s?(?:-\s?)?"
_MEASURES: Final[dict[str, tuple[frozenset[str], re.Pattern[str]]]] = {
    # The words that ask for a measure (folded) and how its value is written.
    "area": (
        _words("luas luasnya seluas area yüzölçümü yuzolcumu"),
        re.compile(
            _NUMBER_THEN + r"(?:[kc]?m\s?(?:²|2\b|persegi)|ha\b|hektar\w*|hectares?\b|are\b|"
            r"(?:square|sq\.?)\s?(?:kilomet\w+|km|mi\w*|met\w+|m)\b|"
            r"(?:kilometer|kilometre|meter|metre|mil)\s?persegi|mi²|acres?\b|dönüm|"
            r"(?:kilo)?metrekare|%|persen\b|percent\b)",
            re.IGNORECASE,
        ),
    ),
    "length": (
        _words(
            "tinggi ketinggian panjang jarak kedalaman height high tall length far distance "
            "deep depth "
            "yükseklik yukseklik uzunluk mesafe derinlik"
        ),
        re.compile(
            _NUMBER_THEN + r"(?:[kcm]?m\b|meter\w*|metre\w*|kilomet\w+|mil\b|miles?\b|kaki\b|"
            r"feet\b|ft\b|foot\b|inci\b|inch\w*|mdpl\b)",
            re.IGNORECASE,
        ),
    ),
}


_DURATION_WORDS: Final = _words("lama lamanya lamakah long süre süredir sürdü sürmüştür")
_FOLDED_DURATION: Final = frozenset(fold(w) for w in _DURATION_WORDS)
_YEAR_SPAN: Final = re.compile(
    r"\b(?:1\d{3}|20\d{2})(?:\s*(?:[-–—]|sampai|hingga|s\.d\.?|to|until)\s*(?:tahun\s+)?"
    r"|['’]?[dt][ae]n\s+)(?:1\d{3}|20\d{2})\b",
    re.IGNORECASE,
)
"""From one year to another: ``1945 hingga 1965``, ``1914–1918``, ``1870'ten 1939'a``."""


def _asks_duration(question: QuestionAnalysis) -> bool:
    """A number question asking how long (``berapa lama``, ``ne kadar süre``, ``how long``)."""
    said = {fold(t.surface) for t in question.focus} | {
        fold(w) for w in (question.question_word or "").split()
    }
    return not said.isdisjoint(_FOLDED_DURATION)


def _asked_measure(question: QuestionAnalysis) -> str | None:
    """The measure a number question asks for (``Berapa luas …`` an area, ``Berapa tinggi …``
    a length), when one of its words, as written, asks for one (``tertinggi`` does not: the
    highest of anything)."""
    said = {fold(t.surface) for t in question.focus} | {
        fold(w) for w in (question.question_word or "").split()
    }
    said -= _degrees(question.text, question.lang)
    for measure, (measured, _) in _MEASURES.items():
        if said & measured:
            return measure
    return None


_DEGREE_BEFORE: Final = _words("paling lebih kurang en daha most more less least")
"""Words that make the word after them a degree (``paling tinggi``, ``en uzun``)."""


@lru_cache(maxsize=1024)
def _degrees(text: str, lang: Lang) -> frozenset[str]:
    """The words of the question ``text`` said as a degree, not asked as a measure: ``denda …
    paling tinggi`` (the highest fine, "at most") asks for no height. Once per question, not
    per unit read."""
    words = [w for w, _ in _plain_words(text, lang)]
    return frozenset(w for before, w in itertools.pairwise(words) if before in _DEGREE_BEFORE)


NEAR_NUMBER: Final = 2
"""A count or a measure is written next to what it counts (``330 desa``, ``tujuh kali``)."""
NEAR_TIME: Final = 4
"""A date is written near the event it dates (``didirikan pada tahun 1238``)."""


def answer_near_focus(question: QuestionAnalysis, text: str) -> bool:
    """For a number or time question: the unit's number or date stands next to a word of the
    question that is not a name (``Berapa jumlah desa …`` — ``330 desa``, not ``Gresik
    mencapai 1.251.754 jiwa``) — the answer is about what was asked, not only beside it."""
    if question.kind not in ("number", "time"):
        return False
    words = _plain_words(text, question.lang)
    asked = {t.stem for t in question.focus if not (t.number or t.name)} | {
        fold(t.surface) for t in question.focus if not (t.number or t.name)
    }
    near = NEAR_NUMBER if question.kind == "number" else NEAR_TIME
    said = set(question.numbers)
    numbers = _NUMBER_WORDS[question.lang] if question.kind == "number" else frozenset()
    at_focus = [n for n, (surface, stem) in enumerate(words) if stem in asked or surface in asked]
    if not at_focus:
        return False
    for n, (surface, _) in enumerate(words):
        if surface in said:
            continue
        if question.kind == "number":
            answer = (surface[:1].isdigit() and not _BARE_YEAR.match(surface)) or (
                surface in numbers
            )
        else:
            answer = bool(_BARE_YEAR.match(surface) or _MONTHS.fullmatch(surface))
        if answer and any(abs(n - m) <= near for m in at_focus):
            return True
    return False


_AT_PLACE: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(
        r"(?<!\w)(?:di|ke|dari|antara|asal|dekat|sekitar|dalam|mendiami|menghuni)"
        r"(?:\s+|\s*,\s*)(?=\S)"
    ),
}
_NAMED_PLACE: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(
        r"(?<![\w'’])([A-ZÀ-ÖØ-Þ][\w'’-]*)\s+(?:[\w-]+\s+){0,2}?"
        r"(?:adalah|merupakan|menjadi|ialah)\s+(?:\w+\s+)?(?:tempat|lokasi)\b"
    ),
}
"""A name said to be the place of something: ``Kastil Xavier menjadi tempat …``."""
_PLACE_RUN: Final = re.compile(r"\s*(?:[\w'’.-]+|,)")
PLACE_RUN_WORDS: Final = 8
"""How far after a place preposition a place name is looked for: ``di borough kerajaan
Kensington dan Chelsea, London, Inggris``."""


_LANDFORMS: Final = _words("kepulauan pulau gunung sungai danau teluk selat")
"""Kinds of a place named after them (``Kepulauan Tanimbar``), as :data:`_PLACE_KINDS`."""


def _place_said(question: QuestionAnalysis, text: str) -> bool:
    """Whether ``text`` says where: a name after a place preposition (``di``, ``dari``,
    ``dalam bahasa …``) — common words, commas and names between them — that the question
    does not say (``terletak di wilayah Bohemia, Eropa Tengah`` for "letak kerajaan
    Bohemia")."""
    asked = {fold(t.surface) for t in question.focus}
    no_place = asked | _PLACE_KINDS | _LANDFORMS | _EVERYWHERE
    life = _LIFE_SPAN.search(_REFERENCE_MARK.sub("", text))
    if life is not None and any(
        fold(name.lower()) not in asked for name in _names(life.group(), asked=asked)
    ):
        return True  # "(c. 1096, Novara – 21 Juli 1160, Paris)": where born and where died
    for named in _NAMED_PLACE[question.lang].finditer(text):
        if fold(named.group(1).lower()) not in asked:
            return True  # "Kastil Xavier menjadi tempat Fransiskus dilahirkan"
    for at in _AT_PLACE[question.lang].finditer(text):
        position = at.end()
        for _ in range(PLACE_RUN_WORDS):
            word = _PLACE_RUN.match(text, position)
            if word is None:
                break
            position = word.end()
            said = word.group().strip()
            key = fold(said.lower().strip("."))
            if said[:1].isupper() and key not in no_place:
                return True  # a name, not only its kind ("di Kabupaten Kepulauan Tanimbar")
            if said.endswith(".") and len(said) != 2:
                break  # a sentence's end (not an initial: "c. 1096", "H. Uso")
    return False


_PLAIN_WORD: Final = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")


@lru_cache(maxsize=8192)
def _plain_words(text: str, lang: Lang) -> tuple[tuple[str, str], ...]:
    """(folded word, folded stem) of each word and whole number of ``text``, in order."""
    tokens = [lowercase(t, lang) for t in _PLAIN_WORD.findall(text)]
    return tuple(
        (fold(t), fold(t) if t[0].isdigit() else fold(s))
        for t, s in zip(tokens, stem(tokens, lang), strict=True)
    )


def _names(text: str, *, agents: bool = True, asked: Container[str] = frozenset()) -> list[str]:
    """Capitalised words that are not a sentence's first word (unless a second one follows
    that is not one of the ``asked`` words: ``Ayah Fransiskus meninggal …`` begins with a
    common word before the subject's name), nor a month, a weekday or an era (``Desember``,
    ``SM``: a time, not who or where); with ``agents`` false, nor a name said as the doer
    (``oleh Invoke Media``, ``by Sony``: who, not where)."""
    found = list(_NAME_START.finditer(text))
    names: list[str] = []
    for index, match in enumerate(found):
        word = re.split(r"['’]", match.group())[0]
        first = match.start() == 0 or text[: match.start()].rstrip().endswith((".", ":", "|"))
        following = (
            index + 1 < len(found)
            and found[index + 1].start() - match.end() <= 1
            and fold(re.split(r"['’]", found[index + 1].group())[0].lower()) not in asked
        )
        if first and not following:
            continue
        if _MONTHS.fullmatch(word) or _TIME_NAMES.fullmatch(word):
            continue
        if not agents and _AGENT_BEFORE.search(text[: match.start()]):
            continue
        if not agents and fold(word.lower()) in _EVERYWHERE:
            continue  # "… air tawarnya di Bumi": where everything is, no answer to where
        names.append(word)
    return names


_WHO_DOES: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(r"^\s*siapa(?:kah)?\s+yang\s+(\S+)", re.I),
    "en": re.compile(r"^\s*who\s+(?!is\b|are\b|was\b|were\b)(\S+)", re.I),
}
""""Siapa yang wajib …", "Who enacted …": the question's predicate, its first word captured
(not "Who is …", which asks for a name)."""


def _subject_of(question: QuestionAnalysis, text: str) -> bool:
    """Whether ``text`` says the question's predicate ("Siapa yang *wajib menghormati* …") after
    a subject of words the question does not say — a statute's "Setiap orang wajib menghormati
    …", "Pemerintah berperan …": who, though it is no name."""
    asked = _who_does(question.text, question.lang)
    if asked is None:
        return False
    verb, question_keys, voice = asked
    lang = question.lang
    words = _plain_words(text, lang)
    at = next(
        (
            i
            for i, pair in enumerate(words)
            if not verb.isdisjoint(pair)
            and (pair[0] in verb or not _nominal(pair, lang))
            # "Lembaga … diawasi": before a passive, what is done to, not who does it
            and (voice is None or _voice(pair, lang) in (voice, None))
        ),
        None,
    )
    # An active verb coordinated before it (``merumuskan dan menetapkan``) is no subject (asked
    # only there: ``menteri`` reads as one too).
    while at and at >= 2 and words[at - 1][0] in _AND and _voice(words[at - 2], lang) == "me":
        at -= 2
    if not at:
        return False  # the predicate not said, or said first: no subject before it
    return any(
        len(w) > 1  # not a list's letter (``a. menetapkan …``)
        and w not in question_keys
        and s not in question_keys
        and not is_function_word(w, lang)
        for w, s in words[:at]
    )


_AND: Final = _words("dan atau serta")
"""Indonesian words coordinating two verbs."""


def _voice(pair: tuple[str, str], lang: Lang) -> str | None:
    """An Indonesian verb's voice as its prefix reads (``me``: active, ``di``: passive);
    ``None`` for any other word, or language."""
    word, root = pair
    if lang != "id" or word == root:
        return None
    return "me" if word.startswith("me") else "di" if word.startswith("di") else None


def _nominal(pair: tuple[str, str], lang: Lang) -> bool:
    """An Indonesian word made a noun of its root (``penetapan``, ``kewajiban``): the act or
    the thing, not the predicate said of a subject (``menetapkan``, ``ditetapkan``)."""
    word, root = pair
    return lang == "id" and word != root and word.startswith(("pe", "ke"))


@lru_cache(maxsize=256)
def _who_does(
    question: str, lang: Lang
) -> tuple[frozenset[str], frozenset[str], str | None] | None:
    """The keys of a "who does" question's predicate word and of all its words, and the
    predicate's :func:`_voice` (read once per question, not once per unit); ``None`` for any
    other question."""
    asked = _WHO_DOES.get(lang)
    said = asked.match(question) if asked is not None else None
    verb = _plain_words(said.group(1), lang) if said is not None else ()
    if not verb:
        return None
    keys = frozenset(k for pair in _plain_words(question, lang) for k in pair)
    return frozenset(k for pair in verb for k in pair), keys, _voice(verb[0], lang)


_EVERYWHERE: Final = _words("bumi dunia jagat earth world universe dunya evren")
"""The place of everything: no answer to where something is."""


_TIME_NAMES: Final = re.compile(
    r"(?:SM|M|BC|AD|BCE|CE|MÖ|MS|Senin|Selasa|Rabu|Kamis|Jumat|Sabtu|Minggu|Pazartesi|Salı|"
    r"Çarşamba|Perşembe|Cuma|Cumartesi|Pazar|Monday|Tuesday|Wednesday|Thursday|Friday|"
    r"Saturday|Sunday|Januari|Februari|Maret|Mei|Juni|Juli|Agustus|Oktober|Desember|January|"
    r"February|March|April|May|June|July|August|September|October|November|December)",
    re.IGNORECASE,
)
_AGENT_BEFORE: Final = re.compile(r"\b(?:oleh|by)\s+(?:[A-ZÀ-ÖØ-ÞÇĞİÖŞÜ][\w'’.-]*\s+){0,3}$")


def _defines(question: QuestionAnalysis, text: str, *, loosely: bool = False) -> bool:
    """A unit that holds the defined term and defines it: every word of the term, at least half
    of them right
    before a definition marker (in the :data:`DEFINED_REACH` words before ``adalah``, ``:``,
    ``tanımlanır``, ``means`` …, asides in brackets aside: ``Simbiosis (dari bahasa Yunani …)
    adalah …``), or, every word of it, closing the unit right after one (``… nama ibu adalah
    matronimik.``). A marker that names (:data:`_NAMING`: ``disebut``, ``known as``) defines only
    the name after it: ``Sunni … disebut sebagai "Islam Ortodoks"`` says another name of Sunni, not
    what it is.

    ``loosely`` (for a unit whose passage holds every word of the term): the unit need hold only
    the term's last word and half of its words, and only as the subject of the definition —
    ``Geometri (…) adalah cabang matematika …`` for "Apa itu ilmu geometri?", the passage saying
    "Ilmu ini …" — not closing the unit after a marker."""
    focus = _term_focus(question)
    if not focus:
        return False
    lang = question.lang

    def half(piece: str) -> bool:
        keys = _keys(piece, lang)
        return 2 * sum(1 for t in focus if _holds(t, keys)) >= len(focus)

    def whole(piece: str) -> bool:
        keys = _keys(piece, lang)
        return all(_holds(t, keys) for t in focus)

    own = _keys(text, lang)
    if loosely:
        if not (_holds(focus[-1], own) and half(text)):
            return False
    elif not all(_holds(t, own) for t in focus):
        return False

    # The term is the definition's subject, said before its marker: a short term whole, a long
    # one by half its words (a text paraphrases a long term); read loosely, by its last word.
    def subject(piece: str) -> bool:
        if loosely:
            return _holds(focus[-1], _keys(piece, lang)) and half(piece)
        return whole(piece) if len(focus) <= SHORT_TERM else half(piece)

    for plain in dict.fromkeys((text, _ASIDE.sub(" ", text))):
        for marker in _COPULA[lang].finditer(plain):
            if marker.group().strip() == ":" and not _WORD_CHAR.search(plain, marker.end()):
                # A colon closing the unit introduces what follows it, not a definition here
                # ("… menyelenggarakan fungsi:", a list's lead-in).
                continue
            before = " ".join(plain[: marker.start()].split()[-DEFINED_REACH:])
            if not _NAMING.fullmatch(marker.group()) and subject(before):
                return True
            after = plain[marker.end() :].split()
            if not loosely and after and len(after) <= len(focus) + 1 and whole(" ".join(after)):
                return True
    return False


_WORD_CHAR: Final = re.compile(r"\w")
_ASIDE: Final = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
"""A bracketed aside: a translation, an etymology, a reference mark."""
DEFINED_REACH: Final = 12
SHORT_TERM: Final = 2
"""A defined term of this many words or fewer is its definition's subject whole."""


def _acronym_runs(focus: Sequence[FocusTerm]) -> tuple[tuple[tuple[int, ...], str], ...]:
    """Each run of two or more name words side by side in the question, with its initials."""
    names = [n for n, t in enumerate(focus) if t.name and not t.number]
    runs: list[list[int]] = []
    for n in names:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return tuple(
        (tuple(run[start:end]), "".join(fold(focus[n].surface)[:1] for n in run[start:end]))
        for run in runs
        for start in range(len(run))
        for end in range(start + 2, len(run) + 1)
    )


def _spelt_as_acronym(runs: tuple[tuple[tuple[int, ...], str], ...], keys: _Keys) -> set[int]:
    """The words of a name of the question (two words or more, side by side in it) whose
    initials the text writes in capitals as one word: ``Amerika Birleşik Devletleri`` —
    ``ABD``, ``United States of America`` — ``USA`` (the small words of a name aside)."""
    if not runs or not keys.capitals:
        return set()
    return {n for members, initials in runs if initials in keys.capitals for n in members}


def _unknown_names(
    focus: Sequence[FocusTerm],
    anywhere: Container[int],
    spelt: set[int],
    by_end: Container[int] = frozenset(),
) -> tuple[str, ...]:
    """The words of the question's names that no passage read holds anywhere — what the
    passages speak of is not what the question names (``Kabupaten Mantan Barat`` is not
    ``Kabupaten Pasaman Barat``, ``ayah Muslim Abdul Hamid`` not ``Ahmad bin Abdul Hamid``).
    A name said in short keeps its beginning (``Budi Susilo`` for ``Budi Susilo Soepandji``):
    words missing only at its end, after words that are held, are forgiven; so is an acronym,
    which the text may spell out (``RI``). ``anywhere``: the name words some passage read
    holds (:func:`_names_held`)."""
    held = [
        n in spelt or not (t.name and not t.number) or n in anywhere for n, t in enumerate(focus)
    ]
    unknown: list[str] = []
    for n, term in enumerate(focus):
        if not term.name or term.number or held[n] or term.acronym or term.group in by_end:
            continue
        if _designator(term):
            continue  # ``Republik Ghana`` is said ``Ghana``
        members = [m for m, t in enumerate(focus) if t.group == term.group and t.name]
        before = [m for m in members if m < n]
        after = [m for m in members if m > n]
        # Held words first, then only words not held: the name said by its beginning.
        first_missing = next(m for m in members if not held[m])
        shortened = bool(before) and held[members[0]] and n >= first_missing
        if shortened and not any(held[m] for m in after):
            continue
        unknown.append(term.surface)
    return tuple(unknown)


_DOUBLED: Final = re.compile(r"(?<!\w)([A-ZÀ-ÖØ-ÞÇĞİÖŞÜ][\w'’-]+)\s+\1(?!\w)")
"""A name's word written twice in a row (``Duran Duran``)."""


def _doubled_unsaid(question: str, texts: Sequence[str]) -> tuple[str, ...]:
    """A name the question writes with a word twice in a row (``Duran Duran``) that no text read
    writes so: the question keeps each word once, so the reader would take ``Harry Harry`` for
    the ``Harry`` of ``Harry Potter``."""
    unsaid: list[str] = []
    for match in _DOUBLED.finditer(question):
        word = re.escape(match.group(1))
        twice = re.compile(rf"(?<!\w){word}\s+{word}(?!\w)", re.IGNORECASE)
        if not any(twice.search(t) for t in texts):
            unsaid.append(match.group(0))
    return tuple(unsaid)


def _missing_names(
    focus: Sequence[FocusTerm],
    placed: set[int],
    by_end: Container[int] = frozenset(),
    otherwise: Container[int] = frozenset(),
    known: Container[int] = frozenset(),
) -> tuple[str, ...]:
    """The numbers the place does not hold (``placed``: indices into ``focus``), and the names of
    which it does not hold more than half the words (``Kepala Kepolisian RI`` is placed by
    ``Kepala Kepolisian Negara``; ``Pajak Daerah`` is not by ``Pendapatan Daerah``)."""
    missing = [t.surface for n, t in enumerate(focus) if t.number and n not in placed]
    groups: dict[int, list[int]] = {}
    for n, term in enumerate(focus):
        if term.name and term.group is not None:
            groups.setdefault(term.group, []).append(n)
    for members in groups.values():
        members = [n for n in members if not _regnal(focus[n])] or members
        lead = focus[members[0]]
        if (
            len(members) > 1
            and lead.acronym
            and not _designator(lead)
            and (members[0] in known or fold(focus[members[1]].surface) in _PLACE_KINDS)
        ):
            # "TKDD Kabupaten Malang": an acronym opening the run of capitals, which the
            # passages read write or which an area's kind follows, is a name of its own (the
            # budget line asked for), not a word of the place's name after it. (One no passage
            # writes is otherwise said in other words: Turkish passages spell out "UMC" in
            # Turkish.)
            if members[0] not in placed:
                missing.append(lead.surface)
            members = members[1:]
        # A designator a text leaves out (``Ghana`` for ``Republik Ghana``, ``Damri`` for ``PT
        # Damri``) counts as said — even a name's only capitalised word.
        placed = placed | {n for n in members if _designator(focus[n]) and n not in otherwise}
        found = sum(1 for n in members if n in placed)
        if (
            focus[members[0]].group in by_end
            and _held_end(members, placed)
            and not any(n in otherwise for n in members)
        ):
            # Said by its end alone (:func:`_said_by_end`), and its place says that end — not
            # when the place names another kind of area before it (``Kab. Malang``).
            continue
        if found * 2 <= len(members) and (
            any(n in otherwise for n in members) or not _said_in_short(members, placed)
        ):
            missing += [focus[n].surface for n in members if n not in placed]
    return tuple(missing)


def _implied(
    focus: Sequence[FocusTerm], placed: set[int], otherwise: Container[int] = frozenset()
) -> set[int]:
    """The regnal numbers and designators of the question's names (``Baudouin I``, ``Republik
    Ghana``) whose names the place says by their other words: a text speaking of the one person
    or state seldom repeats them, so they weigh as said."""
    return {
        n
        for n, term in enumerate(focus)
        if n not in placed
        and (_regnal(term) or (_designator(term) and n not in otherwise))
        and any(
            m in placed and other.group == term.group and other.name
            for m, other in enumerate(focus)
            if m != n
        )
    }


def _held_end(members: Sequence[int], held: Container[int]) -> list[int]:
    """The name's last words that ``held`` holds, up to the first it does not."""
    end: list[int] = []
    for n in reversed(members):
        if n not in held:
            break
        end.insert(0, n)
    return end


_NAME_PARTICLES: Final = _words(
    "bin binti ibn bint van von de der den del della da di dos das du al el le la y"
)
"""The small words inside a person's name: ``bin Abdul Hamid`` is the end of another name."""


def _names_held(focus: Sequence[FocusTerm], places: Sequence[_Keys]) -> set[int]:
    """The question's name words (numbers aside) that some passage read holds anywhere."""
    return {
        n
        for n, t in enumerate(focus)
        if t.name and not t.number and any(_holds(t, keys) for keys in places)
    }


def _said_by_end(
    focus: Sequence[FocusTerm], places: Sequence[_Keys], texts: Sequence[str]
) -> frozenset[int]:
    """The name groups of the question (two words or more) whose last words some passage read
    holds, whose first words no passage holds with them, and which the passages say by those
    last words alone and never as the end of another name — no other name word or particle
    right before them: ``Vaidišová memulai …`` for ``Nicole Vaidišová``, ``PlayStation 3
    dirilis …`` for ``Sony PlayStation 3`` (another passage's ``Sony Music`` is another name).
    A text may name a person or a product by its last words; ``Ahmad bin Abdul Hamid`` is not
    ``Muslim Abdul Hamid``, nor ``Chris Sanders`` ``Muhammad Sanders``."""
    groups: dict[int, list[int]] = {}
    for n, term in enumerate(focus):
        if term.name and not term.number and not term.acronym and term.group is not None:
            groups.setdefault(term.group, []).append(n)
    found: set[int] = set()
    for group, members in groups.items():
        held_in = [{n for n in members if _holds(focus[n], keys)} for keys in places]
        # The longest end of the name some passage holds whole, its start being the rest.
        end = next(
            (
                members[k:]
                for k in range(1, len(members))
                if any(set(members[k:]) <= held for held in held_in)
            ),
            [],
        )
        start = set(members[: len(members) - len(end)])
        if not end or any(set(end) <= held and held & start for held in held_in):
            continue
        pattern = re.compile(
            r"(\S+)?\s*" + r"\s+".join(re.escape(focus[n].surface) for n in end) + r"(?!\w)",
            re.IGNORECASE,
        )
        if _said_alone(pattern, texts):
            found.add(group)
    return frozenset(found)


def _said_alone(pattern: re.Pattern[str], texts: Sequence[str]) -> bool:
    """Whether some text says ``pattern``'s name with no name word or particle right before it,
    and none says it as the end of another name (``Chris Sanders``, ``Ahmad bin Abdul Hamid``).
    Its first group is the word before."""
    alone = False
    for text in texts:
        for match in pattern.finditer(text):
            before = match.group(1) or ""
            if before and before[-1] in ",.!?:;\"'”’)]":
                before = ""  # the end of the clause before
            if before and (before[0].isupper() or fold(before.lower()) in _NAME_PARTICLES):
                return False
            alone = True
    return alone


_REGNAL: Final = re.compile(r"^[ivx]{1,4}$")
_DESIGNATORS: Final = _words(
    "republik kerajaan kesultanan kekaisaran kekhalifahan kadipaten pt tbk cv persero "
    "republic kingdom empire sultanate caliphate inc ltd corp plc llc "
    "cumhuriyeti krallığı imparatorluğu sultanlığı halifeliği"
)
"""The words that say what kind of state or company a name is, which a text often leaves out
(``Presiden Ghana`` for ``Republik Ghana``, ``Broadband Multimedia`` for ``PT Broadband
Multimedia Tbk``): a name is told by its other words."""


def _designator(term: FocusTerm) -> bool:
    return fold(term.surface) in _DESIGNATORS or fold(term.surface) in _PLACE_KINDS


_PLACE_KIND_SHORT: Final = {
    "kab": "kabupaten",
    "kec": "kecamatan",
    "kel": "kelurahan",
    "prov": "provinsi",
}
"""The kinds as Indonesian writes them short (``Kab. Malang``)."""
_PLACE_KINDS: Final = _words(
    "kabupaten kota provinsi kecamatan kelurahan desa regency city province district county "
    "village il ilçe ilce şehir sehir köy koy"
) | frozenset(_PLACE_KIND_SHORT)
"""The kinds of an administrative area, which a text or a dataset often leaves out of a name
(``APBD Malang`` for ``Kabupaten Malang``) — but ``Kota Malang`` is another area than
``Kabupaten Malang`` (:func:`_kind_said_otherwise`)."""


def _kind_said_otherwise(focus: Sequence[FocusTerm], text: str) -> frozenset[int]:
    """The place-kind words of the question's names (``Kabupaten`` of ``Kabupaten Malang``) that
    ``text`` replaces by another kind right before the name's next word (``Kota Malang``): there
    the kind is not left out, it names another area."""
    out: set[int] = set()
    for n, term in enumerate(focus[:-1]):
        following = focus[n + 1]
        if fold(term.surface) not in _PLACE_KINDS or following.group != term.group:
            continue
        asked = fold(term.surface)
        same = {asked, _PLACE_KIND_SHORT.get(asked, asked)}
        same |= {short for short, kind in _PLACE_KIND_SHORT.items() if kind in same}
        kinds = "|".join(re.escape(k) for k in _PLACE_KINDS - same)
        if re.search(
            rf"(?<!\w)(?:{kinds})\.?[\s_]+{re.escape(following.surface)}(?!\w)", fold(text.lower())
        ):
            out.add(n)
    return frozenset(out)


def _regnal(term: FocusTerm) -> bool:
    """A regnal number after a name (``Yekaterina I``, ``Baudouin I``): a text that speaks of
    the one person seldom repeats it."""
    return term.name and _REGNAL.match(fold(term.surface)) is not None


def _said_in_short(members: Sequence[int], placed: set[int]) -> bool:
    """A name of three words or more said by its beginning or its end alone: ``Tony`` for
    ``Tony Waluyo Sukmoasih`` — the words held run from one end of the name, none skipped (words
    at its beginning that no passage read holds are still unknown: :func:`_unknown_names`). A
    name of two words said by one of them is too often another name: ``Kota Paris`` is not
    ``Kota Blitar``."""
    held = [n in placed for n in members]
    if not any(held):
        return False
    first = held.index(True)
    last = len(held) - 1 - held[::-1].index(True)
    return len(held) >= 3 and all(held[first : last + 1]) and (first == 0 or last == len(held) - 1)


def _phrases(pairs: frozenset[tuple[str, str]], text: str, lang: Lang) -> float:
    """The share of the question's consecutive focus-word pairs that ``text`` holds side by
    side (function words between them aside)."""
    if not pairs:
        return 0.0
    words = _content_sequence(text, lang)
    held = set(itertools.pairwise(words))
    return len(pairs & held) / len(pairs)


@lru_cache(maxsize=8192)
def _content_sequence(text: str, lang: Lang) -> tuple[str, ...]:
    tokens = [t for t in tokenize(text, lang) if not is_function_word(t, lang)]
    return tuple(
        fold(t) if t[0].isdigit() else fold(s)
        for t, s in zip(tokens, stem(tokens, lang), strict=True)
    )


def _asked_opposites(
    asked: frozenset[str], lang: Lang
) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """The pairs of opposites one side of which the question says."""
    return tuple((one, other) for one, other in opposite_pairs(lang) if asked & one)


def _says_opposite(pairs: tuple[tuple[frozenset[str], frozenset[str]], ...], held: _Keys) -> bool:
    """``held`` has the opposite of an asked word and not the word (``meninggal`` asked,
    ``lahir`` held; ``terkecil`` asked, ``terbesar`` held)."""
    return any(held.meets(other) and not held.meets(one) for one, other in pairs)


NEGATION_REACH: Final = 3
"""A question's negation bears on a focus word at most this many words after it (``yang tidak
berdarah panas``)."""
UNIT_NEGATION_REACH: Final = 1
"""A sentence's negation bears on the content word right after it: ``tanpa hak menyebarkan
berita bohong`` (without right, spreading false news) denies the right, not the spreading."""


def _polarity_differs(
    question: QuestionAnalysis, text: str, stems: frozenset[str], denied: frozenset[str]
) -> bool:
    """The unit says the opposite of the question's polarity: the question asks what is *not*
    so and the unit states it, undenied, in the question's own words (``yang tidak mempelajari
    reptil`` / ``yang mempelajari reptil``; not ``tidak modern`` / ``tradisional``, which says
    the same in other words), or the question asks what is so and the unit denies a word of the
    question (``selalu diketahui`` / ``tidak diketahui``)."""
    words = _content_words(text, question.lang)
    negations = NEGATION_WORDS[question.lang]
    at = [n for n, (surface, _) in enumerate(words) if surface in negations]
    bears = {
        stem
        for n in at
        for _, stem in _negated_span(words, n, question.lang, sentence=True)
        if stem in stems
    }
    if question.negated:
        held = {stem for _, stem in words}
        return bool(denied) and denied <= held and not (denied & bears)
    return bool(bears)


_ORDER_WORDS: Final = frozenset(fold(w) for w in ("ilk", "son", "önce", "sonra"))
"""Turkish words that say an order, not a property."""

_NOUN_NEGATIONS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("bukan non"),
    "tr": frozenset(),  # "değil" denies in Turkish, but so does a verb's suffix
    "en": _words("non"),
}
"""The words that deny a noun (``bukan pendiri``, ``non-kabupaten``)."""


def _denies(text: str, lang: Lang, terms: Sequence[FocusTerm]) -> bool:
    """Whether ``text`` denies one of ``terms``, or a word saying the same: a negation word
    (``tidak``, ``bukan``, ``non``-) in the :data:`NEGATION_REACH` words before it — not ``tak
    lama`` of "Siapa yang bukan istri Abimanyu?"."""
    words = _content_words(text, lang)
    negations = NEGATION_WORDS[lang]
    for n, (surface, _) in enumerate(words):
        if surface in negations:
            span = " ".join(w for w, _ in _negated_span(words, n, lang))
            keys = _keys(span, lang)
            if any(_holds(t, keys) for t in terms):
                return True
    return False


def _denied(question: QuestionAnalysis) -> frozenset[str]:
    """The focus stems a negated question denies: those in the :data:`NEGATION_REACH` words
    after its negation."""
    if not question.negated:
        return frozenset()
    stems = {t.stem for t in question.focus}
    words = _content_words(question.text, question.lang)
    negations = NEGATION_WORDS[question.lang]
    return frozenset(
        stem
        for n, (surface, _) in enumerate(words)
        if surface in negations
        for _, stem in _negated_span(words, n, question.lang)
        if stem in stems
    )


def _negated_span(
    words: tuple[tuple[str, str], ...], at: int, lang: Lang, *, sentence: bool = False
) -> tuple[tuple[str, str], ...]:
    """The words a negation at ``at`` bears on: the :data:`NEGATION_REACH` after it (``tidak
    diketahui``, ``not known``) — in a ``sentence`` the :data:`UNIT_NEGATION_REACH` after it
    past any modal or other function word (``tidak dapat dihuni`` denies living there) —, in
    Turkish the one before it (``resmi olmayan``, ``bilinen değil``)."""
    if lang == "tr":
        return words[max(0, at - 1) : at]
    if sentence:
        after = [w for w in words[at + 1 :] if not is_function_word(w[0], lang)]
        return tuple(after[:UNIT_NEGATION_REACH])
    return words[at + 1 : at + 1 + NEGATION_REACH]


@lru_cache(maxsize=8192)
def _content_words(text: str, lang: Lang) -> tuple[tuple[str, str], ...]:
    """(folded word, folded stem) of each word of ``text``, in order."""
    tokens = tokenize(text, lang)
    return tuple(
        (fold(t.lower()), fold(t) if t[0].isdigit() else fold(s))
        for t, s in zip(tokens, stem(tokens, lang), strict=True)
    )


_ANAPHORS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("ini itu tersebut ia beliau mereka dia"),
    "tr": _words("bu o onun bunun şu bunlar onlar"),
    "en": _words("it its this these he she they his her their"),
}


def _says_predicate(
    focus: Sequence[FocusTerm], content: Sequence[int], text: str, lang: Lang
) -> bool:
    """Whether ``text`` itself says a content word of the question — any, when it has none."""
    if not content:
        return True
    keys = _keys(text, lang)
    return any(_holds(focus[n], keys) for n in content)


def _refers_back(text: str, lang: Lang) -> bool:
    words = _surfaces(text)
    return bool(words & _ANAPHORS[lang]) or (
        lang == "id" and any(w.endswith("nya") and len(w) > 5 for w in words)
    )


# -- reading --------------------------------------------------------------------------------------


def read_units(question: QuestionAnalysis, passages: Sequence[ReadPassage]) -> Reading:
    """Every unit of ``passages`` read for ``question`` (each with its passage's identity and, for
    a table row, its header), best first: those that answer before
    those that do not; within each, by a score that weighs what the unit holds (0.3), what its
    place holds (0.4) and an answer of the asked kind (0.3); ties go to the better-ranked
    passage, then the earlier unit."""
    lang = question.lang
    # Each passage read, whole (identity and text): where a question word is said at all.
    everywhere = [_keys(" ".join((*p.identity, p.text)), lang) for p in passages]
    question = _near_spellings(question, everywhere)
    focus = question.focus
    total = question.focus_weight
    asked_keys = frozenset({t.stem for t in focus} | {fold(t.surface) for t in focus})
    # Keyed as :func:`_phrases` reads a text: a name's key is its word, but the text's words are
    # stemmed alike (``Perjanjian`` — ``janji``).
    said_as = [(_content_sequence(t.surface, lang) or (t.stem,))[0] for t in focus]
    pairs = frozenset(itertools.pairwise(said_as))
    content = [n for n, t in enumerate(focus) if _is_content(t)]
    asked_words = _asked_words(question)
    said_words = _said_words(question)
    if question.kind == "definition":
        # The classifier before a defined term (``kitab``) need not be said: the term is.
        term = _term_focus(question)
        content = [
            n
            for n in content
            if focus[n] in term or fold(focus[n].surface) not in _CLASSIFIERS[lang]
        ]
    allowed = len(content) // 2
    if lang == "tr" and content:
        # Turkish words carry their grammar in suffixes the stemmer often leaves on: a content
        # word is missed far more often than it is missing; one of them must be there.
        allowed = len(content) - 1
    denied = _denied(question)
    offices = _offices_asked(question)
    # The opposite of a word the question denies is what it asks for ("tidak modern" —
    # "tradisional").
    # A word is asked as written too: an opposite may be keyed so (``öldü``, which folds to
    # ``oldu``).
    denied_keys = frozenset(
        k for t in focus if t.stem in denied for k in (t.stem, fold(t.surface), t.surface)
    )
    undenied = (asked_keys | {t.surface for t in focus}) - denied_keys
    opposites = _asked_opposites(undenied, lang)
    # A question asking what something is *not* ("yang bukan pendiri", "non-kabupaten") is
    # answered by a unit that denies, or says the opposite of, what the question denies. A noun
    # is denied only in so many words; an adjective or a verb is often denied by its antonym
    # ("tidak teratur" — "ireguler"), which the reader cannot know, so only a noun's denial is
    # required.
    denial_asked = bool(denied) and bool(_surfaces(question.text) & _NOUN_NEGATIONS[lang])
    denied_terms = [t for t in focus if t.stem in denied]
    denied_opposites = _asked_opposites(denied_keys, lang)
    # Said by the passage rather than the sentence, only a word the question is about counts (not
    # an attribute word such as ``pertama``, which a passage may say of anything).
    weighty = frozenset(
        k for t in focus if t.weight >= TERM_WEIGHT for k in (t.stem, fold(t.surface), t.surface)
    )
    # ... but in Turkish not a word of order (first and last, before and after): a passage
    # orders many things in words the reader matches only in part ("1961'in sonlarında",
    # "sonraki" — not "son" of the question's "sonunda"); the unit's own words still count.
    place_opposites = tuple(
        (one, other)
        for one, other in _asked_opposites(undenied & weighty, lang)
        if lang != "tr" or not (one | other) & _ORDER_WORDS
    )
    qualifiers = _qualifiers(question) + _name_numbers(question)
    sources = _sources(question)
    ordinals = _ordinals(question)
    asked_years = frozenset(t.surface for t in focus if t.number and _BARE_YEAR.match(t.surface))
    asked_amounts = frozenset(
        k
        for t in focus
        if t.number and _AMOUNT.fullmatch(t.surface)
        for k in (t.surface, *t.alternatives)
    )
    focus_stems = frozenset(t.stem for t in focus)
    acronyms = _acronym_runs(focus)
    spelt = {n for keys in everywhere for n in _spelt_as_acronym(acronyms, keys)}
    # A name no passage read holds anywhere is not what they speak of: "Kabupaten Mantan Barat"
    # is not "Kabupaten Pasaman Barat", however many of its words they share.
    anywhere = _names_held(focus, everywhere)
    texts = [t for p in passages for t in (*p.identity, p.text)]
    by_end = _said_by_end(focus, everywhere, texts)
    unknown = _unknown_names(focus, anywhere, spelt, by_end) + _doubled_unsaid(question.text, texts)
    named = [n for n, t in enumerate(focus) if t.name and not t.number]
    articles = question.articles
    asked_parts = _asked_parts(question, passages)
    in_article_read: set[str] = set()
    readings: list[UnitReading] = []
    for rank, passage in enumerate(passages):
        units = passage_units(passage, rank)
        if not units:
            continue
        # A passage that is the article the question names ("Pasal 67 ayat (1)") is the place
        # asked, wherever retrieval ranked it: read as leniently as its first passage.
        of_article = _article_units(passage, units, articles)
        is_article = of_article is not None
        first = rank == 0 or is_article
        if is_article:
            in_article_read.add(passage.key)
        # A sentence is read in its passage (which names what "ia", "album ini" speak of); a table
        # row under its header and the passage's identity only — another row is another fact.
        around = " ".join((*passage.identity, passage.text))
        if units[0].header is not None:
            around = " ".join((*passage.identity, units[0].header))
        around_keys = _keys(around, lang)
        otherwise = _kind_said_otherwise(focus, around)
        # What the passage's document is about: the share of the question's names its identity
        # (the document's title) says — the island's own article, not the province's naming it.
        titled = _keys(" ".join(passage.identity), lang) if named and passage.identity else None
        about = sum(1 for n in named if _holds(focus[n], titled)) / len(named) if titled else 0.0
        in_place = {n for n, t in enumerate(focus) if _holds(t, around_keys)}
        # A passage that says the opposite of a word of the question and never the word itself
        # (``berdarah dingin``, the question ``berdarah panas``) speaks of something else: none
        # of its sentences answers, however it refers back to its subject ("Gereja ini …").
        place_opposite = _says_opposite(place_opposites, around_keys)
        in_place |= _spelt_as_acronym(acronyms, around_keys)
        spelt_ordinals = _spelt(ordinals, focus, lang, around)
        read = units if of_article is None else of_article
        if of_article is not None and asked_parts:
            # The part of the article asked (``ayat (3)``, ``angka 1``) is the place: another
            # part of the article is not what is asked.
            read = [u for u in of_article if u.part in asked_parts]
        for unit in read:
            # A unit is read with what is part of every place in its passage (V2-07): the
            # passage's identity and, for a row, its header.
            own = "\n".join((*passage.identity, *filter(None, (unit.header,)), unit.text))
            keys = _keys(own, lang)
            held_at = {n for n, t in enumerate(focus) if _holds(t, keys)}
            held_at |= _spelt_as_acronym(acronyms, keys)
            if total and not held_at:
                continue  # a unit sharing nothing with the question is never offered
            placed_at = held_at | in_place
            covered = sum(focus[n].weight for n in held_at) / total if total else 0.0
            # A designator or regnal number left out of a name said (``Ghana`` for ``Republik
            # Ghana``, ``Baudouin`` for ``Baudouin I``) counts as said.
            named_at = placed_at | _implied(focus, placed_at, otherwise)
            placed = sum(focus[n].weight for n in named_at) / total if total else 0.0
            echo = _echoes(asked_words, unit.text, lang)
            if question.asks_several:
                # "Apa saja …" is answered by a list of what it names, said before the list
                # ("Data Pribadi yang bersifat spesifik … meliputi:"): its items are the answer.
                listed = _listed(unit) or _listed_by_head(
                    unit, passage.identity, focus, content, lang
                )
                kind = listed is not None and all(
                    _holds(focus[n], _keys(listed, lang))
                    for n in content
                    if not _LISTS_AS.fullmatch(focus[n].surface)
                )
            else:
                kind = not echo and holds_kind(question, unit.text)
            if (
                not kind
                and not echo
                and question.kind == "definition"
                and len(placed_at) == len(focus)
            ):
                # A definition says its term as the text names it; a word the question puts
                # before it ("ilmu geometri", "the science of geometry") may be said only by its
                # passage.
                kind = _defines(question, unit.text, loosely=True)
            # A sentence that only describes the term answers when none defines it, after any that
            # does: it scores as a unit without an answer of the asked kind.
            described = (
                not kind
                and not echo
                and question.kind == "definition"
                and _describes(question, unit.text)
            )
            missing = _missing_names(focus, placed_at, by_end, otherwise, anywhere) or unknown
            if not missing:
                missing = tuple(focus[n].surface for n in qualifiers if n not in held_at)
            if not missing and not is_article and _cites_another_part(question, unit.text):
                # "… sebagaimana dimaksud dalam Pasal 65 ayat (2) dipidana …" speaks of ayat
                # (2), not of the ayat (1) asked.
                missing = question.article_parts[-1:]
            if not missing and _other_amount(asked_amounts, unit.text):
                # "denda paling banyak Rp4.000.000.000,00": a sentence stating another amount
                # speaks of another fine, whatever its passage says elsewhere.
                missing = tuple(sorted(asked_amounts & {t.surface for t in focus}))
            if not missing:
                missing = tuple(
                    focus[n].surface
                    for n in ordinals
                    if n not in placed_at and n not in spelt_ordinals
                )
            if not missing:
                # "menurut UUD 1945", "according to the experts": the source the question names
                # is said by the place that answers (its passage, its document's title).
                missing = tuple(focus[n].surface for n in sources if n not in placed_at)
            # The opposite is read in the unit's own words: a document title saying "akhir"
            # does not make a sentence about the first film (``pertama``) one about the last.
            unit_keys = _keys(unit.text, lang)
            opposite = (
                bool(opposites) and _says_opposite(opposites, unit_keys)
            ) or _polarity_differs(question, unit.text, focus_stems, denied)
            opposite = opposite or place_opposite or _another_office(offices, unit.text, lang)
            if denial_asked and not (
                _denies(unit.text, lang, denied_terms)
                or _says_opposite(denied_opposites, unit_keys)
            ):
                # "mata uang Singapura yang tidak resmi": a unit naming the currency, undenied,
                # says what is so, not what is not.
                opposite = True
            if (
                placed >= PLACED_MIN
                and _refers_back(unit.text, lang)
                and _says_predicate(focus, content, unit.text, lang)
            ):
                # "Album ini dirilis …", "Ia lahir …": the passage names what the unit speaks of,
                # the unit says what is asked of it ("He was born …" says nothing of who founded
                # the company its passage names).
                covered = max(covered, COVERED_MIN)
            lacking = sum(1 for n in content if n not in placed_at)
            # The retrieval's order is evidence too: a unit of the first passage is preferred; so
            # is one saying the question's words in the question's order ("amount due").
            score = (
                _relevance(covered, placed, kind)
                + RANK_BONUS / (1 + rank)
                + PHRASE_BONUS * _phrases(pairs, unit.text, lang)
                + LABEL_BONUS * _label_share(unit, asked_keys, said_words, lang)
                + CONTENT_BONUS * _share(content, held_at)
                + (DEFINIENDUM_BONUS if kind and _opens_with_term(question, unit.text) else 0.0)
                + (NEAR_BONUS if kind and answer_near_focus(question, unit.text) else 0.0)
                - _equivalent_cost([focus[n] for n in held_at if not _exact(focus[n], keys)], total)
                - (OTHER_YEAR_COST if _other_year(asked_years, unit.text) else 0.0)
                + ORDINAL_BONUS
                * _share(ordinals, held_at | _spelt(ordinals, focus, lang, unit.text))
                + ABOUT_BONUS * about
            )
            readings.append(
                UnitReading(
                    unit,
                    covered,
                    placed,
                    kind or described,
                    missing,
                    opposite,
                    lacking,
                    # Retrieval's order is evidence: a unit of a passage it ranked below the first
                    # answers only in every content word of the question (Turkish aside, whose
                    # word forms the reader matches more loosely).
                    allowed if first or lang == "tr" else 0,
                    score,
                )
            )
    if in_article_read and any(r.answers and r.unit.key in in_article_read for r in readings):
        # The article named answers: what other passages say of it is not the answer.
        readings = [
            r if r.unit.key in in_article_read else replace(r, elsewhere=True) for r in readings
        ]
    # A unit that answers comes before any that does not, however high the latter scores.
    readings.sort(key=lambda r: (not r.answers, -r.score, r.unit.passage, r.unit.position))
    return Reading(readings)


def _one_letter_off(words: str) -> str:
    """``words`` (``|``-separated) and each with one letter misread (``Walil`` for ``Wakil``: a
    scanned statute's OCR)."""
    return "|".join(
        rf"{w[:i]}[^\W\d_]{w[i + 1 :]}" for w in words.split("|") for i in range(len(w))
    )


_OFFICE_BEFORE: Final[dict[Lang, str]] = {
    "id": _one_letter_off("wakil|mantan|bekas|calon") + r"|pelaksana\s+tugas|plt\.?",
    "en": r"vice|deputy|former|acting|assistant",
    "tr": r"eski",
}
"""The words that make an office another one said before it: ``Wakil Ketua`` is not the
``Ketua``, ``former President`` not the President."""
_OFFICE_AFTER: Final[dict[Lang, str]] = {"tr": r"yardımcı\w*|vekil\w*"}
"""Turkish says it after: ``başkan yardımcısı`` (vice president), ``bakan vekili``."""


def _offices_asked(question: QuestionAnalysis) -> tuple[re.Pattern[str], ...]:
    """For each content word of the question not itself so qualified there, the pattern of its
    qualified form (:data:`_OFFICE_BEFORE`) — none when the question says such a word."""
    lang = question.lang
    before, after = _OFFICE_BEFORE.get(lang), _OFFICE_AFTER.get(lang)
    if _office_word(lang).search(question.text) is not None:
        return ()
    patterns = []
    for term in question.focus:
        if term.name or term.number or len(term.surface) < 3:
            continue
        word = re.escape(term.surface)
        forms = [rf"(?:{before})\s+{word}"] if before else []
        forms += [rf"{word}\s+(?:{after})"] if after else []
        if forms:
            patterns.append(
                re.compile(rf"(?<!\w)(?:{'|'.join(forms)})(?!\w)|(?<!\w){word}(?!\w)", re.I)
            )
    return tuple(patterns)


@cache
def _office_word(lang: Lang) -> re.Pattern[str]:
    """Any word of :data:`_OFFICE_BEFORE` or :data:`_OFFICE_AFTER`: a text without one says no
    other office (one search, not one per asked word)."""
    words = "|".join(filter(None, (_OFFICE_BEFORE.get(lang), _OFFICE_AFTER.get(lang))))
    return re.compile(rf"(?<!\w)(?:{words})(?!\w)" if words else r"(?!)", re.IGNORECASE)


def _another_office(offices: Sequence[re.Pattern[str]], text: str, lang: Lang) -> bool:
    """``text`` says an asked word only as another office (``Wakil Ketua`` for ``ketua``)."""
    if not offices or _office_word(lang).search(text) is None:
        return False
    for pattern in offices:
        said = [m.group(0) for m in pattern.finditer(text)]
        if said and all(" " in s.strip() for s in said):
            return True
    return False


def _asked_words(question: QuestionAnalysis) -> frozenset[str]:
    """Every word of the question, folded, and its stem: what a unit may say without saying
    anything the question did not."""
    return frozenset(k for pair in _content_words(question.text, question.lang) for k in pair)


_ITEM_END: Final = re.compile(
    r"[;,]\s*(?:(?:dan|atau|serta|and|or|ve|veya)(?:\s*/\s*(?:atau|or))?)?\s*$", re.IGNORECASE
)
"""How a list's item ends: ``;``, ``; dan``, ``; dan/atau``, ``, or``."""


def _echoes(asked: frozenset[str], text: str, lang: Lang) -> bool:
    """``text`` is an item of a list saying nothing but the question's own words (and function
    words): ``Data Pribadi yang bersifat spesifik; dan``, an item of a list naming what is asked
    about, holds no answer to ``Apa saja Data Pribadi yang bersifat spesifik?``. A sentence may
    answer in the question's words (``Bahasa Negara ialah Bahasa Indonesia.``)."""
    return _ITEM_END.search(text) is not None and all(
        word in asked or stem in asked or is_function_word(word, lang)
        for word, stem in _content_words(text, lang)
    )


_INLINE_LIST: Final = re.compile(
    r"[;:]\s*\S|,[^,.;:]{1,80},?\s+(?:dan|atau|serta|maupun|and|or|ve|veya)\s+\w",
    re.IGNORECASE,
)
"""A list written in a sentence: items after a colon or between semicolons, or ``A, B dan C``."""


def _listed_by_head(
    unit: Unit,
    identity: Sequence[str],
    focus: Sequence[FocusTerm],
    content: Sequence[int],
    lang: Lang,
) -> str | None:
    """A lead-in whose last word before its colon says the first thing the question asks of
    (``… berwenang:`` for ``kewenangan``, ``… mempunyai tugas:`` for ``tugas``): it lists that —
    read with its passage's identity, which names what it speaks of (``Lembaga sebagaimana
    dimaksud …`` of a law on personal data). ``None`` otherwise."""
    if not unit.items or not content or not unit.text.endswith(":"):
        return None
    words = _plain_words(unit.text[:-1], lang)
    if not words or not _holds(focus[content[0]], _keys(words[-1][0], lang)):
        return None
    return " ".join((*identity, unit.text))


_LISTS_AS: Final = re.compile(
    r"(?<!\w)(?:meliputi|terdiri\s+(?:atas|dari)|yaitu|yakni|antara\s+lain|di\s*antaranya|"
    r"sebagai\s+berikut|adalah|ialah|berupa|mencakup|termasuk|"
    r"şunlardır|şunlar|şöyledir|aşağıdaki|içerir|oluşur|"
    r"includes?|including|consists?\s+of|comprises?|namely|are|as\s+follows|following)(?!\w)",
    re.IGNORECASE,
)
"""The words a list follows (``meliputi``, ``terdiri atas``, ``yaitu``; ``şunlardır``;
``include``, ``consist of``): what says the items after them are what it names before."""


def _listed(unit: Unit) -> str | None:
    """What ``unit`` lists the items of — its words up to a word a list follows (``Data Pribadi
    yang bersifat spesifik … meliputi`` of ``… meliputi:``) — when the items follow: a lead-in's
    lines, or items written in its sentence (``terdiri atas A, B, dan C``); its words from that
    word on when the items come first (``A, B, dan C adalah …``); else ``None``. A lead-in saying
    what someone does (``… Perum Peruri melakukan:``) lists duties, not what its sentence
    names."""
    said = _LISTS_AS.search(unit.text)
    if said is None:
        return None
    after = _ITEM_END.sub("", unit.text[said.end() :])
    if unit.items or _INLINE_LIST.search(after) is not None:
        return unit.text[: said.end()]
    if _INLINE_LIST.search(unit.text[: said.start()]) is not None:
        # The items first, what they are after the word (``Hak untuk hidup, hak untuk tidak
        # disiksa, … adalah hak asasi manusia …``).
        return unit.text[said.start() :]
    return None


def _cites_another_part(question: QuestionAnalysis, text: str) -> bool:
    """``text`` cites the article the question names by its parts (``Pasal 65 ayat (2)``), and
    none of them is the part asked (``ayat (1)``)."""
    if not question.article_parts:
        return False
    cited = cited_parts(text, question.articles)
    return bool(cited) and cited.isdisjoint(question.article_parts)


def _asked_parts(question: QuestionAnalysis, passages: Sequence[ReadPassage]) -> frozenset[str]:
    """The parts of the named article the question asks for (``ayat (3)``; ``ayat (1) huruf b``:
    the ayat's lead-in and the item) that the article's passages hold, or none — the parts as
    written are not found (a part's number lost in a scan) and the whole article is read."""
    if not question.articles or not question.article_parts:
        return frozenset()
    held = {
        unit.part
        for rank, passage in enumerate(passages)
        for unit in _article_units(passage, passage_units(passage, rank), question.articles) or ()
    }
    return frozenset(question.article_parts) & held


def _article_units(
    passage: ReadPassage, units: Sequence[Unit], articles: Sequence[str]
) -> Sequence[Unit] | None:
    """The units of ``passage`` that are one of ``articles``, or ``None`` when it holds none: all
    of them when its section path names the article (an identity line ``Label: BAB XIV > Pasal
    67 > …``), those under the article's heading when a line of its text opens with it (``Madde
    2 – …``) — the article itself, not a passage citing it in its text."""
    if not articles:
        return None
    if any(in_article(line.split(": ", 1)[-1], articles) for line in passage.identity):
        return units
    inline = [unit for unit in units if unit.article in articles]
    return inline or None


_QUALIFIER_BEFORE: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("yang paling"),
    "tr": frozenset(),
    "en": _words("most least"),
}
_VERB_PREFIX: Final = re.compile(r"^(?:me|di|ber|ke|pe)")
"""An Indonesian word so prefixed is (mostly) a verb: a relative clause's verb is often said in
other words (``yang menangani`` / ``yang mengurus``); an adjective seldom is."""
_QUALIFIER_SKIP: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("paling lebih sangat tidak bukan belum sudah telah masih pernah"),
    "tr": _words("çok daha"),
    "en": _words("more very"),
}


_NOT_SUPERLATIVE: Final = _words(
    "interest forest request contest protest harvest conquest arrest manifest honest modest "
    "suggest digest invest"
)
_QUESTION_WORDS: Final = _words(
    "apa apakah siapa siapakah mana manakah dimana dimanakah kapan berapa berapakah bagaimana "
    "mengapa kenapa"
)


def _name_numbers(question: QuestionAnalysis) -> tuple[int, ...]:
    """The numbers that end a name of the question (``PlayStation 2``, ``Apollo 11``): which
    one is asked, said by the sentence that answers itself — its passage may name another
    (``PlayStation 3 … kompatibel dengan PlayStation 2``)."""
    focus = question.focus
    return tuple(
        n
        for n in range(1, len(focus))
        if focus[n].number
        and focus[n - 1].name
        and not focus[n - 1].number
        and re.search(
            rf"(?<!\w){re.escape(focus[n - 1].surface)}\s+{re.escape(focus[n].surface)}(?!\w)",
            question.text,
            re.IGNORECASE,
        )
    )


def _qualifiers(question: QuestionAnalysis) -> tuple[int, ...]:
    """The focus words that narrow what the question asks about — the word after ``yang``,
    ``paling`` (``Apa nama kota yang terkecil``, ``makanan yang paling terkenal``), ``en``,
    ``most``, or an English superlative: the sentence that answers says it itself, not only its
    passage (``terkecil di dunia`` is no answer to ``terkecil di Inggris``'s ``terkecil``
    elsewhere)."""
    lang = question.lang
    words = [w for w, _ in _plain_words(question.text, lang)]
    index = {t.stem: n for n, t in enumerate(question.focus)} | {
        fold(t.surface): n for n, t in enumerate(question.focus)
    }
    picked: set[int] = set()
    for position, word in enumerate(words):
        after = word in _QUALIFIER_BEFORE[lang] and not (
            # "Siapa yang memimpin …": the predicate asked about, not a narrowing of it.
            position > 0 and words[position - 1] in _QUESTION_WORDS
        )
        superlative = (
            lang == "en" and word.endswith("est") and len(word) > 5 and word not in _NOT_SUPERLATIVE
        )
        if not (after or superlative):
            continue
        rest = words[position + 1 :] if after else [word]
        most = superlative or word in _SUPERLATIVE[lang]
        for following in rest:
            if following in NEGATION_WORDS[lang]:
                break  # "yang tidak modern": said in other words ("tradisional")
            if following in _QUALIFIER_SKIP[lang]:
                most = most or following in _SUPERLATIVE[lang]
                continue
            n = index.get(following)
            if n is None:
                stemmed = _plain_words(following, lang)
                n = index.get(stemmed[0][1]) if stemmed else None
            verb = lang == "id" and _VERB_PREFIX.match(following) is not None
            # An attribute word (``populer``, ``terkenal``) is said loosely, but not as a
            # superlative: "yang paling populer" asks for the most popular one.
            attribute = most and not question.focus[n].number if n is not None else False
            if n is not None and (_is_content(question.focus[n]) or attribute) and not verb:
                picked.add(n)
            break
    return tuple(sorted(picked))


_SOURCE_AFTER: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(r"(?<!\w)menurut\s+(.+)$", re.I | re.S),
    "en": re.compile(r"(?<!\w)according\s+to\s+(.+)$", re.I | re.S),
}
"""What names the source a question asks after: "according to the experts" asks what the
experts say. Not Turkish ``göre``, which says "by" as often ("niteliklere göre sınıflandırılır",
classified by their attributes; measured: two XQuAD answers lost)."""


def _sources(question: QuestionAnalysis) -> tuple[int, ...]:
    """The focus words of the source the question names (:data:`_SOURCE_AFTER`): a passage
    that does not name it does not answer. The linking word is a function word, said by no
    text (``menurut UUD 1945`` is answered by the constitution's own article)."""
    after = _SOURCE_AFTER.get(question.lang)
    said = after.search(question.text) if after is not None else None
    if said is None:
        return ()
    words = {k for pair in _plain_words(said.group(1), question.lang) for k in pair}
    return tuple(
        n for n, t in enumerate(question.focus) if t.stem in words or fold(t.surface) in words
    )


_SUPERLATIVE: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("paling"),
    "tr": _words("en"),
    "en": _words("most least"),
}


_ORDINALS: Final[dict[Lang, tuple[str, ...]]] = {
    # In order from the second (the first is said loosely: "pertama tayang", "ilk önce").
    "id": ("kedua", "ketiga", "keempat", "kelima", "keenam", "ketujuh", "kedelapan", "terakhir"),
    "tr": ("ikinci", "üçüncü", "dördüncü", "beşinci", "altıncı", "yedinci", "sekizinci", "son"),
    "en": ("second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "last"),
}
_ORDINAL_DIGITS: Final = {
    n + 2: re.compile(
        rf"(?<![\d.,]){n + 2}(?:\.(?!\d)|['’]?[ıiuü]?nc[ıiuü]|st|nd|rd|th)|ke-?{n + 2}\b",
        re.IGNORECASE,
    )
    for n in range(7)
}
"""An ordinal written with digits: ``4. çeyrek``, ``ke-2``, ``2nd``, ``4'üncü``."""


def _spelt(ordinals: Sequence[int], focus: Sequence[FocusTerm], lang: Lang, text: str) -> set[int]:
    """The ``ordinals`` (indices into ``focus``) that ``text`` says with digits."""
    return {n for n in ordinals if _ordinal_in(focus[n], lang, text)}


def _ordinal_in(term: FocusTerm, lang: Lang, text: str) -> bool:
    """``text`` says the ordinal ``term`` with digits."""
    listed = [fold(w) for w in _ORDINALS[lang]]
    place = listed.index(fold(term.surface)) + 2 if fold(term.surface) in listed else 0
    return place in _ORDINAL_DIGITS and _ORDINAL_DIGITS[place].search(text) is not None


_TIMES: Final = _words("kali kalinya kez defa time times")
"""After an ordinal, it counts occasions (``pertama kali``, ``ilk kez``, ``first time``): when
something happened, not which one of several is meant."""


def _ordinals(question: QuestionAnalysis) -> tuple[int, ...]:
    """The focus words that say which one of several is asked about — an ordinal (``raja
    terakhir``, ``the second album``, ``ikinci kitap``), not one counting occasions (``pertama
    kali``): the place of the unit that answers says it (a passage about the first king does
    not tell the last)."""
    lang = question.lang
    words = [w for w, _ in _plain_words(question.text, lang)]
    ordinals = {fold(w) for w in _ORDINALS[lang] if not (lang == "tr" and w == "son")}
    said = {
        word
        for n, word in enumerate(words)
        if word in ordinals and not (n + 1 < len(words) and words[n + 1] in _TIMES)
    }
    return tuple(n for n, t in enumerate(question.focus) if fold(t.surface) in said)


def _opens_with_term(question: QuestionAnalysis, text: str) -> bool:
    """A definition question's unit that opens with the defined term (its subject): ``Pecahan
    (Fraksi) adalah …`` rather than ``Hakikat … dalam bilangan pecahan adalah …``."""
    focus = _term_focus(question)
    if question.kind != "definition" or not focus:
        return False
    words = without_enumerator(text).split()
    if not words:
        return False
    lang = question.lang
    named = _NAMED_AS.get(lang)
    alias = named.search(text) if named is not None else None
    if alias is not None and all(_holds(t, _keys(alias.group(1), lang)) for t in focus):
        # "Sistem Pemerintahan Berbasis Elektronik yang selanjutnya disingkat SPBE adalah …":
        # the term the question asks for is the one this definition introduces.
        return True
    # A term of one word is the unit's first word: "Layanan SPBE adalah …" defines a service of
    # SPBE, not SPBE. (A longer one may follow a context: "Dalam fisika nuklir, fusi nuklir …".)
    if len(focus) == 1 and not _holds(focus[0], _keys(words[0], lang)):
        return False
    keys = _keys(" ".join(words[: len(focus) + 1]), lang)
    return any(_holds(t, keys) for t in focus[-1:]) or all(_holds(t, keys) for t in focus)


_NAMED_AS: Final[dict[Lang, re.Pattern[str]]] = {
    "id": re.compile(rf"\b{ALIAS_ID}(.{{1,80}}?)\s+(?:adalah|ialah|merupakan)\b", re.I),
    "en": re.compile(
        r"\((?:hereinafter\s+)?(?:referred\s+to\s+as\s+)?[\"“]?([^()\"”]{1,60})[\"”]?\)"
    ),
}
"""A definition that introduces the short name it goes by: ``X yang selanjutnya disingkat Y
adalah …``, ``X (hereinafter "Y") means …`` — Y captured."""


def _term_focus(question: QuestionAnalysis) -> tuple[FocusTerm, ...]:
    """The focus terms of the defined term (``genin`` of "Apa yang dimaksud dengan genin dalam
    manga Naruto?"); the whole focus when the question names no term or none of its words."""
    if question.defined_term is None:
        return question.focus
    words = {surface for surface, _ in _plain_words(question.defined_term, question.lang)}
    own = tuple(t for t in question.focus if fold(t.surface) in words)
    if len(own) >= 2 and fold(own[0].surface) in _CLASSIFIERS[question.lang]:
        own = own[1:]  # "kitab Bhagawadgita" is defined as "Bhagawadgita … adalah …"
    return own or question.focus


_CLASSIFIERS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("ilmu kitab konsep teori paham aliran istilah kata"),
    "tr": _words("kavramı kavram terimi terim kitabı bilimi kuramı"),
    "en": _words("concept term theory science book doctrine word"),
}
"""A word naming the kind of thing a defined term is, before it (``kitab Bhagawadgita``,
``ilmu astrologi``, ``the concept of …``): a text defines the term without it."""


_IN_CONTEXT: Final[dict[Lang, frozenset[str]]] = {
    "id": _words("dalam pada"),
    "tr": frozenset(),
    "en": _words("in"),
}
"""A preposition a sentence may open with before the term it then describes."""
DESCRIBED_MIN_WORDS: Final = 6
"""The words a sentence opening with a defined term says after it to describe the term."""


def _describes(question: QuestionAnalysis, text: str) -> bool:
    """A sentence whose subject is the whole defined term, said first, and that goes on to say
    what it is in other words than a copula ("Investasi ekuitas umumnya berhubungan dengan
    pembelian dan penyimpanan saham …"): what a text says of the term when it defines it
    nowhere."""
    focus = _term_focus(question)
    words = without_enumerator(text).split()
    if words and fold(words[0].lower()) in _IN_CONTEXT[question.lang]:
        words = words[1:]  # "Dalam komunikasi dua arah (Duplex) pengirim dan penerima …"
    if not focus or len(words) < len(focus) + DESCRIBED_MIN_WORDS:
        return False
    keys = _keys(" ".join(words[: len(focus)]), question.lang)
    return all(_holds(t, keys) for t in focus)


def _share(indices: Sequence[int], held: set[int]) -> float:
    """The share of ``indices`` in ``held`` (0 when there are none)."""
    return sum(1 for n in indices if n in held) / len(indices) if indices else 0.0


def _other_year(asked: frozenset[str], text: str) -> bool:
    """``text`` names a year, none of the ``asked`` ones (there are some)."""
    if not asked:
        return False
    years = set(_YEAR_IN_TEXT.findall(text))
    # A scanned statute's year with a letter O for a zero (``Tahun 2O23``) is a year all the same.
    years |= {year.replace("O", "0") for year in _OCR_YEAR.findall(text) if "O" in year}
    return bool(years) and years.isdisjoint(asked)


def _other_amount(asked: frozenset[str], text: str) -> bool:
    """``text`` states an amount (digits in groups of three), none of the ``asked`` ones
    (there are some)."""
    if not asked:
        return False
    amounts = {match.group(0) for match in _AMOUNT.finditer(text)}
    return bool(amounts) and amounts.isdisjoint(asked)


_AMOUNT: Final = re.compile(
    r"(?<![\d.,])\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*(?:[.,]\d{1,2})?(?![\d])"
)
"""An amount written with thousands separators (``5.000.000``, ``1,250.00``, ``4.000.000,00``)."""


_YEAR_IN_TEXT: Final = re.compile(rf"(?<![\d.,]){_YEAR_DIGITS}(?![\d.,]\d)")
"""A year as :data:`_BARE_YEAR` reads one, standing in a text."""
_OCR_YEAR: Final = re.compile(r"(?<![\w.,])(?:1[5-9]|2[0O])[\dO]{2}(?!\w)")
"""A year a scan may write with a letter O for a zero (``2O23``), a whole word."""


def _equivalent_cost(loose: Sequence[FocusTerm], total: float) -> float:
    """What the focus words a unit holds only through an equivalent or a near form cost its
    score: :data:`EQUIVALENT_COST` each, but never more than they add to what it holds — a word
    held loosely is still more than a word not held at all."""
    if not loose or not total:
        return 0.0
    return min(EQUIVALENT_COST * len(loose), 0.3 * sum(t.weight for t in loose) / total)


def _is_content(term: FocusTerm) -> bool:
    return term.weight == TERM_WEIGHT and not term.name and not term.number


def _exact(term: FocusTerm, keys: _Keys) -> bool:
    """The text holds the term's own stem or word, not only an equivalent or a near form."""
    return term.stem in keys.words


_Said = tuple[frozenset[str], frozenset[tuple[str, str]]]
"""A question's words as written and its pairs of words side by side (:func:`_said_words`)."""


def _label_share(unit: Unit, asked: frozenset[str], question_words: _Said, lang: Lang) -> float:
    """For a table row: the share of its label's (first cell's) words the question says —
    ``Pendapatan Daerah`` is all asked for in "realisasi pendapatan daerah", ``Pendapatan
    Transfer Antar Daerah`` half. So for a labelled line (``Total with VAT: 1125 DKK``, a short
    label without a comma before its colon). Any other sentence has no label: 0."""
    if unit.header is None:
        return _line_label_share(unit.text, question_words, lang)
    label = _content_sequence(unit.text.split(" | ", 1)[0], lang)
    if not label:
        return 0.0
    return sum(1 for word in label if word in asked) / len(label)


def _said_words(question: QuestionAnalysis) -> _Said:
    """The question's words as written, small words included, folded, and its pairs of words
    side by side: what a labelled line's label is read against (:func:`_line_label_share`)."""
    words = [fold(w.lower()) for w in tokenize(question.text, question.lang)]
    return frozenset(words), frozenset(itertools.pairwise(words))


def _line_label_share(text: str, question_words: _Said, lang: Lang) -> float:
    """A labelled line's label (a few words before a colon, no comma or bracket) read with its
    small words: the share of its words the question says and of its word pairs it says side by
    side — ``Total with VAT`` is what "the total amount with VAT" asks, ``Total VAT`` and
    ``Total without VAT`` are not."""
    labelled = _LABELLED.match(text)
    if labelled is None:
        return 0.0
    said = text[: labelled.start(1)].rstrip(": ")
    words = [fold(w.lower()) for w in tokenize(said, lang)]
    if any(mark in said for mark in ",()[]") or not words or len(words) > MAX_LABEL_WORDS:
        return 0.0  # a sentence's lead-in, or an aside opened before the colon
    asked, side_by_side = question_words
    share = sum(1 for word in words if word in asked) / len(words)
    pairs = list(itertools.pairwise(words))
    if not pairs:
        return share
    return (share + sum(1 for pair in pairs if pair in side_by_side) / len(pairs)) / 2


MAX_LABEL_WORDS: Final = 5
"""A labelled line's label is a few words (``Total with VAT``, ``Payment account``); a longer
text before a colon is a sentence's lead-in."""


def passage_relevance(question: QuestionAnalysis, passages: Sequence[ReadPassage]) -> list[float]:
    """0–1 for each of ``passages``: how well it answers ``question`` — its best unit's
    relevance; an answering unit is worth at least :data:`ANSWERS_AT_LEAST` (the lexical
    reranker's score). One reading of them all: the order they come in changes nothing."""
    best = [0.0 for _ in passages]
    for reading in read_units(question, passages).ranked:
        value = reading.relevance
        if reading.answers:
            value = max(value, ANSWERS_AT_LEAST)
        rank = reading.unit.passage
        best[rank] = max(best[rank], value)
    return best
