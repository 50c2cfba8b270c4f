"""Per-segment verdicts → ``claims``, ``framing`` and the ``faithfulness`` report (V2-05, V2-10,
V2-11, V2-12, V2-15, V2-16). Pure: the judge and framing check decide verdicts elsewhere; this
module only routes segments to them and counts what came back.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from tanda.annotate.compose import ComposedAnswer
from tanda.annotate.outcome import Annotation, SegmentOutcome
from tanda.contract.common import (
    Citation,
    FallbackReason,
    SegmentKind,
    StageStatus,
    UnverifiedReason,
    Verdict,
    Verification,
)
from tanda.contract.response import (
    Claim,
    ClaimCitation,
    Faithfulness,
    FramingSpan,
    Grounding,
    UnverifiedReasons,
)
from tanda.contract.segments import Segment

if TYPE_CHECKING:
    from tanda.contract.frames import AnnotationsFrame


class Route(StrEnum):
    """Where a segment goes before aggregation."""

    final = "final"  # its verdict is decided by citation rules alone
    judge = "judge"  # judged against its valid document passages (V2-07)
    framing_check = "framing_check"  # uncited framing: the one framing-check call decides (V2-06)


@dataclass(frozen=True, slots=True)
class CitationRouting:
    route: Route
    valid_keys: tuple[str, ...]
    invalid_keys: tuple[str, ...]
    outcome: SegmentOutcome | None = None
    """Set when ``route`` is ``final``."""
    judge_keys: tuple[str, ...] = field(default=())
    """The document passages the judge sees (valid keys that are not conversation keys)."""


def route_segment(
    segment: Segment, shown_keys: Collection[str], conversation_keys: Collection[str] = ()
) -> CitationRouting:
    """Apply the citation rules that need no model.

    ``shown_keys`` are every key shown to the agent and citable (passages ``P…`` and earlier
    conversation turns ``C…``); ``conversation_keys`` is the subset that are conversation turns.
    """
    cites = tuple(dict.fromkeys(segment.cites))
    valid = tuple(k for k in cites if k in shown_keys)
    invalid = tuple(k for k in cites if k not in shown_keys)
    if not cites:
        if segment.kind is SegmentKind.fact:
            # V2-05: a fact that cites nothing is uncited.
            return CitationRouting(Route.final, (), (), SegmentOutcome(Verdict.uncited))
        return CitationRouting(Route.framing_check, (), ())
    if not valid:
        # V2-11: only a segment whose keys are all invalid is invalid_citation.
        outcome = SegmentOutcome(Verdict.invalid_citation, invalid_citation_keys=invalid)
        return CitationRouting(Route.final, (), invalid, outcome)
    judge_keys = tuple(k for k in valid if k not in conversation_keys)
    if not judge_keys:
        # V2-12: repeats this conversation — neutral, never supported.
        outcome = SegmentOutcome(Verdict.from_conversation, invalid_citation_keys=invalid)
        return CitationRouting(Route.final, valid, invalid, outcome)
    # V2-06: framing that cites passages is judged as a fact against them.
    return CitationRouting(Route.judge, valid, invalid, judge_keys=judge_keys)


def grounding_of(supported: int, total: int) -> Grounding:
    """V2-15: ``grounding_rate`` is supported / total, ``null`` when total is 0."""
    return Grounding(
        claims_supported=supported,
        claims_total=total,
        grounding_rate=(supported / total) if total else None,
    )


def count_unlocated(composed: ComposedAnswer) -> int:
    """Maximal pieces of answer text covered by neither a span nor server-written layout."""
    covered = sorted([(s.start, s.end) for s in composed.spans] + list(composed.layout))
    pieces = 0
    position = 0
    for start, end in covered:
        if start > position:
            pieces += 1
        position = max(position, end)
    if position < len(composed.answer):
        pieces += 1
    return pieces


def aggregate(
    composed: ComposedAnswer,
    segments: Sequence[Segment],
    outcomes: Sequence[SegmentOutcome],
    citations: Mapping[str, Citation],
    *,
    framing_check: StageStatus,
) -> Annotation:
    """Build claims, framing and the faithfulness report from per-segment outcomes.

    ``citations`` maps each valid key to the citation the reader can open.
    """
    if not (len(segments) == len(outcomes) == len(composed.spans)):
        raise ValueError("segments, outcomes and composed spans must line up one to one")
    # Inputs are validated models already; building the outputs with model_construct keeps a
    # 50-segment answer well under a millisecond (bench/compose.py).
    claims: list[Claim] = []
    framing: list[FramingSpan] = []
    for segment, outcome, span in zip(segments, outcomes, composed.spans, strict=True):
        if outcome.verdict is None:
            framing.append(
                FramingSpan.model_construct(
                    text=segment.text,
                    layout=segment.layout,
                    start=span.start,
                    end=span.end,
                    start_utf16=span.start_utf16,
                    end_utf16=span.end_utf16,
                )
            )
            continue
        keys = list(dict.fromkeys(segment.cites))
        invalid = outcome.invalid_citation_keys
        claims.append(
            Claim.model_construct(
                text=segment.text,
                citation_keys=keys,
                citations=[
                    ClaimCitation.model_construct(citation_key=k, citation=citations[k])
                    for k in keys
                    if k in citations and k not in invalid
                ],
                verdict=outcome.verdict,
                unverified_reason=outcome.unverified_reason,
                invalid_citation_keys=list(invalid),
                kind=segment.kind,
                layout=segment.layout,
                start=span.start,
                end=span.end,
                start_utf16=span.start_utf16,
                end_utf16=span.end_utf16,
            )
        )
    faithfulness = faithfulness_report(
        [(c.verdict, c.unverified_reason) for c in claims],
        framing_total=len(framing),
        unlocated_total=count_unlocated(composed),
        framing_check=framing_check,
    )
    return Annotation(claims=claims, framing=framing, faithfulness=faithfulness)


def faithfulness_report(
    verdicts: Sequence[tuple[Verdict, UnverifiedReason | None]],
    *,
    framing_total: int,
    unlocated_total: int,
    framing_check: StageStatus,
    published: bool = True,
    checked: bool = True,
) -> Faithfulness:
    """Count verdicts into the report.

    ``published=False`` is a refusal that replaced checked claims (V2-13 policy block): the counts
    and grounding keep the claims checked before it, but nothing supported is shown, so the
    answer's ``verification`` is ``none``.
    """
    counts = dict.fromkeys(Verdict, 0)
    reasons = dict.fromkeys(UnverifiedReason, 0)
    for verdict, reason in verdicts:
        counts[verdict] += 1
        if reason is not None:
            reasons[reason] += 1
    supported = counts[Verdict.supported]
    total = len(verdicts) - counts[Verdict.from_conversation]  # V2-15
    judged = supported + counts[Verdict.unsupported] + counts[Verdict.unverified]
    if judged == 0:
        judge_status = StageStatus.skipped
    elif counts[Verdict.unverified]:
        judge_status = StageStatus.unavailable
    else:
        judge_status = StageStatus.complete
    # V2-16: full needs ≥1 claim, all supported, nothing unlocated.
    if not published or supported == 0:
        verification = Verification.none
    elif supported == len(verdicts) and unlocated_total == 0:
        verification = Verification.full
    else:
        verification = Verification.partial
    return Faithfulness(
        judge_status=judge_status,
        framing_check=framing_check,
        claims_total=total,
        supported=supported,
        unsupported=counts[Verdict.unsupported],
        unverified=counts[Verdict.unverified],
        uncited=counts[Verdict.uncited],
        invalid_citation=counts[Verdict.invalid_citation],
        from_conversation=counts[Verdict.from_conversation],
        unverified_reasons=UnverifiedReasons(**{r.value: n for r, n in reasons.items()}),
        framing_total=framing_total,
        unlocated_total=unlocated_total,
        verification=verification,
        grounding=grounding_of(supported, total),
        checked=None if checked else False,
    )


def refusal_annotation(
    answer: str,
    *,
    checked: bool = True,
    checked_before: Annotation | None = None,
) -> Annotation:
    """A published refusal or notice: no claims, no framing; its text is one unlocated piece.

    ``checked=False`` for ``context_budget_exhausted`` (V2-18: nothing was checked).
    ``checked_before`` is the annotation of an answer the policy guard replaced (V2-13): its
    counts stay, its claims are not published.
    """
    pieces = 1 if answer else 0
    if checked_before is None:
        report = faithfulness_report(
            [],
            framing_total=0,
            unlocated_total=pieces,
            framing_check=StageStatus.skipped,
            checked=checked,
        )
    else:
        report = faithfulness_report(
            [(c.verdict, c.unverified_reason) for c in checked_before.claims],
            framing_total=0,
            unlocated_total=pieces,
            framing_check=checked_before.faithfulness.framing_check,
            published=False,
            checked=checked,
        )
    return Annotation(claims=[], framing=[], faithfulness=report)


def annotations_frame(
    annotation: Annotation, *, fallback_used: bool, fallback_reason: FallbackReason | None
) -> AnnotationsFrame:
    """The SSE ``annotations`` frame: the same counts, and offsets without text (V2-21)."""
    # The stream contract is imported by the stream that publishes it, never by a step handler
    # (cold start, issue 24).
    from tanda.contract.frames import AnnotationsFrame, ClaimAnnotation, FramingAnnotation

    return AnnotationsFrame(
        **annotation.faithfulness.model_dump(exclude={"checked"}),
        checked=annotation.faithfulness.checked,
        fallback_used=fallback_used,
        fallback_reason=fallback_reason,
        claims=[
            ClaimAnnotation(**c.model_dump(exclude={"text", "citations"}))
            for c in annotation.claims
        ],
        framing=[FramingAnnotation(**f.model_dump(exclude={"text"})) for f in annotation.framing],
    )
