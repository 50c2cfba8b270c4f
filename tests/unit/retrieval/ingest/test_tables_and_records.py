"""CSV tables stay tables; JSONL and BEIR lines become documents."""

from __future__ import annotations

from pathlib import PurePosixPath

from tanda.retrieval.ingest.chunking import chunk_blocks
from tanda.retrieval.ingest.parsed import ParsedDocument, Skipped, TableBlock, TextBlock
from tanda.retrieval.ingest.readers import (
    read_csv,
    read_jsonl_records,
    read_markdown,
    table_identity,
)


def test_given_a_year_folder_when_naming_a_table_then_dataset_and_period_come_from_the_path() -> (
    None
):
    assert table_identity(PurePosixPath("apbd_jatim/2023/Surabaya.csv")) == (
        "APBD Surabaya",
        "2023",
    )
    assert table_identity(PurePosixPath("apbd_jatim/2021/Kota_Malang.csv")) == (
        "APBD Kota Malang",
        "2021",
    )
    assert table_identity(PurePosixPath("prices.csv")) == ("prices", None)


def test_given_a_csv_with_only_a_header_when_read_then_it_is_skipped_with_a_reason() -> None:
    result = read_csv(b"a,b\n", path=PurePosixPath("t.csv"))
    assert isinstance(result, Skipped)
    assert "no rows" in result.reason


def test_given_jsonl_and_beir_lines_when_read_then_ids_titles_and_bad_lines_are_reported() -> None:
    data = (
        b'{"document_id": "d1", "title": "One", "text": "Satu.", "metadata": {"year": 2020}}\n'
        b'{"_id": "beir-7", "title": "", "text": "Tujuh."}\n'
        b"not json\n"
        b'{"title": "no text"}\n'
    )
    records = list(read_jsonl_records(data))
    first, second, bad, empty = records
    assert not isinstance(first, tuple) and first.document_id == "d1"
    assert first.metadata == {"year": 2020}
    assert not isinstance(second, tuple) and second.document_id == "beir-7"
    assert second.title is None
    assert isinstance(bad, tuple) and "not JSON" in bad[1].reason
    assert isinstance(empty, tuple) and "no text" in empty[1].reason


def test_given_a_markdown_table_when_read_then_it_is_a_table_under_its_heading() -> None:
    parsed = read_markdown(
        b"# Faktur\n\nPembuka.\n\n| No | Uraian |\n| --- | :--- |\n| 1 | Kertas \\| A4 |\n\n"
        b"Penutup.\n\n| bukan | tabel |\ntanpa baris pemisah\n",
        name="f.md",
    )
    assert isinstance(parsed, ParsedDocument)
    kinds = [type(b) for b in parsed.blocks]
    assert kinds == [TextBlock, TableBlock, TextBlock]
    table = parsed.blocks[1]
    assert isinstance(table, TableBlock)
    assert (table.section, table.header, table.rows) == (
        "Faktur",
        ("No", "Uraian"),
        (("1", "Kertas | A4"),),
    )
    drafts = chunk_blocks(parsed.blocks)
    assert drafts[1].kind == "table"
    # a pipe inside a cell is written escaped, so the row splits back into its cells
    assert drafts[1].text == "No | Uraian\n1 | Kertas \\| A4"
    assert "| bukan | tabel |" in drafts[2].text  # no rule line: not a table
