"""A small corpus in an in-memory index, the scripted model over tests/scenarios/, and the
in-process runner over them, on one manual clock with the pipeline: a scripted latency spends
request time exactly and no wall time (issue 12)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.scripted import Scenario, ScriptedModel
from tanda.contract import QueryV2Request
from tanda.conversations.history import History, build_history
from tanda.pipeline.request import AnswerRequest
from tanda.pipeline.runners.in_process import InProcessRunner
from tanda.pipeline.states import AnswerOutcome
from tanda.pipeline.steps import AgentPorts, ProgressSink, StepDeps
from tanda.records.conversations import MemoryItem, StoredMessage
from tanda.service.turn import asked_scope
from tanda.settings import Settings
from tests.corpus import QUESTION, add_qanun
from tests.fakes import SCENARIOS, InMemorySearchIndex, ManualClock, scripted_model

__all__ = ["SCENARIOS"]


@dataclass(frozen=True)
class PipelineDeps:
    """What one answer runs on — the index, the model, the settings, the clock, the reranker — as
    the tests vary them (``dataclasses.replace``), and the in-process runner over them."""

    index: Any
    model: Any
    settings: Settings
    clock: Callable[[], float] = time.time
    reranker: Any = None

    def step_deps(self) -> StepDeps:
        return StepDeps(model=self.model, settings=self.settings, clock=self.clock)

    def agent_ports(self, progress: ProgressSink | None = None) -> AgentPorts:
        return AgentPorts(index=self.index, reranker=self.reranker, progress=progress)

    def runner(self) -> InProcessRunner:
        return InProcessRunner(self.step_deps(), self.agent_ports())

    def request(
        self, body: QueryV2Request | str, *, tenant_id: str = "acme", **turn: Any
    ) -> AnswerRequest:
        """The request of a turn asked by ``body`` starting now on this clock (``turn``: mode,
        scenario, editorial_prompt, history, trace_id)."""
        if isinstance(body, str):
            body = QueryV2Request(query=body)
        return AnswerRequest.starting(
            tenant_id,
            body.query,
            self.settings,
            started_at=self.clock(),
            scope=asked_scope(body),
            include_proof=body.include_proof,
            **turn,
        )

    def answer(
        self,
        body: QueryV2Request | str,
        *,
        tenant_id: str = "acme",
        progress: ProgressSink | None = None,
        **turn: Any,
    ) -> AnswerOutcome:
        """One turn on the in-process runner."""
        request = self.request(body, tenant_id=tenant_id, **turn)
        return self.runner().run(request, progress=progress)


@pytest.fixture
def index() -> InMemorySearchIndex:
    index = InMemorySearchIndex()
    add_qanun(index, "acme", selections=("anggaran",))
    add_qanun(index, "other")
    return index


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def model(clock: ManualClock) -> ScriptedModel:
    return scripted_model(clock=clock)


@pytest.fixture
def request_deadline_s() -> float:
    return 2.0


@pytest.fixture
def deps(
    index: InMemorySearchIndex,
    model: ScriptedModel,
    clock: ManualClock,
    request_deadline_s: float,
    tmp_path: Path,
) -> PipelineDeps:
    settings = Settings(home=tmp_path, request_deadline_s=request_deadline_s, model_call_budget=12)
    return PipelineDeps(index=index, model=model, settings=settings, clock=clock)


# --- conversation follow-ups ---------------------------------------------------------------------

EARLIER_FACT = "Anggaran pendidikan 2023 adalah Rp 5 miliar."
FOLLOW_UP = Scenario.model_validate(
    {
        "description": "A follow-up that repeats the conversation (C2) and adds a passage.",
        "agent": {
            "tool_calls": [{"tool": "search", "query": "anggaran pendidikan 2023"}],
            "segments": [
                {"text": "Seperti disebut sebelumnya,", "kind": "framing", "cites": []},
                {"text": EARLIER_FACT, "kind": "fact", "cites": ["C2"], "layout": "continue"},
                {
                    "text": "Anggaran kesehatan 2023 adalah Rp 3 miliar.",
                    "kind": "fact",
                    "cites": ["P1", "C2"],
                    "layout": "paragraph",
                },
                {"text": "Yang lain tidak.", "kind": "fact", "cites": ["C9"], "layout": "continue"},
            ],
        },
    }
)
HISTORIES = ("several_documents", "read_whole", "selected_document")


def follow_up_history(kind: str) -> History:
    """``several_documents``: a verified earlier answer citing two documents (one since
    deleted; search prefers them) plus a memory; ``read_whole``: the earlier answer cited one
    document; a first turn with one ``selected_document`` reads it whole too."""
    if kind == "selected_document":
        return build_history([], selected_documents=["qanun-2023"])
    documents = ["earlier-doc", "gone"] if kind == "several_documents" else ["qanun-2023"]
    earlier = StoredMessage(
        message_id="m-0",
        conversation_id="c-1",
        tenant_id="acme",
        route="query_v2",
        question=QUESTION,
        answer=f"Berikut datanya. {EARLIER_FACT} Dugaan lain.",
        trace_id="t-0",
        created_at=0.0,
        segments=[
            {"text": "Berikut datanya.", "kind": "framing", "cites": [], "verdict": None},
            {"text": EARLIER_FACT, "kind": "fact", "cites": ["P1"], "verdict": "supported"},
            {"text": "Dugaan lain.", "kind": "fact", "cites": ["P2"], "verdict": "unsupported"},
        ],
        cited_documents=documents,
    )
    memory = MemoryItem(
        memory_id="mem-1",
        tenant_id="acme",
        issuer="https://idp.partner.example",
        subject="u",
        text="Belanja pegawai tahun 2022 mencapai Rp 871.667.219.294.",
        conversation_id="c-0",
        message_id="m-x",
        created_at=0.0,
    )
    return build_history([earlier], memories=[memory])


def with_follow_ups(model: Any, index: Any) -> None:
    """The follow-up scenario beside the others, and a document the conversation cited."""
    model.scenarios["follow_up"] = FOLLOW_UP
    add_qanun(index, "acme", doc_id="earlier-doc", texts=["Laporan pendidikan daerah."])
