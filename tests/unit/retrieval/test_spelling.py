"""A query term no document of the tenant holds, searched as the tenant's nearest term (issue 22,
V2-19): the one rule every engine behind the SearchIndex port applies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hypothesis import given
from hypothesis import strategies as st

from tanda.retrieval.edits import one_edit, one_edit_apart, one_edit_before
from tanda.retrieval.spelling import corrected, corrections, near_term_keys


class Vocabulary:
    """One tenant's document frequencies; records every term it was asked about."""

    def __init__(self, **frequencies: int) -> None:
        self.frequencies = frequencies
        self.asked: list[str] = []

    def __call__(self, terms: Sequence[str]) -> Mapping[str, int]:
        self.asked += terms
        return {t: self.frequencies[t] for t in terms if t in self.frequencies}


def test_a_term_the_tenant_does_not_hold_is_searched_as_its_nearest_term() -> None:
    tenant = Vocabulary(stalagmit=1, gua=4, bentuk=2)
    assert corrected(["stalakmit", "gua"], tenant) == ["stalagmit", "gua"]
    assert corrections(["homeostatis"], Vocabulary(homeostasis=1)) == {
        "homeostatis": ("homeostasis",)
    }


def test_each_kind_of_one_letter_edit_is_corrected() -> None:
    tenant = Vocabulary(stalagmit=1)
    for typo in ("stalakmit", "stalagmt", "stalaggmit", "stalgamit"):  # changed, dropped,
        assert corrections([typo], tenant) == {typo: ("stalagmit",)}  # added, swapped


def test_the_candidate_the_tenant_holds_most_often_is_chosen() -> None:
    tenant = Vocabulary(tahanan=2, tahunan=9, tanahan=1)
    assert corrections(["tahinan"], tenant) == {"tahinan": ("tahunan",)}


def test_candidates_tied_at_the_highest_frequency_are_all_searched_at_most_three() -> None:
    # All four one letter from "kerqas", as often; "kentas" is two letters away.
    tenant = Vocabulary(kertas=3, keras=3, kerjas=3, kerlas=3, kentas=9)
    assert corrections(["kerqas"], tenant) == {"kerqas": ("keras", "kerjas", "kerlas")}


def test_a_term_the_tenant_holds_is_never_touched_however_rare() -> None:
    tenant = Vocabulary(stalakmit=1, stalagmit=50)
    assert corrected(["stalakmit"], tenant) == ["stalakmit"]
    assert tenant.asked == ["stalakmit"]  # nothing else was looked up


def test_short_words_numbers_codes_and_question_words_are_never_corrected() -> None:
    # Every one of them has a neighbour one letter away that the tenant holds.
    tenant = Vocabulary(pajak=5, gunung=5, kapal=5, **{"2022": 5, "b12x": 5, "covid19": 5})
    terms = ["pajk", "2023", "b12y", "covid18", "kapan", "bagaimana"]
    assert corrected(terms, tenant) == terms
    assert tenant.asked == []


def test_the_first_letter_is_never_the_one_changed() -> None:
    tenant = Vocabulary(karna=7, wangi=2)
    assert corrections(["warna"], tenant) == {}  # not "karna": a different first letter
    assert all(variant[0] == "w" for variant in one_edit("warna"))


def test_a_term_without_a_candidate_stays_and_matches_nothing() -> None:
    assert corrected(["zzzzqq", "gua"], Vocabulary(gua=1)) == ["zzzzqq", "gua"]


def test_another_tenants_words_never_count() -> None:
    # The rule sees only the document frequencies it is handed: each engine hands it the
    # searched tenant's own (tests/integration/test_sqlite_index.py, test_opensearch_index.py).
    mine, theirs = Vocabulary(stalagmit=1), Vocabulary(stalakmix=40, stalagmit=0)
    assert corrected(["stalakmit"], mine) == ["stalagmit"]
    assert corrected(["stalakmit"], theirs) == ["stalakmix"]


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzçşğıöü", min_size=2, max_size=9))
def test_every_candidate_is_one_damerau_edit_away_and_never_the_term(term: str) -> None:
    for variant in one_edit(term):
        assert variant != term and variant[0] == term[0]
        assert _damerau(term, variant) == 1


def _damerau(a: str, b: str) -> int:
    """Optimal string alignment distance (a check independent of how ``one_edit`` builds)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def test_a_defined_terms_key_is_near_the_keys_one_letter_from_one_of_its_words() -> None:
    near = near_term_keys("data pribadii")
    assert "data pribadi" in near  # a doubled letter dropped
    assert "data pribadii" not in near
    assert all(key.startswith("data ") for key in near)  # "data" is too short to be touched
    assert "pengendalian" not in near_term_keys("pengendali")  # another form, not a typo
    assert "pengendali" not in near_term_keys("pengendalian")
    assert "stalagmit" in near_term_keys("stalakmit")
    assert near_term_keys("uu 27/2022") == ()


@given(st.sampled_from(["stalakmit", "homeostatis", "kewajban", "pengendalli", "oyuncus"]))
def test_an_engine_reading_the_neighbours_at_once_corrects_as_lookups_do(term: str) -> None:
    # Issue 28: an engine may read a term's one-edit neighbours in one walk of its dictionary
    # (``Neighbours``); the rule, and so what is chosen, is the same as looked up one by one.
    held = {c: 1 + (len(c) * 7 + ord(c[-1])) % 5 for c in one_edit(term)[::37]}
    tenant = Vocabulary(**held, gua=3)
    walked: list[str] = []

    def neighbours(asked: str) -> Mapping[str, int]:
        walked.append(asked)
        return {c: held[c] for c in one_edit(asked) if c in held}

    assert corrections([term, "gua"], tenant, neighbours) == corrections([term, "gua"], tenant)
    assert walked == [term]


@given(
    st.text(alphabet="abcdeklmnrstuçğış", min_size=2, max_size=10),
    st.text(alphabet="abcdeklmnrstuçğışéü", min_size=1, max_size=11),
    st.integers(min_value=1, max_value=4),
)
def test_a_walk_and_the_lookups_read_exactly_the_one_edit_candidates(
    term: str, other: str, kept: int
) -> None:
    # Issue 28: an engine walks its terms beginning with a term's first letters, keeping those
    # one edit apart, and looks up the candidates an edit of those letters makes: together, every
    # candidate of one_edit and nothing else.
    candidates = set(one_edit(term))
    before = one_edit_before(term, kept)
    assert set(before) == {c for c in candidates if not c.startswith(term[:kept])}
    for word in (other, term[:kept] + other, *list(candidates)[::7]):
        if word.startswith(term[:kept]):
            assert one_edit_apart(term, word) == (word in candidates)
