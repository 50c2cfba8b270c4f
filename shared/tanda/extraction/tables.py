"""Tables read back from their stored chunks, cell by cell, with typed columns (ASK-14).

A table chunk is its header line and whole rows, cells joined by `` | ``
(``tanda.retrieval.ingest.chunking``); a table split over several chunks repeats its header and
names its rows in the section (``APBD Surabaya > rows 29–40``). Reading tables from the stored text
rather than from the source keeps every cell's span exact in the chunk a reader can fetch.

Cells are typed through ``tanda.numbers``; a column's type is what most of its cells are, and its
role (item number, description, quantity, amount, unit price) comes from its header, in
Indonesian, Turkish or English, and from its cells.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any, Final

from tanda.extraction.drafts import normal_value
from tanda.extraction.text import folded_name, line_spans
from tanda.numbers import QuantityKind, extract_quantities
from tanda.numbers.model import Quantity
from tanda.numbers.normal import NormalForm, normal_form
from tanda.records.documents import Chunk
from tanda.records.structure import CellType, TableColumn

CELL_SEPARATOR: Final = " | "
_ROWS_SECTION = re.compile(r"^(?:(?P<caption>.*) > )?rows (?P<first>\d+)–(?P<last>\d+)$")

# Header words, folded (lower case, no accents), matched as whole words of the header.
_NUMBER_HEADERS: Final = frozenset(
    {"no", "no.", "nomor", "#", "sira", "sira no", "kalem no", "item no", "line no", "kode",
     "kode rekening", "kod", "hesap kodu", "code", "nr", "nr."}
)  # fmt: skip
_QUANTITY_WORDS: Final = ("miktar", "qty", "quantity", "kuantitas", "banyaknya", "volume",
                          "vol", "adet", "jumlah barang", "jumlah unit")  # fmt: skip
_UNIT_PRICE_WORDS: Final = ("harga satuan", "birim fiyat", "birim fiyati", "unit price",
                            "price per unit", "fiyat", "harga", "price")  # fmt: skip
_PERCENT_WORDS: Final = ("persentase", "persen", "%", "yuzde", "oran", "orani", "percent",
                         "percentage", "rate", "capaian")  # fmt: skip
_AMOUNT_WORDS: Final = ("anggaran", "realisasi", "pagu", "nilai", "jumlah", "total", "amount",
                        "tutar", "tutari", "toplam", "biaya", "nominal", "bedel", "belanja",
                        "pendapatan", "rp", "idr", "tl", "try", "eur", "usd", "sum",
                        "net")  # fmt: skip
_DESCRIPTION_WORDS: Final = ("akun", "uraian", "tanim", "aciklama", "description", "item",
                             "nama", "barang", "urun", "mal", "hizmet", "produk", "product",
                             "rincian", "kegiatan", "program", "jenis", "pos", "kalem", "hesap",
                             "account", "name", "keterangan")  # fmt: skip
_HEADER_CURRENCY: Final = (
    (re.compile(r"(?<![a-z])(rp|idr|rupiah)(?![a-z])"), "IDR"),
    (re.compile(r"(?<![a-z])(tl|try|lira)(?![a-z])|₺"), "TRY"),
    (re.compile(r"(?<![a-z])(eur|euro)(?![a-z])|€"), "EUR"),
    (re.compile(r"(?<![a-z])(usd|dollar)(?![a-z])|\$"), "USD"),
)
_NUMERIC: Final = frozenset({"amount", "count", "percent"})


@dataclass(frozen=True, slots=True)
class RowView:
    """One row as stored: its cells and where each is in its chunk's text."""

    row_no: int
    chunk: Chunk
    span: tuple[int, int]
    cells: tuple[str, ...]
    cell_spans: tuple[tuple[int, int], ...]

    def line(self) -> str:
        return self.chunk.text[self.span[0] : self.span[1]]


@dataclass(frozen=True, slots=True)
class TableView:
    """One table, reassembled from the chunks that hold it."""

    caption: str | None
    header: tuple[str, ...]
    header_span: tuple[int, int]
    rows: tuple[RowView, ...]
    chunks: tuple[Chunk, ...]

    @property
    def first_chunk(self) -> Chunk:
        return self.chunks[0]


def read_tables(chunks: Sequence[Chunk]) -> list[TableView]:
    """The tables among ``chunks`` (in document order): consecutive table chunks with the same
    caption and header whose row ranges continue make one table."""
    tables: list[TableView] = []
    current: _Building | None = None
    for chunk in sorted(chunks, key=lambda c: c.ordinal):
        parsed = _parse_table_chunk(chunk) if chunk.kind == "table" else None
        if parsed is None:  # prose (or a table chunk without rows) ends the table before it
            if current is not None:
                tables.append(current.view())
            current = None
            continue
        caption, first, header, header_span, rows = parsed
        if (
            current is not None
            and current.caption == caption
            and current.header == header
            and first == current.next_row
        ):
            current.add(chunk, rows)
        else:
            if current is not None:
                tables.append(current.view())
            current = _Building(caption, header, header_span, first)
            current.add(chunk, rows)
    if current is not None:
        tables.append(current.view())
    return tables


class _Building:
    def __init__(
        self, caption: str | None, header: tuple[str, ...], span: tuple[int, int], first: int
    ) -> None:
        self.caption = caption
        self.header = header
        self.header_span = span
        self.next_row = first
        self.rows: list[RowView] = []
        self.chunks: list[Chunk] = []

    def add(self, chunk: Chunk, rows: list[tuple[tuple[int, int], list[tuple[int, int]]]]) -> None:
        self.chunks.append(chunk)
        for span, cell_spans in rows:
            cells = tuple(chunk.text[a:b].replace("\\|", "|") for a, b in cell_spans)
            self.rows.append(RowView(self.next_row, chunk, span, cells, tuple(cell_spans)))
            self.next_row += 1

    def view(self) -> TableView:
        return TableView(
            self.caption, self.header, self.header_span, tuple(self.rows), tuple(self.chunks)
        )


def _parse_table_chunk(
    chunk: Chunk,
) -> (
    tuple[
        str | None,
        int,
        tuple[str, ...],
        tuple[int, int],
        list[tuple[tuple[int, int], list[tuple[int, int]]]],
    ]
    | None
):
    caption, first = chunk.section, 1
    named = _ROWS_SECTION.match(chunk.section or "")
    if named is not None:
        caption, first = named["caption"], int(named["first"])
    lines = [span for span in line_spans(chunk.text) if span[1] > span[0]]
    if len(lines) < 2:
        return None
    header_span = lines[0]
    header = tuple(
        chunk.text[a:b].replace("\\|", "|") for a, b in _cell_spans(chunk.text, header_span)
    )
    rows = [(span, _cell_spans(chunk.text, span)) for span in lines[1:]]
    return caption, first, header, header_span, rows


def _cell_spans(text: str, line: tuple[int, int]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = line[0]
    while True:
        at = text.find(CELL_SEPARATOR, start, line[1])
        if at < 0:
            spans.append((start, line[1]))
            return spans
        spans.append((start, at))
        start = at + len(CELL_SEPARATOR)


# --- typed cells and columns ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TypedCell:
    text: str
    type: CellType
    value: Decimal | None
    quantity: Quantity | None
    normal: NormalForm | None
    stored: dict[str, Any] | None  # ``normal`` as records store it, built once per cell


def row_quantities(row: RowView, width: int, lang: str | None) -> list[Quantity | None]:
    """The quantity of each cell of a row (``None`` for text)."""
    return [cell_quantity(cell, lang) for cell in row.cells[:width]]


@lru_cache(maxsize=8192)
def cell_quantity(text: str, lang: str | None) -> Quantity | None:
    """The one quantity a cell states, when the whole cell is it (``54,72 M``, ``Rp 5.000``,
    ``-64.26``, ``31.12.2023``); ``None`` for text or several numbers. Cached: budget tables
    repeat their values (``0,00 M``, ``100.00``) — a ``Quantity`` is immutable."""
    stripped = text.strip()
    if not stripped or not any(ch.isdigit() for ch in stripped):
        return None
    found = extract_quantities(stripped, lang)
    if len(found) != 1:
        return None
    quantity = found[0]
    rest = stripped[: quantity.start] + stripped[quantity.end :]
    return quantity if not rest.strip(" .") else None


_KIND_TO_CELL: Final[dict[QuantityKind, CellType]] = {
    QuantityKind.amount: "amount",
    QuantityKind.percent: "percent",
    QuantityKind.count: "count",
    QuantityKind.year: "year",
    QuantityKind.date: "date",
    QuantityKind.time: "count",
}


def raw_cell_type(text: str, quantity: Quantity | None) -> CellType:
    if not text.strip():
        return "empty"
    if quantity is None or quantity.kind not in _KIND_TO_CELL:
        return "text"
    return _KIND_TO_CELL[quantity.kind]


def _has_word(header: str, words: Sequence[str]) -> bool:
    for word in words:
        if word in ("%", "#"):
            if word in header:
                return True
        elif re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", header):
            return True
    return False


@dataclass(frozen=True, slots=True)
class ColumnProfile:
    column: TableColumn
    kind: QuantityKind | None  # what a bare number of the column states (percent, amount)
    unit: str | None  # the currency its header names


def profile_columns(
    header: Sequence[str], cells: Sequence[Sequence[tuple[str, Quantity | None]]]
) -> list[ColumnProfile]:
    """Each column's type (what most of its non-empty cells are) and role. The description is
    the first text column whose header says so (``akun``, ``uraian``, ``açıklama``,
    ``description``…), else the first text column."""
    profiles: list[ColumnProfile] = []
    for index, name in enumerate(header):
        column_cells = [row[index] for row in cells if index < len(row)]
        types = Counter(raw_cell_type(text, quantity) for text, quantity in column_cells)
        types.pop("empty", None)
        ctype: CellType = types.most_common(1)[0][0] if types else "empty"
        profiles.append(_profile(name, ctype, column_cells))
    texts = [
        i for i, p in enumerate(profiles) if p.column.role == "other" and p.column.type == "text"
    ]
    named = [i for i in texts if _has_word(folded_name(header[i]), _DESCRIPTION_WORDS)]
    if texts:
        chosen = (named or texts)[0]
        column = profiles[chosen].column.model_copy(update={"role": "description"})
        profiles[chosen] = ColumnProfile(column, None, None)
    return profiles


def _profile(
    name: str, ctype: CellType, column_cells: Sequence[tuple[str, Quantity | None]]
) -> ColumnProfile:
    folded = folded_name(name)
    unit = next((code for pattern, code in _HEADER_CURRENCY if pattern.search(folded)), None)
    numeric = ctype in _NUMERIC
    scaled = any(q is not None and (q.scale or q.unit) for _, q in column_cells)
    if folded in _NUMBER_HEADERS:
        return ColumnProfile(TableColumn(name=name, type=ctype, role="number"), None, None)
    if numeric and _has_word(folded, _QUANTITY_WORDS):
        return ColumnProfile(TableColumn(name=name, type=ctype, role="quantity"), None, None)
    if (
        numeric
        and _has_word(folded, _UNIT_PRICE_WORDS)
        and not _has_word(folded, ("total", "jumlah harga", "toplam", "tutar", "amount"))
    ):
        column = TableColumn(name=name, type="amount", role="unit_price")
        return ColumnProfile(column, QuantityKind.amount, unit)
    if numeric and (ctype == "percent" or _has_word(folded, _PERCENT_WORDS)):
        column = TableColumn(name=name, type="percent", role="other")
        return ColumnProfile(column, QuantityKind.percent, None)
    if numeric and (
        ctype == "amount" or unit is not None or scaled or _has_word(folded, _AMOUNT_WORDS)
    ):
        column = TableColumn(name=name, type="amount", role="amount")
        return ColumnProfile(column, QuantityKind.amount, unit)
    return ColumnProfile(TableColumn(name=name, type=ctype, role="other"), None, None)


def type_cell(
    text: str, quantity: Quantity | None, profile: ColumnProfile, period: int | None
) -> TypedCell:
    """A cell typed under its column: a bare number takes the column's kind and currency."""
    ctype = raw_cell_type(text, quantity)
    if quantity is None or ctype == "text":
        return TypedCell(text, ctype, None, None, None, None)
    form = normal_form(quantity, kind=profile.kind, unit=profile.unit, period=period)
    if form.kind is QuantityKind.percent:
        ctype = "percent"
    elif form.kind is QuantityKind.amount:
        ctype = "amount"
    value: Decimal | None = form.value
    return TypedCell(text, ctype, value, quantity, form, normal_value(form))


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """GitHub Markdown: a header row, its rule, the rows; ``|`` inside a cell is escaped."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    width = len(header)
    body = [line([*row[:width], *[""] * (width - len(row))]) for row in rows]
    return "\n".join([line(header), "| " + " | ".join("---" for _ in header) + " |", *body])
