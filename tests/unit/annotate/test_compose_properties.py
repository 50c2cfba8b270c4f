"""Property tests: offsets are exact; claims + framing + layout cover the whole answer (V2-04).

How many generated cases each test runs is the hypothesis profile's (tests/conftest.py: fast for
`make test`, thorough for `make test-deep`); the known edge cases are pinned with `@example` and
run in every profile."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from hypothesis import example, given
from hypothesis import strategies as st

from tanda.annotate.aggregate import aggregate, count_unlocated
from tanda.annotate.compose import SegmentLayoutError, compose
from tanda.annotate.outcome import SegmentOutcome
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


def seg(text: str, layout: str = "paragraph", kind: str = "fact") -> Segment:
    return Segment(text=text, kind=SegmentKind(kind), layout=Layout(layout))


EDGE_CASES: list[list[Segment]] = [
    [],  # the empty answer
    # Astral emoji before and inside claims, across a heading, a list and a table: code-point and
    # UTF-16 offsets differ from the first segment on (the emoji_before_claim scenario).
    [
        seg("🎓📈 Ringkasan anggaran Aceh", "heading", "framing"),
        seg("Anggaran pendidikan 2023 adalah Rp 5 miliar."),
        seg("Rinciannya 👇", "continue", "framing"),
        seg("🏥 Anggaran kesehatan 2023 adalah Rp 3 miliar.", "list_item"),
        seg("Naik 9 persen dari 2022 🚀.", "list_item"),
        seg("Bidang | Anggaran 2023", "table_header", "framing"),
        seg("Pendidikan 🎓 | Rp 5 miliar", "table_row"),
    ],
    # Right-to-left text, combining marks, a ZWJ sequence with a skin tone, Markdown emphasis.
    [
        seg("ميزانية التعليم ٢٠٢٣"),
        seg("e\u0301 n\u0303 👩🏽‍💻 done", "continue"),
        seg("**Penting:** anggaran _naik_ 🎉", "list_item"),
    ],
    # An opening continue; an escaped pipe and an astral digit in cells; a paragraph after a table.
    [
        seg("Awal tanpa paragraf.", "continue"),
        seg("a | b", "table_header"),
        seg(r"x \| y | 𝟐", "table_row"),
        seg("Setelah tabel."),
    ],
]
"""Known edge cases of offsets and layout (tests/unit/annotate/test_compose.py tests each)."""

Test = TypeVar("Test", bound=Callable[..., None])


def with_edge_cases(cases: Sequence[object]) -> Callable[[Test], Test]:
    """Pin ``cases`` as explicit examples: they run in every profile, before generated ones."""

    def pin(test: Test) -> Test:
        for case in cases:
            test = example(case)(test)
        return test

    return pin


@with_edge_cases(EDGE_CASES)
@given(valid_segments)
def test_every_span_slices_back_to_its_text_in_code_points_and_utf16(
    segments: list[Segment],
) -> None:
    composed = compose(segments)
    utf16 = composed.answer.encode("utf-16-le", "surrogatepass")
    for segment, span in zip(segments, composed.spans, strict=True):
        assert composed.answer[span.start : span.end] == segment.text
        assert utf16[2 * span.start_utf16 : 2 * span.end_utf16].decode("utf-16-le") == segment.text


@with_edge_cases(EDGE_CASES)
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


ANY_OUTCOME = [
    SegmentOutcome.framing(),
    *(SegmentOutcome(v) for v in Verdict if v is not Verdict.unverified),
    *(SegmentOutcome(Verdict.unverified, r) for r in UnverifiedReason),
]


def every_outcome_in_turn(segments: list[Segment]) -> tuple[list[Segment], list[SegmentOutcome]]:
    return segments, [ANY_OUTCOME[i % len(ANY_OUTCOME)] for i in range(len(segments))]


@with_edge_cases([every_outcome_in_turn(case) for case in EDGE_CASES])
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


@with_edge_cases(
    [
        *EDGE_CASES,
        [seg("1 | 2", "table_row")],  # a row without a header
        [seg("a | b", "table_header"), seg("1 | 2 | 3", "table_row")],  # a cell too many
        [seg("a | b", "table_header"), seg("lagi", "continue")],  # continue after a table
        [seg("ok"), seg("two\nlines")],  # a line break inside a segment
    ]
)
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
