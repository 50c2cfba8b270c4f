"""The offline reader (issue 22): which sentence or row of the passages answers the question, and
whether any does."""

from __future__ import annotations

from tanda.retrieval.question import analyze_question
from tanda.retrieval.reading import ReadPassage, passage_units, read_units

BIOGRAPHY = ReadPassage(
    "P1",
    "Hydatius adalah seorang uskup dan penulis sejarah. Hydatius dilahirkan sekitar tahun 400 "
    "di Civitas Lemica, sebuah kota Romawi. Ia menulis sebuah kronik yang terkenal.",
    ("Dokumen: Hydatius",),
)


def read(question: str, *passages: ReadPassage):  # type: ignore[no-untyped-def]
    return read_units(analyze_question(question), list(passages))


def test_the_sentence_holding_an_answer_of_the_asked_kind_leads() -> None:
    # Given a time question, when the passage names the subject in several sentences,
    reading = read("Kapan Hydatius lahir?", BIOGRAPHY)
    # then the sentence with the year leads, and it answers.
    assert reading.answers
    assert reading.best is not None and "tahun 400" in reading.best.unit.text


def test_a_question_about_a_name_the_documents_do_not_hold_is_not_answered() -> None:
    passage = ReadPassage(
        "P1", "SBY memenangi pemilu Indonesia pertama kali pada 20 Oktober 2004.", ()
    )
    assert read("Kapan SBY memenangi pemilu Indonesia?", passage).answers
    # An entity swapped: the documents never name Meksiko.
    assert not read("Kapan SBY memenangi pemilu Meksiko?", passage).answers


def test_a_sentence_stating_the_opposite_does_not_answer() -> None:
    passage = ReadPassage("P1", "Megalodon adalah jenis hiu terbesar di dunia.", ())
    assert read("Apakah jenis hiu terbesar di dunia?", passage).answers
    assert not read("Apakah jenis hiu terkecil di dunia?", passage).answers


def test_the_one_word_a_question_asks_about_must_be_in_the_answers_place() -> None:
    # Issue 22: a dataset README named the region and the year, never education.
    readme = ReadPassage(
        "P1",
        "Analisa pada notebook ini menggunakan data dengan periode 4 tahun, yakni dari tahun "
        "anggaran 2021 hingga 2024, dan memiliki cakupan seluruh kabupaten/kota di Jawa Timur.",
        ("Dokumen: Pemetaan APBD Kabupaten/Kota se Jawa Timur",),
    )
    assert not read("Berapa anggaran pendidikan Jawa Timur tahun 2023?", readme).answers


def test_a_row_is_read_under_its_header_and_identity_not_beside_the_other_rows() -> None:
    table = ReadPassage(
        "P1",
        "akun | anggaran | realisasi\n"
        "Pendapatan Daerah | 10.723,82 M | 6.491,38 M\n"
        "Pajak Daerah | 5.112,15 M | 3.520,34 M\n"
        "Belanja Lainnya | 530,93 M | 193,74 M",
        ("Dokumen: APBD Surabaya 2023", "Periode: 2023"),
    )
    reading = read("Berapa realisasi Pajak Daerah Surabaya 2023?", table)
    answering = [r.unit.text.split(" | ")[0] for r in reading.answering(3)]
    # The asked row leads; a row holding none of the asked words never answers, though the
    # rows around it do hold them.
    assert answering[0] == "Pajak Daerah" and "Belanja Lainnya" not in answering


def test_the_asked_row_leads_over_rows_naming_only_part_of_it() -> None:
    table = ReadPassage(
        "P4",
        "akun | anggaran | realisasi\n"
        "Pendapatan Transfer Antar Daerah | 1.555,72 M | 764,66 M\n"
        "Pendapatan Daerah | 10.723,82 M | 6.491,38 M",
        ("Dokumen: APBD Surabaya 2023", "Periode: 2023"),
    )
    best = read("Berapa realisasi pendapatan daerah Surabaya tahun 2023?", table).best
    assert best is not None and best.unit.text.startswith("Pendapatan Daerah |")


def test_a_sentence_speaking_of_its_passages_subject_is_placed_by_the_passage() -> None:
    album = ReadPassage(
        "P1",
        "The Best Damn Thing adalah album studio ketiga Avril Lavigne. Album ini dirilis di "
        "Amerika Utara pada tanggal 17 April 2007.",
        (),
    )
    best = read("Kapan The Best Damn Thing dirilis?", album).best
    assert best is not None and best.answers and "17 April 2007" in best.unit.text


def test_a_definition_answers_only_where_the_term_is_defined() -> None:
    passages = [
        ReadPassage("P1", "Pemrosesan Data Pribadi dilaksanakan sesuai ketentuan.", ()),
        ReadPassage("P2", "1. Data Pribadi adalah data tentang orang perseorangan.", ()),
    ]
    reading = read("Apa yang dimaksud dengan data pribadi?", *passages)
    assert [r.unit.key for r in reading.answering(3)] == ["P2"]


def test_a_piece_cut_at_a_colon_inside_a_line_is_read_with_what_follows() -> None:
    units = passage_units(
        ReadPassage(
            "P1",
            "Sistem Pemosisi Global (bahasa Inggris: Global Positioning System) "
            "adalah sistem untuk menentukan letak.",
        )
    )
    assert len(units) == 1 and units[0].text.endswith("menentukan letak.")


def test_nothing_shared_with_the_question_is_never_offered() -> None:
    assert (
        read("Kapan Hydatius lahir?", ReadPassage("P1", "Jalan provinsi diperbaiki.")).best is None
    )
