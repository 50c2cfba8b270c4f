"""The agent's tools under their deadline (V2-19): a failed search is the status ``error``, a
search still running at its deadline is the status ``timeout``; neither fails the request."""

from __future__ import annotations

import json

import pytest

from tanda.agent.tools import AgentTools, unreadable_call
from tanda.contract.common import WireModel
from tanda.contract.frames import ToolFinishedFrame
from tanda.records.documents import SearchScope
from tests.corpus import add_qanun
from tests.fakes import FaultySearchIndex, InMemorySearchIndex

SCOPE = SearchScope(tenant_id="acme")


@pytest.fixture
def corpus() -> InMemorySearchIndex:
    index = InMemorySearchIndex()
    add_qanun(index, "acme")
    return index


def tools_over(index: object, **options: object) -> tuple[AgentTools, list[WireModel]]:
    frames: list[WireModel] = []
    tools = AgentTools(index, SCOPE, on_event=frames.append, **options)  # type: ignore[arg-type]
    return tools, frames


def finished(frames: list[WireModel]) -> list[str]:
    return [f.status for f in frames if isinstance(f, ToolFinishedFrame)]


def test_a_search_that_raises_is_the_error_status_and_the_agent_is_told(
    corpus: InMemorySearchIndex,
) -> None:
    # Given an index whose search fails,
    tools, frames = tools_over(FaultySearchIndex(corpus, fail=True))

    # when the agent searches, then the call ends with status error (not an exception),
    outcome = tools.run("search", {"query": "anggaran pendidikan"}, "call_1")
    assert (outcome.status, outcome.new_passages) == ("error", [])
    assert json.loads(outcome.content) == {"error": "the tool failed"}
    # the audit and the live frame say so, and no key was given out.
    assert [(a.tool, a.status) for a in tools.audit] == [("search", "error")]
    assert finished(frames) == ["error"]
    assert tools.passages == {}


def test_a_search_still_running_at_its_deadline_is_the_timeout_status(
    corpus: InMemorySearchIndex,
) -> None:
    # Given a search that hangs until released, and a tool deadline of 50 ms,
    index = FaultySearchIndex(corpus, hang=True)
    tools, frames = tools_over(index, call_timeout_s=0.05)
    try:
        # when the agent searches, then the call returns before the search does, as timeout,
        outcome = tools.run("search", {"query": "anggaran pendidikan"}, "call_1")
        assert index.finished == 0
        assert (outcome.status, outcome.new_passages) == ("timeout", [])
        assert "deadline" in json.loads(outcome.content)["error"]
        assert finished(frames) == ["timeout"]
        assert [a.status for a in tools.audit] == ["timeout"]
    finally:
        index.release.set()


def test_what_a_search_reads_after_its_deadline_is_never_shown(
    corpus: InMemorySearchIndex,
) -> None:
    # Given a search abandoned at its deadline,
    index = FaultySearchIndex(corpus, hang=True)
    tools, _ = tools_over(index, call_timeout_s=0.05)
    assert tools.run("search", {"query": "anggaran pendidikan"}).status == "timeout"

    # when it finishes later, then it gave out no key: the next search's passage is P1.
    index.release.set()
    index.hang = False
    outcome = tools.run("search", {"query": "anggaran pendidikan"})
    assert outcome.status == "ok"
    assert [p.key for p in outcome.new_passages] == ["P1"]
    assert list(tools.passages) == ["P1"]


def test_no_tool_call_runs_past_the_agents_own_deadline(corpus: InMemorySearchIndex) -> None:
    # Given tools whose agent deadline has already passed (a long tool deadline notwithstanding),
    index = FaultySearchIndex(corpus)
    now = 100.0
    tools, frames = tools_over(index, call_timeout_s=30.0, until=now - 1, clock=lambda: now)

    # when the agent searches, then the search is not even started: timeout.
    assert tools.run("search", {"query": "anggaran"}).status == "timeout"
    assert index.searches == 0
    assert finished(frames) == ["timeout"]


def test_a_search_within_its_deadline_shows_its_passages(corpus: InMemorySearchIndex) -> None:
    tools, frames = tools_over(corpus, call_timeout_s=5.0)
    outcome = tools.run("search", {"query": "anggaran pendidikan"})
    assert outcome.status == "ok"
    assert [p.key for p in outcome.new_passages] == ["P1"]
    assert finished(frames) == ["ok"]


def test_the_unreadable_call_is_the_last_one_when_none_returned_anything(
    corpus: InMemorySearchIndex,
) -> None:
    # Given an empty search and then a failed one,
    index = FaultySearchIndex(corpus)
    tools, _ = tools_over(index)
    assert unreadable_call(tools) is None  # no tool ran: nothing to report
    tools.run("search", {"query": "zzzz"})
    index.fail = True
    tools.run("search", {"query": "anggaran"})

    # then the 404 names the last call and its status,
    last = unreadable_call(tools)
    assert last is not None and (last.tool, last.status) == ("search", "error")
    # and once a call returns something, there is nothing to report.
    index.fail = False
    tools.run("search", {"query": "anggaran"})
    assert unreadable_call(tools) is None


# --- the reranker floor (ASK-06) ----------------------------------------------------------------

WEAK_QUERY = "belanja pegawai kesehatan jembatan pelabuhan bandara"
"""The 2022 chunk holds two of its six content words (lexical score 0.33), the 2023 chunk one
(0.17): under the default floor of 0.25 (issue 22: the score is how well a passage answers)."""


def test_a_search_result_under_the_reranker_floor_never_reaches_the_agent(
    corpus: InMemorySearchIndex,
) -> None:
    from tanda.retrieval.rerank import LexicalReranker

    # Given the lexical reranker with the floor at 0.25,
    tools, _ = tools_over(corpus, reranker=LexicalReranker(), rerank_min_score=0.25)

    # when the agent searches and the index finds both chunks,
    outcome = tools.run("search", {"query": WEAK_QUERY}, "call_1")

    # then only the one over the floor is shown and given a key; the other is not citable.
    shown = json.loads(outcome.content)["passages"]
    assert [p["text"][:15] for p in shown] == ["Belanja pegawai"]
    assert [p.citation.chunk_id for p in tools.passages.values()] == ["acme:qanun-2023#1"]


def test_with_the_floor_at_zero_the_agent_sees_every_search_result(
    corpus: InMemorySearchIndex,
) -> None:
    from tanda.retrieval.rerank import LexicalReranker

    tools, _ = tools_over(corpus, reranker=LexicalReranker(), rerank_min_score=0.0)
    tools.run("search", {"query": WEAK_QUERY}, "call_1")
    assert len(tools.passages) == 2


def test_a_failing_reranker_is_the_error_status_and_shows_nothing(
    corpus: InMemorySearchIndex,
) -> None:
    from tanda.adapters.rerankers import RerankFailed

    class Down:
        name = "down"
        reorders = True

        def score(self, query: str, passages: object) -> list[float]:
            raise RerankFailed()

    tools, frames = tools_over(corpus, reranker=Down(), rerank_min_score=0.25)
    outcome = tools.run("search", {"query": "anggaran pendidikan"}, "call_1")
    assert (outcome.status, tools.passages) == ("error", {})
    assert finished(frames) == ["error"]
