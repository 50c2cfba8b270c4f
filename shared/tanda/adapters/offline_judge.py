"""The offline model's strict judge: a deterministic check that a statement is written in its cited
passages, in Indonesian, Turkish or English (V2-07, V2-08; issue 17, docs/evaluation.md).

A statement is ``supported`` only when each of its sentences *aligns* with one place of the
passages — its own words in a row (a quote), or the shortest stretch of one sentence that holds its
content terms without crossing a "but", or one table row under its header — and that place says
the same thing:

1. **Every content term is there.** Each word of the sentence that is not a function word (stemmed
   and folded as the search index does) occurs in the place, or in the passage's identity (title,
   period…) or the row's header. A term found only elsewhere in the document does not count: a
   swapped name or an inserted fact is usually written somewhere else in a long document.
2. **The same markers on the same words.** A negation (``tidak``, ``bukan``, ``belum``, ``tanpa``;
   ``not``, ``never``, ``no``, ``n't``; ``değil``, ``yok``, the verb's ``-mA-``), a modality
   (``akan``, ``dapat``, ``harus``; ``will``, ``could``, ``should``; ``belki``) or a quantifier
   (``hanya``, ``semua``, ``setiap``; ``only``, ``all``, ``every``; ``sadece``, ``her``) bears on
   the content word that follows it; the sentence and the place must mark the same words
   (``tidak pernah menerima`` marks ``menerima``; ``tidak hanya`` / ``not only`` marks nothing).
3. **No antonym.** The place does not hold the opposite of one of the sentence's words (``naik`` /
   ``turun``, ``sebelum`` / ``setelah``, ``increase`` / ``decrease``, ``arttı`` / ``azaldı``) that
   the sentence does not hold too.
4. **The same roles.** Names keep their order unless the verb changed voice (``A mengalahkan B`` =
   ``B dikalahkan A``, but not ``B mengalahkan A`` nor ``A dikalahkan B``).
5. **The numbers are the place's.** Every quantity of the sentence is found by ``tanda.numbers`` in
   the place's sentence (or row) and the passage's identity — not in another row or sentence; and
   when the place is a table row whose header names years and the sentence names one of them, in
   the cell under that year.

It says ``unsupported`` when the passages contradict the statement (a place aligns but fails 2–5, a
quantity or a name of it appears nowhere, or it shares less than half its terms with them) and
``unverifiable`` when it is merely not written there: it cannot see meaning, so a paraphrase is not
``supported``. docs/evaluation.md has the figures on IndoNLI, WiCE and SummEdits.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from typing import Literal, NamedTuple

from tanda.lang import DEFAULT_TEXT_LANG, FUNCTION_WORDS, Lang, fold, guess_lang
from tanda.retrieval.analysis import lowercase, stem
from tanda.retrieval.opposites import opposite_pairs
from tanda.retrieval.sentences import sentences

JudgeVerdict = Literal["supported", "unsupported", "unverifiable"]
Marker = Literal["negation", "modality", "quantifier"]

MARKER_REACH = 3
"""How far (in words, within a clause) a marker reaches to the content word it bears on."""
MAX_PLACES = 64
"""Candidate places tried per sentence, the shortest first."""

_TOKEN = re.compile(r"\d+(?:[.,/:\-]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)*")
# Sentences are read as the offline agent and the extraction read them (tanda.retrieval.sentences)
# and also end after a semicolon, which closes a statute's list item or an independent clause: a
# place never reaches across one.
_CLAUSE_END = re.compile(r"(?<=;)\s+")
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]—–\"“”]|\s-\s")
_YEAR_CELL = re.compile(r"(?:19|20)\d\d")
_DIGIT = re.compile(r"\d")
_APOSTROPHE = re.compile(r"['’]")
_SENTENCE_MARK = re.compile(r"[.!?]")
_CELL = " | "


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


MARKERS: dict[Marker, dict[Lang, frozenset[str]]] = {
    "negation": {
        "id": _words(
            "tidak tak bukan belum tanpa jangan tiada takkan nggak enggak gak tidaklah bukanlah "
            "belumlah janganlah"
        ),
        "en": _words("not no never none nobody nothing neither nor without cannot nowhere"),
        "tr": _words("değil değildir değildi değiller yok yoktur yoktu hiç hiçbir asla"),
    },
    "modality": {
        "id": _words(
            "akan bisa dapat mungkin harus wajib seharusnya semestinya sebaiknya boleh perlu "
            "ingin hendak mau berencana diperkirakan diharapkan kemungkinan"
        ),
        "en": _words(
            "will would can could may might must should shall ought likely possibly probably "
            "perhaps expected planned intends"
        ),
        "tr": _words("belki muhtemelen olabilir gerek gerekir lazım zorunda"),
    },
    "quantifier": {
        "id": _words(
            "hanya cuma semua seluruh setiap tiap sebagian beberapa hampir sekitar setidaknya "
            "sedikitnya paling selalu sering jarang"
        ),
        "en": _words(
            "only all every each some several most nearly almost approximately least always "
            "often sometimes rarely"
        ),
        "tr": _words("sadece yalnızca tüm bütün her bazı birkaç çoğu neredeyse yaklaşık hep bazen"),
    },
}
# Markers that say the same thing.
_SAME_MARKER = {
    "bisa": "dapat",
    "semestinya": "seharusnya",
    "wajib": "harus",
    "seluruh": "semua",
    "tiap": "setiap",
    "cuma": "hanya",
    "each": "every",
    "yalnizca": "sadece",
    "butun": "tum",
}
# "not only" / "tidak hanya" adds, it does not deny: neither word is a marker there.
_NOT_ONLY: dict[Lang, tuple[frozenset[str], frozenset[str]]] = {
    "id": (_words("tidak bukan tak"), _words("hanya saja cuma")),
    "en": (_words("not"), _words("only just merely")),
    "tr": (frozenset(), frozenset()),
}
# The Turkish verb's negation -mA-: gelmedi, gelmiyor, gelmez, gelmeyecek, gelmemiş, gelmemeli,
# gelmeyen, gelmeden (after a verb stem of two letters or more).
_TURKISH_NEGATIVE_VERB = re.compile(
    r"^[^\W\d_]{2,}?(?:m[ıiuü]yor|m[ae](?:d[ıiuü]|z(?:$|l[ae]r|d[ıi]|m[ıi]ş|s[ae])"
    r"|y[ae]c[ae][kğ]|m[ıiuü]ş|m[ae]l[ıi]|y[ae]n|d[ae]n))"
)
# The same verb without its -mA-, so ``gelmedi`` meets ``geldi`` (gelmiyor → geliyor, okumuyor →
# okuyor, gelmeyecek → gelecek, gelmemiş → gelmiş, gelmeyen → gelen); -mAz and -mAdAn stay as
# they are (their affirmative changes the vowel).
_V = "aeıioöuü"
_TURKISH_AFFIRMATIVE = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (rf"^(.{{2,}}?[{_V}])m[ıiuü](yor.*)$", r"\1\2"),
        (r"^(.{2,}?)m([ıiuü]yor.*)$", r"\1\2"),
        (r"^(.{2,}?)m[ae](d[ıiuü].*|m[ıiuü]ş.*|m[ae]l[ıi].*)$", r"\1\2"),
        (rf"^(.{{2,}}?[{_V}])m[ae](y[ae]c[ae][kğ].*|y[ae]n.*)$", r"\1\2"),
        (r"^(.{2,}?)m[ae]y([ae]c[ae][kğ].*|[ae]n.*)$", r"\1\2"),
    )
)
_CLAUSE_WORDS: dict[Lang, frozenset[str]] = {
    "id": _words("tetapi namun tapi sedangkan padahal meskipun walaupun sementara"),
    "en": _words("but however whereas although though while yet"),
    "tr": _words("ama fakat ancak oysa halbuki rağmen"),
}
_BE = _words("is are was were be been being")


@dataclass(frozen=True)
class CitedPassage:
    """A cited passage as the judge sees it: its text and its identity lines (title, period…)."""

    text: str
    identity: tuple[str, ...] = ()


class _Token(NamedTuple):  # a tuple: passages are read token by token, and tuples build fast
    term: str  # stemmed and folded, as the search index has it; "" for a number
    word: str  # folded, lower-cased surface, its apostrophe suffix dropped
    unit: int  # which sentence of its stream
    marker: Marker | None
    marks_itself: bool  # a marker inside the word (Turkish -mA-): it bears on the word itself
    capitalised: bool  # written with a capital (a name, or a sentence's first word)
    clause_break_before: bool
    contrast_before: bool  # right after "but", "namun", "ama": another claim begins
    voice: Literal["active", "passive"] | None = None


@dataclass(frozen=True)
class _Stream:
    """Text searched for places: a prose passage (units = its sentences) or one table row."""

    tokens: tuple[_Token, ...]
    context: str  # the passage's identity lines, and a row's header: part of every place in it
    context_terms: frozenset[str]
    unit_text: tuple[str, ...]
    header_cells: tuple[str, ...] = ()
    row_cells: tuple[str, ...] = ()

    @cached_property
    def terms(self) -> frozenset[str]:
        """Every term of the stream and of its context."""
        return self.context_terms | {t.term for t in self.tokens if t.term}

    @cached_property
    def units(self) -> tuple[tuple[int, int, frozenset[str]], ...]:
        """Each sentence (or the row) as its first and last token and its terms."""
        spans: dict[int, list[int]] = {}
        for index, t in enumerate(self.tokens):
            spans.setdefault(t.unit, []).append(index)
        return tuple(
            (at[0], at[-1], frozenset(self.tokens[i].term for i in at if self.tokens[i].term))
            for at in spans.values()
        )


@dataclass(frozen=True)
class _Claim:
    """One sentence of the statement, read once."""

    text: str
    tokens: tuple[_Token, ...]
    wanted: frozenset[str]
    marked: dict[Marker, frozenset[tuple[str, str]]]
    unscoped: dict[Marker, int]
    roles: tuple[tuple[str, _Token, str], ...]
    """(name, word, name) in this order, the word between them written once: who does what."""


def judge_statement(statement: str, passages: Sequence[CitedPassage]) -> JudgeVerdict:
    from tanda.numbers import find_in

    everything = "\n".join("\n".join((*p.identity, p.text)) for p in passages)
    # The statement is read in its evidence's language, numbers included: a short statement alone
    # says too little (a stray "A" reads as English, and English reads "(3)" as minus three), and
    # its words must match the passages' stems anyway.
    lang = guess_lang(f"{statement}\n{everything[:4000]}") or DEFAULT_TEXT_LANG
    if find_in(statement, everything, lang):
        return "unsupported"  # a number the passages do not state (V2-08)
    streams = [s for p in passages for s in _streams(p, lang)]
    source_terms = frozenset().union(*(s.terms for s in streams))
    verdicts = [
        v
        for sentence in _sentences(statement)
        if (v := _judge_sentence(sentence, streams, source_terms, lang)) is not None
    ]
    if not verdicts:
        return "unverifiable"  # nothing of substance to check
    if "unsupported" in verdicts:
        return "unsupported"
    if all(v == "supported" for v in verdicts):
        return "supported"
    return "unverifiable"


def _judge_sentence(
    sentence: str, streams: Sequence[_Stream], source_terms: frozenset[str], lang: Lang
) -> JudgeVerdict | None:
    claim = _claim(sentence, lang)
    if not claim.wanted:
        return None
    contradicted = False
    for stream in streams:
        for first, last in _places(stream, claim):
            if _place_failure(claim, stream, first, last, lang) is None:
                return "supported"
            contradicted = True
    if contradicted:
        return "unsupported"
    missing = claim.wanted - source_terms
    if any(
        t.term in missing and (t.capitalised or _DIGIT.search(t.word)) for t in claim.tokens[1:]
    ):
        return "unsupported"  # a name the passages never mention
    if len(claim.wanted - missing) < len(claim.wanted) / 2:
        return "unsupported"
    return "unverifiable"


def _place_failure(claim: _Claim, stream: _Stream, first: int, last: int, lang: Lang) -> str | None:
    """Why the place ``stream.tokens[first..last]`` does not say what the claim says, if so."""
    from tanda.numbers import find_in

    tokens = stream.tokens
    place = tokens[first : last + 1]
    reach = first
    while reach > 0 and first - reach < MARKER_REACH and not tokens[reach].clause_break_before:
        if tokens[reach - 1].unit != tokens[first].unit:
            break
        reach -= 1
    for kind in MARKERS:
        # Markers just before the place bear on it too ("tidak pernah menerima"); a marker of the
        # claim that bears on no content word needs one in the place itself.
        marked = _marks(tokens, reach, last, kind, claim.wanted)[0]
        inside = _marks(tokens, first, last, kind, claim.wanted)[1]
        if marked != claim.marked[kind] or claim.unscoped[kind] > inside:
            return kind
    if _opposed(claim, place, lang):
        return "antonym"
    if _roles_swapped(claim, place):
        return "roles"
    if find_in(claim.text, f"{stream.context}\n{stream.unit_text[place[0].unit]}", lang):
        return "numbers"
    column = _column_of(claim.text, stream)
    if column is not None and find_in(claim.text, column, lang):
        return "column"
    return None


def _marks(
    tokens: Sequence[_Token], first: int, last: int, kind: Marker, wanted: frozenset[str]
) -> tuple[frozenset[tuple[str, str]], int]:
    """(marker, content word it bears on) for the markers of ``kind`` in ``tokens[first..last]``,
    and how many bear on no word of ``wanted``. Every negation is the same marker; a modality or
    a quantifier is its word (``semua`` is not ``sebagian``)."""
    marked: set[tuple[str, str]] = set()
    unscoped = 0
    for index in range(first, last + 1):
        if tokens[index].marker != kind:
            continue
        scope = _scope(tokens, index, wanted)
        if scope is None:
            unscoped += 1
        else:
            word = "" if kind == "negation" else tokens[index].word
            marked.add((_SAME_MARKER.get(word, word), scope))
    return frozenset(marked), unscoped


def _scope(tokens: Sequence[_Token], index: int, wanted: frozenset[str]) -> str | None:
    """The first word of ``wanted`` a marker reaches, within its clause (the word itself for a
    marker inside it)."""
    if tokens[index].marks_itself:
        return tokens[index].term if tokens[index].term in wanted else None
    for step in range(index + 1, min(len(tokens), index + 1 + MARKER_REACH)):
        token = tokens[step]
        if token.clause_break_before or token.unit != tokens[index].unit:
            return None
        if token.term in wanted:
            return token.term
    return None


def _places(stream: _Stream, claim: _Claim) -> list[tuple[int, int]]:
    """Where in the stream the claim may be written, as ``(first, last)`` token positions: the
    claim's own words in a row first (a quote), then every shortest run of one sentence that holds
    its content terms without crossing a "but"; at most ``MAX_PLACES``. A term the identity or
    the row's header holds need not be in the run, unless the sentence has it too. A table row
    whose header or identity holds every term is a place as a whole."""
    tokens = stream.tokens
    words = [t.word for t in claim.tokens]
    quotes: list[tuple[int, int]] = []
    runs: list[tuple[int, int]] = []
    for first, last, terms in stream.units:
        if claim.wanted - stream.context_terms - terms:
            continue  # a term this sentence cannot give
        needed = (claim.wanted - stream.context_terms) | (claim.wanted & terms)
        if not needed:
            if stream.header_cells:
                runs.append((first, last))
            continue
        quotes += [
            (start, start + len(words) - 1)
            for start in range(first, last - len(words) + 2)
            if tokens[start].word == words[0]
            and [t.word for t in tokens[start : start + len(words)]] == words
        ]
        runs += _shortest_runs(tokens, first, last, needed)
    runs.sort(key=lambda span: span[1] - span[0])
    return (quotes + runs)[:MAX_PLACES]


def _shortest_runs(
    tokens: Sequence[_Token], first: int, last: int, needed: frozenset[str]
) -> list[tuple[int, int]]:
    """Every minimal run of ``tokens[first..last]`` holding all ``needed`` terms (two pointers
    over their positions), except runs that cross a "but"."""
    positions = [i for i in range(first, last + 1) if tokens[i].term in needed]
    runs: list[tuple[int, int]] = []
    counts: dict[str, int] = {}
    left = 0
    for right in positions:
        counts[tokens[right].term] = counts.get(tokens[right].term, 0) + 1
        while len(counts) == len(needed):
            start = positions[left]
            if not any(t.contrast_before for t in tokens[start + 1 : right + 1]):
                runs.append((start, right))
            term = tokens[start].term
            counts[term] -= 1
            if not counts[term]:
                del counts[term]
            left += 1
    return runs


def _opposed(claim: _Claim, place: Sequence[_Token], lang: Lang) -> bool:
    """The place holds the opposite of a word of the claim that the claim does not hold."""
    said = _keys(claim.tokens)
    held = _keys(place)
    return any(said & one and held & other and not said & other for one, other in _opposites(lang))


def _keys(tokens: Iterable[_Token]) -> set[str]:
    keys: set[str] = set()
    for t in tokens:
        keys.add(t.term)
        keys.add(t.word)
    return keys


def _roles_swapped(claim: _Claim, place: Sequence[_Token]) -> bool:
    """Two names on either side of a word (``A v B``) changed sides without the word changing
    voice, or the word changed voice without the names changing sides: ``A mengalahkan B`` is not
    ``B mengalahkan A`` nor ``A dikalahkan B``, but is ``B dikalahkan A``."""
    at: dict[str, list[int]] = {}
    for index, t in enumerate(place):
        at.setdefault(t.term, []).append(index)
    for a, verb, b in claim.roles:
        spots = at.get(verb.term, [])
        if len(spots) != 1 or a not in at or b not in at:
            continue
        v = spots[0]
        reversed_ = min(at[b]) < v < max(at[a]) and not min(at[a]) < v < max(at[b])
        voice = place[v].voice
        flipped = verb.voice is not None and voice is not None and voice != verb.voice
        if reversed_ != flipped:
            return True
    return False


def _column_of(sentence: str, stream: _Stream) -> str | None:
    """For a table row whose header names years: the row's labels and the cell under the year the
    sentence names (``None`` when the sentence names no one year of the header)."""
    header, row = stream.header_cells, stream.row_cells
    if not header or len(header) != len(row):
        return None
    named = [
        index
        for index, cell in enumerate(header)
        if _YEAR_CELL.fullmatch(cell) and re.search(rf"(?<!\d){cell}(?!\d)", sentence)
    ]
    if len(named) != 1:
        return None
    labels = " ".join(cell for cell in row if not _DIGIT.search(cell))
    return "\n".join((stream.context, labels, f"{header[named[0]]}: {row[named[0]]}"))


# -- reading ----------------------------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    return [
        clause for sentence in sentences(text) for clause in _CLAUSE_END.split(sentence) if clause
    ]


def _claim(sentence: str, lang: Lang) -> _Claim:
    from tanda.numbers import extract_quantities

    sentence = unicodedata.normalize("NFC", sentence)
    tokens = tuple(_tokens(sentence, lang))
    # The words of a quantity (Rp, juta, persen, tahun) are the numbers check's, not terms.
    spans = [q.span for q in extract_quantities(sentence)]
    quantity_words = {
        index
        for index, match in enumerate(_TOKEN.finditer(sentence))
        if any(start <= match.start() < end for start, end in spans)
    }
    stops = _stopwords(lang)
    wanted = frozenset(
        t.term
        for index, t in enumerate(tokens)
        if t.term
        and t.marker is None
        and len(t.term) > 1
        and t.word not in stops
        and index not in quantity_words
    )
    marked: dict[Marker, frozenset[tuple[str, str]]] = {}
    unscoped: dict[Marker, int] = {}
    for kind in MARKERS:
        marked[kind], unscoped[kind] = _marks(tokens, 0, len(tokens) - 1, kind, wanted)
    return _Claim(sentence, tokens, wanted, marked, unscoped, _roles(tokens, wanted))


def _roles(tokens: Sequence[_Token], wanted: frozenset[str]) -> tuple[tuple[str, _Token, str], ...]:
    names = [i for i, t in enumerate(tokens) if t.capitalised and t.term in wanted]
    counts: dict[str, int] = {}
    for t in tokens:
        counts[t.term] = counts.get(t.term, 0) + 1
    roles = []
    for v, verb in enumerate(tokens):
        if verb.capitalised or verb.term not in wanted or counts[verb.term] != 1:
            continue
        before = [tokens[i].term for i in names if i < v]
        after = [tokens[i].term for i in names if i > v]
        if before and after and before[-1] != after[0]:
            roles.append((before[-1], verb, after[0]))
    return tuple(roles)


@lru_cache(maxsize=256)
def _streams(passage: CitedPassage, lang: Lang) -> tuple[_Stream, ...]:
    """A passage read once for all the statements that cite it (a batch shares its passages)."""
    identity = "\n".join(passage.identity)
    identity_terms = frozenset(t.term for t in _tokens(identity, lang) if t.term)
    lines = [line.strip() for line in passage.text.splitlines() if line.strip()]
    if len(lines) >= 2 and _CELL in lines[0]:
        header = lines[0]
        context = f"{identity}\n{header}" if identity else header
        context_terms = identity_terms | {t.term for t in _tokens(header, lang) if t.term}
        header_cells = tuple(cell.strip() for cell in header.split("|"))
        return tuple(
            _Stream(
                tokens=tuple(_tokens(line, lang)),
                context=context,
                context_terms=context_terms,
                unit_text=(line,),
                header_cells=header_cells,
                row_cells=tuple(cell.strip() for cell in line.split("|")),
            )
            for line in lines[1:]
        )
    units = _sentences(passage.text)
    tokens = [t for number, unit in enumerate(units) for t in _tokens(unit, lang, unit=number)]
    return (
        _Stream(
            tokens=tuple(tokens),
            context=identity,
            context_terms=identity_terms,
            unit_text=tuple(units),
        ),
    )


def _tokens(text: str, lang: Lang, *, unit: int = 0) -> list[_Token]:
    text = unicodedata.normalize("NFC", text)
    matches = list(_TOKEN.finditer(text))
    gaps = [text[(matches[i - 1].end() if i else 0) : m.start()] for i, m in enumerate(matches)]
    raws = [m.group() for m in matches]
    words: list[str] = []
    markers: list[Marker | None] = []
    inside: list[bool] = []
    for index, raw in enumerate(raws):
        word = lowercase(raw, lang)
        if "'" in word or "’" in word:
            word = _APOSTROPHE.split(word, 1)[0]  # Türkiye'nin → türkiye; company's → company
        # A capital inside a sentence is a name (Yılmaz, No. 5), never a marker; the first word
        # after a list or ayat number ("(1) Setiap …", "a. Setiap …") opens the sentence.
        opening = index == 0 or (
            index <= 2 and all(r.isdigit() or len(r) == 1 for r in raws[:index])
        )
        name = raw[0].isupper() and not opening and not _SENTENCE_MARK.search(gaps[index])
        marker, affirmative = (None, word) if name else _marker(raw, word, lang)
        words.append(affirmative)
        markers.append(marker)
        inside.append(affirmative != word)
    not_only, only = _NOT_ONLY[lang]
    for index in range(len(words) - 1):
        if words[index] in not_only and words[index + 1] in only:
            markers[index] = markers[index + 1] = None
    stems = stem(words, lang) if words else []
    clause_words = _CLAUSE_WORDS[lang]
    tokens: list[_Token] = []
    for index, word in enumerate(words):
        term = "" if word[0].isdigit() else fold(stems[index])
        contrast = index > 0 and words[index - 1] in clause_words
        tokens.append(
            _Token(
                term=term,
                word=fold(word),
                unit=unit,
                marker=markers[index],
                marks_itself=inside[index],
                capitalised=raws[index][0].isupper(),
                clause_break_before=contrast or bool(_CLAUSE_BREAK.search(gaps[index])),
                contrast_before=contrast,
                voice=_voice(word, term, words[max(0, index - 2) : index], lang),
            )
        )
    return tokens


def _marker(raw: str, word: str, lang: Lang) -> tuple[Marker | None, str]:
    """The marker a word is, and the word to read as a term (the affirmative of a Turkish
    negative verb)."""
    if word[0].isdigit():
        return None, word
    kind = _marker_words(lang).get(word)
    if kind is not None:
        return kind, word
    if lang == "en" and raw.lower().endswith(("n't", "n’t")):
        return "negation", word
    if lang == "tr" and _TURKISH_NEGATIVE_VERB.match(word):
        for pattern, replacement in _TURKISH_AFFIRMATIVE:
            affirmative = pattern.sub(replacement, word)
            if affirmative != word:
                return "negation", affirmative
        return "negation", word
    return None, word


@cache
def _marker_words(lang: Lang) -> dict[str, Marker]:
    return {word: kind for kind, words in MARKERS.items() for word in words[lang]}


def _voice(
    word: str, term: str, before: Sequence[str], lang: Lang
) -> Literal["active", "passive"] | None:
    """Indonesian ``di-`` (passive) and ``meN-`` (active) verbs; in English a participle after a
    form of *be* is passive, any other word active. Anything else: unknown."""
    if lang == "id" and len(word) > len(term) + 1:
        if word.startswith("di") and not term.startswith("di"):
            return "passive"
        if word.startswith("me") and not term.startswith("me"):
            return "active"
    if lang == "en":
        return "passive" if word.endswith(("ed", "en")) and _BE.intersection(before) else "active"
    return None


# Words that only tie a subject to its quantity ("Belanja sebesar Rp 6 miliar"): the quantity is
# checked by the numbers check, the word itself says nothing a table row would write.
_QUANTITY_TIES: dict[Lang, frozenset[str]] = {
    "id": _words("sebesar sebanyak senilai berjumlah"),
    "en": _words("amounting totalling totaling"),
    "tr": _words("tutarında"),
}


@cache
def _stopwords(lang: Lang) -> frozenset[str]:
    """The search index's function words, and the words that tie a subject to its quantity."""
    return frozenset(fold(w) for w in FUNCTION_WORDS[lang] | _QUANTITY_TIES[lang])


def _opposites(lang: Lang) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """Each pair of opposite word groups as matching keys (:mod:`tanda.retrieval.opposites`),
    leaving out the stems that are this judge's stopwords."""
    return opposite_pairs(lang, _stopwords(lang))
