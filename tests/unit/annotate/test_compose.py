"""Composition: segments → Markdown answer with exact offsets (V2-03, V2-04)."""

import pytest

from tanda.annotate.compose import SegmentLayoutError, compose
from tanda.contract import Layout, Segment, SegmentKind


def seg(
    text: str, layout: str = "paragraph", kind: str = "fact", cites: list[str] | None = None
) -> Segment:
    return Segment(text=text, kind=SegmentKind(kind), cites=cites or [], layout=Layout(layout))


def test_seed_example_reproduces_offsets_17_61_62_86() -> None:
    # Given the seed's three segments (V2-04 example)
    segments = [
        seg("Berikut datanya.", "paragraph", "framing"),
        seg("Anggaran pendidikan 2023 adalah Rp 5 miliar.", "continue", cites=["P1"]),
        seg("Naik 9 persen dari 2022.", "continue", cites=["P1"]),
    ]
    # When composed
    composed = compose(segments)
    # Then the answer and every offset are the seed's, byte for byte
    assert composed.answer == (
        "Berikut datanya. Anggaran pendidikan 2023 adalah Rp 5 miliar. Naik 9 persen dari 2022."
    )
    assert [(s.start, s.end, s.start_utf16, s.end_utf16) for s in composed.spans] == [
        (0, 16, 0, 16),
        (17, 61, 17, 61),
        (62, 86, 62, 86),
    ]


def test_paragraph_heading_and_list_layouts_write_only_layout_between_segments() -> None:
    composed = compose(
        [
            seg("Ringkasan", "heading", "framing"),
            seg("Ada dua pos anggaran:", "paragraph", "framing"),
            seg("Pendidikan Rp 5 miliar.", "list_item"),
            seg("Naik dari tahun lalu.", "continue"),
            seg("Kesehatan Rp 3 miliar.", "list_item"),
            seg("Lihat juga laporan BPK.", "paragraph"),
        ]
    )
    assert composed.answer == (
        "## Ringkasan\n\n"
        "Ada dua pos anggaran:\n\n"
        "- Pendidikan Rp 5 miliar. Naik dari tahun lalu.\n"
        "- Kesehatan Rp 3 miliar.\n\n"
        "Lihat juga laporan BPK."
    )


def test_heading_first_is_written_without_leading_blank_line() -> None:
    assert compose([seg("Judul", "heading")]).answer == "## Judul"


def test_list_item_after_paragraph_starts_a_new_block() -> None:
    composed = compose([seg("Lead-in:", "paragraph"), seg("satu", "list_item")])
    assert composed.answer == "Lead-in:\n\n- satu"


def test_continue_as_first_segment_starts_the_first_paragraph() -> None:
    assert compose([seg("Halo.", "continue")]).answer == "Halo."


def test_table_is_written_with_outer_pipes_and_separator_row() -> None:
    # Given a header and two rows whose cells are separated by |
    segments = [
        seg("Anggaran per urusan:", "paragraph", "framing"),
        seg("Urusan | Anggaran", "table_header", "framing"),
        seg("Pendidikan | Rp 5 miliar", "table_row", cites=["P1"]),
        seg("Kesehatan | Rp 3 miliar", "table_row", cites=["P1"]),
    ]
    composed = compose(segments)
    # Then the server writes the outer pipes, padding and separator row, and nothing else
    assert composed.answer == (
        "Anggaran per urusan:\n\n"
        "| Urusan | Anggaran |\n"
        "| --- | --- |\n"
        "| Pendidikan | Rp 5 miliar |\n"
        "| Kesehatan | Rp 3 miliar |"
    )
    # And a row's span covers the whole row from its first to its last cell character
    for segment, span in zip(segments, composed.spans, strict=True):
        assert composed.answer[span.start : span.end] == segment.text


def test_paragraph_after_table_gets_a_blank_line() -> None:
    composed = compose([seg("a | b", "table_header"), seg("1 | 2", "table_row"), seg("Catatan.")])
    assert composed.answer == "| a | b |\n| --- | --- |\n| 1 | 2 |\n\nCatatan."


def test_escaped_pipe_is_a_literal_not_a_cell_separator() -> None:
    composed = compose([seg("a | b", "table_header"), seg(r"x \| y | 2", "table_row")])
    assert composed.answer.endswith(r"| x \| y | 2 |")


def test_markdown_emphasis_emoji_rtl_and_combining_marks_are_copied_unchanged() -> None:
    texts = [
        "**Penting:** anggaran _naik_ 🎉",
        "ميزانية التعليم ٢٠٢٣",
        "e\u0301 n\u0303 👩🏽‍💻 done",
    ]
    composed = compose([seg(t, "paragraph") for t in texts])
    for text, span in zip(texts, composed.spans, strict=True):
        assert composed.answer[span.start : span.end] == text
        utf16 = composed.answer.encode("utf-16-le")
        assert utf16[2 * span.start_utf16 : 2 * span.end_utf16].decode("utf-16-le") == text


def test_utf16_offsets_diverge_after_an_astral_character() -> None:
    composed = compose([seg("Dana 🎓 naik.", "paragraph"), seg("Rp 5 miliar.", "continue")])
    second = composed.spans[1]
    assert (second.start, second.end) == (13, 25)
    assert (second.start_utf16, second.end_utf16) == (14, 26)


def test_empty_answer_has_no_spans() -> None:
    composed = compose([])
    assert composed.answer == ""
    assert composed.spans == ()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("   ", "blank"),
        (" lead", "whitespace"),
        ("trail ", "whitespace"),
        ("two\nlines", "line break"),
        ("crlf\r\ninside", "line break"),
        ("para\u2029sep", "line break"),
        ("nul\x00byte", "control"),
    ],
)
def test_text_that_would_change_layout_or_is_not_unicode_is_rejected(
    text: str, reason: str
) -> None:
    with pytest.raises(SegmentLayoutError) as raised:
        compose([seg("ok"), seg(text)])
    assert raised.value.index == 1
    assert reason in raised.value.reason


def test_lone_surrogate_is_rejected_by_the_contract_and_by_compose() -> None:
    text = "lone \ud83d surrogate"
    with pytest.raises(ValueError):
        seg(text)
    # compose guards too, for segments built without validation
    unchecked = Segment.model_construct(
        text=text, kind=SegmentKind.fact, cites=[], layout=Layout.paragraph
    )
    with pytest.raises(SegmentLayoutError, match="lone surrogate"):
        compose([unchecked])


def test_tab_inside_text_is_kept() -> None:
    assert compose([seg("a\tb")]).answer == "a\tb"


def test_table_row_without_header_is_rejected() -> None:
    with pytest.raises(SegmentLayoutError, match="without a table_header"):
        compose([seg("intro"), seg("1 | 2", "table_row")])


def test_table_row_with_wrong_cell_count_is_rejected() -> None:
    with pytest.raises(SegmentLayoutError, match="3 cells but its header has 2"):
        compose([seg("a | b", "table_header"), seg("1 | 2 | 3", "table_row")])


def test_continue_after_table_row_is_rejected() -> None:
    with pytest.raises(SegmentLayoutError, match="continue cannot follow a table"):
        compose([seg("a | b", "table_header"), seg("1 | 2", "table_row"), seg("lagi", "continue")])


def unchecked(text: str, layout: str = "paragraph") -> Segment:
    """A segment built without validation (compose guards what the contract may not)."""
    return Segment.model_construct(
        text=text, kind=SegmentKind.fact, cites=[], layout=Layout(layout)
    )


@pytest.mark.parametrize(
    ("segments", "index", "reason"),
    [
        ([seg("ok"), seg("   ")], 1, "text is blank"),
        ([seg("ok"), seg(" lead")], 1, "text starts or ends with whitespace"),
        ([seg("ok"), unchecked("a\ud800b")], 1, "text contains a lone surrogate"),
        ([seg("ok"), unchecked("a\udfffb")], 1, "text contains a lone surrogate"),
        ([seg("ok"), seg("a\x7fb")], 1, "text contains a line break or control character U+007F"),
        ([seg("1 | 2", "table_row")], 0, "table_row without a table_header before it"),
        ([seg("ok"), seg("1 | 2", "table_row")], 1, "table_row without a table_header before it"),
        (
            [seg("a | b", "table_header"), seg("lagi", "continue")],
            1,
            "continue cannot follow a table segment",
        ),
        (
            [seg("ok"), seg("a | b", "table_header"), seg("1 | 2 | 3", "table_row")],
            2,
            "table_row has 3 cells but its header has 2",
        ),
    ],
)
def test_a_rejection_names_the_segment_and_says_why_in_stable_words(
    segments: list[Segment], index: int, reason: str
) -> None:
    # The agent's one regeneration is told this reason (V2-17): it is part of the contract.
    with pytest.raises(SegmentLayoutError) as raised:
        compose(segments)
    assert (raised.value.index, raised.value.reason) == (index, reason)
    assert str(raised.value) == f"segment {index}: {reason}"


def test_an_opening_continue_starts_the_first_paragraph() -> None:
    composed = compose(
        [seg("Satu.", "continue"), seg("Dua.", "paragraph"), seg("Tiga.", "list_item")]
    )
    assert composed.answer == "Satu.\n\nDua.\n\n- Tiga."
    assert composed.layout == ((5, 7), (11, 15))


def test_adjacent_layout_is_one_range_and_the_rest_stay_apart() -> None:
    # Given a heading, then a table whose header and row meet with layout on both sides
    composed = compose(
        [seg("Anggaran", "heading"), seg("Pos | Nilai", "table_header"), seg("A | 1", "table_row")]
    )
    assert composed.answer == "## Anggaran\n\n| Pos | Nilai |\n| --- | --- |\n| A | 1 |"
    # then "## ", "\n\n| ", the header's closing + separator + the row's opening (one range),
    # and the row's closing pipe are the server's layout
    assert composed.layout == ((0, 3), (11, 15), (26, 45), (50, 52))
    assert [composed.answer[a:b] for a, b in composed.layout] == [
        "## ",
        "\n\n| ",
        " |\n| --- | --- |\n| ",
        " |",
    ]
