"""Verdict routing (V2-05, V2-06, V2-11, V2-12): every segment of the agent's answer goes to the
judge, to the framing check, or gets its verdict from the citation rules alone — and comes back
in answer order once the checks returned. Pure; the agent step routes, the guard step collects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tanda.annotate.aggregate import Route, route_segment
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract.common import StageStatus, UnverifiedReason, Verdict
from tanda.contract.segments import Segment
from tanda.judge.items import JudgeItem
from tanda.judge.reader_context import reader_contexts
from tanda.passages import Passage
from tanda.pipeline.states import FramingOutput, JudgeBatchInput, JudgeBatchOutput


@dataclass
class Routing:
    """Where each segment went, by its position in the answer."""

    final: dict[int, SegmentOutcome] = field(default_factory=dict)
    judge: list[JudgeItem] = field(default_factory=list)
    framing: list[tuple[int, Segment]] = field(default_factory=list)
    invalid_keys: dict[int, tuple[str, ...]] = field(default_factory=dict)


def route_segments(segments: Sequence[Segment], passages: Mapping[str, Passage]) -> Routing:
    """Route every segment: ``passages`` are all the keys shown (document passages and the
    conversation's ``C`` passages)."""
    shown = set(passages)
    conversation = {key for key, p in passages.items() if p.kind == "conversation"}
    contexts = reader_contexts(segments)
    routing = Routing()
    for index, segment in enumerate(segments):
        routed = route_segment(segment, shown, conversation)
        routing.invalid_keys[index] = routed.invalid_keys
        if routed.route is Route.final:
            assert routed.outcome is not None
            routing.final[index] = routed.outcome
        elif routed.route is Route.judge:
            routing.judge.append(JudgeItem(index, segment, routed.judge_keys, contexts[index]))
        else:
            routing.framing.append((index, segment))
    return routing


def collect_outcomes(
    segment_count: int,
    final: Mapping[int, SegmentOutcome],
    batches: Sequence[JudgeBatchInput],
    judged: Sequence[JudgeBatchOutput],
    framing_items: Sequence[tuple[int, Segment]],
    framing: FramingOutput,
) -> tuple[list[SegmentOutcome], StageStatus]:
    """Every segment's outcome in answer order, and the framing check's status. A batch that
    failed as a whole (``failed``) leaves each of its segments unverified for that reason, its
    invalid keys kept (V2-10); the framing check's checkable segments become uncited claims and
    the rest stay framing (V2-06)."""
    outcomes = dict(final)
    by_index = {batch.batch_index: batch for batch in batches}
    for result in judged:
        if result.failed is None:
            outcomes.update(result.outcomes)
            continue
        reason = UnverifiedReason(result.failed)
        batch = by_index[result.batch_index]
        for item in batch.items:
            outcomes[item.index] = SegmentOutcome(
                Verdict.unverified, reason, batch.invalid_keys.get(item.index, ())
            )
    examined = {index for index, _ in framing_items}
    checkable = examined if framing.checkable is None else set(framing.checkable)
    for index in examined:
        # V2-06: checkable framing is an uncited claim; the rest is framing (no verdict).
        outcomes[index] = (
            SegmentOutcome(Verdict.uncited) if index in checkable else SegmentOutcome.framing()
        )
    status = framing.status if framing_items else StageStatus.skipped
    return [outcomes[i] for i in range(segment_count)], status
