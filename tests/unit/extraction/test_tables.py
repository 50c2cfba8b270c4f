"""Tables read back from their stored chunks, cell by cell, with typed columns (ASK-14)."""

from __future__ import annotations

from tanda.extraction import build_structure
from tanda.extraction.tables import read_tables
from tanda.records.structure import TableRecord

from .conftest import from_csv, from_markdown

APBD = """akun,anggaran,realisasi,persentase
" Pendapatan Daerah","2.561,83 M","1.564,02 M",61.05
" PAD","1.179,18 M","553,31 M",46.92
" Pajak Daerah","1.000,01 M","434,64 M",43.46
" Retribusi Daerah","53,27 M","37,48 M",70.36
" Hasil Pengelolaan Kekayaan Daerah yang Dipisahkan","28,70 M","6,51 M",22.69
" Lain-Lain PAD yang Sah","97,21 M","74,68 M",76.82
"""


def test_a_table_split_over_chunks_is_read_back_as_one_table() -> None:
    # Given a budget table chunked in runs of rows, each chunk repeating the header
    _, chunks = from_csv(APBD, target=120)
    assert len(chunks) > 1
    # When its tables are read back from the stored chunks
    (table,) = read_tables(chunks)
    # Then every row is there once, in order, with cells as stored
    assert table.header == ("akun", "anggaran", "realisasi", "persentase")
    assert [row.row_no for row in table.rows] == [1, 2, 3, 4, 5, 6]
    assert table.rows[0].cells == ("Pendapatan Daerah", "2.561,83 M", "1.564,02 M", "61.05")
    assert len(table.chunks) == len(chunks)
    for row in table.rows:
        for cell, (start, end) in zip(row.cells, row.cell_spans, strict=True):
            assert row.chunk.text[start:end] == cell


def test_a_pipe_inside_a_cell_stays_in_its_cell() -> None:
    # Given a Markdown table with an escaped pipe in a cell
    _, chunks = from_markdown(
        "# Faktur\n\n| No | Uraian | Jumlah (Rp) |\n|---|---|---:|\n"
        "| 1 | Tinta \\| hitam | 300.000 |\n"
    )
    # When read back
    (table,) = read_tables(chunks)
    # Then the row has three cells, the pipe inside the second
    assert table.rows[0].cells == ("1", "Tinta | hitam", "300.000")


def test_the_table_record_has_caption_header_markdown_and_typed_cells() -> None:
    document, chunks = from_csv(APBD)
    records = build_structure(document, chunks).records
    (table,) = [r for r in records if isinstance(r, TableRecord)]
    assert table.caption == "APBD Kota"
    assert [(c.name, c.type, c.role) for c in table.columns] == [
        ("akun", "text", "description"),
        ("anggaran", "amount", "amount"),
        ("realisasi", "amount", "amount"),
        ("persentase", "percent", "other"),
    ]
    assert table.rows[1] == ("PAD", "1.179,18 M", "553,31 M", "46.92")
    assert table.cell_types[1] == ("text", "amount", "amount", "percent")
    assert table.values[1][1] == 1_179_180_000_000
    assert table.text.startswith("APBD Kota\n\n| akun | anggaran | realisasi | persentase |\n")
    assert "| PAD | 1.179,18 M | 553,31 M | 46.92 |" in table.text
    assert table.quote == chunks[0].text[table.span.start : table.span.end]


def test_invoice_columns_get_their_roles_from_headers_in_three_languages() -> None:
    for header in (
        "No | Uraian | Qty | Harga Satuan (Rp) | Jumlah (Rp)",
        "Sıra No | Açıklama | Miktar | Birim Fiyat | Tutar (TL)",
        "No | Description | Quantity | Unit price | Amount (EUR)",
    ):
        document, chunks = from_markdown(
            f"| {header} |\n|---|---|---|---|---|\n| 1 | Kertas | 10 | 50.000 | 500.000 |\n"
        )
        (table,) = [r for r in build_structure(document, chunks).records if r.kind == "table"]
        assert isinstance(table, TableRecord)
        assert [c.role for c in table.columns] == [
            "number",
            "description",
            "quantity",
            "unit_price",
            "amount",
        ], header


def test_a_table_followed_by_prose_is_read_too() -> None:
    _, chunks = from_markdown(
        "# A\n\nPembuka.\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n# B\n\nPenutup.\n"
        "\n| p | q |\n|---|---|\n| 3 | 4 |\n\nAkhir.\n"
    )
    assert [c.kind for c in chunks] == ["text", "table", "text", "table", "text"]
    assert [t.header for t in read_tables(chunks)] == [("x", "y"), ("p", "q")]
