"""KB-05: a verbatim quote must equal the complete normalised text at its stated span."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from tanda.knowledge.quotes import check_quote, normalize

TEXT = "Pasal 1\nData  Pribadi adalah data tentang orang perseorangan yang teridentifikasi."


def test_the_complete_text_at_the_span_verifies() -> None:
    start, end = 8, 30
    check = check_quote(TEXT, start, end, TEXT[start:end])
    assert check.verified and check.reason == "exact"
    assert check.verified_span == (start, end)


def test_whitespace_and_composition_are_normalised_not_words() -> None:
    start = TEXT.index("Data")
    end = TEXT.index(" adalah")
    assert check_quote(TEXT, start, end, "Data Pribadi").verified  # two spaces in the source
    assert check_quote("Café au lait", 0, 4, "Cafe\u0301").verified  # NFD quote, NFC text
    assert not check_quote(TEXT, start, end, "data pribadi").verified  # case is a word's


def test_a_shortened_quote_with_the_wider_offsets_fails_and_offers_the_narrower_span() -> None:
    # Given the span of a whole sentence and only its first words as the quote,
    start = TEXT.index("Data")
    end = len(TEXT)
    check = check_quote(TEXT, start, end, "Data  Pribadi adalah data")

    # then it fails, says why, and offers the span where that quote does stand.
    assert not check.verified
    assert check.reason == "quote_shortened"
    assert check.text_at_span == TEXT[start:end]
    assert check.verified_span is not None
    narrow_start, narrow_end = check.verified_span
    assert (narrow_start, narrow_end) == (start, start + len("Data  Pribadi adalah data"))
    assert check_quote(TEXT, narrow_start, narrow_end, "Data  Pribadi adalah data").verified


def test_a_quote_elsewhere_fails_and_points_at_where_it_is() -> None:
    check = check_quote(TEXT, 0, 7, "orang perseorangan")
    assert not check.verified and check.reason == "quote_mismatch"
    assert check.verified_span == (TEXT.index("orang"), TEXT.index(" yang"))


def test_a_quote_nowhere_fails_without_a_span() -> None:
    check = check_quote(TEXT, 0, 7, "badan hukum")
    assert (check.verified, check.reason, check.verified_span) == (False, "quote_mismatch", None)


def test_a_span_outside_the_text_fails() -> None:
    check = check_quote(TEXT, 10, len(TEXT) + 1, "Pribadi")
    assert (check.verified, check.reason, check.text_at_span) == (
        False,
        "span_out_of_range",
        None,
    )
    assert check.verified_span == (TEXT.index("Pribadi"), TEXT.index("Pribadi") + 7)


pieces = st.text(alphabet=st.sampled_from("ab c\n\tğ😀é."), max_size=20)
words = st.text(alphabet=st.sampled_from("abğ😀é."), min_size=1, max_size=10)


@given(prefix=pieces, left=pieces, part=words, right=pieces, suffix=pieces, wide_left=st.booleans())
@example(prefix="", left="a ", part="b", right="", suffix="", wide_left=True)
def test_any_exact_slice_verifies_and_any_strict_part_with_its_offsets_fails(
    prefix: str, left: str, part: str, right: str, suffix: str, wide_left: bool
) -> None:
    # Given a span whose text is wider than the part quoted (a word more on one side),
    if wide_left:
        left = left + "x "
    else:
        right = " x" + right
    text = prefix + left + part + right + suffix
    start, end = len(prefix), len(text) - len(suffix)

    # then the whole span's text verifies at its offsets,
    assert check_quote(text, start, end, text[start:end]).verified
    # the part with the span's offsets does not, and the span offered holds exactly the part.
    check = check_quote(text, start, end, part)
    assert not check.verified
    assert check.reason == "quote_shortened"
    assert check.verified_span is not None
    assert normalize(text[slice(*check.verified_span)]) == normalize(part)
    assert start <= check.verified_span[0] <= check.verified_span[1] <= end


# --- issue 23 item 13: what the mutation run of tanda/knowledge left untested --------------


def test_each_answer_shows_the_text_at_the_span_and_where_the_quote_stands() -> None:
    start, end = 8, 30
    assert check_quote(TEXT, start, end, TEXT[start:end]).text_at_span == TEXT[start:end]
    # a quote standing at the very start of the text is found there, whatever the span said
    elsewhere = check_quote(TEXT, 20, 30, "Pasal 1")
    assert (elsewhere.reason, elsewhere.text_at_span, elsewhere.verified_span) == (
        "quote_mismatch",
        TEXT[20:30],
        (0, 7),
    )
    outside = check_quote(TEXT, 0, len(TEXT) + 5, "Pasal 1")
    assert (outside.reason, outside.verified_span) == ("span_out_of_range", (0, 7))
    # an empty span is inside the text; an empty quote stands nowhere
    empty = check_quote(TEXT, 5, 5, "")
    assert (empty.verified, empty.reason, empty.text_at_span) == (False, "quote_mismatch", "")


def test_a_quote_found_twice_is_offered_at_its_first_place() -> None:
    text = "Data adalah data. Data adalah data."
    check = check_quote(text, 0, 4, "adalah data")
    assert check.verified_span == (5, 16)


def test_a_character_nfc_replaces_is_found_by_its_replacement() -> None:
    # U+212B ANGSTROM SIGN is Å (U+00C5) in NFC: a quote of Å finds it.
    text = "Panjang gelombang 5 \u212b diukur."
    check = check_quote(text, 0, len(text), "5 \u00c5")
    assert (check.reason, check.verified_span) == ("quote_shortened", (18, 21))
