"""Terminal rendering follows the client contract (CC-1 … CC-6)."""

from __future__ import annotations

from typing import Any

from tanda.annotate.aggregate import aggregate, refusal_annotation
from tanda.annotate.compose import compose
from tanda.annotate.outcome import SegmentOutcome
from tanda.cli.terminal import demo_response, render_answer
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


def respond(
    segments: list[Segment], outcomes: list[SegmentOutcome], **extra: Any
) -> QueryV2Response:
    composed = compose(segments)
    annotation = aggregate(
        composed,
        segments,
        outcomes,
        {"P1": Citation(citation_key="P1", document_title="Qanun")},
        framing_check=StageStatus.complete,
    )
    g = annotation.grounding
    return QueryV2Response(
        answer=composed.answer,
        conversation_id="c",
        message_id="m",
        trace_id="t",
        claims=annotation.claims,
        framing=annotation.framing,
        faithfulness=annotation.faithfulness,
        claims_supported=g.claims_supported,
        claims_total=g.claims_total,
        grounding_rate=g.grounding_rate,
        **extra,
    )


def seg(
    text: str, layout: str = "continue", cites: tuple[str, ...] = ("P1",), kind: str = "fact"
) -> Segment:
    return Segment(text=text, kind=SegmentKind(kind), cites=list(cites), layout=Layout(layout))


def test_seed_demo_marks_supported_as_verified_and_unsupported_as_not() -> None:
    _, body = demo_response()
    text = render_answer(body)
    assert "Rp 5 miliar. [✓ terverifikasi P1]" in text
    assert "dari 2022. [✗ belum diverifikasi: tidak didukung sumber · P1 bukan bukti]" in text
    assert "belum sepenuhnya terverifikasi" in text  # CC-4 banner for partial


def test_fully_verified_answer_has_no_banner() -> None:
    body = respond([seg("Rp 5 miliar.", "paragraph")], [SegmentOutcome(Verdict.supported)])
    assert body.faithfulness.verification == "full"
    assert "⚠" not in render_answer(body)


def test_every_non_supported_verdict_reads_as_unverified_and_never_as_verified() -> None:
    outcomes = [
        SegmentOutcome(Verdict.unverified, UnverifiedReason.disputed),
        SegmentOutcome(Verdict.uncited),
        SegmentOutcome(Verdict.invalid_citation, invalid_citation_keys=("P9",)),
    ]
    body = respond([seg("a", "paragraph"), seg("b"), seg("c")], outcomes)
    text = render_answer(body)
    assert "✓" not in text.replace("bertanda ✓", "")
    assert "a [? belum diverifikasi: disputed]" in text
    assert "b [? belum diverifikasi: tanpa sumber]" in text
    assert "c [? belum diverifikasi: sitasi tidak dapat diselesaikan (P9)]" in text


def test_from_conversation_has_its_own_neutral_mark() -> None:
    body = respond([seg("x", "paragraph", ("C1",))], [SegmentOutcome(Verdict.from_conversation)])
    assert "[~ dari percakapan, bukan dokumen]" in render_answer(body)


def test_unknown_schema_renders_everything_unverified() -> None:
    text = render_answer({"schema": "annotate-v3", "answer": "Semua baik."})
    assert "belum diverifikasi" in text and "✓ terverifikasi" not in text


def test_text_outside_every_span_is_marked_unverified() -> None:
    body = respond([seg("a", "paragraph")], [SegmentOutcome(Verdict.supported)])
    tampered = body.model_copy(update={"answer": body.answer + " sisipan"})
    assert "sisipan [? belum diverifikasi]" in render_answer(tampered)


def test_context_budget_refusal_shows_not_checked() -> None:
    notice = "Bahan sumber tidak muat dalam konteks."
    annotation = refusal_annotation(notice, checked=False)
    body = QueryV2Response(
        answer=notice,
        conversation_id="c",
        message_id="m",
        trace_id="t",
        fallback_used=True,
        fallback_reason=FallbackReason.context_budget_exhausted,
        faithfulness=annotation.faithfulness,
        claims_supported=0,
        claims_total=0,
        grounding_rate=None,
    )
    text = render_answer(body)
    assert "Belum diperiksa" in text
    assert f"{notice} [? belum diverifikasi]" in text
