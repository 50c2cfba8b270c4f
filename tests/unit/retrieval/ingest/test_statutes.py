"""Statutes as text: identity from the title block, section paths from BAB/Bagian/Pasal in plain
text and Markdown (V2-07). The statute PDFs of the shared data are read in
tests/integration/test_shared_data_readers.py."""

from __future__ import annotations

import pytest

from tanda.retrieval.ingest.chunking import chunk_blocks
from tanda.retrieval.ingest.identity import extract_legal_identity
from tanda.retrieval.ingest.parsed import ParsedDocument
from tanda.retrieval.ingest.readers import parse_plain_text, read_markdown
from tanda.retrieval.ingest.statute import parse_statute_pages
from tests.unit.retrieval.ingest.sample_sources import PERDA


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


# --- headings are section identity, never words of a sentence (issue 22) ----------------------


def test_given_a_markdown_excerpt_from_pasal_5_when_read_then_its_headings_are_sections() -> None:
    # Given a Perda in Markdown whose first article is Pasal 5, under an all-caps title heading
    parsed = read_markdown(PERDA.encode(), name="perda.md")
    assert isinstance(parsed, ParsedDocument)

    # When it is chunked
    drafts = chunk_blocks(parsed.blocks)

    # Then each article is a section of its own text, and the title is the document's title
    assert [(d.section, d.text) for d in drafts] == [
        (
            "Pasal 5",
            "Setiap pelanggaran terhadap ketentuan ketertiban umum dikenakan denda paling "
            "banyak Rp 5.000.000.",
        ),
        (
            "Pasal 6",
            "Walikota menetapkan tata cara pengenaan denda sebagaimana dimaksud dalam Pasal 5.",
        ),
    ]
    assert parsed.title == (
        "Peraturan Daerah Kota Contoh Nomor 3 Tahun 2020 tentang Ketertiban Umum"
    )


def test_given_a_pasal_line_between_blank_lines_when_parsed_then_it_is_a_heading() -> None:
    # Given plain text starting at Pasal 12, its headings standing alone between blank lines
    text = "Pasal 12\n\nSetiap orang wajib melapor.\n\nPasal 13\n\nLaporan dibuat tertulis.\n"

    drafts = chunk_blocks(parse_plain_text(text, fallback_title="kutipan").blocks)

    assert [(d.section, d.text) for d in drafts] == [
        ("Pasal 12", "Setiap orang wajib melapor."),
        ("Pasal 13", "Laporan dibuat tertulis."),
    ]


def test_given_blank_lines_in_a_text_statute_when_parsed_then_they_separate_paragraphs() -> None:
    # Given two paragraphs of one article, the first not ending in a full stop
    text = (
        "Pasal 1\nKetentuan ini berlaku untuk\nsemua pihak\n\nKetentuan lain menyusul.\n"
        "Pasal 2\nCukup.\n"
    )

    drafts = chunk_blocks(parse_plain_text(text, fallback_title="uu").blocks)

    assert drafts[0].text == "Ketentuan ini berlaku untuk semua pihak\nKetentuan lain menyusul."


def test_given_a_pdf_like_statute_when_a_later_pasal_opens_the_text_then_it_is_not_a_heading() -> (
    None
):
    # Given PDF pages (no blank lines, no markup): the first article of a body is Pasal 1, so a
    # "Pasal 9" line before it is a wrapped reference, not a heading (the OCR guard)
    pages = [["Ketentuan sebagaimana dimaksud dalam", "Pasal 9", "berlaku.", "Pasal 1", "Cukup."]]

    blocks = parse_statute_pages(pages).blocks

    assert [b.section for b in blocks] == [None, "Pasal 1"]


def test_given_an_inserted_article_lettered_i_when_parsed_then_the_articles_after_it_are_too() -> (
    None
):  # issue 22
    # Given the UUD 1945 amendments' articles as pypdf reads them: the OCR fix reads "28I" as
    # 281, and every later article (28J, 30, 36A) went back from it and was glued to a sentence
    pages = [
        [
            "Pasal II",
            "Beberapa pasal diubah sebagai berikut.",
            "Pasal 28H",
            "Setiap orang berhak hidup sejahtera.",
            "Pasal 28I",
            "Hak untuk hidup tidak dapat dikurangi.",
            "Pasal 28J",
            "Setiap orang wajib menghormati hak asasi manusia orang lain.",
            "BAB XV",
            "BENDERA, BAHASA, DAN LAMBANG NEGARA",
            "Pasal 36A",
            "Lambang Negara ialah Garuda Pancasila dengan semboyan Bhinneka Tunggal Ika.",
        ]
    ]

    blocks = parse_statute_pages(pages).blocks

    assert [b.section.rsplit(" > ", 1)[-1] for b in blocks if b.section] == [
        "Pasal II",
        "Pasal 28H",
        "Pasal 28I",
        "Pasal 28J",
        "Pasal 36A",
    ]
    assert blocks[-1].paragraphs[0].text.startswith("Lambang Negara ialah")


_UU = (
    "UNDANG-UNDANG REPUBLIK INDONESIA\nNOMOR 9 TAHUN 2021\nTENTANG\nCONTOH KETENTUAN\n"
    "DENGAN RAHMAT TUHAN YANG MAHA ESA\nPRESIDEN REPUBLIK INDONESIA,\n"
)
_PREAMBLE_IN_PLACE = (
    "Menimbang : a. bahwa contoh diperlukan untuk\nkepastian hukum;\n"
    "b. bahwa berdasarkan pertimbangan huruf a perlu membentuk Undang-Undang;\n"
    "Mengingat : Pasal 5 ayat (1) Undang-Undang Dasar Negara Republik Indonesia Tahun 1945;\n"
    "Dengan Persetujuan Bersama\nDEWAN PERWAKILAN RAKYAT REPUBLIK INDONESIA\ndan\n"
    "PRESIDEN REPUBLIK INDONESIA\nMEMUTUSKAN:\nMenetapkan: UNDANG-UNDANG TENTANG CONTOH\n"
    "KETENTUAN.\n"
)
_BODY = "BAB I\nKETENTUAN UMUM\nPasal 1\nSetiap orang wajib mematuhi contoh.\nPasal 2\nCukup.\n"


def _sections_and_texts(pages: list[str]) -> list[tuple[str | None, str]]:
    blocks = parse_statute_pages([page.splitlines() for page in pages]).blocks
    return [(d.section, d.text) for d in chunk_blocks(blocks)]


def test_given_a_title_block_and_preamble_labels_when_parsed_then_they_are_no_text() -> None:
    # Given a statute's title block in capitals and the labels of its preamble beside their text
    chunks = _sections_and_texts([_UU + _PREAMBLE_IN_PLACE + _BODY])

    # Then the labels are sections, the title block and the enacted title are in no passage
    assert chunks == [
        (
            "Menimbang",
            "a. bahwa contoh diperlukan untuk kepastian hukum;\n"
            "b. bahwa berdasarkan pertimbangan huruf a perlu membentuk Undang-Undang;",
        ),
        (
            "Mengingat",
            "Pasal 5 ayat (1) Undang-Undang Dasar Negara Republik Indonesia Tahun 1945;",
        ),
        (
            None,
            "Dengan Persetujuan Bersama DEWAN PERWAKILAN RAKYAT REPUBLIK INDONESIA dan "
            "PRESIDEN REPUBLIK INDONESIA",
        ),
        ("BAB I > Pasal 1", "Setiap orang wajib mematuhi contoh."),
        ("BAB I > Pasal 2", "Cukup."),
    ]


def test_given_the_title_block_when_parsed_then_it_is_the_title_of_a_statute() -> None:
    statute = parse_statute_pages([(_UU + _PREAMBLE_IN_PLACE + _BODY).splitlines()])

    assert (
        statute.title
        == "UNDANG-UNDANG REPUBLIK INDONESIA NOMOR 9 TAHUN 2021 TENTANG CONTOH KETENTUAN"
    )


def test_given_labels_read_apart_from_their_text_when_parsed_then_each_heads_its_text() -> None:
    # Given pypdf's reading of UU 27/2022: the label column comes before the title block
    page_1 = (
        "Menimbang\nMengingat\n" + _UU + "a. bahwa contoh diperlukan;\n"
        "b. bahwa perlu membentuk Undang-Undang;\n"
        "Pasal 5 ayat (1) Undang-Undang Dasar Negara Republik Indonesia Tahun 1945;\n"
    )
    page_2 = (
        "Dengan Persetujuan Bersama\nDEWAN PERWAKILAN RAKYAT REPUBLIK INDONESIA\n"
        "Menetapkan\nMEMUTUSKAN:\nUNDANG-UNDANG TENTANG CONTOH KETENTUAN.\n" + _BODY
    )

    chunks = _sections_and_texts([page_1, page_2])

    assert chunks[:3] == [
        ("Menimbang", "a. bahwa contoh diperlukan;\nb. bahwa perlu membentuk Undang-Undang;"),
        ("Mengingat", "Pasal 5 ayat (1) Undang-Undang Dasar Negara Republik Indonesia Tahun 1945;"),
        (None, "Dengan Persetujuan Bersama DEWAN PERWAKILAN RAKYAT REPUBLIK INDONESIA"),
    ]
    assert chunks[3] == ("BAB I > Pasal 1", "Setiap orang wajib mematuhi contoh.")


def test_given_a_mengingat_text_read_before_its_label_when_parsed_then_it_is_under_mengingat() -> (
    None
):
    # Given Perpres 82/2023's reading: the Mengingat text comes right after the considerations,
    # its label later with the others
    page = (
        _UU + "Menimbang a. bahwa contoh diperlukan;\n"
        "Pasal 4 ayat (1) Undang-Undang Dasar Negara Republik Indonesia Tahun 1945;\n"
        "Mengingat\nMenetapkan\nMEMUTUSKAN:\nPERATURAN PRESIDEN TENTANG CONTOH.\n" + _BODY
    )

    chunks = _sections_and_texts([page])

    assert chunks[:2] == [
        ("Menimbang", "a. bahwa contoh diperlukan;"),
        ("Mengingat", "Pasal 4 ayat (1) Undang-Undang Dasar Negara Republik Indonesia Tahun 1945;"),
    ]


def test_given_a_lower_case_label_word_in_a_sentence_when_parsed_then_it_stays_text() -> None:
    page = (
        _UU + "Menimbang : a. bahwa contoh diperlukan dan\nmengingat pentingnya hal itu;\n" + _BODY
    )

    chunks = _sections_and_texts([page])

    assert chunks[0] == (
        "Menimbang",
        "a. bahwa contoh diperlukan dan mengingat pentingnya hal itu;",
    )


def test_given_the_constitutions_pembukaan_when_parsed_then_it_heads_the_preamble() -> None:
    page = (
        "UNDANG-UNDANG DASAR NEGARA REPUBLIK INDONESIA\nTAHUN 1945\nPEMBUKAAN\n"
        "( P r e a m b u l e )\nBahwa sesungguhnya kemerdekaan itu ialah hak segala bangsa.\n"
        "UNDANG-UNDANG DASAR\n" + _BODY
    )

    chunks = _sections_and_texts([page])

    assert chunks[0] == ("Pembukaan", "Bahwa sesungguhnya kemerdekaan itu ialah hak segala bangsa.")
    assert chunks[1][0] == "BAB I > Pasal 1"


def test_given_a_bagian_with_its_title_when_parsed_then_the_title_is_no_passage() -> None:
    page = (
        "BAB I\nKETENTUAN UMUM\nBagian Kesatu\nPembentukan dan Kedudukan\nPasal 1\n"
        "Komite dibentuk dengan Peraturan ini.\nBagian Kedua\nTugas dan\nFungsi Komite\nPasal 2\n"
        "Komite mempunyai tugas koordinasi.\n"
    )

    chunks = _sections_and_texts([page])

    assert chunks == [
        ("BAB I > Bagian Kesatu > Pasal 1", "Komite dibentuk dengan Peraturan ini."),
        ("BAB I > Bagian Kedua > Pasal 2", "Komite mempunyai tugas koordinasi."),
    ]


_PENJELASAN = (
    "Pasal 1\nCukup.\nPENJELASAN\nATAS\nUNDANG-UNDANG REPUBLIK INDONESIA\nNOMOR 9 TAHUN 2021\n"
    "I. UMUM\nUndang-Undang ini dibentuk untuk contoh.\nII. PASAL DEMI PASAL\nPasal 1\n"
    "Ayat (1)\nHuruf a\nYang dimaksud dengan contoh adalah teladan.\nAyat (2)\nCukup jelas.\n"
)


def test_given_a_penjelasan_when_parsed_then_its_title_block_is_no_text() -> None:
    chunks = _sections_and_texts([_PENJELASAN])

    assert chunks[1] == ("Penjelasan > Umum", "Undang-Undang ini dibentuk untuk contoh.")


def test_given_ayat_lines_in_a_penjelasan_when_parsed_then_each_stands_alone() -> None:
    chunks = _sections_and_texts([_PENJELASAN])

    assert chunks[2] == (
        "Penjelasan > Pasal 1",
        "Ayat (1)\nHuruf a\nYang dimaksud dengan contoh adalah teladan.\nAyat (2)\nCukup jelas.",
    )


def test_given_a_misread_inserted_article_when_parsed_then_the_nearest_continuation_wins() -> None:
    # Given an amending statute's OCR: "Pasal 27B" read as "Pasal 278", then Pasal 45A
    page = (
        "Pasal I\nPasal 27A\nSetiap orang dilarang.\nPasal 278\nSetiap orang juga dilarang.\n"
        "Pasal 45A\nSetiap orang dipidana.\nPasal II\nCukup.\n"
    )

    chunks = _sections_and_texts([page])

    assert [section for section, _ in chunks] == [
        "Pasal I > Pasal 27A",
        "Pasal I > Pasal 27B",
        "Pasal I > Pasal 45A",
        "Pasal II",
    ]


def test_given_a_markdown_heading_with_its_title_when_read_then_the_structure_is_the_section() -> (
    None
):
    markdown = (
        "# Qanun Contoh\n\n## BAB I Ketentuan Umum\n\n### Pasal 1\n\nQanun ini berlaku.\n\n"
        "### Pasal 2 — Tujuan\n\nTujuannya ketertiban.\n\n### Pasal 3\n\nCukup.\n"
    )
    parsed = read_markdown(markdown.encode(), name="qanun.md")
    assert isinstance(parsed, ParsedDocument)

    assert [(d.section, d.text) for d in chunk_blocks(parsed.blocks)] == [
        ("BAB I > Pasal 1", "Qanun ini berlaku."),
        ("BAB I > Pasal 2", "Tujuannya ketertiban."),
        ("BAB I > Pasal 3", "Cukup."),
    ]
    assert parsed.title == "Qanun Contoh"


def test_given_pasal_misread_with_a_space_when_parsed_then_it_is_still_a_heading() -> None:
    # UU 11/2008's Penjelasan prints "P asal 5": glued, it opened the sentence under it
    page = "PENJELASAN\nII. PASAL DEMI PASAL\nPasal 1\nCukup jelas.\nP asal 2\nCukup jelas.\n"

    chunks = _sections_and_texts([page])

    assert chunks == [
        ("Penjelasan > Pasal 1", "Cukup jelas."),
        ("Penjelasan > Pasal 2", "Cukup jelas."),
    ]
