"""Segments → the Markdown ``answer`` with exact offsets (V2-03, V2-04).

The server writes only layout between segments; every segment's text is copied unchanged, so
``answer[start:end] == text`` (code points) and the same in UTF-16 code units.

Layout written before a segment, by its ``layout`` and what came before:

============== ======================================== =====================================
layout          first segment                            later segment
============== ======================================== =====================================
paragraph       (nothing)                                blank line
continue        (nothing: starts the first paragraph)    one space (same paragraph/item/heading)
heading         ``## ``                                  blank line + ``## ``
list_item       ``- ``                                   newline + ``- `` after a list item,
                                                         else blank line + ``- ``
table_header    ``| ``; after it `` |`` + newline +      blank line + ``| `` …
                the separator row ``| --- | … |``
table_row       rejected (a row needs a header)          newline + ``| ``, then `` |``
============== ======================================== =====================================

Table segments: cells are separated by ``|`` inside the segment text (``\\|`` is a literal pipe).
The server writes the outer pipes with one space of padding and the separator row, so a row
segment's span runs from the first character of its first cell to the last character of its last
cell, inner pipes included — the reader's whole row, judged whole (V2-07).

What is rejected (``SegmentLayoutError``; the agent gets one regeneration, V2-17):

* text that is blank, or starts or ends with whitespace — spacing is layout, the server's job;
* any line break (LF, CR, CRLF, VT, FF, NEL, U+2028, U+2029, U+001C–U+001E) and other C0/DEL
  control characters except TAB — line structure is layout;
* lone surrogates (not Unicode text; they have no UTF-8 or well-formed UTF-16 form);
* a ``table_row`` with no table header before it, a row whose cell count differs from its
  header's (a renderer would drop or invent cells), and ``continue`` after a table segment
  (it would break the row).

Everything else — Markdown emphasis, links, emoji and other astral-plane characters, RTL text,
combining marks, zero-width joiners — is copied as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tanda.contract.common import Layout
from tanda.contract.segments import Segment

_FORBIDDEN = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029\ud800-\udfff]")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")

_TABLE = (Layout.table_header, Layout.table_row)


class SegmentLayoutError(ValueError):
    """A segment cannot be composed; ``index`` names it, ``reason`` says why (stable words)."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"segment {index}: {reason}")
        self.index = index
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SegmentSpan:
    """Where one segment's text sits in the answer; ``end`` exclusive."""

    start: int
    end: int
    start_utf16: int
    end_utf16: int


@dataclass(frozen=True, slots=True)
class ComposedAnswer:
    answer: str
    spans: tuple[SegmentSpan, ...]
    """One span per segment, in segment order."""
    layout: tuple[tuple[int, int], ...]
    """Code-point ranges the server wrote between segments (spaces, newlines, ``## ``, pipes…)."""


def table_cells(text: str) -> int:
    """How many cells a table segment has: unescaped ``|`` separate them."""
    return len(_UNESCAPED_PIPE.findall(text)) + 1


def check_segment_text(index: int, text: str) -> None:
    if not text or text.isspace():
        raise SegmentLayoutError(index, "text is blank")
    if text[0].isspace() or text[-1].isspace():
        raise SegmentLayoutError(index, "text starts or ends with whitespace")
    bad = _FORBIDDEN.search(text)
    if bad is not None:
        char = bad.group()
        if "\ud800" <= char <= "\udfff":
            raise SegmentLayoutError(index, "text contains a lone surrogate")
        raise SegmentLayoutError(
            index, f"text contains a line break or control character U+{ord(char):04X}"
        )


# Layout written before a segment, by (block the previous segment sits in, this layout).
_FIRST: dict[Layout, str] = {
    Layout.heading: "## ",
    Layout.list_item: "- ",
    Layout.table_header: "| ",
}
_AFTER: dict[Layout, str] = {
    Layout.continue_: " ",
    Layout.paragraph: "\n\n",
    Layout.heading: "\n\n## ",
    Layout.list_item: "\n\n- ",
    Layout.table_header: "\n\n| ",
    Layout.table_row: "\n| ",
}


def _layout_before(index: int, layout: Layout, block: Layout | None) -> str:
    if block is None:
        if layout is Layout.table_row:
            raise SegmentLayoutError(index, "table_row without a table_header before it")
        return _FIRST.get(layout, "")
    if block in _TABLE:
        if layout is Layout.continue_:
            raise SegmentLayoutError(index, "continue cannot follow a table segment")
    elif layout is Layout.table_row:
        raise SegmentLayoutError(index, "table_row without a table_header before it")
    if layout is Layout.list_item and block is Layout.list_item:
        return "\n- "  # the next item of the same list
    return _AFTER[layout]


def compose(segments: Sequence[Segment]) -> ComposedAnswer:
    """Compose the Markdown answer; raise ``SegmentLayoutError`` for a segment that cannot be."""
    parts: list[str] = []
    spans: list[SegmentSpan] = []
    layout_ranges: list[tuple[int, int]] = []
    cp = 0  # offset in code points
    u16 = 0  # offset in UTF-16 code units
    block: Layout | None = None  # layout of the block the last segment sits in
    columns = 0
    for index, segment in enumerate(segments):
        text = segment.text
        layout = segment.layout
        check_segment_text(index, text)
        before = _layout_before(index, layout, block)
        if before:
            parts.append(before)
            layout_ranges.append((cp, cp + len(before)))
            cp += len(before)
            u16 += len(before)  # layout is ASCII
        if layout in _TABLE:
            cells = table_cells(text)
            if layout is Layout.table_header:
                columns = cells
            elif cells != columns:
                raise SegmentLayoutError(
                    index, f"table_row has {cells} cells but its header has {columns}"
                )
        parts.append(text)
        n_cp = len(text)
        n_u16 = n_cp if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) >> 1
        spans.append(SegmentSpan(cp, cp + n_cp, u16, u16 + n_u16))
        cp += n_cp
        u16 += n_u16
        if layout in _TABLE:
            after = " |\n|" + " --- |" * columns if layout is Layout.table_header else " |"
            parts.append(after)
            layout_ranges.append((cp, cp + len(after)))
            cp += len(after)
            u16 += len(after)
        if layout is not Layout.continue_:
            block = layout
        elif block is None:
            block = Layout.paragraph
    return ComposedAnswer("".join(parts), tuple(spans), _merge(layout_ranges))


def _merge(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for start, end in ranges:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return tuple(merged)
