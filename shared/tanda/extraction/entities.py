"""Entities of prose: ``TYPE: name = value`` (ASK-14, ASK-08).

Values come from ``tanda.numbers`` (amounts, percentages, dates, years, durations, statute and
other reference numbers), kept verbatim and in normal form; labelled codes (invoice, tax and
registry numbers) and parties and places from small patterns of the three languages. The name is
what the value is of: the words before it in its clause (``Anggaran pendidikan 2023`` for ``Rp 5
miliar``), else the chunk's section. Table cells are entities too; :mod:`tanda.extraction.items`
reads them with their row and column.

Plain counts (``5 orang``, an enumerator ``(2)``) and article references (``Pasal 5``, which every
heading repeats) are not entities: they would bury the values a reader asks about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from tanda.extraction.drafts import DocumentContext, Draft, Fact, Numbering, normal_value
from tanda.extraction.text import content_terms, folded_name, normalise_space
from tanda.numbers import QuantityKind
from tanda.numbers.model import Quantity
from tanda.numbers.normal import DURATION_UNITS, NormalForm, normal_form
from tanda.records.documents import Chunk
from tanda.records.structure import EntityRecord, EntityType


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NAME_WORDS: Final = 6
# Words that join a name to its value, dropped from the end of a name (folded).
_LINK_WORDS: Final = _words(
    """
    sebesar senilai sejumlah sebanyak adalah yaitu ialah yakni mencapai menjadi sampai
    hingga dari pada tanggal per tahun sekitar kurang lebih rp idr total jumlah dengan nilai
    of is was were are be amounting amounted to totalling totaling at about around
    approximately on dated ile olarak tutarinda tarihinde tarihli yaklasik toplam
    """
)
_LEADING_WORDS: Final = _words(
    """
    dan atau dan/atau serta yang and or and/or which that the ve veya ile
    """
)
_CLAUSE_BREAK: Final = re.compile(r"[,;:()\[\]\n]|[.!?](?=\s)|\s[-–—]\s")
_WORD: Final = re.compile(r"[^\W_][\w./'’-]*")

_CODE_LABELS: Final = (
    r"NPWP|NIB|NSFP|Nomor\s+Seri\s+Faktur(?:\s+Pajak)?|No(?:mor)?\.?\s+Faktur(?:\s+Pajak)?"
    r"|VKN|Vergi\s+(?:Kimlik\s+)?N(?:o|umaras[ıi])\.?|Ticaret\s+Sicil\s+N(?:o|umaras[ıi])\.?"
    r"|MERS[İI]S\s+N(?:o|umaras[ıi])\.?|Fatura\s+N(?:o|umaras[ıi])\.?|Invoice\s+(?:No\.?|Number|#)"
    r"|IBAN|Tax\s+(?:ID|Number|No\.?)|VAT\s+(?:ID|Number|No\.?)|Registration\s+(?:No\.?|Number)"
    r"|Order\s+(?:No\.?|Number)|PO\s+(?:No\.?|Number)|Sipari[şs]\s+N(?:o|umaras[ıi])\.?"
)
_CODE: Final = re.compile(
    rf"(?P<label>{_CODE_LABELS})\s*[:.#]?\s*(?P<code>[A-Z0-9](?:[A-Z0-9./\-]{{0,40}}[A-Z0-9])?)",
    re.IGNORECASE,
)
_CAP: Final = r"[A-ZÇĞİÖŞÜ][\w&'’-]*"
_JOIN: Final = r"(?:\s+(?:dan|ve|and|of|&|untuk|Republik|Negara))?"
_ORG_HEAD: Final = (
    r"PT|CV|UD|Perum|Persero|Pemerintah|Kementerian|Badan|Dewan|Majelis|Mahkamah|Komisi|Lembaga"
    r"|Otoritas|Bank|Dinas|Kantor|Koperasi|Yayasan|Presiden|Gubernur|Bupati|Wali\s+Kota|Walikota"
    r"|Menteri|Ministry|Department|Council|Commission|Agency|Government|Office"
)
_ORG_PREFIXED: Final = re.compile(rf"\b(?:{_ORG_HEAD})\.?(?:{_JOIN}\s+{_CAP}){{1,7}}")
_ORG_SUFFIX: Final = re.compile(
    r"(?<=\s)(?:A\.Ş\.|Ltd\.\s*Şti\.|Bakanlığı|Başkanlığı|Müdürlüğü|Belediyesi|Kurumu|Valiliği"
    r"|Ltd\.?|Limited|Inc\.?|LLC|GmbH|plc|PLC|B\.V\.|S\.A\.|S\.p\.A\.|AG|Corp\.?|Corporation"
    r"|Company|Tbk\.?)(?!\w)"
)
_CAPITALISED_BEFORE: Final = re.compile(rf"(?:{_CAP}\s+){{1,6}}$")
"""Read backwards from a suffix (``… Sanayi A.Ş.``): scanning for the rare suffix first keeps
the pattern off every capitalised word of the text."""
_PLACE: Final = re.compile(
    r"\b(?:Ditetapkan\s+di|Diundangkan\s+di|Dibuat\s+di|Done\s+at|Signed\s+at"
    r"|Place\s+of\s+(?:issue|delivery|supply)\s*:?|Düzenlenme\s+Yeri\s*:|Teslim\s+Yeri\s*:)"
    rf"\s+(?P<place>{_CAP}(?:\s+{_CAP}){{0,3}})"
)
_REFERENCE_TAIL: Final = re.compile(r"\s+(?:Tahun|Year|Yılı|of)\s+(?:19|20)\d{2}\b", re.IGNORECASE)
_PERSONAL: Final = re.compile(r"\bNIK\b|\bTCKN\b|\bKTP\b")


@dataclass(frozen=True, slots=True)
class ProseEntities:
    drafts: list[Draft]
    facts: list[Fact]


def prose_entities(
    ctx: DocumentContext,
    chunk: Chunk,
    quantities: Sequence[Quantity],
    numbering: Numbering,
    seen: set[tuple[str, str]],
) -> ProseEntities:
    """The entities of one text chunk; ``quantities`` are ``tanda.numbers``' reading of it.
    ``seen`` holds the parties, places and references the document named already: a name that
    recurs is one entity, at its first mention."""
    found = _ChunkEntities(ctx, chunk, numbering)
    text = chunk.text
    for code in _CODE.finditer(text):
        if _PERSONAL.search(code["label"]) or not any(ch.isdigit() for ch in code["code"]):
            continue
        found.add("REFERENCE", code.span("code"), normalise_space(code["label"]), None, seen)
    floor = 0  # a name never reaches back into the value before it
    for quantity in quantities:
        typed = _entity_type(quantity)
        previous_end, floor = floor, quantity.end
        if typed is None or found.overlaps(quantity.span):
            continue
        span = quantity.span
        if typed == "REFERENCE":
            tail = _REFERENCE_TAIL.match(text, span[1])
            if tail is not None:
                span = (span[0], tail.end())
        name = (
            name_before(text, span[0], chunk, previous_end)
            if typed != "PERIOD"
            else _period_name(text, span)
        )
        period = ctx.period if typed == "AMOUNT" else None
        once = seen if typed == "REFERENCE" else None
        found.add(typed, span, name, normal_form(quantity, period=period), once)
    for match in _ORG_PREFIXED.finditer(text):
        found.add_named("PARTY", match.span(), seen)
    for suffix in _ORG_SUFFIX.finditer(text):
        head = _CAPITALISED_BEFORE.search(text, max(0, suffix.start() - 120), suffix.start())
        if head is not None:
            found.add_named("PARTY", (head.start(), suffix.end()), seen)
    for match in _PLACE.finditer(text):
        found.add_named("PLACE", match.span("place"), seen)
    return ProseEntities(found.drafts, found.facts)


class _ChunkEntities:
    """The entities found so far in one chunk; a span is never read as two entities."""

    def __init__(self, ctx: DocumentContext, chunk: Chunk, numbering: Numbering) -> None:
        self.ctx = ctx
        self.chunk = chunk
        self.numbering = numbering
        self.drafts: list[Draft] = []
        self.facts: list[Fact] = []
        self.taken: list[tuple[int, int]] = []

    def overlaps(self, span: tuple[int, int]) -> bool:
        return _overlaps(span, self.taken)

    def add(
        self,
        entity_type: EntityType,
        span: tuple[int, int],
        name: str,
        form: NormalForm | None,
        once: set[tuple[str, str]] | None = None,
    ) -> None:
        ctx, chunk = self.ctx, self.chunk
        surface = chunk.text[span[0] : span[1]]
        if once is not None:
            key = (entity_type, folded_name(surface))
            if key in once:
                self.taken.append(span)
                return
            once.add(key)
        local = self.numbering.next("e")
        self.drafts.append(
            ctx.draft(
                EntityRecord,
                local,
                chunk,
                span,
                text=f"{entity_type}: {name} = {normalise_space(surface)}",
                entity_type=entity_type,
                name=name,
                canonical=folded_name(name),
                value=surface,
                normal=normal_value(form) if form is not None else None,
            )
        )
        self.taken.append(span)
        if form is not None:
            self.facts.append(
                Fact(
                    node_id=ctx.node_id(local),
                    entity_type=entity_type,
                    name=name,
                    name_terms=content_terms(name, ctx.lang),
                    form=form,
                    surface=surface,
                    chunk_id=chunk.chunk_id,
                    span=span,
                )
            )

    def add_named(
        self, entity_type: EntityType, span: tuple[int, int], seen: set[tuple[str, str]]
    ) -> None:
        """A party or place (its span ends at a word or at a suffix like ``A.Ş.``), named by its
        label (``Penjual:``)."""
        text = self.chunk.text
        start, end = span
        while end > start and text[end - 1] in ",;: ":
            end -= 1
        if end - start < 4 or self.overlaps((start, end)):
            return
        label = _label_before(text, start)
        self.add(entity_type, (start, end), label or entity_type.lower(), None, seen)


def _entity_type(quantity: Quantity) -> EntityType | None:
    kind = quantity.kind
    if kind is QuantityKind.amount:
        return "AMOUNT"
    if kind is QuantityKind.percent:
        return "PERCENT"
    if kind is QuantityKind.date:
        return "DATE"
    if kind is QuantityKind.year:
        return "PERIOD"
    if kind is QuantityKind.count and quantity.unit in DURATION_UNITS:
        return "DURATION"
    if kind is QuantityKind.ordinal and quantity.label == "number":
        return "REFERENCE"
    return None


def _overlaps(span: tuple[int, int], taken: Sequence[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def name_before(text: str, at: int, chunk: Chunk, floor: int = 0) -> str:
    """What a value at ``at`` is of: up to six words before it in its clause and after the value
    before it (``floor``), link words (``sebesar``, ``adalah``, ``of``, ``tutarında``) dropped
    from the end; else the section."""
    line_start = max(text.rfind("\n", 0, at) + 1, floor)
    head = text[line_start:at]
    breaks = list(_CLAUSE_BREAK.finditer(head))
    if breaks:
        head = head[breaks[-1].end() :]
    words = _WORD.findall(head)
    while words and folded_name(words[-1]).strip(".") in _LINK_WORDS:
        words.pop()
    words = words[-_NAME_WORDS:]
    while words and folded_name(words[0]) in _LEADING_WORDS:
        words.pop(0)
    if words:
        return " ".join(words)
    section = (chunk.section or "").split(" > ")[-1].strip()
    return section or "nilai"


def _period_name(text: str, span: tuple[int, int]) -> str:
    before = folded_name(text[max(0, span[0] - 20) : span[0]])
    if "anggaran" in before or text[span[0] : span[1]].upper().startswith(("TA", "FY")):
        return "tahun anggaran"
    return "tahun"


def _label_before(text: str, at: int) -> str | None:
    """``Penjual: PT ABC`` → ``Penjual``; ``Seller: …`` → ``Seller``."""
    head = text[max(0, at - 40) : at].rstrip()
    if not head.endswith(":"):
        return None
    label = re.split(r"[.;,\n]\s", head[:-1])[-1]
    return " ".join(_WORD.findall(label)[-3:]) or None
