"""Property tests: offsets are exact; claims + framing + layout cover the whole answer (V2-04)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tanda.annotate import (
    SegmentLayoutError,
    SegmentOutcome,
    aggregate,
    compose,
    count_unlocated,
)
from tanda.contract import (
    Citation,
    Layout,
    Segment,
    SegmentKind,
    StageStatus,
    UnverifiedReason,
    Verdict,
)

# Every code point a model might write: astral emoji, RTL, combining marks, ZWJ, CJK… but no
# surrogates, controls or line/paragraph separators (those are rejected, tested elsewhere).
CHARS = st.characters(
    blacklist_categories=("Cs", "Cc", "Zl", "Zp"),
    blacklist_characters="\x85",
)
ASTRAL = st.characters(
    min_codepoint=0x10000, max_codepoint=0x10FFFF, blacklist_categories=("Cs", "Cn")
)


def _clean(text: str) -> str:
    return text.strip()


segment_text = (
    st.lists(st.one_of(CHARS, ASTRAL), min_size=1, max_size=40)
    .map(lambda cs: _clean("".join(cs)))
    .filter(bool)
)
cell_text = segment_text.map(lambda t: t.replace("|", "/").rstrip("\\").strip()).filter(bool)


@st.composite
def block(draw: st.DrawFn) -> list[Segment]:
    kind = draw(st.sampled_from(["paragraph", "heading", "list", "table"]))
    seg_kind = st.sampled_from(list(SegmentKind))
    if kind == "table":
        columns = draw(st.integers(1, 4))
        header = " | ".join(draw(st.lists(cell_text, min_size=columns, max_size=columns)))
        rows = draw(st.lists(st.lists(cell_text, min_size=columns, max_size=columns), max_size=4))
        return [Segment(text=header, kind=draw(seg_kind), layout=Layout.table_header)] + [
            Segment(text=" | ".join(r), kind=draw(seg_kind), layout=Layout.table_row) for r in rows
        ]
    first = Layout.list_item if kind == "list" else Layout(kind)
    out: list[Segment] = []
    for _ in range(draw(st.integers(1, 3))):
        out.append(Segment(text=draw(segment_text), kind=draw(seg_kind), layout=first))
        for _ in range(draw(st.integers(0, 2))):
            out.append(
                Segment(text=draw(segment_text), kind=draw(seg_kind), layout=Layout.continue_)
            )
        if kind != "list":
            break
    return out


valid_segments = st.lists(block(), max_size=8).map(lambda blocks: [s for b in blocks for s in b])


@settings(max_examples=400, deadline=None)
@given(valid_segments)
def test_every_span_slices_back_to_its_text_in_code_points_and_utf16(
    segments: list[Segment],
) -> None:
    composed = compose(segments)
    utf16 = composed.answer.encode("utf-16-le", "surrogatepass")
    for segment, span in zip(segments, composed.spans, strict=True):
        assert composed.answer[span.start : span.end] == segment.text
        assert utf16[2 * span.start_utf16 : 2 * span.end_utf16].decode("utf-16-le") == segment.text


@settings(max_examples=400, deadline=None)
@given(valid_segments)
def test_spans_and_server_layout_partition_the_answer(segments: list[Segment]) -> None:
    composed = compose(segments)
    pieces = sorted([(s.start, s.end) for s in composed.spans] + list(composed.layout))
    position = 0
    for start, end in pieces:
        assert start == position, "no gap and no overlap"
        position = end
    assert position == len(composed.answer)
    for start, end in composed.layout:
        assert set(composed.answer[start:end]) <= set(" \n#-|"), "only layout characters"
    assert count_unlocated(composed) == 0


outcome = st.one_of(
    st.just(SegmentOutcome.framing()),
    st.sampled_from([v for v in Verdict if v is not Verdict.unverified]).map(SegmentOutcome),
    st.sampled_from(list(UnverifiedReason)).map(lambda r: SegmentOutcome(Verdict.unverified, r)),
)


@settings(max_examples=300, deadline=None)
@given(
    valid_segments.flatmap(
        lambda s: st.tuples(st.just(s), st.lists(outcome, min_size=len(s), max_size=len(s)))
    )
)
def test_claims_and_framing_cover_every_non_layout_character(
    case: tuple[list[Segment], list[SegmentOutcome]],
) -> None:
    segments, outcomes = case
    composed = compose(segments)
    annotation = aggregate(
        composed,
        segments,
        outcomes,
        {"P1": Citation(chunk_id="c1")},
        framing_check=StageStatus.complete,
    )
    report = annotation.faithfulness
    assert report.unlocated_total == 0
    covered = sum(c.end - c.start for c in annotation.claims) + sum(
        f.end - f.start for f in annotation.framing
    )
    layout = sum(end - start for start, end in composed.layout)
    assert covered + layout == len(composed.answer)
    for located in [*annotation.claims, *annotation.framing]:
        assert composed.answer[located.start : located.end] == located.text
    # V2-15: counts add up and the rate is supported / total (null when total is 0)
    claims = annotation.claims
    assert report.claims_total == sum(c.verdict is not Verdict.from_conversation for c in claims)
    assert report.grounding.claims_supported == report.supported
    if report.claims_total:
        assert report.grounding.grounding_rate == report.supported / report.claims_total
    else:
        assert report.grounding.grounding_rate is None
    # V2-16
    if report.supported == 0:
        assert report.verification == "none"
    elif all(c.verdict is Verdict.supported for c in claims):
        assert report.verification == "full"
    else:
        assert report.verification == "partial"


any_segments = st.lists(
    st.builds(
        Segment,
        text=st.text(min_size=1, max_size=20).filter(
            lambda t: not any("\ud800" <= c <= "\udfff" for c in t)
        ),
        kind=st.sampled_from(list(SegmentKind)),
        layout=st.sampled_from(list(Layout)),
    ),
    max_size=10,
)


@settings(max_examples=400, deadline=None)
@given(any_segments)
def test_arbitrary_segments_either_compose_exactly_or_are_rejected_with_a_reason(
    segments: list[Segment],
) -> None:
    try:
        composed = compose(segments)
    except SegmentLayoutError as error:
        assert 0 <= error.index < len(segments)
        return
    for segment, span in zip(segments, composed.spans, strict=True):
        assert composed.answer[span.start : span.end] == segment.text
    assert count_unlocated(composed) == 0
