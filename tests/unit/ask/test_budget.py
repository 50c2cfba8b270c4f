"""ASK-10: a narrow question and a request for every item do not share one output budget."""

from __future__ import annotations

import pytest

from tanda.ask.budget import asks_for_a_list, output_budget


@pytest.mark.parametrize(
    "question",
    [
        "Tüm kalemleri listele",
        "faturadaki bütün kalemler nelerdir?",
        "Kalemlerin dökümünü ver",
        "TÜM tutarları sırala",
        "Sebutkan semua item dalam faktur",
        "Daftar rincian belanja",
        "List every line item",
        "Give me a breakdown of all fees",
        "Itemize the charges",
    ],
)
def test_a_question_asking_for_every_item_gets_the_list_budget(question: str) -> None:
    assert asks_for_a_list(question)
    assert output_budget(question, narrow_tokens=512, list_tokens=2048) == 2048


@pytest.mark.parametrize(
    "question",
    [
        "Gönderici kim?",
        "Fatura toplamı nedir?",
        "Siapa pengirimnya?",
        "Who is the sender?",
        "Is the allowance taxable?",  # "all" inside a word is no cue
    ],
)
def test_a_narrow_question_gets_the_narrow_budget(question: str) -> None:
    assert not asks_for_a_list(question)
    assert output_budget(question, narrow_tokens=512, list_tokens=2048) == 512
