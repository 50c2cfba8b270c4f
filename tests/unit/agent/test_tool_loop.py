"""The agent as a component (V2-03, V2-17, V2-22, V2-23): its config, and ``Agent.run`` over the
scripted model and real tools."""

from __future__ import annotations

import pytest

from tanda.adapters.scripted import ScriptedModel
from tanda.agent.tool_loop import Agent, AgentResult, is_reasked
from tanda.agent.tool_loop import instructions as output_instructions
from tanda.agent.tools import AgentTools
from tanda.contract.common import FallbackReason
from tanda.model_calls import ChatMessage, ChatRequest, ChatResponse
from tanda.model_calls.budget import ModelLedger, RequestBudget
from tanda.records.documents import SearchScope
from tests.corpus import QUESTION, add_qanun
from tests.fakes import InMemorySearchIndex, ManualClock
from tests.unit.pipeline.conftest import SCENARIOS


class Recording:
    """The scripted model, recording every request."""

    name = "recording"

    def __init__(self) -> None:
        self.inner = ScriptedModel.from_dir(SCENARIOS)
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return self.inner.complete(request)


def run(
    agent: Agent, model: object, *, calls: int = 10, scenario: str = "default", **options: object
) -> tuple[AgentResult, AgentTools]:
    index = InMemorySearchIndex()
    add_qanun(index, "acme")
    clock = ManualClock()
    ledger = ModelLedger(
        model,  # type: ignore[arg-type]
        RequestBudget.starting_now(30.0, calls, clock=clock),
        scenario=scenario,
    )
    tools = AgentTools(index, SearchScope(tenant_id="acme"), clock=clock)
    result = agent.run(
        ledger,
        tools,
        QUESTION,
        until=ledger.budget.deadline,
        reserve_calls=0,
        **options,  # type: ignore[arg-type]
    )
    return result, tools


@pytest.mark.parametrize(
    "config",
    [{"instructions": "agent_poems"}, {"max_tool_rounds": -1}],
)
def test_an_agent_with_an_invalid_config_is_refused_when_built(config: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Agent(**config)  # type: ignore[arg-type]


def test_the_agent_searches_then_answers_with_its_segments() -> None:
    # Given the default scenario (one search, then the answer)
    model = Recording()
    result, tools = run(Agent(), model)
    # then the segments come back, with the tool round counted and its passage keyed P1
    assert [s.text for s in result.segments] == [
        "Berikut datanya.",
        "Anggaran pendidikan 2023 adalah Rp 5 miliar.",
    ]
    assert result.tool_rounds == 1 and result.fallback is None
    assert list(tools.passages) == ["P1"]
    assert [r.tools is not None for r in model.requests] == [True, True]


@pytest.mark.parametrize("instructions", ["agent_segments", "agent_sentences"])
def test_the_instructions_follow_the_editorial_part_which_alone_is_replaceable(
    instructions: str,
) -> None:
    # Given a candidate editorial prompt (the playground, PG-3)
    model = Recording()
    run(Agent(instructions=instructions), model, editorial_prompt="Jawab singkat.")  # type: ignore[arg-type]
    # then the system message is that prompt, then the instructions the agent was built with
    system = model.requests[0].messages[0].content
    assert system == "Jawab singkat.\n\n" + output_instructions(instructions)  # type: ignore[arg-type]


def test_the_segment_instructions_carry_the_not_found_notice_of_every_language() -> None:
    # Issue 22: any model publishes the same sentence the offline agent does, which readers and
    # `tanda eval answers` recognise.
    from tanda.not_found import NOT_FOUND_NOTICE

    text = output_instructions("agent_segments")
    assert "{not_found_notices}" not in text
    assert all(notice in text for notice in NOT_FOUND_NOTICE.values())


def test_an_agent_without_tool_rounds_is_offered_no_tool() -> None:
    model = Recording()
    run(Agent(max_tool_rounds=0), model)
    assert model.requests[0].tools is None


def test_an_agent_out_of_calls_is_query_budget_exhausted() -> None:
    result, _ = run(Agent(), Recording(), calls=1)
    assert result.fallback is FallbackReason.query_budget_exhausted


@pytest.mark.parametrize(
    ("earlier", "reasked"),
    [
        (QUESTION, True),
        (f"  {QUESTION.lower()}\n", True),
        (QUESTION.rstrip("?") + " ?!", True),
        ("Berapa anggaran kesehatan Aceh tahun 2023?", False),
        ("Berapa anggaran pendidikan Aceh tahun 2023 menurut Qanun?", False),
    ],
)
def test_a_follow_up_is_re_asked_when_it_repeats_an_earlier_question(
    earlier: str, reasked: bool
) -> None:
    history = [
        ChatMessage(role="user", content=earlier),
        ChatMessage(role="assistant", content=QUESTION),
    ]
    assert is_reasked(QUESTION, history) is reasked


def test_an_earlier_answer_repeating_the_question_does_not_make_it_re_asked() -> None:
    # Only the user's own questions count; the assistant's words never do.
    assert not is_reasked(QUESTION, [ChatMessage(role="assistant", content=QUESTION)])
    assert not is_reasked(QUESTION, [])
