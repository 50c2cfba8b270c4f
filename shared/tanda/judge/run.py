"""The strict judge (V2-07 … V2-10) and the framing check (V2-06).

Cited segments are judged in batches that run concurrently, each segment with its cited passages
under their document identity and with the reader's context — never the question. A batch
``unsupported`` stands only when a single-segment re-check confirms it (V2-09). Beyond the seed: a
``supported`` segment whose numbers ``tanda.numbers`` cannot find in its passages goes to the
re-check too — the deterministic check may withhold ``supported``, never grant it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError

from tanda.annotate.aggregate import SegmentOutcome
from tanda.contract.common import StageStatus, UnverifiedReason, Verdict
from tanda.contract.segments import Segment
from tanda.judge.reader_context import ReaderContext
from tanda.model_calls import (
    ChatMessage,
    ChatRequest,
    FramingCheckOutput,
    JudgeOutput,
    ModelError,
    ModelRole,
)
from tanda.model_calls.budget import BudgetSpent, DeadlinePassed, ModelLedger
from tanda.passages import Passage
from tanda.prompts import prompt

JUDGE_SCHEMA = JudgeOutput.model_json_schema()
FRAMING_SCHEMA = FramingCheckOutput.model_json_schema()
GUARD_CALLS = 1
"""Calls every check leaves for the policy guard, which reads the answer last."""


@dataclass(frozen=True)
class JudgeItem:
    index: int
    """Position of the segment in the answer."""
    segment: Segment
    passages: Sequence[Passage]
    context: ReaderContext

    @property
    def id(self) -> str:
        return f"s{self.index}"

    def as_text(self) -> str:
        lines = [f"### Statement {self.id}", self.segment.text]
        if self.context.lines():
            lines += ["Around it the reader sees:", *self.context.lines()]
        lines.append("Cited passages:")
        lines += [p.as_block() for p in self.passages]
        return "\n".join(lines)

    def as_item(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.segment.text,
            "passages": [p.as_item() for p in self.passages],
            "context": self.context.lines(),
        }


def _reason_for(error: BaseException) -> UnverifiedReason:
    """V2-10: budget spent → ``budget``; request deadline → ``deadline``; anything else the
    judge did (failed, timed out itself) → ``judge_unavailable``."""
    if isinstance(error, BudgetSpent):
        return UnverifiedReason.budget
    if isinstance(error, DeadlinePassed):
        return UnverifiedReason.deadline
    return UnverifiedReason.judge_unavailable


def _unverified(
    reason: UnverifiedReason, item: JudgeItem, invalid: dict[int, tuple[str, ...]]
) -> SegmentOutcome:
    return SegmentOutcome(Verdict.unverified, reason, invalid.get(item.index, ()))


def _ask(
    ledger: ModelLedger, role: ModelRole, items: Sequence[JudgeItem], until: float
) -> dict[str, str]:
    """One judge or re-check call → verdict by item id (missing ids are absent)."""
    request = ChatRequest(
        role=role,
        messages=[
            ChatMessage(
                role="system", content=prompt("judge" if role is ModelRole.judge else "recheck")
            ),
            ChatMessage(role="user", content="\n\n".join(item.as_text() for item in items)),
        ],
        json_schema=JUDGE_SCHEMA,
        schema_name="verdicts",
        items=[item.as_item() for item in items],
    )
    response = ledger.complete(request, until=until, reserve_calls=GUARD_CALLS)
    try:
        output = JudgeOutput.model_validate_json(response.content or "")
    except ValidationError:
        return {}
    wanted = {item.id for item in items}
    return {v.id: v.verdict for v in output.verdicts if v.id in wanted}


NumbersCheck = Callable[[str, str], bool]
"""``(segment text, joined passage text) → True`` when every quantity of the text is found."""


def _numbers_found(text: str, source: str) -> bool:
    from tanda.numbers import find_in

    return not find_in(text, source)


def judge_claims(
    ledger: ModelLedger,
    items: Sequence[JudgeItem],
    *,
    invalid_keys: dict[int, tuple[str, ...]],
    until: float,
    executor: ThreadPoolExecutor,
    batch_size: int = 6,
    numbers_check: NumbersCheck | None = _numbers_found,
) -> dict[int, SegmentOutcome]:
    """Verdicts for every item, by segment index. Never raises for a model failure."""
    outcomes: dict[int, SegmentOutcome] = {}
    batches = [items[i : i + batch_size] for i in range(0, len(items), batch_size)]
    futures: dict[Future[dict[str, str]], Sequence[JudgeItem]] = {
        executor.submit(_ask, ledger, ModelRole.judge, batch, until): batch for batch in batches
    }
    done, _ = wait(futures, timeout=max(0.0, ledger.budget.seconds_left(until)))
    to_recheck: list[tuple[JudgeItem, str]] = []
    for future, batch in futures.items():
        if future not in done:
            # V2-10: the deadline passed before this batch returned; returned batches keep theirs.
            for item in batch:
                outcomes[item.index] = _unverified(UnverifiedReason.deadline, item, invalid_keys)
            continue
        error = future.exception()
        if error is not None:
            reason = _reason_for(error)
            for item in batch:
                outcomes[item.index] = _unverified(reason, item, invalid_keys)
            continue
        verdicts = future.result()
        for item in batch:
            verdict = verdicts.get(item.id)
            if verdict == "supported":
                # The identity counts as source: a table's year lives in its title, not its rows.
                # Not the call that produced the passage: its words are the agent's (V2-07).
                source = "\n".join(
                    "; ".join(replace(p, producing_call=None).identity_lines()) + "\n" + p.text
                    for p in item.passages
                )
                if numbers_check is not None and not numbers_check(item.segment.text, source):
                    to_recheck.append((item, "supported"))
                else:
                    outcomes[item.index] = SegmentOutcome(
                        Verdict.supported, invalid_citation_keys=invalid_keys.get(item.index, ())
                    )
            elif verdict == "unsupported":
                to_recheck.append((item, "unsupported"))  # V2-09: needs a confirming re-check
            else:
                outcomes[item.index] = _unverified(UnverifiedReason.unparseable, item, invalid_keys)
    outcomes.update(_recheck(ledger, to_recheck, invalid_keys, until, executor))
    return outcomes


def _recheck(
    ledger: ModelLedger,
    pending: Sequence[tuple[JudgeItem, str]],
    invalid_keys: dict[int, tuple[str, ...]],
    until: float,
    executor: ThreadPoolExecutor,
) -> dict[int, SegmentOutcome]:
    outcomes: dict[int, SegmentOutcome] = {}
    futures = {
        executor.submit(_ask, ledger, ModelRole.recheck, [item], until): (item, first)
        for item, first in pending
    }
    done, _ = wait(futures, timeout=max(0.0, ledger.budget.seconds_left(until)))
    for future, (item, first) in futures.items():
        invalid = invalid_keys.get(item.index, ())
        if future not in done:
            outcomes[item.index] = _unverified(UnverifiedReason.deadline, item, invalid_keys)
            continue
        error = future.exception()
        if error is not None:
            reason = _reason_for(error)
            outcomes[item.index] = _unverified(reason, item, invalid_keys)
            continue
        verdict = future.result().get(item.id)
        if verdict is None:
            outcomes[item.index] = _unverified(UnverifiedReason.unparseable, item, invalid_keys)
        elif first == "unsupported" and verdict == "unsupported":
            outcomes[item.index] = SegmentOutcome(
                Verdict.unsupported, invalid_citation_keys=invalid
            )
        elif first == "supported" and verdict == "supported":
            outcomes[item.index] = SegmentOutcome(Verdict.supported, invalid_citation_keys=invalid)
        else:
            # The batch and the re-check disagree: neither supported nor unsupported is shown.
            outcomes[item.index] = _unverified(UnverifiedReason.disputed, item, invalid_keys)
    return outcomes


def check_framing(
    ledger: ModelLedger,
    question: str,
    items: Sequence[tuple[int, Segment]],
    *,
    until: float,
) -> tuple[set[int], StageStatus]:
    """V2-06: one call over every uncited framing segment, with the question. Returns the indexes
    that are checkable (→ uncited claims). On failure every examined segment is checkable."""
    if not items:
        return set(), StageStatus.skipped
    listing = "\n".join(f"- f{index}: {segment.text}" for index, segment in items)
    request = ChatRequest(
        role=ModelRole.framing_check,
        messages=[
            ChatMessage(role="system", content=prompt("framing_check")),
            ChatMessage(
                role="user", content=f"Question: {question}\n\nFraming sentences:\n{listing}"
            ),
        ],
        json_schema=FRAMING_SCHEMA,
        schema_name="framing_check",
        items=[{"question": question}, *[{"id": f"f{i}", "text": s.text} for i, s in items]],
    )
    everything = {index for index, _ in items}
    try:
        response = ledger.complete(request, until=until, reserve_calls=GUARD_CALLS)
        output = FramingCheckOutput.model_validate_json(response.content or "")
    except (ModelError, ValidationError, json.JSONDecodeError):
        return everything, StageStatus.unavailable
    ids = {f"f{index}": index for index, _ in items}
    return {ids[i] for i in output.checkable if i in ids}, StageStatus.complete
