"""The quote check and spans in stored text (ASK-14, KB-05)."""

from __future__ import annotations

import pytest

from tanda.extraction.text import (
    locate_quote,
    normalise_space,
    quote_matches,
    sentence_spans,
    without_enumerator,
)
from tanda.retrieval.sentences import whole_sentence_spans

STORED = "Pasal 5\nPembayaran dilakukan paling lambat\n14 hari   setelah tanggal faktur."


def test_a_quote_matches_the_stored_text_at_its_span_whitespace_normalised() -> None:
    start = STORED.index("Pembayaran")
    end = STORED.index("faktur.") + len("faktur.")
    quote = "Pembayaran dilakukan paling lambat 14 hari setelah tanggal faktur."
    assert quote_matches(STORED, start, end, quote)


def test_the_quote_check_forgives_nothing_but_whitespace() -> None:
    start = STORED.index("Pembayaran")
    end = STORED.index("faktur.") + len("faktur.")
    assert not quote_matches(STORED, start, end, "pembayaran dilakukan paling lambat 14 hari "
                             "setelah tanggal faktur.")  # fmt: skip
    assert not quote_matches(STORED, start, end, "Pembayaran dilakukan paling lambat 15 hari "
                             "setelah tanggal faktur.")  # fmt: skip
    assert not quote_matches(STORED, start, end, "Pembayaran dilakukan paling lambat 14 hari")


def test_a_span_outside_the_text_or_an_empty_quote_never_matches() -> None:
    assert not quote_matches(STORED, 0, len(STORED) + 1, STORED)
    assert not quote_matches(STORED, 5, 5, "")
    assert not quote_matches(STORED, 0, 7, "   ")


def test_a_quote_is_located_across_line_breaks_and_runs_of_blanks() -> None:
    span = locate_quote(STORED, "paling lambat 14 hari setelah")
    assert span is not None
    assert STORED[span[0] : span[1]] == "paling lambat\n14 hari   setelah"
    assert quote_matches(STORED, *span, "paling lambat 14 hari setelah")


def test_a_quote_not_in_the_text_is_not_located() -> None:
    assert locate_quote(STORED, "paling lambat 30 hari") is None
    assert locate_quote(STORED, "  ") is None


def test_sentences_end_at_stops_and_at_line_breaks() -> None:
    text = "Satu dua tiga. Empat lima enam!\nTujuh delapan"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Satu dua tiga.",
        "Empat lima enam!",
        "Tujuh delapan",
    ]


def test_a_stop_followed_by_reference_marks_ends_a_sentence() -> None:
    # Issue 22: "….[1] Selain …" is two sentences; a bracket inside one is not a stop.
    text = "Kritik sastra adalah cabang ilmu.[1][2] Selain itu [lihat] Bagian lain. Ini [a] B."
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Kritik sastra adalah cabang ilmu.[1][2]",
        "Selain itu [lihat] Bagian lain.",
        "Ini [a] B.",
    ]


def test_whitespace_normalises_to_single_spaces() -> None:
    assert normalise_space("  a \n\t b  ") == "a b"


def _sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            'Jeffrey Jacob "J. J." Abrams adalah sutradara. Ia lahir di New York.',
            ['Jeffrey Jacob "J. J." Abrams adalah sutradara.', "Ia lahir di New York."],
            id="initials-in-quotes",
        ),
        pytest.param(
            "John C. Messenger wrote it. He was an anthropologist.",
            ["John C. Messenger wrote it.", "He was an anthropologist."],
            id="middle-initial",
        ),
        pytest.param(
            "S. Nishijima menulis buku itu. Buku itu terkenal.",
            ["S. Nishijima menulis buku itu.", "Buku itu terkenal."],
            id="first-initial",
        ),
        pytest.param(
            "William E. Simon'ı tanıyordu. Sonra ayrıldı.",
            ["William E. Simon'ı tanıyordu.", "Sonra ayrıldı."],
            id="initial-before-a-turkish-suffix",
        ),
    ],
)
def test_a_full_stop_after_an_initial_does_not_end_a_sentence(
    text: str, expected: list[str]
) -> None:
    assert _sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "Drs. H. Uso menjabat bupati. Ia lahir di Luwuk.",
            ["Drs. H. Uso menjabat bupati.", "Ia lahir di Luwuk."],
            id="drs-h",
        ),
        pytest.param(
            "Prof. Ir. Hendrik van Breen mengajar di Bandung. Dia datang pada 1920.",
            ["Prof. Ir. Hendrik van Breen mengajar di Bandung.", "Dia datang pada 1920."],
            id="prof-ir",
        ),
        pytest.param(
            "Kantor dr. Angka ada di Jalan Sriwedani No. 1 Yogyakarta. Kantor itu buka pagi.",
            ["Kantor dr. Angka ada di Jalan Sriwedani No. 1 Yogyakarta.", "Kantor itu buka pagi."],
            id="dr-no",
        ),
        pytest.param(
            "Denda paling banyak Rp. 5.000.000 dibayar tunai. Sisanya dicicil.",
            ["Denda paling banyak Rp. 5.000.000 dibayar tunai.", "Sisanya dicicil."],
            id="rp",
        ),
        pytest.param(
            "Yrd. Doç. Dr. Ayşe Kaya ve Av. Mehmet Demir geldi. Toplantı başladı.",
            ["Yrd. Doç. Dr. Ayşe Kaya ve Av. Mehmet Demir geldi.", "Toplantı başladı."],
            id="turkish-titles",
        ),
        pytest.param(
            "Mr. Smith met Mrs. Jones etc. There was tea.",
            ["Mr. Smith met Mrs. Jones etc. There was tea."],
            id="english-titles-and-etc",
        ),
    ],
)
def test_a_full_stop_after_a_title_or_abbreviation_does_not_end_a_sentence(
    text: str, expected: list[str]
) -> None:
    assert _sentences(text) == expected


def test_a_full_stop_after_a_roman_numeral_does_not_end_a_sentence() -> None:
    text = "II. Dünya Savaşı 1945'te bitti. Sonra barış geldi."
    assert _sentences(text) == ["II. Dünya Savaşı 1945'te bitti.", "Sonra barış geldi."]


def test_a_full_stop_inside_dotted_initials_does_not_end_a_sentence() -> None:
    text = "Cuti berlaku 1 s.d. 5 Mei bagi pegawai. Ia pindah."
    assert _sentences(text) == ["Cuti berlaku 1 s.d. 5 Mei bagi pegawai.", "Ia pindah."]


def test_a_full_stop_after_an_ordinary_word_or_number_still_ends_a_sentence() -> None:
    text = "Harga naik menjadi 1.000. Dua hari kemudian turun. Ia setuju. Mereka pergi."
    assert _sentences(text) == [
        "Harga naik menjadi 1.000.",
        "Dua hari kemudian turun.",
        "Ia setuju.",
        "Mereka pergi.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("(2) Setiap Orang wajib melapor.", "Setiap Orang wajib melapor.", id="ayat"),
        pytest.param("(l) Komite dibentuk.", "Komite dibentuk.", id="ayat-ocr"),
        pytest.param("a. bahwa data pribadi dilindungi;", "bahwa data pribadi dilindungi;", id="a"),
        pytest.param("1. Data Pribadi adalah data.", "Data Pribadi adalah data.", id="number"),
        pytest.param(
            "6a. Penyelenggara adalah setiap orang.",
            "Penyelenggara adalah setiap orang.",
            id="inserted-number",
        ),
        pytest.param("b) Toplam tutar aşılamaz.", "Toplam tutar aşılamaz.", id="paren"),
    ],
)
def test_a_sentence_starts_after_the_list_or_ayat_number_that_opens_it(
    text: str, expected: str
) -> None:
    assert _sentences(text) == [expected]


def test_a_line_that_is_only_a_list_number_is_no_sentence() -> None:
    assert _sentences("(1)\nSetiap Orang wajib melapor.\nb.") == ["Setiap Orang wajib melapor."]


def test_a_numbered_item_after_a_sentence_on_the_same_line_starts_after_its_number() -> None:
    text = "Dalam Undang-Undang ini yang dimaksud dengan: 1. Data adalah keterangan."
    assert _sentences(text) == [
        "Dalam Undang-Undang ini yang dimaksud dengan:",
        "Data adalah keterangan.",
    ]


def test_without_enumerator_drops_the_opening_list_number_only() -> None:
    assert without_enumerator(" (2) a. Setiap Orang (3) wajib.") == "Setiap Orang (3) wajib."
    assert without_enumerator("Pasal 5 berlaku.") == "Pasal 5 berlaku."


def test_a_piece_cut_inside_a_sentence_is_joined_to_what_follows_on_its_line() -> None:
    # Issue 22: a colon inside brackets cuts a sentence for sentence_spans; a reader of the text
    # (the offline reader's units, the proof's statements) takes the whole sentence.
    text = (
        "Santo Georgius (English: Saint George, Latin: Georgius) adalah tentara Romawi. "
        "Catatan:\nIa wafat pada 303."
    )
    assert [text[a:b] for a, b in whole_sentence_spans(text)] == [
        "Santo Georgius (English: Saint George, Latin: Georgius) adalah tentara Romawi.",
        "Catatan:",
        "Ia wafat pada 303.",
    ]
    # A bracket never closed joins no further than max_chars.
    unclosed = "Awal (catatan: Satu. Dua. Tiga."
    assert len(list(whole_sentence_spans(unclosed, max_chars=20))) > 1
    assert [unclosed[a:b] for a, b in whole_sentence_spans(unclosed)] == [unclosed]
