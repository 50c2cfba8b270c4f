"""The policy guard as a component, ``PolicyGuard`` (V2-13): it reads the whole composed answer,
and it fails closed — when it cannot answer, ``GuardUnavailable`` stops the answer from being
published."""

from __future__ import annotations

import pytest

from tanda.adapters.scripted import GuardScript, Scenario, ScriptedModel
from tanda.guard.policy_guard import GuardUnavailable, PolicyGuard
from tanda.model_calls.budget import ModelLedger, RequestBudget
from tests.fakes import NIK, ManualClock, PersonalDataGuard

# The personal data sits far past the first sentence, as in any answer longer than one line.
LONG_ANSWER = (
    "Anggaran pendidikan 2023 adalah Rp 5 miliar menurut Qanun Aceh Nomor 1 Tahun 2023.\n\n"
    f"- Kepala dinas yang menandatangani: NIK {NIK}."
)


def ledger(model: object, *, seconds: float = 10.0, calls: int = 5) -> ModelLedger:
    clock = ManualClock()
    return ModelLedger(model, RequestBudget.starting_now(seconds, calls, clock=clock))  # type: ignore[arg-type]


def guard_blocks(book: ModelLedger, answer: str) -> bool:
    return PolicyGuard().run(book, answer)


def scripted(guard: GuardScript) -> ScriptedModel:
    return ScriptedModel({"default": Scenario(guard=guard)})


@pytest.mark.parametrize("reads", ["items", "prompt"])
def test_the_guard_blocks_on_text_anywhere_in_the_answer(reads: str) -> None:
    # Given a guard that blocks personal data, and an answer that shows a NIK near its end
    assert LONG_ANSWER.index(NIK) > 100
    model = PersonalDataGuard(scripted(GuardScript()), reads=reads)  # type: ignore[arg-type]

    # When the guard checks it, then it blocks: it was shown the whole answer, not a prefix.
    assert guard_blocks(ledger(model), LONG_ANSWER) is True
    assert model.seen == [LONG_ANSWER]


@pytest.mark.parametrize("reads", ["items", "prompt"])
def test_the_guard_passes_an_answer_without_anything_to_block(reads: str) -> None:
    model = PersonalDataGuard(scripted(GuardScript()), reads=reads)  # type: ignore[arg-type]
    assert guard_blocks(ledger(model), LONG_ANSWER.replace(NIK, "tidak disebut")) is False


@pytest.mark.parametrize("block", [True, False])
def test_the_guard_decision_is_the_models(block: bool) -> None:
    assert guard_blocks(ledger(scripted(GuardScript(block=block))), LONG_ANSWER) is block


@pytest.mark.parametrize("failure", ["error", "timeout", "http_500", "invalid_json"])
def test_a_guard_that_fails_raises_instead_of_letting_the_answer_through(failure: str) -> None:
    model = scripted(GuardScript(fail=failure))  # type: ignore[arg-type]
    with pytest.raises(GuardUnavailable) as raised:
        guard_blocks(ledger(model), LONG_ANSWER)
    assert raised.value.code == "policy_guard_unavailable"


def test_a_guard_reply_without_a_decision_fails_closed() -> None:
    class NoDecision:
        name = "no-decision"

        def complete(self, request: object) -> object:
            from tanda.model_calls import ChatResponse

            return ChatResponse(content='{"category": null}')

    with pytest.raises(GuardUnavailable):
        guard_blocks(ledger(NoDecision()), LONG_ANSWER)


def test_a_guard_with_no_call_left_fails_closed() -> None:
    with pytest.raises(GuardUnavailable):
        guard_blocks(ledger(scripted(GuardScript()), calls=0), LONG_ANSWER)


def test_a_guard_after_the_deadline_fails_closed() -> None:
    with pytest.raises(GuardUnavailable):
        guard_blocks(ledger(scripted(GuardScript()), seconds=0.0), LONG_ANSWER)


def test_the_guard_asks_under_its_own_prompt_for_a_structured_decision() -> None:
    from tanda.model_calls import ChatRequest, GuardOutput, ModelRole
    from tanda.prompts import prompt

    asked: list[ChatRequest] = []
    inner = scripted(GuardScript())

    class Recording:
        name = "recording"

        def complete(self, request: ChatRequest) -> object:
            asked.append(request)
            return inner.complete(request)

    guard_blocks(ledger(Recording()), LONG_ANSWER)
    (request,) = asked
    assert request.role is ModelRole.guard
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", prompt("guard")),
        ("user", LONG_ANSWER),
    ]
    assert (request.json_schema, request.schema_name) == (GuardOutput.model_json_schema(), "guard")
    assert request.items == [{"answer": LONG_ANSWER}]
