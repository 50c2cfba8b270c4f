"""What the reader sees around a segment, shown to the judge with it (V2-07): the section
heading, the lead-in of the list it is in, the header of its table. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tanda.contract.common import Layout
from tanda.contract.segments import Segment


@dataclass(frozen=True)
class ReaderContext:
    heading: str | None = None
    list_lead_in: str | None = None
    table_header: str | None = None

    def lines(self) -> list[str]:
        pairs = [
            ("Section heading", self.heading),
            ("List lead-in", self.list_lead_in),
            ("Table header", self.table_header),
        ]
        return [f"{label}: {value}" for label, value in pairs if value]


def reader_contexts(segments: Sequence[Segment]) -> list[ReaderContext]:
    contexts: list[ReaderContext] = []
    heading: str | None = None
    header: str | None = None
    lead_in: str | None = None
    block: Layout | None = None
    paragraph_text: list[str] = []
    for segment in segments:
        layout = segment.layout
        if layout is Layout.heading:
            heading, header, lead_in = segment.text, None, None
        elif layout is Layout.table_header:
            header = segment.text
        elif layout is Layout.list_item and block is not Layout.list_item:
            lead_in = " ".join(paragraph_text) or None  # the paragraph just before the list
        elif layout is Layout.paragraph:
            paragraph_text = []
        in_list = layout is Layout.list_item or (
            layout is Layout.continue_ and block is Layout.list_item
        )
        contexts.append(
            ReaderContext(
                heading=heading if layout is not Layout.heading else None,
                list_lead_in=lead_in if in_list else None,
                table_header=header if layout is Layout.table_row else None,
            )
        )
        if layout is not Layout.continue_:
            block = layout
        elif block is None:
            block = Layout.paragraph  # as in compose: a leading `continue` opens a paragraph
        if block is Layout.paragraph:
            paragraph_text.append(segment.text)
        else:
            # A list's lead-in is the paragraph right before it: a list or table in between
            # ends it (V2-07).
            paragraph_text = []
    return contexts
