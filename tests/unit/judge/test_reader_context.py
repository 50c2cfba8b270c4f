"""What the reader sees around a segment, which the judge sees with it (V2-07)."""

from __future__ import annotations

from tanda.contract import Layout, Segment, SegmentKind
from tanda.judge.reader_context import ReaderContext, reader_contexts


def seg(text: str, layout: str, kind: str = "fact") -> Segment:
    return Segment(text=text, kind=SegmentKind(kind), layout=Layout(layout))


def test_a_list_item_carries_its_heading_and_the_paragraph_that_leads_into_it() -> None:
    segments = [
        seg("Anggaran 2023", "heading", "framing"),
        seg("Rinciannya", "paragraph", "framing"),
        seg("sebagai berikut:", "continue", "framing"),
        seg("Pendidikan Rp 5 miliar.", "list_item"),
        seg("Naik dari 2022.", "continue"),
        seg("Kesehatan Rp 3 miliar.", "list_item"),
    ]
    contexts = reader_contexts(segments)
    lead = ReaderContext(heading="Anggaran 2023", list_lead_in="Rinciannya sebagai berikut:")
    assert contexts == [
        ReaderContext(),
        ReaderContext(heading="Anggaran 2023"),
        ReaderContext(heading="Anggaran 2023"),
        lead,
        lead,
        lead,
    ]
    assert lead.lines() == [
        "Section heading: Anggaran 2023",
        "List lead-in: Rinciannya sebagai berikut:",
    ]


def test_a_table_row_carries_the_table_header() -> None:
    segments = [
        seg("Pos | Nilai", "table_header", "framing"),
        seg("Pendidikan | Rp 5 miliar", "table_row"),
        seg("Sesudah tabel.", "paragraph"),
    ]
    contexts = reader_contexts(segments)
    assert contexts[1] == ReaderContext(table_header="Pos | Nilai")
    assert contexts[1].lines() == ["Table header: Pos | Nilai"]
    assert contexts[0] == contexts[2] == ReaderContext()


def test_a_new_heading_ends_the_previous_sections_list_and_table() -> None:
    segments = [
        seg("Bagian A", "heading", "framing"),
        seg("Pengantar A:", "paragraph", "framing"),
        seg("Pos | Nilai", "table_header", "framing"),
        seg("Bagian B", "heading", "framing"),
        seg("Satu.", "list_item"),
        seg("x | y", "table_row"),
    ]
    contexts = reader_contexts(segments)
    assert contexts[3] == ReaderContext()  # a heading is not inside its own section
    assert contexts[4] == ReaderContext(heading="Bagian B")  # no lead-in from section A
    assert contexts[5] == ReaderContext(heading="Bagian B")  # no header from section A


def test_only_the_paragraph_right_before_a_list_leads_into_it() -> None:
    segments = [
        seg("Paragraf pertama.", "paragraph"),
        seg("Paragraf kedua:", "paragraph", "framing"),
        seg("Butir.", "list_item"),
        seg("Paragraf sesudah daftar.", "paragraph"),
        seg("Butir lain.", "list_item"),
    ]
    contexts = reader_contexts(segments)
    assert contexts[2].list_lead_in == "Paragraf kedua:"
    assert contexts[3] == ReaderContext()  # a paragraph is not in a list
    assert contexts[4].list_lead_in == "Paragraf sesudah daftar."


def test_a_list_right_after_a_heading_has_no_lead_in() -> None:
    contexts = reader_contexts([seg("Judul", "heading", "framing"), seg("Butir.", "list_item")])
    assert contexts[1] == ReaderContext(heading="Judul")
    assert contexts[1].lines() == ["Section heading: Judul"]


def test_an_empty_context_shows_no_lines() -> None:
    assert ReaderContext().lines() == []


def test_a_list_that_opens_the_answer_has_no_lead_in() -> None:
    contexts = reader_contexts([seg("Butir.", "list_item"), seg("Butir dua.", "list_item")])
    assert contexts == [ReaderContext(), ReaderContext()]


def test_an_opening_continue_segment_leads_into_the_list_after_it() -> None:
    # compose starts the first paragraph with a leading `continue`: the reader sees it as the
    # sentence that introduces the list, so the judge must see it too (V2-07).
    segments = [seg("Rinciannya:", "continue", "framing"), seg("Butir.", "list_item")]
    assert reader_contexts(segments)[1].list_lead_in == "Rinciannya:"


def test_a_list_after_a_table_has_no_lead_in_from_before_the_table() -> None:
    # Given a paragraph and a list, then a table, then a second list with no paragraph before it
    segments = [
        seg("Pengantar:", "paragraph", "framing"),
        seg("Butir A.", "list_item"),
        seg("Lanjutan butir A.", "continue"),
        seg("Pos | Nilai", "table_header", "framing"),
        seg("Pendidikan | Rp 5 miliar", "table_row"),
        seg("Butir B.", "list_item"),
    ]
    contexts = reader_contexts(segments)
    assert contexts[1].list_lead_in == contexts[2].list_lead_in == "Pengantar:"
    # then the second list has no lead-in: what the reader sees before it is the table
    assert contexts[5] == ReaderContext()
