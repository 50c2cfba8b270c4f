"""The readers over the shared data (../shared/data, which CI always has): statute PDFs give their
identity from the title block, section paths from BAB/Bagian/Pasal and no page furniture in the
text (V2-07); a regional budget CSV stays a table."""

from __future__ import annotations

from functools import cache
from pathlib import Path, PurePosixPath

import pytest
from pypdf import PdfReader

from tanda.retrieval.ingest.chunking import ChunkDraft, ChunkingConfig, chunk_blocks
from tanda.retrieval.ingest.parsed import ParsedDocument
from tanda.retrieval.ingest.readers import read_csv, read_pdf, read_text
from tests.corpus import shared_data

pytestmark = pytest.mark.integration


@pytest.fixture
def corpus() -> Path:
    return shared_data("corpus")


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


def test_given_uu_27_2022_when_chunked_then_its_preamble_labels_and_title_are_no_text(
    corpus: Path,
) -> None:
    # pypdf reads the label column ("Menimbang", "Mengingat") before the title block (issue 22)
    _, drafts = _parse(corpus / "id_laws" / "UU-27-Tahun-2022.pdf")
    first, second = drafts[0], drafts[1]
    assert first.section == "Menimbang"
    assert first.text.startswith(
        "a. bahwa pelindungan data pribadi merupakan salah satu hak asasi manusia"
    )
    assert second.section == "Mengingat"
    assert second.text.startswith("Pasal 5 ayat (l), Pasal 20, Pasal 28G ayat (1)")


STATUTES = sorted(p.name for p in shared_data("corpus", "id_laws").glob("*.pdf"))
_PREAMBLE_WORDS = ("Menimbang", "Mengingat", "Menetapkan", "MEMUTUSKAN", "PEMBUKAAN")


@pytest.mark.parametrize("name", STATUTES)
def test_given_a_statute_of_the_shared_data_when_chunked_then_no_passage_holds_its_headings(
    corpus: Path, name: str
) -> None:
    # The title block, the preamble's labels and the titles of the Penjelasan and of Bagian are
    # section identity, never passage text (issue 22)
    _, drafts = _parse(corpus / "id_laws" / name)
    for draft in drafts:
        assert "DENGAN RAHMAT" not in draft.text, (draft.section, draft.text[:120])
        for line in draft.text.splitlines():
            assert not line.startswith(_PREAMBLE_WORDS), (draft.section, line[:120])
            assert not line.startswith(("UNDANG-UNDANG REPUBLIK", "PERATURAN PRESIDEN REPUBLIK"))
            assert not line.startswith("ATAS UNDANG-UNDANG"), (draft.section, line[:120])
        if draft.section and "Bagian" in draft.section.rsplit(" > ", 1)[-1]:
            pytest.fail(f"a Bagian's title is a passage: {draft.text[:120]!r}")


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
