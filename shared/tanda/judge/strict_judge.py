"""The strict judge (V2-07 … V2-10) as a component: :class:`Judge`.

Cited segments are judged in batches that run concurrently, each segment with its cited passages
under their document identity and with the reader's context — never the question. A batch
``unsupported`` stands only when a single-segment re-check confirms it (V2-09). Beyond the seed: a
``supported`` segment whose numbers ``tanda.numbers`` cannot find in its passages goes to the
re-check too — the deterministic check may withhold ``supported``, never grant it.

The judge spends the ledger it is given and nothing else: the pipeline hands every judge batch
its own allotment of model calls (docs/pipeline.md, "Budgets"), so the guard's call is kept
before the judge starts, not by the judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, wait
from dataclasses import replace

from pydantic import ValidationError

from tanda.annotate.outcome import SegmentOutcome
from tanda.contract.common import UnverifiedReason, Verdict
from tanda.judge.items import JudgeItem
from tanda.model_calls import ChatMessage, ChatRequest, JudgeOutput, ModelRole
from tanda.model_calls.budget import BudgetSpent, DeadlinePassed, ModelLedger
from tanda.passages import Passage
from tanda.prompts import prompt
from tanda.threads import SharedPool

JUDGE_SCHEMA = JudgeOutput.model_json_schema()
CALL_WORKERS = 32
"""Threads shared by every judge in the process for its model calls (batch calls and re-checks):
a judge waits for them at most until its deadline, and never creates threads of its own."""

_call_pool = SharedPool(CALL_WORKERS, "tanda-judge").get


def _reason_for(error: BaseException) -> UnverifiedReason:
    """V2-10: budget spent → ``budget``; request deadline → ``deadline``; anything else the
    judge did (failed, timed out itself) → ``judge_unavailable``."""
    if isinstance(error, BudgetSpent):
        return UnverifiedReason.budget
    if isinstance(error, DeadlinePassed):
        return UnverifiedReason.deadline
    return UnverifiedReason.judge_unavailable


def _unverified(
    reason: UnverifiedReason, item: JudgeItem, invalid: Mapping[int, tuple[str, ...]]
) -> SegmentOutcome:
    return SegmentOutcome(Verdict.unverified, reason, invalid.get(item.index, ()))


def _ask(
    ledger: ModelLedger,
    role: ModelRole,
    items: Sequence[JudgeItem],
    passages: Mapping[str, Passage],
    until: float,
) -> dict[str, str]:
    """One judge or re-check call → verdict by item id (missing ids are absent)."""
    request = ChatRequest(
        role=role,
        messages=[
            ChatMessage(
                role="system", content=prompt("judge" if role is ModelRole.judge else "recheck")
            ),
            ChatMessage(role="user", content="\n\n".join(item.as_text(passages) for item in items)),
        ],
        json_schema=JUDGE_SCHEMA,
        schema_name="verdicts",
        items=[item.as_item(passages) for item in items],
    )
    response = ledger.complete(request, until=until)
    try:
        output = JudgeOutput.model_validate_json(response.content or "")
    except ValidationError:
        return {}
    wanted = {item.id for item in items}
    return {v.id: v.verdict for v in output.verdicts if v.id in wanted}


NumbersCheck = Callable[[str, str], bool]
"""``(segment text, joined passage text) → True`` when every quantity of the text is found."""


def numbers_found(text: str, source: str) -> bool:
    from tanda.numbers import find_in

    return not find_in(text, source)


class Judge:
    """Gives every cited segment its verdict (V2-07 … V2-10): ``run`` judges the items in batches
    of ``batch_size`` (concurrently), then re-checks every lone ``unsupported`` — and every
    ``supported`` whose numbers the ``numbers_check`` cannot find — one segment a call.

    ``executor`` runs the model calls (default: the judge's shared pool of ``CALL_WORKERS``); the
    calling thread only waits for them, at most until ``until``."""

    def __init__(
        self,
        *,
        batch_size: int = 6,
        executor: Executor | None = None,
        numbers_check: NumbersCheck | None = numbers_found,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self.batch_size = batch_size
        self.executor = executor
        self.numbers_check = numbers_check

    def run(
        self,
        ledger: ModelLedger,
        items: Sequence[JudgeItem],
        passages: Mapping[str, Passage],
        *,
        invalid_keys: Mapping[int, tuple[str, ...]],
        until: float,
    ) -> dict[int, SegmentOutcome]:
        """Verdicts for every item, by segment index. Never raises for a model failure.
        ``passages`` holds every passage an item cites, by key."""
        executor = self.executor or _call_pool()
        outcomes: dict[int, SegmentOutcome] = {}
        size = self.batch_size
        batches = [items[i : i + size] for i in range(0, len(items), size)]
        futures: dict[Future[dict[str, str]], Sequence[JudgeItem]] = {
            executor.submit(_ask, ledger, ModelRole.judge, batch, passages, until): batch
            for batch in batches
        }
        done, _ = wait(futures, timeout=max(0.0, ledger.budget.seconds_left(until)))
        to_recheck: list[tuple[JudgeItem, str]] = []
        for future, batch in futures.items():
            if future not in done:
                # V2-10: the deadline passed before this batch returned; returned batches keep
                # theirs.
                for item in batch:
                    outcomes[item.index] = _unverified(
                        UnverifiedReason.deadline, item, invalid_keys
                    )
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
                    # The identity counts as source: a table's year lives in its title, not its
                    # rows. Not the call that produced the passage: its words are the agent's
                    # (V2-07).
                    source = "\n".join(
                        "; ".join(replace(p, producing_call=None).identity_lines()) + "\n" + p.text
                        for p in item.cited(passages)
                    )
                    check = self.numbers_check
                    if check is not None and not check(item.segment.text, source):
                        to_recheck.append((item, "supported"))
                    else:
                        outcomes[item.index] = SegmentOutcome(
                            Verdict.supported,
                            invalid_citation_keys=invalid_keys.get(item.index, ()),
                        )
                elif verdict == "unsupported":
                    to_recheck.append((item, "unsupported"))  # V2-09: needs a confirming re-check
                else:
                    outcomes[item.index] = _unverified(
                        UnverifiedReason.unparseable, item, invalid_keys
                    )
        outcomes.update(_recheck(ledger, to_recheck, passages, invalid_keys, until, executor))
        for item in items:
            outcome = outcomes.get(item.index)
            supported = outcome is not None and outcome.verdict is Verdict.supported
            if supported and stated_period_conflict(item.segment.text, item.cited(passages)):
                outcomes[item.index] = SegmentOutcome(
                    Verdict.unsupported, invalid_citation_keys=invalid_keys.get(item.index, ())
                )
        return outcomes


def stated_period_conflict(text: str, cited: Sequence[Passage]) -> bool:
    """Issue 25 (V2-08): a segment citing only portal/MCP results that state their period, and
    naming another year, is never supported — whatever a model judged: a 2022 figure never
    supports a 2023 claim. Document passages keep the judge's reading (their period lives in
    their text)."""
    if not cited or any(p.kind != "tool" or not p.identity.period for p in cited):
        return False
    from tanda.numbers import period_conflict

    return period_conflict(text, [p.identity.period or "" for p in cited]) is not None


def _recheck(
    ledger: ModelLedger,
    pending: Sequence[tuple[JudgeItem, str]],
    passages: Mapping[str, Passage],
    invalid_keys: Mapping[int, tuple[str, ...]],
    until: float,
    executor: Executor,
) -> dict[int, SegmentOutcome]:
    outcomes: dict[int, SegmentOutcome] = {}
    futures = {
        executor.submit(_ask, ledger, ModelRole.recheck, [item], passages, until): (item, first)
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
