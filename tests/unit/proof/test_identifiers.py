"""Identifiers an answer writes are not values (ASK-11, issue 23)."""

from __future__ import annotations

from tanda.proof.identifiers import identifier_spans, overlaps


def test_a_number_overlaps_an_identifier_only_when_they_share_a_character() -> None:
    # Issue 23 item 13: spans are [start, end): touching is not overlapping.
    text = "invoice no. 12115118, 40 units"
    spans = identifier_spans(text)
    start, end = spans[0]
    assert text[start:end] == "12115118"
    assert overlaps(spans, start - 4, start + 1)
    assert overlaps(spans, end - 1, end + 2)
    assert not overlaps(spans, end, end + 2)
    assert not overlaps(spans, start - 4, start)
