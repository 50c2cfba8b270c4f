"""The quote check and spans in stored text (ASK-14, KB-05)."""

from __future__ import annotations

from tanda.extraction.text import (
    locate_quote,
    normalise_space,
    quote_matches,
    sentence_spans,
)

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


def test_whitespace_normalises_to_single_spaces() -> None:
    assert normalise_space("  a \n\t b  ") == "a b"
