"""Aggregation: verdicts → claims, framing and the faithfulness report (V2-05 … V2-18)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tanda.annotate.aggregate import (
    CitationRouting,
    Route,
    aggregate,
    refusal_annotation,
    route_segment,
)
from tanda.annotate.compose import compose
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract import (
    Citation,
    FallbackReason,
    Layout,
    QueryV2Response,
    Segment,
    SegmentKind,
    StageStatus,
    UnverifiedReason,
    Verdict,
)

SEED = json.loads(
    (Path(__file__).parents[2] / "fixtures" / "seed_query_v2_example.json").read_text(
        encoding="utf-8"
    )
)


def seg(
    text: str, layout: str = "paragraph", kind: str = "fact", cites: list[str] | None = None
) -> Segment:
    return Segment(text=text, kind=SegmentKind(kind), cites=cites or [], layout=Layout(layout))


def claim(verdict: Verdict, reason: UnverifiedReason | None = None) -> SegmentOutcome:
    return SegmentOutcome(verdict, reason)


def test_seed_example_is_reproduced_field_for_field() -> None:
    # Given the seed's segments and the verdicts its judge gave
    segments = [
        seg("Berikut datanya.", "paragraph", "framing"),
        seg("Anggaran pendidikan 2023 adalah Rp 5 miliar.", "continue", cites=["P1"]),
        seg("Naik 9 persen dari 2022.", "continue", cites=["P1"]),
    ]
    outcomes = [SegmentOutcome.framing(), claim(Verdict.supported), claim(Verdict.unsupported)]
    # When composed and aggregated
    composed = compose(segments)
    annotation = aggregate(
        composed,
        segments,
        outcomes,
        {"P1": Citation(chunk_id="…")},
        framing_check=StageStatus.complete,
    )
    grounding = annotation.grounding
    body = QueryV2Response(
        answer=composed.answer,
        conversation_id="c",
        message_id="m",
        trace_id="t",
        citations=[Citation(document_title="Qanun Anggaran", chunk_id="…", document_id="…")],
        claims=annotation.claims,
        framing=annotation.framing,
        faithfulness=annotation.faithfulness,
        claims_supported=grounding.claims_supported,
        claims_total=grounding.claims_total,
        grounding_rate=grounding.grounding_rate,
    ).model_dump(mode="json")
    # Then every field the seed shows is equal, and the v1 gate fields are absent (V2-14)
    for key, value in SEED.items():
        assert body[key] == value, key
    for removed in (
        "claim_map",
        "dropped_claims_count",
        "dropped_claim_reasons",
        "provenance_complete",
    ):
        assert removed not in body
    assert "checked" not in body["faithfulness"]


def test_fact_without_cites_is_uncited_without_a_judge() -> None:
    routing = route_segment(seg("Rp 5 miliar."), shown_keys={"P1"})
    assert routing.route is Route.final
    assert routing.outcome == SegmentOutcome(Verdict.uncited)


def test_uncited_framing_goes_to_the_framing_check() -> None:
    assert (
        route_segment(seg("Berikut datanya.", kind="framing"), {"P1"}).route is Route.framing_check
    )


def test_framing_that_cites_passages_is_judged_as_a_fact() -> None:
    routing = route_segment(seg("Menurut Qanun:", kind="framing", cites=["P1"]), {"P1"})
    assert routing.route is Route.judge
    assert routing.judge_keys == ("P1",)


def test_segment_with_one_valid_key_is_judged_on_it_and_keeps_its_invalid_keys() -> None:
    routing = route_segment(seg("x", cites=["P9", "P1"]), {"P1", "P2"})
    assert routing.route is Route.judge
    assert routing.judge_keys == ("P1",)
    assert routing.invalid_keys == ("P9",)


def test_segment_whose_keys_are_all_invalid_is_invalid_citation() -> None:
    routing = route_segment(seg("x", cites=["P7", "P8"]), {"P1"})
    assert routing.outcome == SegmentOutcome(
        Verdict.invalid_citation, invalid_citation_keys=("P7", "P8")
    )


def test_segment_citing_only_conversation_turns_is_from_conversation() -> None:
    routing = route_segment(
        seg("Seperti Anda katakan, 5 miliar.", cites=["C1"]), {"P1", "C1"}, {"C1"}
    )
    assert routing.outcome is not None
    assert routing.outcome.verdict is Verdict.from_conversation


def test_from_conversation_is_not_counted_in_claims_total_and_prevents_full() -> None:
    segments = [seg("a", cites=["P1"]), seg("b", "continue", cites=["C1"])]
    outcomes = [claim(Verdict.supported), claim(Verdict.from_conversation)]
    report = aggregate(
        compose(segments), segments, outcomes, {}, framing_check=StageStatus.skipped
    ).faithfulness
    assert (report.claims_total, report.supported, report.from_conversation) == (1, 1, 1)
    assert report.grounding.grounding_rate == 1.0
    assert report.verification == "partial"


def test_all_supported_and_fully_located_is_full() -> None:
    segments = [seg("Berikut:", kind="framing"), seg("a", "continue", cites=["P1"])]
    outcomes = [SegmentOutcome.framing(), claim(Verdict.supported)]
    report = aggregate(
        compose(segments), segments, outcomes, {}, framing_check=StageStatus.complete
    ).faithfulness
    assert report.verification == "full"
    assert report.judge_status == "complete"


def test_empty_answer_is_none_with_null_rate() -> None:
    report = aggregate(compose([]), [], [], {}, framing_check=StageStatus.skipped).faithfulness
    assert report.verification == "none"
    assert (report.claims_total, report.unlocated_total, report.framing_total) == (0, 0, 0)
    assert report.grounding.grounding_rate is None
    assert report.judge_status == "skipped"


def test_only_framing_is_none_and_judge_skipped() -> None:
    segments = [seg("Halo!", kind="framing"), seg("Ada yang bisa dibantu?", "continue", "framing")]
    outcomes = [SegmentOutcome.framing(), SegmentOutcome.framing()]
    annotation = aggregate(
        compose(segments), segments, outcomes, {}, framing_check=StageStatus.complete
    )
    report = annotation.faithfulness
    assert annotation.claims == []
    assert (report.framing_total, report.verification, report.judge_status) == (
        2,
        "none",
        "skipped",
    )
    assert report.grounding.grounding_rate is None


def test_all_unverified_counts_each_reason_and_marks_the_judge_unavailable() -> None:
    reasons = list(UnverifiedReason)
    segments = [seg(f"fakta {i}", cites=["P1"]) for i in range(len(reasons))]
    outcomes = [claim(Verdict.unverified, r) for r in reasons]
    report = aggregate(
        compose(segments), segments, outcomes, {}, framing_check=StageStatus.skipped
    ).faithfulness
    assert report.unverified_reasons.model_dump() == dict.fromkeys([r.value for r in reasons], 1)
    assert (report.verification, report.judge_status) == ("none", "unavailable")
    assert report.grounding.model_dump() == {
        "claims_supported": 0,
        "claims_total": 5,
        "grounding_rate": 0.0,
    }


def test_checkable_framing_is_an_uncited_framing_claim() -> None:
    segments = [seg("Anggarannya naik.", kind="framing")]
    annotation = aggregate(
        compose(segments),
        segments,
        [claim(Verdict.uncited)],
        {},
        framing_check=StageStatus.complete,
    )
    assert annotation.claims[0].kind == "framing"
    assert annotation.claims[0].verdict == "uncited"


def test_claim_citations_resolve_only_valid_keys() -> None:
    segments = [seg("a", cites=["P1", "P9"])]
    outcomes = [SegmentOutcome(Verdict.supported, invalid_citation_keys=("P9",))]
    annotation = aggregate(
        compose(segments),
        segments,
        outcomes,
        {"P1": Citation(chunk_id="c1")},
        framing_check=StageStatus.skipped,
    )
    only = annotation.claims[0]
    assert only.citation_keys == ["P1", "P9"]
    assert [c.citation_key for c in only.citations] == ["P1"]
    assert only.invalid_citation_keys == ["P9"]


def test_refusal_is_one_unlocated_piece_with_no_claims() -> None:
    annotation = refusal_annotation("Maaf, tidak ada dokumen dalam pilihan ini.")
    report = annotation.faithfulness
    assert annotation.claims == [] and annotation.framing == []
    assert (report.unlocated_total, report.verification, report.claims_total) == (1, "none", 0)
    assert report.grounding.grounding_rate is None
    assert "checked" not in report.model_dump(mode="json")


def test_context_budget_refusal_carries_checked_false() -> None:
    report = refusal_annotation("Bahan sumber tidak muat.", checked=False).faithfulness
    assert report.model_dump(mode="json")["checked"] is False


def test_policy_block_keeps_the_counts_of_claims_checked_before_it() -> None:
    segments = [seg("a", cites=["P1"]), seg("b", "continue", cites=["P1"])]
    checked = aggregate(
        compose(segments),
        segments,
        [claim(Verdict.supported), claim(Verdict.unsupported)],
        {},
        framing_check=StageStatus.skipped,
    )
    blocked = refusal_annotation("Jawaban tidak dapat ditampilkan.", checked_before=checked)
    assert blocked.claims == []
    assert blocked.grounding.model_dump() == {
        "claims_supported": 1,
        "claims_total": 2,
        "grounding_rate": 0.5,
    }
    assert blocked.faithfulness.verification == "none"


def test_reason_is_set_exactly_when_unverified() -> None:
    with pytest.raises(ValueError):
        SegmentOutcome(Verdict.unverified)
    with pytest.raises(ValueError):
        SegmentOutcome(Verdict.supported, UnverifiedReason.deadline)


def test_annotations_frame_matches_the_seed_stream_example() -> None:
    from tanda.annotate.aggregate import annotations_frame

    segments = [
        seg("Berikut datanya.", "paragraph", "framing"),
        seg("Anggaran pendidikan 2023 adalah Rp 5 miliar.", "continue", cites=["P1"]),
        seg("Naik 9 persen dari 2022.", "continue", cites=["P1"]),
    ]
    outcomes = [SegmentOutcome.framing(), claim(Verdict.supported), claim(Verdict.unsupported)]
    annotation = aggregate(
        compose(segments), segments, outcomes, {}, framing_check=StageStatus.complete
    )
    frame = annotations_frame(annotation, fallback_used=False, fallback_reason=None).model_dump(
        mode="json"
    )
    assert frame["claims"][0] == {
        "start": 17, "end": 61, "start_utf16": 17, "end_utf16": 61,
        "kind": "fact", "layout": "continue", "citation_keys": ["P1"],
        "verdict": "supported", "unverified_reason": None, "invalid_citation_keys": [],
    }  # fmt: skip
    assert frame["framing"] == [
        {"start": 0, "end": 16, "start_utf16": 0, "end_utf16": 16, "layout": "paragraph"}
    ]
    assert frame["grounding"] == {"claims_supported": 1, "claims_total": 2, "grounding_rate": 0.5}
    assert (frame["verification"], frame["fallback_used"], frame["fallback_reason"]) == (
        "partial",
        False,
        None,
    )
    assert "checked" not in frame


# --- routing: every field of the decision (V2-05, V2-06, V2-11, V2-12) -------------------------


@pytest.mark.parametrize(
    ("segment", "expected"),
    [
        (
            seg("Rp 5 miliar."),
            CitationRouting(Route.final, (), (), SegmentOutcome(Verdict.uncited)),
        ),
        (seg("Berikut:", kind="framing"), CitationRouting(Route.framing_check, (), ())),
        (
            seg("x", cites=["P7", "P7", "P8"]),
            CitationRouting(
                Route.final,
                (),
                ("P7", "P8"),
                SegmentOutcome(Verdict.invalid_citation, invalid_citation_keys=("P7", "P8")),
            ),
        ),
        (
            seg("Seperti Anda katakan.", cites=["C1", "P9"]),
            CitationRouting(
                Route.final,
                ("C1",),
                ("P9",),
                SegmentOutcome(Verdict.from_conversation, invalid_citation_keys=("P9",)),
            ),
        ),
        (
            seg("x", cites=["C1", "P1", "P9", "P1"]),
            CitationRouting(Route.judge, ("C1", "P1"), ("P9",), judge_keys=("P1",)),
        ),
    ],
    ids=["uncited", "framing", "invalid", "from-conversation", "judged"],
)
def test_routing_decides_route_keys_and_final_verdict(
    segment: Segment, expected: CitationRouting
) -> None:
    assert route_segment(segment, {"P1", "P2", "C1"}, {"C1"}) == expected


# --- counting (V2-15, V2-16) --------------------------------------------------------------------


def composed_by_hand(answer: str, spans: list[tuple[int, int]], layout: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    from tanda.annotate.compose import ComposedAnswer, SegmentSpan

    return ComposedAnswer(answer, tuple(SegmentSpan(a, b, a, b) for a, b in spans), tuple(layout))


@pytest.mark.parametrize(
    ("answer", "spans", "layout", "pieces"),
    [
        ("abc", [(0, 3)], [], 0),
        ("xbc", [(1, 3)], [], 1),  # uncovered at the very start
        ("xAyBz", [(1, 2), (3, 4)], [], 3),  # start, middle and end
        ("A B", [(0, 1), (2, 3)], [(1, 2)], 0),  # layout covers the gap
        ("AxyB", [(0, 1), (3, 4)], [], 1),  # one piece however long
        ("", [], [], 0),
    ],
)
def test_unlocated_text_is_counted_in_maximal_pieces(
    answer: str, spans: list[tuple[int, int]], layout: list[tuple[int, int]], pieces: int
) -> None:
    from tanda.annotate.aggregate import count_unlocated

    assert count_unlocated(composed_by_hand(answer, spans, layout)) == pieces


def test_each_unverified_reason_is_counted_once_per_claim() -> None:
    segments = [seg(f"fakta {i}", cites=["P1"]) for i in range(3)]
    outcomes = [
        claim(Verdict.unverified, UnverifiedReason.deadline),
        claim(Verdict.unverified, UnverifiedReason.deadline),
        claim(Verdict.unverified, UnverifiedReason.disputed),
    ]
    report = aggregate(
        compose(segments), segments, outcomes, {}, framing_check=StageStatus.skipped
    ).faithfulness
    assert (report.unverified_reasons.deadline, report.unverified_reasons.disputed) == (2, 1)


def test_misaligned_inputs_are_refused() -> None:
    segments = [seg("a", cites=["P1"])]
    with pytest.raises(ValueError, match=r"^segments, outcomes and composed spans must line up"):
        aggregate(compose(segments), segments, [], {}, framing_check=StageStatus.skipped)


def test_a_reason_without_unverified_is_refused_with_the_rule() -> None:
    with pytest.raises(ValueError, match=r"^unverified_reason is set exactly when the verdict is"):
        SegmentOutcome(Verdict.uncited, UnverifiedReason.budget)


def test_an_empty_refusal_is_no_unlocated_piece() -> None:
    assert refusal_annotation("").faithfulness.unlocated_total == 0


def test_the_annotations_frame_carries_the_fallback_and_checked_false() -> None:
    from tanda.annotate.aggregate import annotations_frame

    # Given the context-budget refusal (V2-18) and a policy block (V2-13)
    unchecked = refusal_annotation("Bahan sumber tidak muat.", checked=False)
    frame = annotations_frame(
        unchecked, fallback_used=True, fallback_reason=FallbackReason.context_budget_exhausted
    ).model_dump(mode="json")
    # then the stream's annotations frame says so, as the JSON body does
    assert frame["checked"] is False
    assert (frame["fallback_used"], frame["fallback_reason"]) == (True, "context_budget_exhausted")
    blocked = annotations_frame(
        refusal_annotation("Diblokir."),
        fallback_used=True,
        fallback_reason=FallbackReason.policy_blocked,
    ).model_dump(mode="json")
    assert blocked["fallback_reason"] == "policy_blocked" and "checked" not in blocked
