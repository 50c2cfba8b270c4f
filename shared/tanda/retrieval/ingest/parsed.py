"""What a reader hands to the chunker: a document as blocks of paragraphs or tables, each with
the page it sits on and its section path, or the reason the file was skipped."""

from __future__ import annotations

from dataclasses import dataclass, field

from tanda.invoices import Invoice
from tanda.records.documents import LegalIdentity


@dataclass(frozen=True)
class Paragraph:
    text: str
    page_no: int | None = None


@dataclass(frozen=True)
class TextBlock:
    """Consecutive paragraphs under one section path (e.g. ``BAB II > Pasal 5``)."""

    section: str | None
    paragraphs: tuple[Paragraph, ...]


@dataclass(frozen=True)
class TableBlock:
    """One table, kept as a table: its header and its rows, cells verbatim."""

    section: str | None
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    page_no: int | None = None


Block = TextBlock | TableBlock


@dataclass(frozen=True)
class ParsedDocument:
    title: str | None
    blocks: tuple[Block, ...]
    identity: LegalIdentity = field(default_factory=LegalIdentity)
    lang: str | None = None
    pages: int | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    invoice: Invoice | None = None
    """An invoice read from XML (issue 18): what its structure records are built from."""


@dataclass(frozen=True)
class Skipped:
    """A source that yields no document, and why (one line, shown in the ingest summary).
    ``failed``: it could not be read; ``False`` when it was read and is not a document to index
    (XML that is not an invoice)."""

    reason: str
    failed: bool = True
