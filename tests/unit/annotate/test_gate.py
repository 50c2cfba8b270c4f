"""The v1 gate (CV-2): only confirmed sentences are published; too few → the whole answer is
refused."""

from __future__ import annotations

import pytest

from tanda.annotate.gate import compose_kept, gate
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract import Layout, Segment, SegmentKind, UnverifiedReason, Verdict

FRAMING = SegmentOutcome.framing()
SUPPORTED = SegmentOutcome(Verdict.supported)


def test_only_supported_claims_and_framing_are_kept() -> None:
    outcomes = [
        FRAMING,
        SUPPORTED,
        SegmentOutcome(Verdict.unsupported),
        SegmentOutcome(Verdict.unverified, UnverifiedReason.deadline),
        SegmentOutcome(Verdict.uncited),
        SegmentOutcome(Verdict.invalid_citation),
        SegmentOutcome(Verdict.from_conversation),
        SegmentOutcome(Verdict.unverified, UnverifiedReason.unparseable),
    ]
    result = gate(outcomes, min_supported_ratio=0.0)
    assert (result.kept, result.dropped) == ([0, 1], [2, 3, 4, 5, 6, 7])
    assert result.reasons == {
        "unsupported": 1,
        "unverified": 2,
        "uncited": 1,
        "invalid_citation": 1,
        "from_conversation": 1,
    }
    assert result.rejected is False


@pytest.mark.parametrize(
    ("supported", "others", "ratio", "rejected"),
    [
        (1, 1, 0.5, False),  # exactly the minimum share is enough
        (1, 2, 0.5, True),
        (0, 1, 0.01, True),
        (2, 0, 1.0, False),
    ],
)
def test_too_few_supported_claims_reject_the_whole_answer(
    supported: int, others: int, ratio: float, rejected: bool
) -> None:
    # framing counts neither way
    outcomes = [FRAMING, *[SUPPORTED] * supported, *[SegmentOutcome(Verdict.uncited)] * others]
    assert gate(outcomes, min_supported_ratio=ratio).rejected is rejected


def test_an_answer_of_framing_only_is_never_rejected() -> None:
    result = gate([FRAMING, FRAMING], min_supported_ratio=1.0)
    assert (result.kept, result.dropped, result.rejected) == ([0, 1], [], False)


def seg(text: str, layout: str, kind: str = "fact") -> Segment:
    return Segment(text=text, kind=SegmentKind(kind), cites=["P1"], layout=Layout(layout))


def test_kept_segments_compose_as_they_are_when_they_can() -> None:
    kept = [seg("Judul", "heading", "framing"), seg("Satu.", "list_item")]
    segments, composed = compose_kept(kept)
    assert segments == kept
    assert composed.answer == "## Judul\n\n- Satu."


def test_kept_segments_whose_layout_broke_become_one_paragraph() -> None:
    # Given a table row kept without its (withheld) header
    kept = [seg("Pendidikan | Rp 5 miliar", "table_row"), seg("Naik.", "list_item")]
    segments, composed = compose_kept(kept)
    # then they are published as one paragraph of sentences, texts unchanged
    assert [s.layout for s in segments] == [Layout.paragraph, Layout.continue_]
    assert [s.text for s in segments] == [s.text for s in kept]
    assert composed.answer == "Pendidikan | Rp 5 miliar Naik."
