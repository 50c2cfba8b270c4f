"""The agent's tools under their deadline (V2-19): a failed search is the status ``error``, a
search still running at its deadline is the status ``timeout``; neither fails the request."""

from __future__ import annotations

import json

import pytest

from tanda.agent.tools import AgentTools, newest_documents, unreadable_call
from tanda.contract.common import WireModel
from tanda.contract.frames import ToolFinishedFrame
from tanda.records.documents import Document, LegalIdentity, SearchScope
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


def dated(doc_id: str, year: int | None, indexed_at: str | None = None) -> Document:
    return Document(
        document_id=doc_id,
        tenant_id="acme",
        title=doc_id,
        source=f"{doc_id}.pdf",
        content_hash=doc_id,
        identity=LegalIdentity(year=year),
        indexed_at=indexed_at,
    )


def test_the_newest_six_of_the_cited_documents_are_preferred_newest_first() -> None:
    # Given eight cited documents of different years, one without a year, one no longer held
    documents = [dated(f"d-{year}", year) for year in (2016, 2019, 2023, 2017, 2021, 2018, 2020)]
    documents.append(dated("d-undated", None))
    cited = ["d-undated", "d-gone", *(d.document_id for d in documents[:-1])]
    # When the agent's tools rank them (V2-22)
    preferred = newest_documents(cited, documents)
    # Then the six newest by year come first, newest first; undated and missing ones drop out
    assert preferred == ["d-2023", "d-2021", "d-2020", "d-2019", "d-2018", "d-2017"]


def test_documents_of_one_year_are_ranked_by_when_the_index_stored_them_then_by_citation() -> None:
    documents = [
        dated("a", 2022, "2026-01-01T00:00:00Z"),
        dated("b", 2022, "2026-03-01T00:00:00Z"),
        dated("c", 2022),
        dated("d", 2022),
    ]
    assert newest_documents(["d", "c", "a", "b"], documents) == ["b", "a", "d", "c"]


def test_the_agents_search_prefers_only_the_six_newest_documents_the_answer_cited() -> None:
    # Given seven cited documents, one a year, each holding the searched words
    scratch, index = InMemorySearchIndex(), InMemorySearchIndex()
    for year in range(2017, 2024):
        add_qanun(scratch, "acme", doc_id=f"q-{year}", texts=[f"Anggaran pendidikan {year}."])
        index.upsert_document(dated(f"q-{year}", year), scratch.document_chunks(SCOPE, f"q-{year}"))
    cited = [f"q-{y}" for y in range(2017, 2024)]
    tools, _ = tools_over(index, preferred_documents=cited)
    # When the agent searches (six results)
    tools.run("search", {"query": "anggaran pendidikan"}, "call_1")
    # Then what it is shown comes from the six newest cited documents, not the oldest (V2-22)
    shown = {p.citation.document_id for p in tools.passages.values()}
    assert shown == {f"q-{y}" for y in range(2018, 2024)}
