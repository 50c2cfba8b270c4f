"""ASK-05: markers that resolve stay (one ``[S#]`` each); the others are removed and counted."""

from __future__ import annotations

import pytest

from tanda.ask.citations import drop_cut_marker, resolve_markers


def test_markers_of_shown_sources_stay_and_are_cited_once_ascending() -> None:
    resolved = resolve_markers("Ödeme 30 gündür [S2]. Teslim 5 gündür [S1][S2].", shown=3)
    assert resolved.text == "Ödeme 30 gündür [S2]. Teslim 5 gündür [S1][S2]."
    assert resolved.cited == (1, 2)
    assert resolved.invalid == 0


@pytest.mark.parametrize(
    ("answer", "text", "cited", "invalid"),
    [
        ("Tutar 5 [S9].", "Tutar 5.", (), 1),
        ("Tutar 5 [S9] ve 6 [S1].", "Tutar 5 ve 6 [S1].", (1,), 1),
        ("Tutar [S0] 5", "Tutar 5", (), 1),
        ("[S4] Tutar 5", " Tutar 5", (), 1),
        ("Tutar 5 [S1, S9, S2].", "Tutar 5 [S1][S2].", (1, 2), 1),
        ("Tutar 5 [S7; S8]", "Tutar 5", (), 2),
        ("Tutar 5 [s 1] ve [S1,2]", "Tutar 5 [S1] ve [S1][S2]", (1, 2), 0),
        ("Tutar 5 [S1][S1]", "Tutar 5 [S1][S1]", (1,), 0),
    ],
)
def test_markers_naming_no_shown_source_are_removed_and_counted(
    answer: str, text: str, cited: tuple[int, ...], invalid: int
) -> None:
    resolved = resolve_markers(answer, shown=2)
    assert (resolved.text, resolved.cited, resolved.invalid) == (text, cited, invalid)


def test_a_marker_one_past_the_last_shown_source_is_removed() -> None:
    # Issue 23: at the limit — [S3] with two sources shown names nothing.
    resolved = resolve_markers("Dua sumber [S1][S2], satu lagi [S3].", shown=2)
    assert (resolved.text, resolved.cited, resolved.invalid) == (
        "Dua sumber [S1][S2], satu lagi.",
        (1, 2),
        1,
    )


def test_an_answer_without_markers_cites_nothing() -> None:
    resolved = resolve_markers("Bu bilgi belgelerde bulunamadı.", shown=3)
    assert resolved.cited == () and resolved.invalid == 0
    assert resolved.text == "Bu bilgi belgelerde bulunamadı."


def test_brackets_that_are_not_markers_are_left_alone() -> None:
    text = "Madde [3] ve [Ek-1] ile [S] ve [SS1]"
    assert resolve_markers(text, shown=3).text == text


@pytest.mark.parametrize(
    ("cut", "kept"),
    [
        ("Tutar 5 [S", "Tutar 5"),
        ("Tutar 5 [S1, S", "Tutar 5"),
        ("Tutar 5 [", "Tutar 5"),
        ("Tutar 5 [S1]", "Tutar 5 [S1]"),
        ("Tutar 5", "Tutar 5"),
    ],
)
def test_a_marker_unfinished_at_the_cut_is_dropped(cut: str, kept: str) -> None:
    assert drop_cut_marker(cut) == kept


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        # A removed marker glued to the next word keeps the space that separates the words,
        ("Pajak naik [S9]tahun ini.", "Pajak naik tahun ini."),
        # and one glued to the word before it takes nothing of that word along.
        ("Pajak naik[S9].", "Pajak naik."),
        ("Pajak naik[S9] tahun ini.", "Pajak naik tahun ini."),
    ],
)
def test_a_removed_marker_without_a_space_before_or_after_leaves_the_words_whole(
    answer: str, text: str
) -> None:
    # ASK-05 (issue 23 item 13): removing a marker never glues or clips words.
    resolved = resolve_markers(answer, shown=2)
    assert (resolved.text, resolved.invalid) == (text, 1)
