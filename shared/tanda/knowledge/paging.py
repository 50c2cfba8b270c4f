"""Fit a result into a budget of code points of its serialized JSON (KB-03).

The unit is the one the result states in its :class:`~tanda.contract.knowledge.BudgetProfile`:
Unicode code points of the result as compact JSON (``json.dumps(result, ensure_ascii=False,
separators=(",", ":"))`` of its structured form — what an MCP host receives as
``structuredContent``). A page holds the longest run of rows from the offset whose whole result
fits; the rest is reached by the page's cursor, which always advances. When not even one row
fits, the page holds none, says ``limit: "response_budget"`` with the size the next row needs,
and issues no cursor: the host raises the budget and resends the cursor it has, and never reads
the empty page as the source lacking the answer.

The budget bounds the whole page, its envelope included (issue 23): when not even the page
without rows fits — a long query or many document ids echoed, long warnings, a budget at the
500 minimum — the page is *abbreviated*: the caller's ``abbreviate(profile)`` leaves out the
envelope (its parts null), the profile says ``abbreviated: true`` and ``limit:
"response_budget"`` with the budget the full page needs, and the status is never ``COMPLETE`` —
an abbreviated page has dropped its warnings, so it must never read as a finished result.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from tanda.contract.knowledge import BudgetProfile

RowT = TypeVar("RowT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)

_FIXED_POINT_ROUNDS = 5


def codepoints(value: Any) -> int:
    """Code points of ``value`` (a JSON-able structure) as compact JSON."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def result_codepoints(result: BaseModel) -> int:
    """Code points of ``result`` as a host receives it (``structuredContent``)."""
    return codepoints(result.model_dump(mode="json", by_alias=True))


def fit_page(
    rows: Sequence[RowT],
    *,
    offset: int,
    max_codepoints: int,
    render: Callable[[list[RowT], BudgetProfile], ResultT],
    abbreviate: Callable[[BudgetProfile], ResultT],
    cursor_after: Callable[[int], str],
) -> ResultT:
    """The page of ``rows`` from ``offset`` that fits ``max_codepoints``.

    ``render(page_rows, profile)`` builds the whole result (its rows in one JSON list);
    ``abbreviate(profile)`` builds the result without rows and without the envelope, for a
    budget too small for the envelope; ``cursor_after(n)`` is the cursor of the position ``n``
    (rows before it were returned). Raises :class:`BudgetTooSmall` when not even the abbreviated
    page fits (never under the 500 code point minimum of a real result).
    """
    total = len(rows)
    row_sizes = [codepoints(row.model_dump(mode="json", by_alias=True)) for row in rows[offset:]]

    def profile(returned: int, budget: int = max_codepoints) -> BudgetProfile:
        end = offset + returned
        complete = end >= total
        return BudgetProfile(
            max_codepoints=budget,
            used_codepoints=0,
            status="COMPLETE" if complete else "BUDGET_TRUNCATED",
            offset=offset,
            returned=returned,
            total=total,
            next_cursor=None if complete or returned == 0 else cursor_after(end),
        )

    def size(returned: int, budget: int = max_codepoints) -> int:
        # Compact JSON: a list of n rows is the empty list plus the rows and n - 1 commas. The
        # page states its own size, whose digits count too: everything else is `fixed`.
        empty = render([], profile(returned, budget))  # used_codepoints=0: one digit
        fixed = result_codepoints(empty) - 1 + sum(row_sizes[:returned]) + max(returned - 1, 0)
        return _self_counting(fixed)

    returned = 0
    while returned < len(row_sizes) and size(returned + 1) <= max_codepoints:
        returned += 1
    chosen = profile(returned)
    if returned == 0 and row_sizes:
        chosen = chosen.model_copy(
            update={
                "limit": "response_budget",
                "next_row_codepoints": _needed(lambda budget: size(1, budget)),
            }
        )
    page = list(rows[offset : offset + returned])
    result = _settle(lambda p: render(page, p), chosen)
    if returned or result_codepoints(result) <= max_codepoints:
        return result
    # KB-03: not even the page without rows fits: it leaves out its envelope and says what the
    # full page needs — with the next row when one is left, else the envelope alone.
    rows_needed = 1 if row_sizes else 0
    brief = profile(0).model_copy(
        update={
            "status": "BUDGET_TRUNCATED",
            "limit": "response_budget",
            "next_row_codepoints": _needed(lambda budget: size(rows_needed, budget)),
            "abbreviated": True,
        }
    )
    result = _settle(abbreviate, brief)
    if result_codepoints(result) > max_codepoints:
        raise BudgetTooSmall(result_codepoints(result))
    return result


class BudgetTooSmall(ValueError):
    """Not even a page without rows and envelope fits the budget (a bug for real results: the
    minimum budget is far above the size of an abbreviated page)."""

    def __init__(self, needed: int) -> None:
        super().__init__(f"an abbreviated page needs {needed} code points")
        self.needed = needed


def _self_counting(fixed: int) -> int:
    """The size ``n`` of a result that is ``fixed`` code points plus the digits of ``n``."""
    size = fixed + 1
    while fixed + len(str(size)) != size:
        size = fixed + len(str(size))
    return size


def _needed(size: Callable[[int], int]) -> int:
    """The smallest budget a page fits in: ``size(budget)`` is its size stated with that budget
    (a budget with more digits makes the page larger)."""
    needed = size(0)
    for _ in range(_FIXED_POINT_ROUNDS):
        grown = size(needed)
        if grown <= needed:
            return needed
        needed = grown
    return needed


def _settle(build: Callable[[BudgetProfile], ResultT], profile: BudgetProfile) -> ResultT:
    """``build(profile)`` with ``used_codepoints`` equal to the size of the result it is in (a
    fixed point: the count's own digits are part of the size)."""
    used = 0
    result = build(profile)
    for _ in range(_FIXED_POINT_ROUNDS):
        result = build(profile.model_copy(update={"used_codepoints": used}))
        measured = result_codepoints(result)
        if measured == used:
            return result
        used = measured
    return build(profile.model_copy(update={"used_codepoints": used}))
