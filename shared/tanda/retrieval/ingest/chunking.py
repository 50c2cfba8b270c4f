"""Blocks → chunk drafts that keep structure.

- A chunk never leaves its section, never spans two pages (its ``page_no`` is where its text is,
  ASK-09), and never cuts a word: long sections are split at paragraph, then sentence, then word
  boundaries, aiming at ``target_chars`` (default 1200).
- When an article (``Pasal``) is split, each part names the first ``ayat`` it holds
  (``BAB II > Pasal 5 > ayat (2)``).
- A table is split into runs of whole rows; every run repeats the header (V2-07: a table row is
  judged whole, under its header).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tanda.records.documents import ChunkKind
from tanda.retrieval.ingest.parsed import Block, Paragraph, TableBlock, TextBlock
from tanda.retrieval.ingest.statute import ayat_of
from tanda.retrieval.sentences import sentences

DEFAULT_TARGET_CHARS = 1200
CELL_SEPARATOR = " | "


@dataclass(frozen=True)
class ChunkingConfig:
    target_chars: int = DEFAULT_TARGET_CHARS

    def __post_init__(self) -> None:
        if self.target_chars < 100:
            raise ValueError("target_chars must be at least 100")


@dataclass(frozen=True)
class ChunkDraft:
    text: str
    section: str | None
    page_no: int | None
    kind: ChunkKind = "text"


def chunk_blocks(blocks: Iterable[Block], config: ChunkingConfig | None = None) -> list[ChunkDraft]:
    config = config or ChunkingConfig()
    drafts: list[ChunkDraft] = []
    for block in blocks:
        if isinstance(block, TableBlock):
            drafts.extend(chunk_table(block, config))
        else:
            drafts.extend(chunk_text_block(block, config))
    return drafts


def render_row(cells: Sequence[str]) -> str:
    """Cells joined by `` | ``; a ``|`` inside a cell is written ``\\|`` so every row splits back
    into the cells it had (ASK-14: tables are read back cell by cell from their chunks)."""
    return CELL_SEPARATOR.join(cell.replace("|", "\\|") for cell in cells)


def chunk_table(table: TableBlock, config: ChunkingConfig) -> list[ChunkDraft]:
    header = render_row(table.header)
    out: list[ChunkDraft] = []
    rows: list[str] = []
    first_row = 1

    def flush(last_row: int) -> None:
        section = f"rows {first_row}–{last_row}"
        if table.section:
            section = f"{table.section} > {section}"
        out.append(ChunkDraft("\n".join([header, *rows]), section, table.page_no, "table"))

    size = len(header)
    for index, cells in enumerate(table.rows, start=1):
        row = render_row(cells)
        if rows and size + 1 + len(row) > config.target_chars:
            flush(index - 1)
            rows, size, first_row = [], len(header), index
        rows.append(row)
        size += 1 + len(row)
    if rows:
        flush(len(table.rows))
    return out


def chunk_text_block(block: TextBlock, config: ChunkingConfig) -> list[ChunkDraft]:
    pieces: list[tuple[str, int | None, str | None]] = []  # text, page, ayat of its paragraph
    for paragraph in block.paragraphs:
        ayat = ayat_of(paragraph.text)
        for piece in split_paragraph(paragraph, config.target_chars):
            pieces.append((piece, paragraph.page_no, ayat))
            ayat = None  # only the piece that opens the ayat names it
    groups: list[list[tuple[str, int | None, str | None]]] = []
    size = 0
    for entry in pieces:
        group = groups[-1] if groups else None
        if (
            group is None
            or group[-1][1] != entry[1]
            or size + 1 + len(entry[0]) > config.target_chars
        ):
            groups.append([entry])
            size = len(entry[0])
        else:
            group.append(entry)
            size += 1 + len(entry[0])
    split = len(groups) > 1
    drafts: list[ChunkDraft] = []
    for group in groups:
        section = block.section
        if split and group[0][2] and section and "Pasal" in section:
            section = f"{section} > {group[0][2]}"
        drafts.append(ChunkDraft("\n".join(p[0] for p in group), section, group[0][1]))
    return drafts


def split_paragraph(paragraph: Paragraph, target_chars: int) -> list[str]:
    """One paragraph → pieces of at most ``target_chars`` (unless one word is longer), cut at
    sentence ends where possible, else between words."""
    text = paragraph.text.strip()
    if len(text) <= target_chars:
        return [text] if text else []
    pieces: list[str] = []
    current = ""
    for sentence in sentences(text, numbered=True):
        for part in _split_words(sentence, target_chars):
            if current and len(current) + 1 + len(part) > target_chars:
                pieces.append(current)
                current = part
            else:
                current = f"{current} {part}" if current else part
    if current:
        pieces.append(current)
    return pieces


def _split_words(sentence: str, target_chars: int) -> list[str]:
    if len(sentence) <= target_chars:
        return [sentence]
    parts: list[str] = []
    current = ""
    for word in sentence.split():
        if current and len(current) + 1 + len(word) > target_chars:
            parts.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        parts.append(current)
    return parts
