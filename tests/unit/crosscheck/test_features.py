"""What the candidate channels compare of one claim (XC-4): terms, distinctive tokens, values."""

from __future__ import annotations

from tanda.crosscheck.features import claim_features, differing_values
from tests.unit.crosscheck.builders import claim
from tests.unit.crosscheck.statements import PASAL_28_2008, PASAL_29_2008, PASAL_29_2016


def test_a_penalty_clause_yields_its_provision_and_amount_and_states_its_values() -> None:
    features = claim_features(claim("d1", 0, PASAL_28_2008))

    # Pasal 28 ayat (1) atau ayat (2) names two provisions; the fine is a distinctive amount.
    assert features.tokens == {
        "ref:article=28/paragraph=1",
        "ref:article=28/paragraph=2",
        "amount:IDR:1000000000",
    }
    assert [q.surface for q in features.values] == ["6 (enam) tahun", "Rp1.000.000.000,00"]
    assert features.lang == "id"
    assert {"pidana", "denda"} <= features.terms


def test_codes_dates_and_percentages_are_tokens_and_a_code_states_no_value() -> None:
    text = "Invoice INV-2023-0042 of 31 March 2024 charges 5% on EUR 1,250.00."
    features = claim_features(claim("d1", 0, text))

    assert features.tokens == {
        "code:inv-2023-0042",
        "date:2024-3-31",
        "percent:5",
        "amount:EUR:1250",
    }
    assert [q.surface for q in features.values] == ["31 March 2024", "5%", "EUR 1,250.00"]
    assert not any(any(ch.isdigit() for ch in term) for term in features.terms)


def test_years_and_list_numbers_are_not_distinctive() -> None:
    # Every statute of 2008 says 2008, and "(3)" only numbers a list item.
    text = "(3) Undang-Undang ini mulai berlaku pada tahun 2008 bagi setiap penyelenggara."
    assert claim_features(claim("d1", 0, text)).tokens == frozenset()


def test_values_of_the_same_kind_and_unit_that_all_differ_are_differing_values() -> None:
    a = claim_features(claim("d1", 0, PASAL_29_2008))
    b = claim_features(claim("d2", 0, PASAL_29_2016))
    assert differing_values(a, b)
    assert not differing_values(a, a)
