"""Definitions: the terms a document defines, read without a model (issue 22, ASK-14).

Statutes, regulations and contracts define their terms in one place, and a reader asking "what
is X" wants that place first. Precision matters more than recall — an answer will say "the
document defines X as …" — so a definition is read only where the document says it defines:

- **inside a definition context**: an article or section whose lead-in says terms are defined
  there (``Dalam Undang-Undang ini yang dimaksud dengan:``, ``Bu Kanunun uygulanmasında;``,
  ``Bu Yönetmelikte geçen;``, ``In this Act—``, ``For the purposes of this Regulation:``, ``the
  following definitions apply``), or whose heading says so (a section path part or a line that
  is only ``Definitions``, ``Interpretation``, ``Tanımlar``, ``Definisi``, ``Pengertian``). It
  runs from the lead-in to the next article heading (``Pasal 2``, ``MADDE 4``, ``Article 5``),
  the Turkish list's closing ``ifade eder`` or the end of the article — on into the next chunks
  of the same section (a long ``Pasal 1`` is cut into several chunks; without a section, only
  while the list runs on to the chunk's end). There, each list item of one of these shapes is a
  definition:

  - ``1. X adalah …`` (or ``ialah``); ``X yang selanjutnya disebut/disingkat Y adalah …`` and
    ``X (Y) adalah …`` give ``Y`` as an alias;
  - ``a) X: …`` (Turkish, ``… ifade eder`` closing the list);
  - ``(a) "X" means …``, ``X means …`` (a list marker is optional only for ``means``);

  An unquoted term starts with a capital (but for ``means``), has at most 12 words, and neither
  is made only of function words nor ends with one (``ketentuan ini`` is no term); a term before
  a colon does not start with one either (``Bu Kanunun uygulanmasında: …``).
- **in an explicit sentence**, anywhere: ``Yang dimaksud dengan "X" adalah …`` (the Penjelasan's
  form; also ``ialah``/``merupakan``, ``… dalam ketentuan ini adalah …``, and an unquoted ``X`` of
  at most 6 words), ``"X" means …`` (quoted). A term whose quotes OCR broke (``oasas
  keseimbangan"``, ``"data biometrilC``) is left out rather than read wrong.

An ordinary ``X adalah Y`` outside both is not a definition.

A definition is anchored in the chunk where its item starts: ``quote`` is the item as that chunk
holds it — marker and all, up to the next item, a line that is not its own sub-item or wrapped
text, or the chunk's end (an item cut by the chunk's end is quoted up to there) — and ``span``
is where it is. Terms are matched by :func:`tanda.retrieval.analysis.term_key`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from tanda.extraction.drafts import DocumentContext, Draft, Numbering
from tanda.extraction.text import folded_name, line_spans, normalise_space
from tanda.lang import LANGS, is_function_word
from tanda.records.documents import Chunk
from tanda.records.structure import DefinitionRecord
from tanda.retrieval.analysis import term_key
from tanda.retrieval.drafting import ALIAS_ID

MAX_TERM_WORDS: Final = 12
MAX_COLON_TERM_WORDS: Final = 8
MAX_MEANS_TERM_WORDS: Final = 6
"""An unquoted ``X means``: English names its defined terms in few words (or quotes them)."""
MAX_UNQUOTED_EXPLICIT_WORDS: Final = 6
"""An unquoted ``Yang dimaksud dengan X adalah``: longer is a sentence, not a term."""

_OPEN_QUOTES: Final = "\"“”„'‘’«"
_CLOSE_QUOTES: Final = "\"“”'’»"
# A quoted term: any opening quote mark, no double quote, opening single quote or semicolon inside
# (a closing single one may be an apostrophe: `controller’s representative`), any closing mark
# (OCR mixes them: 'X").
_QUOTED: Final = r"[\"“”„'‘’«](?P<quoted>[^\"“”„«»‘;\n]{1,150}?)[\"“”'’»]"

# List markers, by kind: `1.` `23.` `6a.` (OCR: `1 1.`, `1O.`, `S.` for 8), `a)` `ç)`, `(1)`,
# `(a)`, `ii.`. An item ends where the next one of its own kind starts.
_MARKER: Final = (
    r"(?:(?P<num>\d{1,3}[a-z]?|\d\s\d|\d[OIl]|[OIlS])[.)]"
    r"|\((?P<pnum>\d{1,3}[a-z]?)\)"
    r"|\((?P<plet>[ivx]{1,4}|[a-zçğıöşü]{1,2})\)"
    r"|(?P<roman>[ivx]{2,4})[.)]"
    r"|(?P<letter>[a-zçğıöşü])[.)])"
)
_MARKER_RE: Final = re.compile(_MARKER)
# Where an item may start: a line's start (after stray OCR specks such as `' a.`), or after the
# punctuation that separates items run together on one line (`…rızayı, b) Anonim …`).
_ITEM_START: Final = re.compile(r"(?m)^(?:[ \t]*['‘’.,][ \t]+)?[ \t]*|(?<=[;,.:])[ \t]+")

_VERB_ID: Final = re.compile(r"[ \t]+(?:adalah|ialah)[ \t]+")
_VERB_EN: Final = re.compile(r"[ \t]+(?:means|shall[ \t]+mean)\b(?![ \t]+of\b)[ \t]*")
_ALIAS: Final = re.compile(rf",?\s+{ALIAS_ID}", re.IGNORECASE)
_ALIAS_SPLIT: Final = re.compile(r"\s+(?:atau|dan)\s+(?:disebut|disingkat)\s+|\s+atau\s+")
_ABBREVIATION: Final = re.compile(r"\s*\((?P<abbr>[A-Z][\w.&/-]{0,15})\)$")

_LEAD_INS: Final = re.compile(
    r"\byang\s+dimaksud\s+dengan\s*(?::|$)"
    r"|\bBu\s+(?:[\wçğıöşüÇĞİÖŞÜ]+\s+){1,4}?(?:uygulanmasında|geçen)"
    r"(?:\s+(?:terimlerden|ifadelerden|kavramlardan|aşağıdaki\s+\w+(?:\s+\w+){0,3}))?\s*[;:]"
    r"|\bIn\s+th(?:is|ese)\s+(?:Act|Acts|Regulations?|Rules?|Order|Directive|Law|Code|Agreement"
    r"|Contract|Policy|Part|Chapter|Schedule|Section|Article|Terms|Bylaws?|Ordinance|Decree"
    r"|Statute|Standard|Guidelines?|Document)\b[^\n:—–]{0,60}?[:—–]"
    r"|\bFor\s+the\s+purposes?\s+of\s+th(?:is|ese)\s+[^\n:,;]{1,50}?:"
    r"|\bthe\s+following\s+(?:definitions\s+apply|(?:words|terms|expressions)(?:\s+and\s+"
    r"(?:expressions|phrases))?\s+(?:shall\s+)?have\s+the\s+(?:following\s+)?meanings?)",
    re.IGNORECASE | re.MULTILINE,
)
_DEFINITIONS_HEADING: Final = re.compile(
    r"^(?:(?:\d+|[ivx]+)[.)]?\s+)?(?:pasal\s+\d+\s+|madde\s+\d+\s*[-–—]?\s*|article\s+\d+\s+"
    r"|section\s+\d+\s+)?(?:definitions?|interpretation|definitions\s+and\s+interpretation"
    r"|interpretation\s+and\s+definitions|defined\s+terms|tanimlar|tanim(?:lar)?\s+ve\s+"
    r"kisaltmalar|definisi|pengertian|ketentuan\s+istilah)\s*[.:]?$"
)
"""A section path part, or a line, that is only a definitions heading (folded)."""
_ARTICLE_HEADING: Final = re.compile(
    r"(?:(?m:^)|(?<=[.;:])[ \t]+)[ \t]*(?:Pasal\s*[0-9OIl]{1,4}[A-Z]?|MADDE\s+\d+|Madde\s+\d+"
    r"|Article\s+\d+|ARTICLE\s+\d+|Section\s+\d+|SECTION\s+\d+|§\s*\d+|BAB\s+[IVXLC]+|BÖLÜM)\b"
    r"|\bMADDE\s+\d+\s*[-–—]"
)
"""The next article (at a line's start, after a sentence, or ``MADDE 4 –`` anywhere) ends a
definition context."""
_LIST_CLOSE: Final = re.compile(r"[,;]?\s*\bifade\s+eder\b")
"""Turkish closes a definitions list with ``… ifade eder.``: what follows is no item."""
_AYAT_SUFFIX: Final = re.compile(r"\s*>\s*ayat\s*\([^)]*\)\s*$")

_EXPLICIT_ID: Final = re.compile(
    r"\b[Yy]ang\s+dimaksud\s+dengan\s+"
    rf"(?:{_QUOTED}|(?P<plain>[^\s\"“”„'‘’«,;:.()][^\n\"“”„'‘’«»,;:.()]{{0,80}}?))"
    r"\s+(?:dalam\s+(?:[\w/-]+\s+){1,3}?ini\s+)?(?:adalah|ialah|merupakan)\s+"
)
_EXPLICIT_EN: Final = re.compile(
    rf"(?<![\w\"“”'‘’]){_QUOTED}\s+(?:means|shall\s+mean)\b(?!\s+of\b)\s*"
)
_EXPLICIT_BREAK: Final = re.compile(
    r";\s+(?=\(?[0-9a-zivx]{1,4}[.)]\s|(?:Article|Section|Pasal|MADDE|Madde)\s|[\"“”‘'])"
)
"""Items run together on one line: ``…; (3) ‘restriction of processing’ means …``."""
_EXPLANATION_LABEL: Final = re.compile(
    r"\s(?:Huruf|Ayat|Angka|Pasal)\s*[\w()]{1,5}\s+(?=Cukup\s*jelas|Yang\s+dimaksud)"
    r"|\s*\bCukup\s*jelas\b"
)
"""The Penjelasan's next label (``Huruf e Cukup jelas.``) ends an explicit definition."""
_VERB_WORD: Final = re.compile(r"\b(?:adalah|ialah|merupakan|means)\b", re.IGNORECASE)
"""A quote holding the verb is a quote gone wrong (an OCR-broken closing mark), not a term."""
_TRAILING: Final = re.compile(
    r"(?:[;,]\s*(?:and|or|dan|atau|dan/atau|ve|veya))?[\s,;]*$", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class FoundDefinition:
    """One definition read from a chunk: where its item is, the term, aliases, definition."""

    start: int
    end: int
    term: str
    aliases: tuple[str, ...]
    definition: str


def definition_drafts(
    ctx: DocumentContext, chunks: Sequence[Chunk], numbering: Numbering
) -> list[Draft]:
    """The definition records of a document's ``chunks`` (in reading order)."""
    drafts: list[Draft] = []
    for chunk, found in read_definitions(chunks):
        drafts.append(
            ctx.draft(
                DefinitionRecord,
                numbering.next("d"),
                chunk,
                (found.start, found.end),
                text=evidence_line(found.term, found.aliases, found.definition),
                term=found.term,
                term_key=term_key(found.term),
                aliases=found.aliases,
                alias_keys=tuple(term_key(alias) for alias in found.aliases),
                definition=found.definition,
            )
        )
    return drafts


def evidence_line(term: str, aliases: Sequence[str], definition: str) -> str:
    """``DEFINISI: Pemerintah Pusat (Pemerintah) = Presiden Republik Indonesia …``."""
    named = f"{term} ({', '.join(aliases)})" if aliases else term
    return f"DEFINISI: {named} = {definition}"


def read_definitions(chunks: Sequence[Chunk]) -> Iterator[tuple[Chunk, FoundDefinition]]:
    """Every definition of ``chunks`` (one document, in reading order), chunk by chunk."""
    carried: str | None = None  # the section whose definition context ran to its chunk's end
    carried_list = False  # no section: the previous chunk's list ran on to its very end
    for chunk in chunks:
        if chunk.kind != "text":
            carried, carried_list = None, False
            continue
        section = _article(chunk.section)
        continues = (section is not None and section == carried) or (
            section is None and carried is None and carried_list
        )
        ranges = _contexts(chunk, continues)
        items = [item for start, end in ranges for item in _items(chunk.text, start, end)]
        taken = [(item.start, item.end) for item in items]
        explicit = [
            found
            for found in _explicit(chunk.text)
            if not any(found.start < end and start < found.end for start, end in taken)
        ]
        found_all = sorted([*items, *explicit], key=lambda f: f.start)
        yield from ((chunk, found) for found in found_all)
        runs_on = bool(ranges) and ranges[-1][1] == len(chunk.text)
        carried = section if runs_on and section is not None else None
        carried_list = (
            runs_on
            and section is None
            and bool(items)
            and not chunk.text[items[-1].end :].strip(" \t\n,;")
        )


def _article(section: str | None) -> str | None:
    """The article a chunk is part of: its section without the ``ayat`` a split names."""
    return _AYAT_SUFFIX.sub("", section) if section else None


def _is_definitions_heading(text: str) -> bool:
    return bool(_DEFINITIONS_HEADING.match(folded_name(text)))


def _contexts(chunk: Chunk, continues: bool) -> list[tuple[int, int]]:
    """The ranges of ``chunk.text`` inside a definition context, in order, not overlapping."""
    text = chunk.text
    starts: list[int] = []
    if continues or (
        chunk.section is not None
        and any(_is_definitions_heading(part) for part in chunk.section.split(" > "))
    ):
        starts.append(0)
    starts.extend(match.end() for match in _LEAD_INS.finditer(text))
    for start, end in line_spans(text):
        if end > start and _is_definitions_heading(text[start:end]):
            starts.append(end)
    if not starts:
        return []
    stops = sorted(
        [m.start() for m in _ARTICLE_HEADING.finditer(text)]
        + [m.start() for m in _LIST_CLOSE.finditer(text)]
    )
    ranges: list[tuple[int, int]] = []
    for start in sorted(set(starts)):
        end = next((stop for stop in stops if stop > start), len(text))
        if ranges and start <= ranges[-1][1]:
            ranges[-1] = (ranges[-1][0], max(ranges[-1][1], end))
        else:
            ranges.append((start, end))
    return ranges


@dataclass(frozen=True, slots=True)
class _Head:
    start: int  # the item's first character (its marker, when it has one)
    body: int  # where the definition text starts
    marker: str | None  # the marker's kind
    term: str
    aliases: tuple[str, ...]


def _items(text: str, start: int, end: int) -> list[FoundDefinition]:
    """The definition items in ``text[start:end]`` (a definition context)."""
    heads: list[_Head] = []
    for position in _candidate_starts(text, start, end):
        if heads and position < heads[-1].body:
            continue
        head = _head(text, position, end)
        if head is not None:
            heads.append(head)
    found: list[FoundDefinition] = []
    for index, head in enumerate(heads):
        limit = heads[index + 1].start if index + 1 < len(heads) else end
        item_end = _item_end(text, head, limit)
        definition = _clean_definition(text[head.body : item_end])
        if not definition:
            continue
        quote_end = head.start + len(_trimmed(text[head.start : item_end]))
        found.append(FoundDefinition(head.start, quote_end, head.term, head.aliases, definition))
    return found


def _candidate_starts(text: str, start: int, end: int) -> Iterator[int]:
    seen: set[int] = set()
    for match in _ITEM_START.finditer(text, start, end):
        position = match.end()
        if position < end and position not in seen:
            seen.add(position)
            yield position


def _marker_kind(match: re.Match[str]) -> str:
    return next(kind for kind in ("num", "pnum", "plet", "roman", "letter") if match.group(kind))


def _head(text: str, position: int, end: int) -> _Head | None:
    """The definition item starting at ``position``, if one does: a marker (optional for
    ``means``), then a term and its verb or colon."""
    marker = _MARKER_RE.match(text, position, end)
    kind: str | None = None
    after = position
    if marker is not None and marker.end() < end and text[marker.end()] in " \t":
        kind = _marker_kind(marker)
        after = marker.end()
        while after < end and text[after] in " \t":
            after += 1
    line_end = text.find("\n", after, end)
    line_end = end if line_end < 0 else line_end
    candidates: list[tuple[int, int, str]] = []  # (term end, body start, form)
    if kind is not None:
        verb = _VERB_ID.search(text, after, line_end)
        if verb is not None:
            candidates.append((verb.start(), verb.end(), "id"))
        colon = text.find(":", after, line_end)
        if colon > after and colon + 1 < line_end and text[colon + 1] in " \t":
            candidates.append((colon, colon + 1, "colon"))
    # An unmarked item (`court means …`) starts a line: inside a sentence it is a clause.
    if kind is not None or position == 0 or text[position - 1] == "\n":
        verb_en = _VERB_EN.search(text, after, line_end)
        if verb_en is not None:
            candidates.append((verb_en.start(), verb_en.end(), "en"))
    for term_end, body, form in sorted(candidates):
        while body < line_end and text[body] in " \t":
            body += 1
        if body >= line_end or not (text[body].isalnum() or text[body] in _OPEN_QUOTES):
            continue  # a definition starts with a word (or a quote), not with punctuation
        term = _term(text[after:term_end], form)
        if term is not None:
            return _Head(position, body, kind, *term)
    return None


def _term(raw: str, form: str) -> tuple[str, tuple[str, ...]] | None:
    """The term and its aliases from what stands before the verb or colon, or ``None`` when it
    is no term (too long, a clause, function words only)."""
    raw = raw.strip()
    aliases: list[str] = []
    if form == "id":
        alias = _ALIAS.search(raw)
        if alias is not None:
            named = raw[alias.end() :].strip(" ,")
            raw = raw[: alias.start()].strip(" ,")
            aliases.extend(a.strip(" ,") for a in _ALIAS_SPLIT.split(named) if a.strip(" ,"))
    quoted = _unquoted(raw)
    if quoted is not None:
        term = quoted
    else:
        if any(mark in raw for mark in _OPEN_QUOTES + ",;:"):
            return None
        abbreviation = _ABBREVIATION.search(raw)
        if abbreviation is not None and form == "id":
            aliases.append(abbreviation.group("abbr"))
            raw = raw[: abbreviation.start()]
        term = raw
        limit = {"colon": MAX_COLON_TERM_WORDS, "en": MAX_MEANS_TERM_WORDS}.get(
            form, MAX_TERM_WORDS
        )
        if not _plausible(term, limit, capital=form != "en", colon=form == "colon"):
            return None
    if not term or any(len(alias.split()) > MAX_TERM_WORDS for alias in aliases):
        return None
    return normalise_space(term), tuple(normalise_space(a) for a in aliases)


def _unquoted(raw: str) -> str | None:
    """The text inside the quotes when ``raw`` is one quoted term (``"X"``, ``“X”``, ``'X'``)."""
    if len(raw) < 3 or raw[0] not in _OPEN_QUOTES or raw[-1] not in _CLOSE_QUOTES:
        return None
    inner = raw[1:-1].strip()
    if not inner or any(mark in inner for mark in '"“”„«»') or len(inner.split()) > 15:
        return None
    return None if _VERB_WORD.search(inner) else inner


def _function_word(word: str) -> bool:
    return any(is_function_word(word, lang) for lang in LANGS)


def _plausible(term: str, limit: int, *, capital: bool, colon: bool) -> bool:
    words = term.split()
    if not words or len(words) > limit or not any(ch.isalpha() for ch in term):
        return False
    if capital and not words[0][0].isupper():
        return False
    if all(_function_word(word) for word in words) or _function_word(words[-1]):
        return False
    return not (colon and _function_word(words[0]))


def _item_end(text: str, head: _Head, limit: int) -> int:
    """Where the item starting at ``head`` ends, at ``limit`` at the latest: on its own line at
    the next item of its own kind; after it, at the first line that is neither a sub-item (a
    marker of another kind) nor wrapped text (a lower-case start)."""
    line_end = text.find("\n", head.body, limit)
    line_end = limit if line_end < 0 else line_end
    if head.marker is not None:
        for match in _ITEM_START.finditer(text, head.body, line_end):
            marker = _MARKER_RE.match(text, match.end(), line_end)
            sibling = marker is not None and _marker_kind(marker) == head.marker
            if sibling and match.start() > 0 and text[match.start() - 1] in ";,.:":
                return match.start()
    position = line_end
    while position < limit:
        next_start = position + 1
        next_end = text.find("\n", next_start, limit)
        next_end = limit if next_end < 0 else next_end
        line = text[next_start:next_end].lstrip(" \t")
        marker = _MARKER_RE.match(line)
        sub_item = (
            head.marker is not None
            and marker is not None
            and _marker_kind(marker) != head.marker
            and line[marker.end() : marker.end() + 1] in (" ", "\t")
        )
        if not line or not (sub_item or line[0].islower()):
            return position
        position = next_end
    return limit


def _trimmed(text: str) -> str:
    return _TRAILING.sub("", text)


def _clean_definition(text: str) -> str:
    return normalise_space(_trimmed(text))


def _explicit(text: str) -> list[FoundDefinition]:
    """``Yang dimaksud dengan "X" adalah …`` and ``"X" means …``, wherever they are."""
    matches = sorted(
        [*_EXPLICIT_ID.finditer(text), *_EXPLICIT_EN.finditer(text)], key=lambda m: m.start()
    )
    found: list[FoundDefinition] = []
    for index, match in enumerate(matches):
        quoted, plain = match.group("quoted"), match.groupdict().get("plain")
        if quoted is not None:
            term = _unquoted(f'"{quoted}"')
        elif plain is not None and _plausible(
            plain, MAX_UNQUOTED_EXPLICIT_WORDS, capital=False, colon=False
        ):
            term = plain
        else:
            term = None
        if term is None:
            continue
        line_end = text.find("\n", match.end())
        end = len(text) if line_end < 0 else line_end
        if index + 1 < len(matches) and matches[index + 1].start() < end:
            end = matches[index + 1].start()
        for stop in (_EXPLANATION_LABEL, _EXPLICIT_BREAK, _ARTICLE_HEADING):
            found_stop = stop.search(text, match.end(), end)
            if found_stop is not None:
                end = found_stop.start()
        definition = _clean_definition(text[match.end() : end])
        if not definition:
            continue
        quote_end = match.start() + len(_trimmed(text[match.start() : end]))
        found.append(
            FoundDefinition(match.start(), quote_end, normalise_space(term), (), definition)
        )
    return found
