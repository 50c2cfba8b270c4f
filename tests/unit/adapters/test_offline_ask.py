"""The offline model's ``ask`` role: extractive, ``[S#]`` on each sentence it picks, its own words
in the requested language, within the call's output budget (ASK-04, ASK-07, ASK-10)."""

from __future__ import annotations

from typing import Any

import pytest

from tanda.adapters.offline import CHARS_PER_TOKEN, LEAD_IN, OfflineModel
from tanda.model_calls import ChatMessage, ChatRequest, ModelRole
from tanda.not_found import ASK_NOT_FOUND

SOURCES = [
    {"source_no": 1, "text": "Teslim süresi 5 iş günüdür. Kargo ücreti alıcıya aittir."},
    {"source_no": 2, "text": "Ödeme vadesi fatura tarihinden itibaren 30 gündür."},
]


def ask(question: str, lang: str, max_tokens: int | None = None, **item: Any) -> Any:
    request = ChatRequest(
        role=ModelRole.ask,
        messages=[ChatMessage(role="user", content=question)],
        max_tokens=max_tokens,
        items=[{"question": question, "lang": lang, "sources": SOURCES, **item}],
    )
    return OfflineModel().complete(request)


@pytest.mark.parametrize("lang", ["tr", "id", "en"])
def test_it_quotes_the_best_sentence_with_its_marker_and_speaks_the_language(lang: str) -> None:
    reply = ask("Ödeme vadesi kaç gündür?", lang)
    lead, *lines = reply.content.split("\n")
    assert lead == LEAD_IN[lang]
    # The quote stays verbatim, in Turkish, whatever the answer's language (ASK-07).
    assert "- Ödeme vadesi fatura tarihinden itibaren 30 gündür. [S2]" in lines
    assert reply.finish_reason == "stop"


@pytest.mark.parametrize("lang", ["tr", "id", "en"])
def test_nothing_relevant_is_the_not_found_answer_of_ask_03_without_markers(lang: str) -> None:
    reply = ask("Siapa direktur utama?", lang)
    assert reply.content == ASK_NOT_FOUND[lang]
    assert "[S" not in reply.content


def test_it_keeps_to_the_budget_and_continues_where_it_stopped() -> None:
    whole = ask("Ödeme vadesi ve teslim süresi nedir?", "tr").content
    first = ask("Ödeme vadesi ve teslim süresi nedir?", "tr", max_tokens=10)
    assert first.finish_reason == "length"
    assert first.content == whole[: 10 * CHARS_PER_TOKEN]
    rest = ask(
        "Ödeme vadesi ve teslim süresi nedir?",
        "tr",
        max_tokens=100,
        answer_so_far=first.content,
    )
    assert rest.finish_reason == "stop"
    assert first.content + rest.content == whole


def test_an_evidence_item_follows_the_passage_that_answers_and_never_replaces_it() -> None:
    # Issue 22: an evidence item is a piece of a passage read without the words around it; on
    # its own it is no answer (an IDK-MRC question whose passage does not answer was "answered"
    # by an entity item sharing its words).
    item = {
        "source_no": 2,
        "kind": "entity",
        "text": "DATE: Hari Nasional Perancis dirayakan = 14 Juli",
    }
    elsewhere = {"source_no": 1, "text": "Perancis adalah sebuah negara di Eropa Barat."}
    alone = ask("Kapan Hari Nasional Perancis dirayakan?", "id", sources=[elsewhere, item])
    assert alone.content == ASK_NOT_FOUND["id"]
    answering = {
        "source_no": 1,
        "text": "Hari Nasional Perancis dirayakan setiap tanggal 14 Juli.",
    }
    both = ask("Kapan Hari Nasional Perancis dirayakan?", "id", sources=[answering, item])
    lines = both.content.split("\n")[1:]
    assert lines == [
        "- Hari Nasional Perancis dirayakan setiap tanggal 14 Juli. [S1]",
        "- DATE: Hari Nasional Perancis dirayakan = 14 Juli [S2]",
    ]
