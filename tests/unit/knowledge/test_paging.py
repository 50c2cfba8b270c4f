"""KB-03: a result fitted into a budget of code points of its JSON; pages joined by cursors.

Property tests: concatenating the pages of any result under any budget gives exactly the
unbudgeted result, in order, with no duplicate; every page fits its budget (when a row fits at
all) and states its own size exactly."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import BaseModel

from tanda.contract.knowledge import BudgetProfile
from tanda.knowledge.cursors import (
    CURSOR_PREFIX,
    CursorContextMismatch,
    InvalidCursor,
    StaleCursor,
    context_binding,
    decode_cursor,
    encode_cursor,
    resume_offset,
    row_digest,
)
from tanda.knowledge.paging import BudgetTooSmall, codepoints, fit_page, result_codepoints


class Row(BaseModel):
    key: str
    text: str


class Result(BaseModel):
    query: str | None
    rows: list[Row]
    budget: BudgetProfile


BINDING = context_binding("acme", "search", {"query": "q"})


def page(rows: list[Row], budget: int, cursor: str | None, query: str = "q") -> Result:
    keys = [r.key for r in rows]
    return fit_page(
        rows,
        offset=resume_offset(cursor, BINDING, keys),
        max_codepoints=budget,
        render=lambda part, profile: Result(query=query, rows=part, budget=profile),
        abbreviate=lambda profile: Result(query=None, rows=[], budget=profile),
        cursor_after=lambda end: encode_cursor(BINDING, end, keys[end - 1]),
    )


def all_pages(rows: list[Row], budget: int) -> list[Result]:
    pages = [page(rows, budget, None)]
    while pages[-1].budget.next_cursor is not None:
        assert len(pages) <= len(rows), "a cursor did not advance"
        pages.append(page(rows, budget, pages[-1].budget.next_cursor))
    return pages


texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=120
)
row_lists = st.lists(texts, max_size=25).map(
    lambda items: [Row(key=f"n{i}", text=t) for i, t in enumerate(items)]
)


@given(rows=row_lists, budget=st.integers(min_value=900, max_value=6000))
@example(rows=[Row(key="n0", text="ğ😀 é\u200b")] * 1, budget=900)
@example(rows=[Row(key=f"n{i}", text="x" * 100) for i in range(30)], budget=1000)
def test_concatenated_pages_are_the_unbudgeted_result_in_order_without_duplicates(
    rows: list[Row], budget: int
) -> None:
    # Given any result and a budget in which any one row fits (rows ≤ ~500 code points),
    unbudgeted = page(rows, 10**7, None)
    assert unbudgeted.budget.status == "COMPLETE"

    # when the host follows every cursor,
    pages = all_pages(rows, budget)

    # then the pages joined are the unbudgeted rows exactly, in order, none twice,
    joined = [row for p in pages for row in p.rows]
    assert joined == unbudgeted.rows
    assert len({r.key for r in joined}) == len(joined)
    # each page fits, says its exact size in the stated unit, and only the last is complete.
    for p in pages:
        assert p.budget.used_codepoints == result_codepoints(p) <= budget
        assert p.budget.unit == "codepoints_of_serialized_json"
    assert [p.budget.status for p in pages[:-1]] == ["BUDGET_TRUNCATED"] * (len(pages) - 1)
    assert pages[-1].budget.status == "COMPLETE"
    assert [p.budget.offset for p in pages] == sorted({p.budget.offset for p in pages})


def test_the_size_is_code_points_of_compact_json_not_bytes_or_tokens() -> None:
    rows = [Row(key="n0", text="😀" * 10)]
    result = page(rows, 10_000, None)
    dumped = json.dumps(result.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
    assert result.budget.used_codepoints == len(dumped) == codepoints(result.model_dump())
    assert len(dumped.encode("utf-8")) > len(dumped)  # bytes would count the emoji four times


@pytest.mark.parametrize("budget", [1200, 600])  # 600: the needed size has one digit more
def test_when_no_row_fits_it_says_so_and_issues_no_cursor(budget: int) -> None:
    # Given a row larger than the budget,
    rows = [Row(key="n0", text="a"), Row(key="n1", text="b" * 2000), Row(key="n2", text="c")]
    first = page(rows, budget, None)
    assert [r.key for r in first.rows] == ["n0"]

    # when the next page is asked with the same budget,
    second = page(rows, budget, first.budget.next_cursor)

    # then it holds no row, says it is a response-budget limit with the size the row needs,
    # and gives no cursor to repeat (the host resends its cursor with a larger budget);
    assert second.rows == []
    assert second.budget.limit == "response_budget"
    assert second.budget.status == "BUDGET_TRUNCATED"
    assert second.budget.next_cursor is None
    needed = second.budget.next_row_codepoints
    assert needed is not None and needed > budget
    # that budget is enough for that row.
    third = page(rows, needed, first.budget.next_cursor)
    assert [r.key for r in third.rows][:1] == ["n1"]
    assert third.budget.used_codepoints <= needed


def test_an_empty_result_is_complete_and_not_a_budget_limit() -> None:
    result = page([], 900, None)
    assert result.budget.status == "COMPLETE"
    assert result.budget.limit is None and result.budget.next_cursor is None


# --- cursors -----------------------------------------------------------------------------


ROWS = [Row(key=f"n{i}", text="x" * 200) for i in range(10)]


def test_a_cursor_is_refused_for_another_tenant_scope_or_query() -> None:
    cursor = page(ROWS, 1000, None).budget.next_cursor
    assert cursor is not None
    keys = [r.key for r in ROWS]
    for tenant, context in (
        ("globex", {"query": "q"}),
        ("acme", {"query": "other"}),
        ("acme", {"query": "q", "scope": {"batch_id": "b"}}),
    ):
        with pytest.raises(CursorContextMismatch):
            resume_offset(cursor, context_binding(tenant, "search", context), keys)
    with pytest.raises(CursorContextMismatch):
        resume_offset(cursor, context_binding("acme", "list_sources", {"query": "q"}), keys)


def test_a_cursor_whose_rows_moved_is_stale_not_silently_shifted() -> None:
    cursor = page(ROWS, 1000, None).budget.next_cursor
    assert cursor is not None
    moved = [Row(key="new", text="y"), *ROWS]
    with pytest.raises(StaleCursor):
        resume_offset(cursor, BINDING, [r.key for r in moved])
    with pytest.raises(StaleCursor):
        resume_offset(cursor, BINDING, ["n0"])


@pytest.mark.parametrize(
    "cursor", ["", "kb1.", "kb1.!!!", "kb1.e30", "nope", "kb1." + "A" * 600, "kb1.WzFd"]
)
def test_a_cursor_not_issued_here_is_invalid(cursor: str) -> None:
    with pytest.raises(InvalidCursor):
        resume_offset(cursor, BINDING, [r.key for r in ROWS])


def test_a_cursor_needs_no_server_state() -> None:
    # The same cursor resumes the same position wherever it is decoded (another process, after
    # a restart): it carries the position and its binding, nothing else.
    cursor = encode_cursor(BINDING, 3, "n2")
    assert resume_offset(cursor, BINDING, [r.key for r in ROWS]) == 3


def test_a_page_whose_size_gains_a_digit_still_fits_its_budget() -> None:
    # Given an envelope under 1000 code points and rows that take a page across 1000,
    rows = [Row(key=f"n{i}", text="x" * 150) for i in range(12)]
    for budget in range(900, 1300):
        # when the page is fitted to each budget around that boundary,
        result = page(rows, budget, None)
        # then it never says or is more than its budget,
        assert result.budget.used_codepoints == result_codepoints(result) <= budget, budget
        # and a budget of the next row's stated need is enough for it.
        if result.budget.next_row_codepoints is not None:
            needed = result.budget.next_row_codepoints
            assert page(rows, needed, None).rows, (budget, needed)


# --- issue 23, KB-03: the budget bounds the envelope too ---------------------------------------

MIN_BUDGET = 500  # the documented minimum (MIN_BUDGET_CODEPOINTS)


@pytest.mark.parametrize("rows", [[Row(key="n0", text="a")], []], ids=["a row left", "no row"])
@pytest.mark.parametrize("query_chars", [350, 2000])
def test_a_page_whose_envelope_does_not_fit_is_abbreviated_within_the_budget(
    rows: list[Row], query_chars: int
) -> None:
    # Given a result whose envelope alone (here an echoed long query) exceeds the minimum budget,
    query = "q" * query_chars

    # when a page is asked at the minimum,
    result = page(rows, MIN_BUDGET, None, query=query)

    # then the page is within the budget, envelope included, and says so exactly;
    assert result.budget.used_codepoints == result_codepoints(result) <= MIN_BUDGET
    # it leaves the envelope out, and reads as a response-budget limit, never as a finished
    # (let alone empty) result: no COMPLETE, no cursor to repeat,
    assert result.budget.abbreviated is True and result.query is None and result.rows == []
    assert (result.budget.status, result.budget.limit) == ("BUDGET_TRUNCATED", "response_budget")
    assert result.budget.next_cursor is None
    # and the budget it states is enough for the full page (with the row when one is left).
    needed = result.budget.next_row_codepoints
    assert needed is not None and needed > MIN_BUDGET
    full = page(rows, needed, None, query=query)
    assert not full.budget.abbreviated and full.query == query
    assert full.rows == rows and full.budget.used_codepoints <= needed


@given(
    rows=row_lists,
    budget=st.integers(min_value=MIN_BUDGET, max_value=1500),
    query_chars=st.integers(min_value=0, max_value=2000),
)
@example(rows=[Row(key="n0", text="a" * 100)], budget=MIN_BUDGET, query_chars=300)
def test_no_page_exceeds_its_budget_at_any_size_of_envelope(
    rows: list[Row], budget: int, query_chars: int
) -> None:
    # Given any result, any envelope and any budget from the minimum up, every page the host
    # reaches (following cursors) is within the budget and states its own size.
    result = page(rows, budget, None, query="q" * query_chars)
    seen = 0
    while True:
        assert result.budget.used_codepoints == result_codepoints(result) <= budget
        assert result.budget.status == "BUDGET_TRUNCATED" or not result.budget.abbreviated
        cursor = result.budget.next_cursor
        seen += 1
        if cursor is None or seen > len(rows):
            break
        result = page(rows, budget, cursor, query="q" * query_chars)


def test_a_page_without_rows_that_states_its_limit_still_fits() -> None:
    # Given an envelope that fits the budget only without the limit's own fields (the
    # 500 → 516 of list_sources in issue 23),
    rows = [Row(key="n0", text="x" * 2000)]
    for budget in range(MIN_BUDGET, 800):
        # when no row fits,
        result = page(rows, budget, None, query="q" * 250)
        # then the page, limit fields included, is within the budget.
        assert result.budget.used_codepoints == result_codepoints(result) <= budget, budget
        assert result.budget.limit == "response_budget" and result.rows == []


# --- issue 23 item 13: the limits the mutation run of tanda/knowledge found untested --------


def test_a_page_exactly_the_budget_holds_its_rows_and_one_code_point_less_holds_fewer() -> None:
    rows = [Row(key=f"n{i}", text="x" * 200) for i in range(4)]
    # the smallest budget two rows fit in is the size of their page, exactly
    exact = next(b for b in range(300, 3000) if len(page(rows, b, None).rows) == 2)
    at_limit = page(rows, exact, None)
    assert [r.key for r in at_limit.rows] == ["n0", "n1"]
    assert at_limit.budget.used_codepoints == result_codepoints(at_limit) == exact
    assert [r.key for r in page(rows, exact - 1, None).rows] == ["n0"]
    # a budget with room to spare returns every row, and says how many
    whole = page(rows, 10**6, None).budget
    assert (whole.returned, whole.total, whole.status) == (4, 4, "COMPLETE")
    assert at_limit.budget.returned == 2


def test_the_budget_a_row_needs_is_exactly_the_smallest_it_fits_in() -> None:
    rows = [Row(key="n0", text="a"), Row(key="n1", text="b" * 2000)]
    first = page(rows, 1000, None)
    refused = page(rows, 1000, first.budget.next_cursor)
    needed = refused.budget.next_row_codepoints
    assert needed is not None
    fits = page(rows, needed, first.budget.next_cursor)
    assert [r.key for r in fits.rows] == ["n1"]
    assert fits.budget.used_codepoints == needed
    assert page(rows, needed - 1, first.budget.next_cursor).rows == []


def test_an_abbreviated_page_exactly_the_budget_is_given_and_one_less_is_a_bug_named_by_size() -> (
    None
):
    rows = [Row(key="n0", text="a")]
    long_query = "q" * 3000
    with pytest.raises(BudgetTooSmall) as small:
        page(rows, 10, None, query=long_query)
    assert str(small.value) == f"an abbreviated page needs {small.value.needed} code points"
    # with a budget of three digits the page states one digit more than with 10
    smallest = next(b for b in range(100, 1000) if _fits(rows, b, long_query))
    at_limit = page(rows, smallest, None, query=long_query)
    assert at_limit.budget.abbreviated is True
    assert at_limit.budget.used_codepoints == result_codepoints(at_limit) == smallest
    with pytest.raises(BudgetTooSmall) as below:
        page(rows, smallest - 1, None, query=long_query)
    assert below.value.needed == smallest
    # it returns no row, and says the budget the page with the next row needs, exactly
    assert (at_limit.rows, at_limit.budget.returned) == ([], 0)
    needed = at_limit.budget.next_row_codepoints
    assert needed is not None
    assert [r.key for r in page(rows, needed, None, query=long_query).rows] == ["n0"]
    assert page(rows, needed - 1, None, query=long_query).rows == []


def _fits(rows: list[Row], budget: int, query: str) -> bool:
    try:
        page(rows, budget, None, query=query)
    except BudgetTooSmall:
        return False
    return True


def test_a_cursor_binds_the_context_whatever_the_order_of_its_keys() -> None:
    binding = context_binding("acme", "search", {"query": "q", "scope": {"a": 1, "b": [2]}})
    assert binding == context_binding("acme", "search", {"scope": {"b": [2], "a": 1}, "query": "q"})
    others = {
        context_binding("acme", "search", {"query": "r", "scope": {"a": 1, "b": [2]}}),
        context_binding("other", "search", {"query": "q", "scope": {"a": 1, "b": [2]}}),
        context_binding("acme", "list_sources", {"query": "q", "scope": {"a": 1, "b": [2]}}),
    }
    assert binding not in others and len(others) == 3


def test_every_cursor_round_trips_whatever_its_length_or_last_character() -> None:
    # Base64 ends in any of its 64 characters and needs 0–2 padding characters: all resume.
    keys = [f"row-{'k' * (i % 7)}-{i}" for i in range(300)]
    for end in range(1, 301):
        for binding in (BINDING, context_binding("t", "search", {"query": "é" * (end % 5)})):
            assert resume_offset(encode_cursor(binding, end, keys[end - 1]), binding, keys) == end


def test_a_cursor_of_any_offset_decodes_to_it() -> None:
    # the payload's length changes with the offset's digits: every padding of base64 occurs
    for digits in range(1, 16):
        offset = int("7" * digits)
        assert decode_cursor(encode_cursor(BINDING, offset, "n0"), BINDING).offset == offset


def test_a_cursor_at_the_end_of_the_result_resumes_there() -> None:
    keys = [r.key for r in ROWS]
    cursor = encode_cursor(BINDING, len(keys), keys[-1])
    assert resume_offset(cursor, BINDING, keys) == len(keys)
    with pytest.raises(StaleCursor):
        resume_offset(cursor, BINDING, keys[:-1])


def forged(payload: object, pad_to: int | None = None) -> str:
    text = json.dumps(payload)
    if pad_to is not None:  # spaces JSON ignores, to reach an exact cursor length
        while len(CURSOR_PREFIX) + len(base64.urlsafe_b64encode(text.encode())) < pad_to:
            text += " "
    token = base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii")
    return CURSOR_PREFIX + token


def test_a_forged_cursor_is_invalid_and_a_long_one_is_refused_past_512_characters() -> None:
    keys = [r.key for r in ROWS]
    good = {"b": BINDING, "o": 1, "r": row_digest(keys[0])}
    for bad in (
        {**good, "r": 5},
        {**good, "b": 5},
        {**good, "o": 0},
        {**good, "o": True},
        {
            **good,
            "o": "1",
        },
    ):
        with pytest.raises(InvalidCursor):
            resume_offset(forged(bad), BINDING, keys)
    for length in (511, 512):
        cursor = forged(good, pad_to=length)
        assert len(cursor) in (length, length + 1) and len(cursor) <= 512
        assert resume_offset(cursor, BINDING, keys) == 1
    long = forged(good, pad_to=513)
    assert len(long) > 512
    with pytest.raises(InvalidCursor):
        resume_offset(long, BINDING, keys)
