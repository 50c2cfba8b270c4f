"""Statute PDFs: identity from the title block, section paths from BAB/Bagian/Pasal, no page
furniture in the text (V2-07)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from pypdf import PdfReader

from tanda.retrieval.ingest.chunking import ChunkDraft, chunk_blocks
from tanda.retrieval.ingest.identity import extract_legal_identity
from tanda.retrieval.ingest.parsed import ParsedDocument
from tanda.retrieval.ingest.readers import parse_plain_text, read_markdown, read_pdf, read_text


@cache
def _parse(path: Path) -> tuple[ParsedDocument, list[ChunkDraft]]:
    parsed = read_pdf(path.read_bytes(), name=path.name)
    assert isinstance(parsed, ParsedDocument)
    return parsed, chunk_blocks(parsed.blocks)


def test_given_uu_27_2022_when_read_then_identity_is_the_statutes_own(corpus: Path) -> None:
    parsed, _ = _parse(corpus / "id_laws" / "UU-27-Tahun-2022.pdf")
    identity = parsed.identity
    assert identity.regulation_type == "Undang-Undang"
    assert identity.number == "27"
    assert identity.year == 2022
    assert identity.legal_reference == (
        "Undang-Undang Nomor 27 Tahun 2022 tentang Pelindungan Data Pribadi"
    )
    assert identity.publisher == "Presiden Republik Indonesia"
    assert parsed.title == identity.legal_reference
    assert parsed.pages == 50
    assert parsed.lang == "id"


def test_given_uu_27_2022_when_chunked_then_sections_follow_bab_bagian_pasal(
    corpus: Path,
) -> None:
    _, drafts = _parse(corpus / "id_laws" / "UU-27-Tahun-2022.pdf")
    sections = {d.section for d in drafts}
    assert "BAB II > Pasal 3" in sections
    assert "BAB VI > Bagian Kesatu > Pasal 19" in sections
    assert "BAB XVI > Pasal 76" in sections
    assert "Penjelasan > Pasal 2" in sections
    pasal_3 = next(d for d in drafts if d.section == "BAB II > Pasal 3")
    assert pasal_3.page_no == 4
    assert "kepastian hukum" in pasal_3.text


def test_given_a_long_pasal_when_split_then_each_part_names_its_ayat(corpus: Path) -> None:
    _, drafts = _parse(corpus / "id_laws" / "UU-27-Tahun-2022.pdf")
    assert any(d.section == "BAB IV > Pasal 12 > ayat (2)" for d in drafts)
    ayat_part = next(d for d in drafts if d.section == "BAB IV > Pasal 12 > ayat (2)")
    assert ayat_part.text.startswith("(2)")


def test_given_statute_pages_when_chunked_then_running_heads_and_registry_lines_are_gone(
    corpus: Path,
) -> None:
    _, drafts = _parse(corpus / "id_laws" / "UU-27-Tahun-2022.pdf")
    body = [d for d in drafts if d.section and d.section.startswith("BAB")]
    for draft in body:
        assert "SK No" not in draft.text
        assert not draft.text.startswith(("PRESIDEN", "REPUBLIK INDONESIA", "-"))
        assert ". . ." not in draft.text


def test_given_perpres_82_2023_when_read_then_identity_and_sections(corpus: Path) -> None:
    parsed, drafts = _parse(corpus / "id_laws" / "perpres-82-2023.pdf")
    assert parsed.identity.regulation_type == "Peraturan Presiden"
    assert parsed.identity.number == "82"
    assert parsed.identity.year == 2023
    assert parsed.identity.legal_reference == (
        "Peraturan Presiden Nomor 82 Tahun 2023 tentang Percepatan Transformasi Digital dan "
        "Keterpaduan Layanan Digital Nasional"
    )
    sections = {d.section for d in drafts}
    assert {"BAB I > Pasal 1", "BAB IV > Pasal 11", "BAB VI > Pasal 22"} <= sections


def test_given_the_constitution_when_read_then_it_is_the_uud_1945(corpus: Path) -> None:
    parsed, drafts = _parse(corpus / "id_laws" / "UUD1945.pdf")
    assert parsed.identity.regulation_type == "Undang-Undang Dasar"
    assert parsed.identity.year == 1945
    assert parsed.identity.legal_reference == (
        "Undang-Undang Dasar Negara Republik Indonesia Tahun 1945"
    )
    assert any(d.section == "BAB I > Pasal 1" for d in drafts)
    assert all("www.peraturan.go.id" not in d.text for d in drafts)


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


def test_given_uu_1_2024_whose_scan_prints_undang_dot_undang_when_read_then_identity_is_known(
    corpus: Path,
) -> None:
    # Its OCR'd title block reads "UNDANG.UNDANG REPUBLIK INDONESI.A … NOMOR I1 TAHUN 2OO8".
    parsed, _ = _parse(corpus / "id_laws" / "UU-1-2024.pdf")
    assert parsed.identity.model_dump(exclude_none=True) == {
        "legal_reference": "Undang-Undang Nomor 1 Tahun 2024 tentang Perubahan Kedua atas "
        "Undang-Undang Nomor 11 Tahun 2008 tentang Informasi dan Transaksi Elektronik",
        "regulation_type": "Undang-Undang",
        "number": "1",
        "year": 2024,
        "publisher": "Presiden Republik Indonesia",
    }
    assert parsed.metadata["approved_by"] == "Dewan Perwakilan Rakyat Republik Indonesia"


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


def test_given_pdftotext_output_when_read_as_text_then_it_reads_like_the_pdf(corpus: Path) -> None:
    # pdftotext ends every page with a form feed; the .txt then has the PDF's pages, sections,
    # page numbers, identity and no page furniture.
    path = corpus / "id_laws" / "UU-27-Tahun-2022.pdf"
    pages = [page.extract_text() or "" for page in PdfReader(path).pages]
    as_text = read_text(("\f".join(pages) + "\f").encode(), name="UU-27-Tahun-2022.txt")
    as_pdf, pdf_drafts = _parse(path)
    assert isinstance(as_text, ParsedDocument)
    text_drafts = chunk_blocks(as_text.blocks)
    assert [(d.section, d.page_no, d.text) for d in text_drafts] == [
        (d.section, d.page_no, d.text) for d in pdf_drafts
    ]
    assert as_text.pages == 50
    assert as_text.identity == as_pdf.identity
    assert any(d.section == "BAB II > Pasal 3" and d.page_no == 4 for d in text_drafts)
