"""Composition: segments → Markdown answer with exact offsets (V2-03, V2-04)."""

import pytest

from tanda.annotate import SegmentLayoutError, compose
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
