"""The v1 gate (CV-2): the same agent, tools, scope, history and budgets as v2 with the sentence
prompt; the judge confirms each sentence; unconfirmed ones are withheld; too few left → refusal.
Context budget exhausted is a 413 here, not a 200 (V2-18)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tanda.annotate.aggregate import Annotation, SegmentOutcome, aggregate
from tanda.annotate.compose import Span, compose
from tanda.annotate.gate import compose_kept, gate
from tanda.contract.common import FallbackReason, WireModel
from tanda.contract.query import QueryV2Request
from tanda.contract.query_v1 import ClaimMapEntry
from tanda.contract.segments import Segment
from tanda.conversations.history import History
from tanda.errors import PayloadTooLarge
from tanda.guard.run import guard_blocks
from tanda.pipeline.answer_v2 import (
    AnswerDeps,
    AnswerOutcome,
    check_segments,
    cited_citations,
    run_agent_phase,
)
from tanda.pipeline.notices import NOTICES

INSUFFICIENT_GROUNDING_NOTICE = (
    "Terlalu sedikit kalimat jawaban yang dapat dikonfirmasi oleh dokumen, sehingga jawaban tidak "
    "diterbitkan."
)
CONTEXT_TOO_LARGE = "The source material needed for this question does not fit the model context."


class ContextTooLarge(PayloadTooLarge):
    message = CONTEXT_TOO_LARGE


@dataclass
class V1Outcome:
    answer: str
    outcome: AnswerOutcome
    """The underlying answer (checked claims, tools, model calls) before the gate."""
    checked: Annotation | None
    claim_map: list[ClaimMapEntry] = field(default_factory=list)
    dropped_reasons: dict[str, int] = field(default_factory=dict)
    fallback: str | None = None
    provenance_complete: bool = True
    published: Annotation | None = None
    """The published answer's annotation (kept segments only)."""


def answer_v1(
    deps: AnswerDeps,
    tenant_id: str,
    body: QueryV2Request,
    *,
    scenario: str | None = None,
    history: History | None = None,
    progress: Callable[[WireModel], None] | None = None,
) -> V1Outcome:
    phase = run_agent_phase(
        deps,
        tenant_id,
        body,
        scenario=scenario,
        instructions="agent_sentences",
        history=history,
        progress=progress,
    )
    if isinstance(phase, AnswerOutcome):
        if phase.fallback is FallbackReason.context_budget_exhausted:
            raise ContextTooLarge()
        return V1Outcome(answer=phase.answer, outcome=phase, checked=None, fallback=phase.fallback)
    citations = {k: p.citation for k, p in phase.tools.passages.items()}
    ordered, framing_status = check_segments(
        phase, body.query, batch_size=deps.settings.judge_batch_size
    )
    checked = aggregate(
        compose(phase.segments), phase.segments, ordered, citations, framing_check=framing_status
    )
    decision = gate(ordered, min_supported_ratio=deps.settings.v1_min_supported_ratio)
    base = AnswerOutcome(
        answer="",
        annotation=checked,
        segments=phase.segments,
        outcomes=ordered,
        **phase.tool_info(),
    )
    if decision.rejected:
        return V1Outcome(
            answer=INSUFFICIENT_GROUNDING_NOTICE,
            outcome=base,
            checked=checked,
            claim_map=_claim_map(phase.segments, ordered, {}),
            dropped_reasons=decision.reasons,
            fallback="insufficient_grounding",
        )
    kept_segments, composed = compose_kept([phase.segments[i] for i in decision.kept])
    kept_outcomes = [ordered[i] for i in decision.kept]
    published = aggregate(
        composed, kept_segments, kept_outcomes, citations, framing_check=framing_status
    )
    if guard_blocks(phase.ledger, composed.answer):
        return V1Outcome(
            answer=NOTICES[FallbackReason.policy_blocked],
            outcome=base,
            checked=checked,
            claim_map=_claim_map(phase.segments, ordered, {}),
            dropped_reasons=decision.reasons,
            fallback=FallbackReason.policy_blocked.value,
        )
    spans = {index: composed.spans[n] for n, index in enumerate(decision.kept)}
    base.citations = cited_citations(published)
    return V1Outcome(
        answer=composed.answer,
        outcome=base,
        checked=checked,
        claim_map=_claim_map(phase.segments, ordered, spans),
        dropped_reasons=decision.reasons,
        provenance_complete=all(c.citations for c in published.claims),
        published=published,
    )


def _claim_map(
    segments: Sequence[Segment],
    outcomes: Sequence[SegmentOutcome],
    spans: Mapping[int, Span],
) -> list[ClaimMapEntry]:
    entries: list[ClaimMapEntry] = []
    for index, (segment, outcome) in enumerate(zip(segments, outcomes, strict=True)):
        if outcome.verdict is None:
            continue
        span = spans.get(index)
        entries.append(
            ClaimMapEntry(
                text=segment.text,
                citation_keys=list(dict.fromkeys(segment.cites)),
                verdict=outcome.verdict,
                unverified_reason=outcome.unverified_reason,
                kept=span is not None,
                start=span.start if span else None,
                end=span.end if span else None,
            )
        )
    return entries
