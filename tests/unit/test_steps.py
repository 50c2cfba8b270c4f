"""The Step Functions steps, chained in-process the way ``query.asl.json`` chains them (every
state crossing a JSON boundary, as between Lambdas), answer exactly like the in-process runner."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.memory_progress import MemoryProgress
from tanda.adapters.scripted import Scenario
from tanda.api.errors import domain_error_body, status_for
from tanda.contract import QueryV2Request
from tanda.conversations.history import History, build_history
from tanda.errors import TandaError
from tanda.pipeline import steps
from tanda.pipeline.answer_v2 import AnswerDeps, AnswerOutcome, answer_v2
from tanda.records.conversations import MemoryItem, StoredMessage
from tanda.service.answer_v2 import to_response
from tests.corpus import QUESTION, add_qanun
from tests.fakes import FaultySearchIndex
from tests.unit.pipeline.conftest import clock, deps, index, model, request_deadline_s

# the pipeline tests' fixtures: corpus, scripted model, and the manual clock both run on
__all__ = ["clock", "deps", "index", "model", "request_deadline_s"]

SCENARIOS_DIR = Path(__file__).parents[1] / "scenarios"
SCENARIOS = sorted(p.stem for p in SCENARIOS_DIR.glob("*.json"))
STATE_LIMIT = 256 * 1024  # bytes: Step Functions' limit on a state's input and output


def across_lambda(model: Any) -> dict[str, Any]:
    """What a Lambda returns to Step Functions: plain JSON (within the state size limit)."""
    text = model.model_dump_json()
    assert len(text.encode()) < STATE_LIMIT
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def chained(
    deps: AnswerDeps, body: QueryV2Request, scenario: str, history: History | None = None
) -> AnswerOutcome:
    """Agent → (done | nothing_readable | Parallel[Map(JudgeBatch), FramingCheck] → Guard), as
    the ASL runs it, on the in-process runner's clock."""
    state = steps.query_input(
        "acme", body, deps.settings, started_at=deps.clock(), scenario=scenario, history=history
    )
    agent = steps.agent_step(
        steps.QueryInput.model_validate(across_lambda(state)),
        index=deps.index,
        model=deps.model,
        settings=deps.settings,
        clock=deps.clock,
    )
    output = across_lambda(agent)
    if output["done"] is not None:
        return steps.to_outcome(steps.execution_output(json.dumps(output["done"])))
    if output["nothing_readable"] is not None:  # NothingReadableEnd: the 404 with its status
        ending = {"nothing_readable": output["nothing_readable"]}
        return steps.to_outcome(steps.execution_output(json.dumps(ending)))
    batches = [
        across_lambda(
            steps.judge_batch_step(
                steps.JudgeBatchInput.model_validate(b), model=deps.model, clock=deps.clock
            )
        )
        for b in output["work"]["judge_batches"]
    ]
    framing = across_lambda(
        steps.framing_check_step(
            steps.FramingInput.model_validate(output["work"]["framing"]),
            model=deps.model,
            clock=deps.clock,
        )
    )
    guard_input = {**output, "checks": [batches, framing]}
    assert len(json.dumps(guard_input).encode()) < STATE_LIMIT
    answer = steps.guard_step(
        steps.GuardInput.model_validate(guard_input), model=deps.model, clock=deps.clock
    )
    return steps.to_outcome(steps.execution_output(json.dumps(across_lambda(answer))))


def body_of(
    run: Any, deps: AnswerDeps, scenario: str, history: History | None = None
) -> dict[str, Any]:
    request = QueryV2Request(
        query=QUESTION, include_grounding=True, include_provenance=True, include_proof=True
    )
    try:
        outcome = run(deps, request, scenario, history)
    except TandaError as error:
        return {"status": status_for(error), "body": domain_error_body(error)}
    response = to_response(outcome, request, conversation_id="c-1", message_id="m-1", trace_id="t")
    body = response.model_dump(mode="json")
    # Tool latencies are wall time, and parallel steps log in completion order; a call cut off by
    # the deadline may be logged after the answer was returned (the in-process checks stop
    # waiting for it), so only the calls that finished are compared.
    calls = body.pop("model_call_log", None) or []
    body["model_calls"] = sorted(
        (c["role"], c["outcome"]) for c in calls if c["outcome"] != "deadline"
    )
    for audit in body.get("tool_call_audit") or []:
        audit.pop("latency_ms")
    return {"status": 200, "body": body}


def in_process(
    deps: AnswerDeps, body: QueryV2Request, scenario: str, history: History | None = None
) -> AnswerOutcome:
    return answer_v2(deps, "acme", body, scenario=scenario, history=history)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_chained_steps_answer_like_the_in_process_runner(deps: AnswerDeps, scenario: str) -> None:
    # Given a scripted scenario, when it runs through the steps and in-process,
    # then the response bodies (or error bodies) are the same.
    assert body_of(chained, deps, scenario) == body_of(in_process, deps, scenario)


@pytest.mark.parametrize(("fault", "status"), [("fail", "error"), ("hang", "timeout")])
def test_a_failed_or_late_search_is_the_same_404_with_its_status_on_the_steps(
    deps: AnswerDeps, fault: str, status: str
) -> None:
    # Given an index whose search fails (or hangs past a 50 ms tool deadline),
    index = FaultySearchIndex(deps.index, **{fault: True})  # type: ignore[arg-type]
    settings = deps.settings.model_copy(update={"tool_deadline_s": 0.05})
    faulty = replace(deps, index=index, settings=settings)  # type: ignore[arg-type]
    try:
        # when the answer runs through the steps and in-process, then both are the same 404,
        chained_body = body_of(chained, faulty, "default")
        assert chained_body == body_of(in_process, faulty, "default")
    finally:
        index.release.set()
    # which carries the tool and its status across the Lambda boundary (V2-19).
    assert chained_body["status"] == 404
    assert chained_body["body"]["error"]["tool_status"] == status


# --- conversation follow-ups -----------------------------------------------------------------

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


@pytest.fixture
def follow_up_deps(deps: AnswerDeps) -> AnswerDeps:
    """The pipeline fixtures plus the follow-up scenario and a document the conversation cited."""
    deps.model.scenarios["follow_up"] = FOLLOW_UP  # type: ignore[attr-defined]
    add_qanun(deps.index, "acme", doc_id="earlier-doc", texts=["Laporan pendidikan daerah."])
    return deps


@pytest.mark.parametrize("history", HISTORIES)
@pytest.mark.parametrize("scenario", [*SCENARIOS, "follow_up"])
def test_chained_steps_answer_a_follow_up_like_the_in_process_runner(
    follow_up_deps: AnswerDeps, scenario: str, history: str
) -> None:
    # Given a conversation's history (messages, C passages, preferred documents or read_whole),
    # when a scenario runs through the steps and in-process with it,
    # then the response bodies (or error bodies) are the same.
    chained_body = body_of(chained, follow_up_deps, scenario, follow_up_history(history))
    assert chained_body == body_of(in_process, follow_up_deps, scenario, follow_up_history(history))


def test_a_follow_up_on_the_steps_uses_every_part_of_its_history(
    follow_up_deps: AnswerDeps,
) -> None:
    # Given a follow-up whose history prefers two documents and holds the earlier answer,
    history = follow_up_history("several_documents")
    assert [p.key for p in history.passages] == ["C1", "C2", "C3"]
    outcome = chained(follow_up_deps, QueryV2Request(query=QUESTION), "follow_up", history)

    # then the conversation is citable: C2 alone repeats it (from_conversation), C2 beside P1
    # is judged on P1; an unknown key stays invalid,
    assert [(c.text, c.verdict) for c in outcome.annotation.claims] == [
        (EARLIER_FACT, "from_conversation"),
        ("Anggaran kesehatan 2023 adalah Rp 3 miliar.", "supported"),
        ("Yang lain tidak.", "invalid_citation"),
    ]
    # the preferred document's passage comes first, and the C passages travel with the answer.
    assert outcome.passages["P1"].citation.document_id == "earlier-doc"
    assert {k: p.citation.source for k, p in outcome.passages.items() if k.startswith("C")} == {
        "C1": "conversation",
        "C2": "conversation",
        "C3": "memory",
    }


@pytest.mark.parametrize("kind", ["read_whole", "selected_document"])
def test_a_follow_up_about_one_document_reads_it_whole_on_the_steps(
    follow_up_deps: AnswerDeps, kind: str
) -> None:
    outcome = chained(
        follow_up_deps, QueryV2Request(query=QUESTION), "default", follow_up_history(kind)
    )
    first = outcome.tool_audit[0]
    assert (first.tool, first.arguments) == ("read_document", {"document_id": "qanun-2023"})


def test_the_history_state_is_the_history_the_in_process_runner_gets() -> None:
    history = follow_up_history("several_documents")
    state = steps.HistoryState.model_validate(across_lambda(steps.HistoryState.of(history)))
    rebuilt = state.history()
    assert (rebuilt.messages, rebuilt.passages) == (history.messages, history.passages)
    assert rebuilt.preferred_documents == history.preferred_documents == ["earlier-doc", "gone"]
    assert follow_up_history("read_whole").read_whole == "qanun-2023"
    assert steps.HistoryState.of(follow_up_history("read_whole")).history().read_whole == (
        "qanun-2023"
    )


def test_a_history_the_state_cannot_carry_exactly_is_refused() -> None:
    # A passage with more than build_history sets would lose it: refused, never altered.
    history = follow_up_history("several_documents")
    first = history.passages[0]
    history.passages[0] = replace(
        first, citation=first.citation.model_copy(update={"document_id": "d"})
    )
    with pytest.raises(ValueError):
        steps.HistoryState.of(history)


def test_a_full_history_keeps_the_execution_input_far_under_the_state_limit(
    deps: AnswerDeps,
) -> None:
    # Given the most build_history lets through: 6,000 characters of turns (each shown twice,
    # as messages and as C passages) and five memories, in a script JSON escapes,
    turns = [
        StoredMessage(
            message_id=f"m-{i}",
            conversation_id="c-1",
            tenant_id="acme",
            route="query",
            question="\u201cpertanyaan\u201d \n" * 20,
            answer='\u00e9"' * 200,
            trace_id="t",
            created_at=0.0,
            cited_documents=[f"d-{i}"],
        )
        for i in range(20)
    ]
    memories = [
        MemoryItem(
            memory_id=f"x-{i}",
            tenant_id="acme",
            issuer="https://idp.partner.example",
            subject="u",
            text='\u00e9"' * 500,
            conversation_id="c-0",
            message_id="m",
            created_at=0.0,
        )
        for i in range(10)
    ]
    history = build_history(turns, memories=memories)
    assert history.truncated
    state = steps.query_input(
        "acme", QueryV2Request(query=QUESTION), deps.settings, started_at=0.0, history=history
    )
    assert len(state.model_dump_json().encode()) < 64 * 1024


def test_a_late_judge_batch_is_unverified_by_deadline() -> None:
    # Given the output the ASL's JudgeBatchLate fallback builds for a batch that timed out,
    late = steps.JudgeBatchOutput.model_validate(
        {"batch_index": 0, "indexes": [1, 3], "failed": "deadline"}
    )

    # then every segment of that batch is unverified(deadline), invalid keys kept (V2-10).
    outcomes = steps.batch_outcomes(late, {3: ["P9"]})
    assert {i: (o.verdict, o.unverified_reason) for i, o in outcomes.items()} == {
        1: ("unverified", "deadline"),
        3: ("unverified", "deadline"),
    }
    assert outcomes[3].invalid_citation_keys == ["P9"]


def test_the_agent_timeout_fallback_is_the_model_timeout_refusal() -> None:
    # Given the ASL's AgentTimedOut output, then it reads as refusal(model_timeout).
    state = steps.execution_output('{"refusal": "model_timeout"}')
    assert state.fallback == "model_timeout"
    assert state.answer and state.claims == []


def test_step_timeouts_keep_the_checks_share_and_the_guard_reserve() -> None:
    timeouts = steps.step_timeouts(25.0, judge_share=0.4)
    assert (timeouts.agent_s, timeouts.checks_s, timeouts.guard_s) == (15, 23, 3)
    assert steps.step_timeouts(0.2, judge_share=0.4).guard_s == 1  # ASL minimum


def test_judge_batches_share_what_the_agent_left_after_guard_and_framing() -> None:
    assert steps.split_calls(10, batches=2, framing=True) == 4
    assert steps.split_calls(2, batches=3, framing=True) == 0
    assert steps.split_calls(5, batches=0, framing=False) == 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_agent_step_publishes_the_in_process_progress_frames(
    deps: AnswerDeps, scenario: str
) -> None:
    # Given a scenario run in-process with a progress callback (the stream route's emit),
    body = QueryV2Request(query=QUESTION)
    in_process_frames: list[Any] = []
    with contextlib.suppress(TandaError):
        answer_v2(deps, "acme", body, scenario=scenario, progress=in_process_frames.append)

    # when the agent step runs the same turn with a progress id and a Progress adapter,
    channel = MemoryProgress()
    state = steps.query_input(
        "acme", body, deps.settings, started_at=deps.clock(), scenario=scenario, progress_id="r1"
    )
    with contextlib.suppress(TandaError):
        steps.agent_step(
            steps.QueryInput.model_validate(across_lambda(state)),
            index=deps.index,
            model=deps.model,
            settings=deps.settings,
            progress=channel,
            clock=deps.clock,
        )

    # then the frames a reader gets under that id are the in-process ones, in order.
    assert [e.frame for e in channel.read("r1")] == in_process_frames


def test_the_agent_step_publishes_a_follow_up_s_pre_read_frames(
    follow_up_deps: AnswerDeps,
) -> None:
    deps = follow_up_deps
    body = QueryV2Request(query=QUESTION)
    in_process_frames: list[Any] = []
    answer_v2(
        deps,
        "acme",
        body,
        scenario="default",
        history=follow_up_history("read_whole"),
        progress=in_process_frames.append,
    )
    channel = MemoryProgress()
    state = steps.query_input(
        "acme",
        body,
        deps.settings,
        started_at=deps.clock(),
        scenario="default",
        progress_id="r1",
        history=follow_up_history("read_whole"),
    )
    steps.agent_step(
        steps.QueryInput.model_validate(across_lambda(state)),
        index=deps.index,
        model=deps.model,
        settings=deps.settings,
        progress=channel,
        clock=deps.clock,
    )
    frames = [e.frame for e in channel.read("r1")]
    assert frames == in_process_frames
    # the pre-read comes first, before the agent's own search.
    assert frames[0].model_dump()["tool"] == "read_document"


def test_a_state_without_a_progress_id_publishes_nothing(deps: AnswerDeps) -> None:
    channel = MemoryProgress()
    body = QueryV2Request(query=QUESTION)
    state = steps.query_input("acme", body, deps.settings, started_at=deps.clock())
    assert state.progress_id is None
    steps.agent_step(
        state,
        index=deps.index,
        model=deps.model,
        settings=deps.settings,
        progress=channel,
        clock=deps.clock,
    )
    assert channel._events == {}


def test_the_agent_step_stops_the_agent_at_its_share_of_the_deadline(deps: AnswerDeps) -> None:
    from tanda.adapters.scripted import ScriptedModel
    from tests.fakes import ManualClock

    # Given agent calls of 3.5 s each in a 10 s request whose checks keep 40 % (V2-23), on a
    # manual clock so the figures are exact whatever the machine's load
    clock = ManualClock()
    default = deps.model.scenarios["default"]  # type: ignore[attr-defined]
    slow = default.model_copy(update={"latency_ms": {"agent": 3500}})
    model = ScriptedModel({"default": slow}, sleep=clock.advance)
    settings = deps.settings.model_copy(update={"request_deadline_s": 10.0, "judge_share": 0.4})
    state = steps.query_input("acme", QueryV2Request(query=QUESTION), settings, started_at=clock())

    # when the agent step runs
    output = steps.agent_step(state, index=deps.index, model=model, settings=settings, clock=clock)

    # then the answer call is cut at 6 s: the model_timeout refusal, the checks' 4 s unspent
    assert output.done is not None and output.done.fallback == "model_timeout"
    assert clock() - state.started_at == pytest.approx(6.0)
    assert [(c.role, c.outcome, c.latency_ms) for c in output.done.model_calls] == [
        ("agent", "ok", 3500),
        ("agent", "deadline", 2500),
    ]


class LambdaContext:
    function_name = "tanda-agent"
    aws_request_id = "unit"


def agent_lambda_handler(runtime: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The agent step's Lambda handler, its runtime replaced by ``runtime``."""
    import importlib.util

    path = Path(__file__).parents[2] / "functions" / "steps" / "agent" / "app.py"
    spec = importlib.util.spec_from_file_location("tanda_step_agent_unit", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "runtime", lambda: runtime)
    return module.handler


def test_the_agent_lambda_applies_the_reranker_floor_of_its_runtime(
    deps: AnswerDeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from tanda.adapters.scripted import ScriptedModel, ScriptedToolCall
    from tanda.retrieval.rerank import LexicalReranker

    # Given the agent Lambda's runtime with the lexical reranker and the 0.34 floor, and an agent
    # searching five terms of which the 2022 chunk holds two and the 2023 chunk one,
    default = ScriptedModel.from_dir(SCENARIOS_DIR).scenarios["default"]
    agent = default.agent.model_copy(  # type: ignore[union-attr]
        update={"tool_calls": [ScriptedToolCall(query="belanja pegawai kesehatan jalan tol")]}
    )
    model = ScriptedModel({"default": default.model_copy(update={"agent": agent})})
    settings = deps.settings.model_copy(update={"rerank_min_score": 0.34})
    runtime = SimpleNamespace(
        search_index=deps.index,
        model=model,
        settings=settings,
        embedder=None,
        reranker=LexicalReranker(),
        progress=MemoryProgress(),
    )
    handler = agent_lambda_handler(runtime, monkeypatch)
    state = steps.query_input(
        "acme", QueryV2Request(query=QUESTION), settings, started_at=time.time(), scenario="default"
    )

    # when the Lambda handler (functions/steps/agent/app.py) runs the agent step,
    output = json.dumps(handler(state.model_dump(mode="json"), LambdaContext()))

    # then only the chunk over the floor was shown to the agent (ASK-06).
    assert "acme:qanun-2023#1" in output and "acme:qanun-2023#0" not in output
