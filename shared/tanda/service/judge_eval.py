"""How often the strict judge grants ``supported`` to what its passages do not support:
the use case behind ``tanda eval judge PATH… [--model SPEC] [--limit N]`` (issue 17,
docs/evaluation.md; the command is in :mod:`tanda.cli.evaluate`).

Each statement of a set is judged exactly as the pipeline judges a cited segment: through
``tanda.judge.strict_judge.Judge`` — the same prompts, batches of ``TANDA_JUDGE_BATCH_SIZE``, the
numbers check, the single-segment re-check of V2-09 — under the budget an answer leaves its judge
(V2-23). Statements are grouped into answers of at most one batch whose cited evidence together
fits what one answer can cite (``TANDA_AGENT_CONTEXT_CHARS``); a longer one is an answer alone.
The judge sees the passages and the reader's context, never a question (V2-07).

A statement counts as judged supported only when its verdict is ``supported``; ``unsupported``
and every ``unverified`` read as "belum diverifikasi" to the reader (CC-2).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from tanda.annotate.outcome import SegmentOutcome
from tanda.contract.common import Citation, SegmentKind, Verdict
from tanda.contract.response import ModelCallRecord
from tanda.contract.segments import Segment
from tanda.judge.items import JudgeItem
from tanda.judge.reader_context import ReaderContext
from tanda.judge.strict_judge import Judge
from tanda.model_calls import ChatModel
from tanda.model_calls.budget import ModelLedger, RequestBudget
from tanda.passages import Passage
from tanda.pipeline.steps import agent_reserve_calls, call_allotments
from tanda.records.documents import LegalIdentity
from tanda.service.judge_sets import (
    EDIT_TYPES,
    JudgeCase,
    JudgeSet,
)
from tanda.settings import Settings


@dataclass(frozen=True)
class JudgeBudget:
    """What one answer leaves its judge (V2-23), as the pipeline's agent step sets it: the
    judge's share of the deadline less the guard's reserve, and the allotment of a lone judge
    batch (no framing to examine) out of the calls the agent keeps back for the checks."""

    seconds: float
    calls: int
    batch_size: int
    evidence_chars: int

    @classmethod
    def from_settings(cls, settings: Settings) -> JudgeBudget:
        total = settings.request_deadline_s
        guard_reserve_s = min(5.0, total * 0.1)
        return cls(
            seconds=total * settings.judge_share - guard_reserve_s,
            calls=call_allotments(agent_reserve_calls(settings), 1, framing=False)[1][0],
            batch_size=settings.judge_batch_size,
            evidence_chars=settings.agent_context_chars,
        )


@dataclass(frozen=True)
class CaseResult:
    case: JudgeCase
    outcome: SegmentOutcome

    @property
    def judged_supported(self) -> bool:
        return self.outcome.verdict is Verdict.supported


@dataclass(frozen=True)
class SetRun:
    results: list[CaseResult]
    model_calls: list[ModelCallRecord]
    wall_s: float


def answers_of(cases: Sequence[JudgeCase], budget: JudgeBudget) -> Iterator[list[JudgeCase]]:
    """Cases grouped as one answer's cited segments: at most one batch, and evidence that one
    answer could have been shown (a case whose own evidence is longer is an answer alone)."""
    answer: list[JudgeCase] = []
    chars = 0
    for case in cases:
        size = sum(len(p) for p in case.passages)
        if answer and (len(answer) == budget.batch_size or chars + size > budget.evidence_chars):
            yield answer
            answer, chars = [], 0
        answer.append(case)
        chars += size
    if answer:
        yield answer


def _items(cases: Sequence[JudgeCase]) -> tuple[list[JudgeItem], dict[str, Passage]]:
    """The cases as one answer's cited segments, their passages keyed ``P1, P2, …`` across the
    answer as the agent's tools key them."""
    items: list[JudgeItem] = []
    passages: dict[str, Passage] = {}
    for index, case in enumerate(cases):
        keys: list[str] = []
        for n, text in enumerate(case.passages):
            key = f"P{len(passages) + 1}"
            passages[key] = Passage(
                key=key,
                kind="chunk",
                text=text,
                citation=Citation(citation_key=key, chunk_id=f"{case.case_id}#{n}"),
                identity=LegalIdentity(),
            )
            keys.append(key)
        segment = Segment(text=case.statement, kind=SegmentKind.fact, cites=keys)
        items.append(JudgeItem(index, segment, tuple(keys), ReaderContext(heading=case.heading)))
    return items, passages


def judge_answer(
    model: ChatModel,
    cases: Sequence[JudgeCase],
    budget: JudgeBudget,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[list[SegmentOutcome], list[ModelCallRecord]]:
    """One answer's cited segments through the judge stage, under one answer's judge budget."""
    ledger = ModelLedger(model, RequestBudget.starting_now(budget.seconds, budget.calls, clock))
    items, passages = _items(cases)
    batches = -(-len(items) // budget.batch_size)
    # One worker per batch and one more, shared with the re-checks.
    executor = ThreadPoolExecutor(max_workers=max(2, batches + 1), thread_name_prefix="eval-judge")
    try:
        judge = Judge(batch_size=budget.batch_size, executor=executor)
        outcomes = judge.run(ledger, items, passages, invalid_keys={}, until=ledger.budget.deadline)
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
    return [outcomes[i] for i in range(len(items))], list(ledger.records)


def run_set(
    model: ChatModel,
    cases: Sequence[JudgeCase],
    budget: JudgeBudget,
    *,
    workers: int = 4,
    clock: Callable[[], float] = time.monotonic,
) -> SetRun:
    """Every case judged; ``workers`` answers in flight at once (a served judge sees concurrent
    answers too)."""
    started = time.perf_counter()
    answers = list(answers_of(cases, budget))
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="eval") as pool:
        judged = list(
            pool.map(lambda answer: judge_answer(model, answer, budget, clock=clock), answers)
        )
    results: list[CaseResult] = []
    calls: list[ModelCallRecord] = []
    for answer, (outcomes, records) in zip(answers, judged, strict=True):
        results += [
            CaseResult(case, outcome) for case, outcome in zip(answer, outcomes, strict=True)
        ]
        calls += records
    return SetRun(results, calls, time.perf_counter() - started)


# -- figures (pure) -----------------------------------------------------------------------------


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def verdict_key(outcome: SegmentOutcome) -> str:
    verdict = outcome.verdict.value if outcome.verdict is not None else "none"
    if outcome.unverified_reason is not None:
        return f"{verdict}:{outcome.unverified_reason.value}"
    return verdict


def score(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Balanced accuracy, supported precision and recall, false-support rate (the share of
    not-supported statements judged ``supported`` — the figure that matters most), the confusion by
    the set's own label, and false support by SummEdits edit type."""
    positives = [r for r in results if r.case.supported]
    negatives = [r for r in results if not r.case.supported]
    true_pos = sum(r.judged_supported for r in positives)
    false_pos = sum(r.judged_supported for r in negatives)
    recall = true_pos / len(positives) if positives else None
    specificity = (len(negatives) - false_pos) / len(negatives) if negatives else None
    balanced = (
        round((recall + specificity) / 2, 4)
        if recall is not None and specificity is not None
        else None
    )
    confusion: dict[str, Counter[str]] = {}
    for r in results:
        confusion.setdefault(r.case.label, Counter())[verdict_key(r.outcome)] += 1
    figures: dict[str, Any] = {
        "n": len(results),
        "supported_gold": len(positives),
        "balanced_accuracy": balanced,
        "supported_precision": _ratio(true_pos, true_pos + false_pos),
        "supported_recall": _ratio(true_pos, len(positives)),
        "false_support_rate": _ratio(false_pos, len(negatives)),
        "confusion": {label: dict(sorted(c.items())) for label, c in sorted(confusion.items())},
    }
    if any(r.case.edit_types for r in results):
        by_edit: dict[str, dict[str, Any]] = {}
        for edit in EDIT_TYPES:
            edited = [r for r in negatives if edit in r.case.edit_types]
            fooled = sum(r.judged_supported for r in edited)
            by_edit[edit] = {"n": len(edited), "false_support_rate": _ratio(fooled, len(edited))}
        figures["false_support_by_edit_type"] = by_edit
    return figures


def call_figures(records: Sequence[ModelCallRecord]) -> dict[str, Any]:
    return {
        "total": len(records),
        "by_role": dict(sorted(Counter(r.role for r in records).items())),
        "by_outcome": dict(sorted(Counter(r.outcome for r in records).items())),
        "input_tokens": sum(r.input_tokens or 0 for r in records),
        "output_tokens": sum(r.output_tokens or 0 for r in records),
    }


def set_report(judge_set: JudgeSet, run: SetRun, model_name: str) -> dict[str, Any]:
    return {
        "set": judge_set.name,
        "format": judge_set.format,
        "model": model_name,
        **score(run.results),
        "model_calls": call_figures(run.model_calls),
        "wall_s": round(run.wall_s, 3),
    }
