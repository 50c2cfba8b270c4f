"""CSV tables stay tables; JSONL and BEIR lines become documents."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tanda.retrieval.ingest.chunking import ChunkingConfig, chunk_blocks
from tanda.retrieval.ingest.parsed import ParsedDocument, Skipped
from tanda.retrieval.ingest.readers import read_csv, read_jsonl_records, table_identity


def test_given_an_apbd_csv_when_chunked_then_every_chunk_repeats_the_header_verbatim(
    corpus: Path,
) -> None:
    path = corpus / "apbd_jatim" / "2023" / "Surabaya.csv"
    parsed = read_csv(path.read_bytes(), path=PurePosixPath("apbd_jatim/2023/Surabaya.csv"))
    assert isinstance(parsed, ParsedDocument)
    drafts = chunk_blocks(parsed.blocks, ChunkingConfig(target_chars=400))
    assert len(drafts) > 1
    for draft in drafts:
        assert draft.kind == "table"
        assert draft.text.splitlines()[0] == "akun | anggaran | realisasi | persentase"
        assert len(draft.text.splitlines()) >= 2
    first = drafts[0].text.splitlines()
    assert first[1] == "Pendapatan Daerah | 10.723,82 M | 6.491,38 M | 60.53"
    rows = [row for d in drafts for row in d.text.splitlines()[1:]]
    assert len(rows) == 29  # every row once, none merged into a line with another


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
    from tanda.retrieval.ingest.parsed import TableBlock, TextBlock
    from tanda.retrieval.ingest.readers import read_markdown

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
