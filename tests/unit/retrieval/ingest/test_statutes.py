"""Statutes as text: identity from the title block, section paths from BAB/Bagian/Pasal in plain
text and Markdown (V2-07). The statute PDFs of the shared data are read in
tests/integration/test_shared_data_readers.py."""

from __future__ import annotations

import pytest

from tanda.retrieval.ingest.chunking import chunk_blocks
from tanda.retrieval.ingest.identity import extract_legal_identity
from tanda.retrieval.ingest.parsed import ParsedDocument
from tanda.retrieval.ingest.readers import parse_plain_text, read_markdown


def test_given_a_title_block_with_ocr_slips_when_read_then_numbers_are_repaired() -> None:
    identity = extract_legal_identity(
        "UNDANG-UNDANG REPUBLIK INDONESIA\nNOMOR 1 TAHUN 2O24\nTENTANG\nPERUBAHAN KEDUA ATAS "
        "UNDANG-UNDANG NOMOR 11 TAHUN 2008 TENTANG INFORMASI DAN TRANSAKSI ELEKTRONIK\n"
        "DENGAN RAHMAT TUHAN YANG MAHA ESA"
    )
    assert identity.year == 2024
    assert identity.legal_reference == (
        "Undang-Undang Nomor 1 Tahun 2024 tentang Perubahan Kedua atas Undang-Undang Nomor 11 "
        "Tahun 2008 tentang Informasi dan Transaksi Elektronik"
    )


def test_given_plain_text_of_a_statute_when_parsed_then_pasal_headings_make_sections() -> None:
    text = (
        "BAB I\nKETENTUAN UMUM\nPasal 1\nDalam Undang-Undang ini yang dimaksud dengan:\n"
        "1. Data adalah keterangan.\nPasal 2\n(1) Ayat pertama berlaku.\n"
        "(2) Ayat kedua juga berlaku.\nBAB II\nASAS\nPasal 3\nAsasnya kepastian hukum.\n"
    )
    drafts = chunk_blocks(parse_plain_text(text, fallback_title="uu").blocks)
    assert [d.section for d in drafts] == ["BAB I > Pasal 1", "BAB I > Pasal 2", "BAB II > Pasal 3"]
    assert drafts[1].page_no is None
    assert drafts[1].text == "(1) Ayat pertama berlaku.\n(2) Ayat kedua juga berlaku."


def test_given_a_wrapped_reference_when_parsed_then_it_is_not_a_heading() -> None:
    text = (
        "Pasal 1\nKetentuan sebagaimana dimaksud dalam\nPasal 9\nberlaku juga.\nPasal 2\nCukup.\n"
    )
    drafts = chunk_blocks(parse_plain_text(text, fallback_title="uu").blocks)
    assert [d.section for d in drafts] == ["Pasal 1", "Pasal 2"]
    assert "dimaksud dalam Pasal 9 berlaku juga." in drafts[0].text


_QANUN_BODY = (
    "BAB I\nKETENTUAN UMUM\n\nPasal 1\nDalam Qanun ini yang dimaksud dengan:\n"
    "1. Kabupaten adalah Kabupaten Aceh Besar.\n\nPasal 2\n(1) Pendidikan diselenggarakan "
    "secara demokratis.\n(2) Pendidikan diselenggarakan sebagai satu kesatuan.\n\nBAB II\n"
    "HAK DAN KEWAJIBAN\n\nPasal 3\nSetiap warga berhak memperoleh pendidikan yang bermutu.\n"
)


@pytest.mark.parametrize(
    "markdown",
    [
        pytest.param("# Qanun Pendidikan\n\n" + _QANUN_BODY, id="pasal-lines-as-text"),
        pytest.param(
            "# Qanun Pendidikan\n\n"
            + _QANUN_BODY.replace("BAB ", "## BAB ").replace("Pasal ", "### Pasal "),
            id="pasal-lines-as-headings",
        ),
        pytest.param(
            "# Qanun Pendidikan\n\n"
            + _QANUN_BODY.replace("BAB I\n", "**BAB I**\n").replace("Pasal 3", "__Pasal 3__"),
            id="pasal-lines-in-bold",
        ),
    ],
)
def test_given_a_statute_in_markdown_when_read_then_its_pasal_lines_make_sections(
    markdown: str,
) -> None:
    parsed = read_markdown(markdown.encode(), name="qanun.md")
    assert isinstance(parsed, ParsedDocument)
    drafts = chunk_blocks(parsed.blocks)
    assert parsed.title == "Qanun Pendidikan"
    assert [d.section for d in drafts if d.section] == [
        "BAB I > Pasal 1",
        "BAB I > Pasal 2",
        "BAB II > Pasal 3",
    ]
    pasal_2 = next(d for d in drafts if d.section == "BAB I > Pasal 2")
    assert pasal_2.text == (
        "(1) Pendidikan diselenggarakan secara demokratis.\n"
        "(2) Pendidikan diselenggarakan sebagai satu kesatuan."
    )
