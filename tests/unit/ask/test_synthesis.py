"""``AskSynthesis`` with the scripted model (ASK-03, ASK-04, ASK-05, ASK-07, ASK-10)."""

from __future__ import annotations

from typing import Any

import pytest

from tanda.adapters.scripted import AskScript, Scenario, ScriptedModel
from tanda.ask.context import number_sources
from tanda.ask.lang import NOT_FOUND_ANSWER, TRUNCATION_WARNING
from tanda.ask.run import AskSynthesis
from tanda.errors import RagUnavailable
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole
from tanda.records.documents import Chunk

QUESTION = "Ödeme vadesi nedir?"
SOURCES = number_sources(
    [
        Chunk(
            chunk_id=f"c{n}",
            document_id="fatura-42",
            tenant_id="t",
            ordinal=n,
            title="Fatura 42",
            page_no=n + 1,
            section="Ödeme Koşulları",
            text=text,
        )
        for n, text in enumerate(["Ödeme vadesi 30 gündür.", "Teslim süresi 5 gündür."])
    ]
)


class Recording:
    def __init__(self, model: Any) -> None:
        self.model = model
        self.requests: list[ChatRequest] = []

    name = "recording"

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        response: ChatResponse = self.model.complete(request)
        return response


def scripted(**ask: Any) -> Recording:
    return Recording(ScriptedModel({"default": Scenario(ask=AskScript(**ask))}))


def synthesis(model: Any, **overrides: Any) -> AskSynthesis:
    options: dict[str, Any] = {"narrow_tokens": 512, "list_tokens": 2048, "deadline_s": 5.0}
    options.update(overrides)
    return AskSynthesis(model, **options)


@pytest.mark.parametrize("lang", ["tr", "id", "en"])
def test_no_source_is_the_fixed_answer_without_any_model_call(lang: Any) -> None:
    # Given a model that would fail if called, and no source,
    model = scripted(fail="http_500")

    # when asked, then the fixed answer in the answer's language comes back, no call made.
    outcome = synthesis(model).run(QUESTION, [], lang)
    assert outcome.answer == NOT_FOUND_ANSWER[lang]
    assert (outcome.cited, outcome.model_calls, outcome.truncated) == ((), 0, False)
    assert model.requests == []


def test_no_source_needs_no_model_at_all() -> None:
    assert synthesis(None).run(QUESTION, [], "tr").model_calls == 0


def test_one_call_role_ask_at_temperature_0_1_with_the_context_blocks() -> None:
    model = scripted(answer="Ödeme vadesi 30 gündür [S1].")
    outcome = synthesis(model).run(QUESTION, SOURCES, "id")

    (request,) = model.requests
    assert request.role is ModelRole.ask
    assert request.temperature == 0.1
    assert request.max_tokens == 512
    system, user = request.messages
    assert system.role == "system" and "Indonesian" in system.content
    assert user.content.startswith(
        "[S1] [Kaynak: belge=Fatura 42, sayfa=1, bolum=Ödeme Koşulları]\nÖdeme vadesi 30 gündür."
        "\n---\n[S2] [Kaynak: belge=Fatura 42, sayfa=2, bolum=Ödeme Koşulları]"
    )
    assert user.content.endswith(QUESTION)
    assert outcome.answer == "Ödeme vadesi 30 gündür [S1]."
    assert (outcome.cited, outcome.invalid_citations, outcome.model_calls) == ((1,), 0, 1)


def test_a_list_question_gets_the_list_budget() -> None:
    model = scripted()
    synthesis(model).run("Tüm kalemleri listele", SOURCES, "tr")
    assert model.requests[0].max_tokens == 2048


def test_unresolved_markers_are_removed_and_counted() -> None:
    model = scripted(answer="Vade 30 gün [S1], teslim 5 gün [S7].")
    outcome = synthesis(model).run(QUESTION, SOURCES, "tr")
    assert outcome.answer == "Vade 30 gün [S1], teslim 5 gün."
    assert (outcome.cited, outcome.invalid_citations) == ((1,), 1)


def test_a_cut_answer_continues_once_where_it_stopped() -> None:
    # Given an answer cut at its budget and a continuation that completes it,
    model = scripted(
        answer="Kalemler: 1) Vida [S1], 2) Som", truncate=True, continuation="un [S2]."
    )

    # when synthesised, then two calls were made, the second resuming the first,
    outcome = synthesis(model).run("Tüm kalemleri listele", SOURCES, "tr")
    first, second = model.requests
    assert second.messages[-2].role == "assistant"
    assert second.messages[-2].content == "Kalemler: 1) Vida [S1], 2) Som"
    assert second.max_tokens == first.max_tokens == 2048

    # and the answer is whole, not truncated, with no warning.
    assert outcome.answer == "Kalemler: 1) Vida [S1], 2) Somun [S2]."
    assert (outcome.truncated, outcome.model_calls, outcome.cited) == (False, 2, (1, 2))


@pytest.mark.parametrize("lang", ["tr", "id", "en"])
def test_still_cut_after_the_continuation_is_truncated_with_a_warning_in_its_language(
    lang: Any,
) -> None:
    model = scripted(
        answer="Kalemler: 1) Vida [S1]",
        truncate=True,
        continuation=", 2) Somun [S",
        continuation_truncated=True,
    )
    outcome = synthesis(model).run("Tüm kalemleri listele", SOURCES, lang)
    assert outcome.truncated and outcome.model_calls == 2
    # The marker cut in half is dropped; the warning is the last thing the reader sees.
    assert outcome.answer == f"Kalemler: 1) Vida [S1], 2) Somun\n\n{TRUNCATION_WARNING[lang]}"
    assert outcome.cited == (1,)


def test_a_continuation_that_adds_nothing_leaves_the_answer_truncated() -> None:
    model = scripted(answer="Kalemler: 1) Vida [S1]", truncate=True, continuation=None)
    outcome = synthesis(model).run(QUESTION, SOURCES, "en")
    assert outcome.truncated
    assert outcome.answer.endswith(TRUNCATION_WARNING["en"])


@pytest.mark.parametrize("fail", ["timeout", "http_500", "http_400", "invalid"])
def test_a_failed_synthesis_is_rag_unavailable(fail: str) -> None:
    with pytest.raises(RagUnavailable) as raised:
        synthesis(scripted(fail=fail)).run(QUESTION, SOURCES, "tr")
    assert raised.value.code == "rag_unavailable"


def test_no_model_configured_is_rag_unavailable_once_there_are_sources() -> None:
    with pytest.raises(RagUnavailable):
        synthesis(None).run(QUESTION, SOURCES, "tr")


def test_a_call_slower_than_the_deadline_is_rag_unavailable() -> None:
    model = ScriptedModel(
        {"default": Scenario(latency_ms={"ask": 5000})}, sleep=lambda seconds: None
    )
    with pytest.raises(RagUnavailable):
        synthesis(model, deadline_s=1.0).run(QUESTION, SOURCES, "tr")
