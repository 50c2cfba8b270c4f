"""Readers: source bytes → ``ParsedDocument`` or ``Skipped`` (with a one-line reason).

Pure functions of the bytes (and, for CSV, of the path that names the table); nothing here
touches the index or the file system.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePath

from tanda.invoices import (
    Invoice,
    NotAnInvoice,
    TablePart,
    invoice_identity,
    read_invoice,
    render_invoice,
)
from tanda.invoices.xml import NOT_AN_INVOICE_PREFIX
from tanda.lang import guess_lang
from tanda.records.documents import LegalIdentity
from tanda.retrieval.ingest.identity import approved_by, extract_legal_identity
from tanda.retrieval.ingest.parsed import (
    Block,
    Paragraph,
    ParsedDocument,
    Skipped,
    TableBlock,
    TextBlock,
)
from tanda.retrieval.ingest.statute import (
    SourceLine,
    clean_pages,
    join_lines,
    looks_like_statute,
    parse_statute_lines,
    parse_statute_pages,
)

_YEAR_RE = re.compile(r"^(19|20)\d{2}$")

DOCUMENT_LANG_MIN_HITS = 3
"""A stored language needs this many function-word hits (Turkish letters count two): one ``di`` in
a table of names is not an Indonesian document."""


def decode_text(data: bytes) -> str:
    """UTF-8 (BOM or not); UTF-16 when a BOM says so (Windows "Unicode" text); else cp1252."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


# Controls other than tab, newlines and form feed, and the replacement character of a byte that
# decodes to nothing: text has almost none of them, random or binary bytes have one in ten or so.
_NON_TEXT_RE = re.compile("[\x00-\x08\x0e-\x1f\x7f\ufffd]")
_NON_TEXT_SHARE = 0.1
BINARY_REASON = "not a text file (binary content)"
LONE_SURROGATE_REASON = "not text (a lone surrogate)"
# JSON's ``\ud800`` escape decodes to a lone surrogate, which no UTF-8 text holds (a pair
# decodes to one astral character, so any surrogate left in a decoded string is lone).
_SURROGATE = re.compile("[\ud800-\udfff]")


def looks_binary(data: bytes) -> bool:
    """True for bytes that are not text in any encoding ``decode_text`` reads (a NUL, or more than
    a tenth of control characters): a binary file under a text extension is skipped, not
    indexed as a page of mojibake (issue 11)."""
    # A UTF-8 sample cut inside a character reads as cp1252: mojibake, but still text.
    sample = decode_text(data[:8192])
    if "\x00" in sample:
        return True
    return len(_NON_TEXT_RE.findall(sample)) > _NON_TEXT_SHARE * max(len(sample), 1)


def _title_from_identity(identity: LegalIdentity, fallback: str | None) -> str | None:
    return identity.legal_reference or fallback


# --- PDF ---------------------------------------------------------------------------------------


MAX_PDF_PAGES = 10_000
MAX_PAGE_CONTENT_BYTES = 16 * 2**20
MAX_PDF_CONTENT_BYTES = 128 * 2**20
"""Issue 26 (a PDF bomb): a page whose content streams (its own and the forms it draws) inflate
past 16 MiB, or a PDF whose pages together pass 128 MiB or 10 000 pages, is not read — a small
file that decompresses to gigabytes would otherwise hold a worker for minutes and its memory.
Real pages are far below: a dense text page's content is tens of KiB."""


def _content_size(page: object, cap: int) -> int:
    """How many bytes ``page``'s content streams and form XObjects inflate to, counting no
    further than just past ``cap`` (a Flate stream is inflated in a bounded loop, never whole)."""
    from pypdf.generic import ArrayObject, DictionaryObject, StreamObject

    streams: list[object] = []
    contents = page.get("/Contents")  # type: ignore[attr-defined]
    contents = contents.get_object() if contents is not None else None
    if isinstance(contents, ArrayObject):
        streams.extend(item.get_object() for item in contents)
    elif contents is not None:
        streams.append(contents)
    resources = page.get("/Resources")  # type: ignore[attr-defined]
    resources = resources.get_object() if resources is not None else None
    xobjects = resources.get("/XObject") if isinstance(resources, DictionaryObject) else None
    xobjects = xobjects.get_object() if xobjects is not None else None
    if isinstance(xobjects, DictionaryObject):
        for item in xobjects.values():
            form = item.get_object()
            if isinstance(form, StreamObject) and form.get("/Subtype") == "/Form":
                streams.append(form)
    total = 0
    for stream in streams:
        if isinstance(stream, StreamObject):
            total += _inflated_size(stream, cap - total)
            if total > cap:
                break
    return total


def _inflated_size(stream: object, cap: int) -> int:
    import zlib

    filters = stream.get("/Filter")  # type: ignore[attr-defined]
    raw = getattr(stream, "_data", b"")
    if filters in ("/FlateDecode", "/Fl") and isinstance(raw, bytes):
        inflater = zlib.decompressobj()
        size, data = 0, raw
        try:
            while data and size <= cap:
                size += len(inflater.decompress(data, 1 << 20))
                data = inflater.unconsumed_tail
        except zlib.error:
            return size  # the reader reports the corrupt stream itself
        return size
    return len(stream.get_data())  # type: ignore[attr-defined]  # pypdf bounds its decoders


def read_pdf(data: bytes, *, name: str) -> ParsedDocument | Skipped:
    """The text layer, page by page (page numbers kept), statute structure and identity read."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    # pypdf logs every repaired cross-reference of a slightly broken file; that is not news.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                # Many PDFs are "encrypted" with an empty user password (print/copy restrictions).
                if not reader.decrypt(""):
                    return Skipped("encrypted PDF (a password is needed to read it)")
            except Exception:  # pypdf raises several types for unsupported encryption
                return Skipped("encrypted PDF (a password is needed to read it)")
        if len(reader.pages) > MAX_PDF_PAGES:
            return Skipped(f"PDF too large to read: over {MAX_PDF_PAGES} pages")
        pages = []
        budget = MAX_PDF_CONTENT_BYTES
        for number, page in enumerate(reader.pages, start=1):
            size = _content_size(page, min(budget, MAX_PAGE_CONTENT_BYTES))
            if size > MAX_PAGE_CONTENT_BYTES:
                return Skipped(
                    f"PDF too large to read: page {number}'s content inflates to over "
                    f"{MAX_PAGE_CONTENT_BYTES // 2**20} MiB (a PDF bomb?)"
                )
            budget -= size
            if budget < 0:
                return Skipped(
                    "PDF too large to read: its pages' content inflates to over "
                    f"{MAX_PDF_CONTENT_BYTES // 2**20} MiB"
                )
            pages.append(page.extract_text() or "")
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        return Skipped(f"not a readable PDF ({type(exc).__name__}: {one_line(exc)})")
    except Exception as exc:  # a corrupt file must never abort the batch
        return Skipped(f"not a readable PDF ({type(exc).__name__}: {one_line(exc)})")
    if not any(p.strip() for p in pages):
        return Skipped("PDF without a text layer (scanned images; OCR it first)")
    return parse_pages(pages, fallback_title=PurePath(name).stem)


def parse_pages(pages: list[str], *, fallback_title: str | None) -> ParsedDocument:
    """Pages of text (1-based numbering) → blocks with section paths and legal identity."""
    head = "\n".join(pages[:2])
    identity = extract_legal_identity(head)
    cleaned = clean_pages(pages)
    statute = parse_statute_pages(cleaned, first_page=1)
    full = "\n".join("\n".join(lines) for lines in cleaned)
    metadata: dict[str, str] = {}
    approver = approved_by(head)
    if approver:
        metadata["approved_by"] = approver
    return ParsedDocument(
        title=_title_from_identity(identity, statute.title or fallback_title),
        blocks=statute.blocks,
        identity=identity,
        lang=document_lang(full),
        pages=len(pages),
        metadata=metadata,
    )


def one_line(exc: BaseException) -> str:
    """An exception as one short line of an ingest report."""
    text = re.sub(r"\s+", " ", str(exc)).strip()
    return text[:160] or "no detail"


# --- plain text and Markdown -------------------------------------------------------------------


def read_text(data: bytes, *, name: str) -> ParsedDocument | Skipped:
    return parse_plain_text(decode_text(data), fallback_title=PurePath(name).stem)


def parse_plain_text(
    text: str, *, fallback_title: str | None, markdown: bool = False
) -> ParsedDocument:
    """Paragraphs separated by blank lines; a statute's structure when it has one (``markdown``:
    the text is Markdown, whose ``#`` lines are headings). Text with form feeds (``pdftotext``
    ends every page with one) is read page by page like a PDF."""
    if not text.strip():
        return ParsedDocument(title=fallback_title, blocks=())
    pages = text.split("\f")
    if len(pages) > 1 and not markdown:
        if not pages[-1].strip():
            pages.pop()  # the form feed that closes the last page
        return parse_pages(pages, fallback_title=fallback_title)
    plain = "\n".join(_without_markup(line) for line in text.splitlines()) if markdown else text
    identity = extract_legal_identity(plain)
    title = fallback_title
    if looks_like_statute(plain):
        statute = parse_statute_lines(_statute_lines(text, markdown=markdown))
        blocks: list[Block] = list(statute.blocks)
        title = statute.title or fallback_title
    else:
        paragraphs = tuple(
            Paragraph(join_lines([ln.strip() for ln in part.splitlines() if ln.strip()]))
            for part in re.split(r"\n\s*\n", text)
            if part.strip()
        )
        blocks = [TextBlock(None, paragraphs)] if paragraphs else []
    return ParsedDocument(
        title=_title_from_identity(identity, title),
        blocks=tuple(blocks),
        identity=identity,
        lang=document_lang(plain),
    )


def _statute_lines(text: str, *, markdown: bool = False) -> list[SourceLine]:
    """The lines of a statute written as text: a blank line (or the start) opens a paragraph,
    and in Markdown a ``#`` line is a heading, its markup (and a line's bold) dropped."""
    lines: list[SourceLine] = []
    blank = True
    for raw in text.splitlines():
        heading = _HEADING_RE.match(raw) if markdown else None
        line = heading.group(2) if heading else (_without_markup(raw) if markdown else raw)
        line = re.sub(r"\s+", " ", line).strip()
        if not line:
            blank = True
            continue
        lines.append(SourceLine(line, heading=heading is not None, opens_paragraph=blank))
        blank = False
    return lines


_HEADING_RE = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^(```|~~~)")


def read_markdown(data: bytes, *, name: str) -> ParsedDocument | Skipped:
    """Headings become the section path (``Install > Linux``); fenced code stays verbatim. A
    statute written in Markdown reads like its ``.txt``: its ``BAB`` / ``Pasal`` lines, headings
    or not, are its structure."""
    text = decode_text(data)
    plain = "\n".join(_without_markup(line) for line in text.splitlines())
    if looks_like_statute(plain):
        headings = (_HEADING_RE.match(line) for line in text.splitlines())
        first = next((h.group(2).strip() for h in headings if h), None)
        parsed = parse_plain_text(text, fallback_title=PurePath(name).stem, markdown=True)
        if first and not parsed.identity.legal_reference:
            parsed = replace(parsed, title=first)
        return parsed
    path: list[tuple[int, str]] = []
    blocks: list[Block] = []
    paragraphs: list[Paragraph] = []
    lines: list[str] = []
    in_fence = False
    first_heading: str | None = None

    def section() -> str | None:
        return " > ".join(title for _, title in path) or None

    def flush_paragraph() -> None:
        nonlocal lines
        if lines:
            joined = "\n".join(lines) if in_fence or _FENCE_RE.match(lines[0]) else None
            paragraphs.append(Paragraph(joined or join_lines([ln.strip() for ln in lines])))
            lines = []

    def flush_block() -> None:
        nonlocal paragraphs
        flush_paragraph()
        if paragraphs:
            blocks.append(TextBlock(section(), tuple(paragraphs)))
            paragraphs = []

    lines_of = text.splitlines()
    skip_to = 0
    for number, raw in enumerate(lines_of):
        if number < skip_to:
            continue
        if not in_fence and raw.lstrip().startswith("|"):
            table = _markdown_table(lines_of, number)
            if table is not None:
                # ASK-14: a Markdown table is a table (chunked by whole rows under its header,
                # read cell by cell by the structure layers), not a paragraph of pipes.
                header, rows, skip_to = table
                flush_block()
                blocks.append(TableBlock(section=section(), header=header, rows=rows))
                continue
        if _FENCE_RE.match(raw.strip()):
            if in_fence:
                lines.append(raw)
                in_fence = False
                flush_paragraph()
                continue
            flush_paragraph()
            in_fence = True
            lines.append(raw)
            continue
        if in_fence:
            lines.append(raw)
            continue
        heading = _HEADING_RE.match(raw)
        if heading:
            flush_block()
            level, title = len(heading.group(1)), heading.group(2).strip()
            first_heading = first_heading or title
            path = [(lv, t) for lv, t in path if lv < level] + [(level, title)]
            continue
        if not raw.strip():
            flush_paragraph()
            continue
        if raw.lstrip().startswith(("- ", "* ", "+ ")) or re.match(r"^\s*\d+\.\s", raw):
            flush_paragraph()  # a list item is its own paragraph
        lines.append(raw)
    in_fence = False
    flush_block()
    identity = extract_legal_identity(text)
    return ParsedDocument(
        title=_title_from_identity(identity, first_heading or PurePath(name).stem),
        blocks=tuple(blocks),
        identity=identity,
        lang=document_lang(text),
    )


_EMPHASIS_RE = re.compile(r"^\s*(\*\*|__)(.+?)\1\s*$")
_TABLE_RULE_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_PIPE_RE = re.compile(r"(?<!\\)\|")


def _table_cells(line: str) -> tuple[str, ...]:
    """``| a | b \\| c |`` → ``("a", "b | c")``: outer pipes dropped, escaped pipes kept."""
    stripped = line.strip()
    if stripped.startswith("|"):
        stripped = stripped[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|"):
        stripped = stripped[:-1]
    return tuple(cell.strip().replace("\\|", "|") for cell in _PIPE_RE.split(stripped))


def _markdown_table(
    lines: list[str], start: int
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...], int] | None:
    """A GitHub table at ``lines[start]`` (header, rule, rows): its header, rows and the first
    line after it; ``None`` when these lines are not one."""
    if start + 1 >= len(lines) or not _TABLE_RULE_RE.match(lines[start + 1]):
        return None
    header = _table_cells(lines[start])
    end = start + 2
    rows: list[tuple[str, ...]] = []
    while end < len(lines) and lines[end].lstrip().startswith("|"):
        cells = _table_cells(lines[end])
        if any(cells):
            rows.append(cells)
        end += 1
    if not rows:
        return None
    return header, tuple(rows), end


def _without_markup(line: str) -> str:
    """``## Pasal 1`` or ``**Pasal 1**`` → ``Pasal 1``: the line as printed."""
    heading = _HEADING_RE.match(line)
    if heading:
        line = heading.group(2)
    emphasis = _EMPHASIS_RE.match(line)
    return emphasis.group(2) if emphasis else line


# --- CSV -----------------------------------------------------------------------------------------


def read_csv(data: bytes, *, path: PurePath) -> ParsedDocument | Skipped:
    """One table: header + rows, cells verbatim (``10.723,82 M`` stays ``10.723,82 M``).

    The path names it: ``apbd_jatim/2023/Surabaya.csv`` → dataset ``APBD Surabaya``, period
    ``2023`` (a year folder is the period; the collection folder's first word is the dataset kind).
    """
    text = decode_text(data)
    sample = text[:4096]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    # newline="": the csv module itself splits rows, so a \r line end or a newline inside a
    # quoted cell reads as the CSV means it, not as an error.
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        rows = [tuple(cell.strip() for cell in row) for row in reader if "".join(row).strip()]
    except csv.Error as exc:  # e.g. a cell over csv.field_size_limit() (128 KiB)
        return Skipped(f"not a readable CSV (line {reader.line_num}: {one_line(exc)})")
    if not rows:
        return Skipped("empty CSV")
    header, body = rows[0], rows[1:]
    if not body:
        return Skipped("CSV with a header and no rows")
    dataset, period = table_identity(path)
    title = " ".join(part for part in (dataset, period) if part)
    return ParsedDocument(
        title=title,
        blocks=(TableBlock(section=dataset, header=header, rows=tuple(body)),),
        identity=LegalIdentity(dataset=dataset, period=period),
        lang=document_lang(" ".join(" ".join(r) for r in rows[:50])),
        metadata={"columns": ",".join(header), "rows": str(len(body))},
    )


def table_identity(path: PurePath) -> tuple[str, str | None]:
    """Dataset and period named by a table's path (see ``read_csv``)."""
    name = path.stem.replace("_", " ").strip()
    folders = list(path.parent.parts)
    period: str | None = None
    if folders and _YEAR_RE.match(folders[-1]):
        period = folders.pop()
    collection = folders[-1] if folders else ""
    kind = re.split(r"[_\-\s]+", collection)[0] if collection else ""
    if kind and period is not None:
        label = kind.upper() if len(kind) <= 5 else kind.replace("_", " ").title()
        return f"{label} {name}", period
    return name, period


# --- XML invoices (issue 18) --------------------------------------------------------------------


def read_xml(data: bytes) -> ParsedDocument | Skipped:
    """An electronic invoice (UBL 2.1 Invoice / CreditNote, UBL-TR e-Fatura, CII) as its readable
    rendering — header, line table, tax breakdown, totals, payment, notes — with the identity the
    judge sees (V2-07). Other XML is skipped with its reason (not a failure); malformed XML or XML
    declaring a DTD or entities is refused (a failure), nothing read from disk or network."""
    invoice = read_invoice(data)
    if isinstance(invoice, NotAnInvoice):
        return Skipped(invoice.reason, failed=not invoice.reason.startswith(NOT_AN_INVOICE_PREFIX))
    rendering = render_invoice(invoice)
    blocks: list[Block] = []
    for part in rendering.parts:
        if isinstance(part, TablePart):
            blocks.append(TableBlock(section=part.section, header=part.header, rows=part.rows))
        else:
            paragraphs = tuple(Paragraph(line) for line in part.lines if line.strip())
            blocks.append(TextBlock(part.section, paragraphs))
    notes = " ".join((*invoice.notes, *(line.name or "" for line in invoice.lines[:50])))
    return ParsedDocument(
        title=rendering.title,
        blocks=tuple(blocks),
        identity=invoice_identity(invoice),
        # tanda writes a non-Turkish invoice's labels in English (`Seller:`, `Amount due:`):
        # its notes and line names say another of tanda's languages, or it is English.
        lang=rendering.lang or document_lang(notes) or "en",
        metadata=_invoice_metadata(invoice),
        invoice=invoice,
    )


def _invoice_metadata(invoice: Invoice) -> dict[str, str]:
    syntax = {"UBL": "UBL 2.1", "CII": "UN/CEFACT CII"}[invoice.syntax]
    if invoice.is_ubl_tr:
        syntax = "UBL-TR"
    metadata = {"format": syntax, "lines": str(len(invoice.lines))}
    if invoice.customization_id:
        metadata["customization_id"] = invoice.customization_id
    if invoice.profile_id:
        metadata["profile_id"] = invoice.profile_id
    if invoice.order_reference:
        metadata["order_reference"] = invoice.order_reference
    return metadata


# --- JSONL and BEIR ------------------------------------------------------------------------------


@dataclass(frozen=True)
class JsonlRecord:
    """One JSONL line: ``{document_id?, title, text, metadata}`` (BEIR: ``{_id, title, text}``)."""

    line_no: int
    raw: bytes
    document_id: str | None
    title: str | None
    text: str
    metadata: Mapping[str, object] = field(default_factory=dict)


def holds_lone_surrogate(value: object) -> bool:
    """True when a string anywhere in ``value`` (decoded JSON: keys too) holds a lone surrogate."""
    pending = [value]
    while pending:  # a loop, not recursion: JSON nests as deep as the decoder let it
        item = pending.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def read_jsonl_records(data: bytes) -> Iterator[JsonlRecord | tuple[int, Skipped]]:
    """Each non-empty line → a record, or ``(line_no, Skipped)`` for a bad line."""
    for line_no, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            yield line_no, Skipped(f"line {line_no}: not JSON ({one_line(exc)})")
            continue
        except RecursionError:
            yield line_no, Skipped(f"line {line_no}: not JSON (nested too deeply)")
            continue
        if not isinstance(obj, dict):
            yield line_no, Skipped(f"line {line_no}: not a JSON object")
            continue
        if holds_lone_surrogate(obj):  # issue 23: a bad line, not a reader bug
            yield line_no, Skipped(f"line {line_no}: {LONE_SURROGATE_REASON}")
            continue
        text = obj.get("text")
        if not isinstance(text, str) or not text.strip():
            yield line_no, Skipped(f"line {line_no}: no text")
            continue
        raw_id = obj.get("document_id", obj.get("_id"))
        metadata = obj.get("metadata")
        title = obj.get("title")
        yield JsonlRecord(
            line_no=line_no,
            raw=raw,
            document_id=str(raw_id) if raw_id not in (None, "") else None,
            title=str(title) if isinstance(title, str) and title.strip() else None,
            text=text,
            metadata=metadata if isinstance(metadata, dict) else {},
        )


def document_lang(text: str) -> str | None:
    """A document's language, which is stored: three function words at least, three distinct
    ones (a Dutch invoice's notes say Turkish ``de`` and ``en`` often), else ``None`` (the index
    then guesses per chunk)."""
    return guess_lang(text, min_hits=DOCUMENT_LANG_MIN_HITS, min_distinct=DOCUMENT_LANG_MIN_HITS)
