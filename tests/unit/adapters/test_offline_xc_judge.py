"""The offline model's cross-check judge (XC-4): the same attribute with different values is a
contradiction, with the same value a support, anything else none — deterministic, by
``tanda.numbers``."""

from __future__ import annotations

import json

import pytest

from tanda.adapters.offline import OfflineModel
from tanda.adapters.offline_xc_judge import judge_pair
from tanda.model_calls import ChatMessage, ChatRequest, ModelRole
from tests.unit.crosscheck.statements import (
    FRAGMENT_2008,
    PASAL_28_2008,
    PASAL_28_2016,
    PASAL_29_2008,
    PASAL_29_2016,
    UNRELATED,
)


def test_an_amended_penalty_is_a_contradiction_naming_both_values() -> None:
    verdict, explanation = judge_pair(PASAL_29_2008, PASAL_29_2016, "en")
    assert verdict == "contradiction"
    assert explanation == (
        'Both state "dipidana pidana penjara paling lama", with different values: '
        "12 (dua belas) tahun in A, 4 (empat) tahun in B."
    )


def test_a_penalty_restated_unchanged_is_a_support() -> None:
    # Pasal 28 ayat (1) is among the provisions the 2008 clause names.
    assert judge_pair(PASAL_28_2008, PASAL_28_2016, "id")[0] == "support"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (PASAL_29_2008, PASAL_28_2016),  # different provisions
        (FRAGMENT_2008, PASAL_29_2016),  # a fragment naming no provision
        (PASAL_29_2008, UNRELATED),  # no number in common
        (
            "Pendapatan Daerah tahun 2022 sebesar Rp 30,5 triliun.",
            "Pendapatan Daerah tahun 2023 sebesar Rp 32 triliun.",
        ),  # another year's figure
        (
            "Disahkan di Jakarta pada tanggal 21 April 2008.",
            "Disahkan di Jakarta pada tanggal 25 November 2016.",
        ),  # each law's own date
        ("The invoice total is EUR 1,250.00.", "A payment of EUR 1,300.00 was received."),
    ],
)
def test_different_facts_are_none(a: str, b: str) -> None:
    assert judge_pair(a, b, "en") == ("none", "")


def test_the_explanation_is_in_the_jobs_language_and_the_values_stay_verbatim() -> None:
    assert judge_pair(PASAL_29_2008, PASAL_29_2016, "tr")[1] == (
        'İkisi de "dipidana pidana penjara paling lama" için farklı değer veriyor: '
        "A'da 12 (dua belas) tahun, B'de 4 (empat) tahun."
    )
    assert "12 (dua belas) tahun di A" in judge_pair(PASAL_29_2008, PASAL_29_2016, "id")[1]


def test_the_offline_model_names_the_two_claims_it_was_shown() -> None:
    request = ChatRequest(
        role=ModelRole.xc_judge,
        messages=[ChatMessage(role="user", content="…")],
        items=[
            {
                "lang": "en",
                "a": {"id": "uu11:c1", "statement": PASAL_29_2008},
                "b": {"id": "uu19:c0", "statement": PASAL_29_2016},
            }
        ],
    )
    reply = json.loads(OfflineModel().complete(request).content or "")
    assert (reply["verdict"], reply["a"], reply["b"]) == ("contradiction", "uu11:c1", "uu19:c0")


# --- a label and its value ("Amount due: 851.78 NOK": invoices, tables; docs/invoices.md) -------


def test_two_values_under_one_label_contradict() -> None:
    verdict, explanation = judge_pair("Amount due: 801.78 NOK", "Amount due: 851.78 NOK", "en")
    assert verdict == "contradiction"
    assert explanation == (
        'Both state "Amount due", with different values: 801.78 in A, 851.78 in B.'
    )


def test_one_value_under_one_label_supports() -> None:
    assert judge_pair("Amount due: 851.78 NOK", "Amount due: 851.78 NOK", "en")[0] == "support"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # A label is a name: its small words tell two totals apart.
        ("Total VAT: 675.00 NOK", "Total with VAT: 4675.00 NOK"),
        ("Total VAT: 675.00 NOK", "Amount due: 851.78 NOK"),
    ],
)
def test_values_under_different_labels_are_unrelated(a: str, b: str) -> None:
    assert judge_pair(a, b, "en")[0] == "none"
