"""XC-6: with many documents each takes part with its most important claims, within one shared
budget; a long document cannot crowd out the others."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from tanda.crosscheck.selection import fair_shares, select_claims
from tests.unit.crosscheck.builders import claim, corpus


@given(st.lists(st.integers(0, 400), min_size=1, max_size=12), st.integers(0, 2000))
@example([10, 500, 3], 100)
@example([1, 1, 1], 1)
def test_shares_fill_the_budget_fairly(sizes: list[int], budget: int) -> None:
    shares = fair_shares(sizes, budget)

    # Nobody takes more than it has, the budget is never exceeded and never wasted,
    assert all(0 <= share <= size for share, size in zip(shares, sizes, strict=True))
    assert sum(shares) == min(budget, sum(sizes))
    # and a document is cut only to a share no smaller than any other document's (±1).
    for share, size in zip(shares, sizes, strict=True):
        if share < size:
            assert all(other <= share + 1 for other in shares)


def test_a_long_document_leaves_the_short_ones_their_claims() -> None:
    assert fair_shares([10, 500, 3], 100) == [10, 87, 3]


def test_each_document_keeps_its_most_important_claims_in_document_order() -> None:
    # Given two documents of four claims and a budget of four,
    claims = [
        claim(d, n, f"Klaim {d} nomor {n} tentang anggaran.") for d in ("a", "b") for n in range(4)
    ]
    importance = {"a:c0": 0, "a:c1": 5, "a:c2": 1, "a:c3": 5, "b:c0": 2, "b:c1": 2, "b:c2": 0}

    # when the claims are selected, then each keeps its two most important (ties: the earlier),
    # back in document order.
    kept = select_claims(corpus(claims), importance, budget=4)
    assert [c.node_id for c in kept] == ["a:c1", "a:c3", "b:c0", "b:c1"]
