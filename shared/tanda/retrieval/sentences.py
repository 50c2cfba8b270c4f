"""Sentences of stored text: the one splitter every reader of a passage uses — the claims and
rules read at ingest (``tanda.extraction``), and the offline reader choosing the sentence that
answers (:mod:`tanda.retrieval.reading`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

# A sentence ends at . ! ? ; followed by blanks and a capital, a digit, a quote or a bracket; a line
# break always ends one (a list item, a table row, a heading).
_SENTENCE_END = re.compile(r"(?<=[.!?;:])[ \t]+(?=[\"'“(\[A-ZÀ-ÖØ-ÞÇĞİÖŞÜ0-9])|\n")


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """Sentences of ``text`` as ``(start, end)``, blanks trimmed, in order. Lines end sentences."""
    start = 0
    for boundary in _SENTENCE_END.finditer(text):
        yield from _trimmed(text, start, boundary.start())
        start = boundary.end()
    yield from _trimmed(text, start, len(text))


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end
