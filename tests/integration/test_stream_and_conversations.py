"""POST /query/v2/stream and conversations over HTTP with a real SSE client (V2-19, V2-21, V2-22,
CV-1, CV-3)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from httpx_sse import connect_sse

from tanda.api.app import create_app
from tanda.conversations.history import NOTHING_VERIFIED_NOTE
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole
from tanda.records.conversations import ConversationOwner
from tanda.wiring import Runtime
from tests.corpus import QUESTION, add_qanun
from tests.fakes import FaultySearchIndex, GatedModel, scripted_model

from .conftest import ServeApp
from .credentials import API_KEY, PARTNER, assert_error, partner_headers, settings_for, sign

OTHER_PARTNER = "https://idp.other-partner.example"

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios"
STREAMABLE = sorted(
    p.stem
    for p in SCENARIOS.glob("*.json")
    if p.stem not in {"agent_upstream_error", "guard_unavailable", "nothing_found"}
)


class RecordingModel:
    """Wraps the scripted model and keeps every request (what the model received)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = "recording"
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return self.inner.complete(request)  # type: ignore[no-any-return]


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> Runtime:
    settings = settings_for(
        tmp_path, signing_key, model=f"scripted:{SCENARIOS}", request_deadline_s=5.0
    )
    runtime = Runtime(settings=settings)
    runtime.__dict__["model"] = RecordingModel(scripted_model())  # latencies on a manual clock
    add_qanun(runtime.search_index, "acme")
    return runtime


@pytest.fixture
def base_url(serve_app: ServeApp, runtime: Runtime) -> str:
    return serve_app(create_app(runtime))


def headers(key: ed25519.Ed25519PrivateKey, scenario: str | None = None) -> dict[str, str]:
    out = partner_headers(key)
    if scenario:
        out["X-Tanda-Scenario"] = scenario
    return out


def stream(
    base_url: str, key: ed25519.Ed25519PrivateKey, scenario: str | None, **body: Any
) -> list[tuple[str, dict[str, Any]]]:
    with (
        httpx.Client(timeout=30) as client,
        connect_sse(
            client,
            "POST",
            f"{base_url}/query/v2/stream",
            json={"query": QUESTION, **body},
            headers=headers(key, scenario),
        ) as source,
    ):
        assert source.response.status_code == 200
        assert source.response.headers["content-type"].startswith("text/event-stream")
        assert source.response.headers["cache-control"] == "no-cache"
        return [(event.event, json.loads(event.data)) for event in source.iter_sse()]


def post_json(
    base_url: str, key: ed25519.Ed25519PrivateKey, scenario: str | None, **body: Any
) -> httpx.Response:
    return httpx.post(
        f"{base_url}/query/v2",
        json={"query": QUESTION, **body},
        headers=headers(key, scenario),
        timeout=30,
    )


@pytest.mark.parametrize("scenario", STREAMABLE)
def test_stream_frames_come_in_order_and_deltas_join_to_the_json_answer(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, scenario: str
) -> None:
    frames = stream(base_url, signing_key, scenario)
    names = [name for name, _ in frames]
    start = names.index("message.start")
    assert set(names[:start]) <= {"tool.started", "tool.finished"}
    assert names[start + 1] == "trace"
    after = names[start + 2 :]
    # citation… then guard.blocked or passage…, annotations, answer.delta…, done
    order = ["citation", "guard.blocked", "passage", "annotations", "answer.delta", "done"]
    positions = [order.index(n) for n in after]
    assert positions == sorted(positions), names
    assert after.count("annotations") == 1 and after[-1] == "done"
    streamed = "".join(data["text"] for name, data in frames if name == "answer.delta")
    answer = post_json(base_url, signing_key, scenario).json()["answer"]
    assert streamed == answer
    assert frames[start][1]["schema"] == "annotate-v2"


def test_every_claim_key_pairs_with_a_citation_and_a_passage_frame(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    frames = stream(base_url, signing_key, "uncited_and_invalid")
    annotations = next(data for name, data in frames if name == "annotations")
    citation_keys = {data["citation_key"] for name, data in frames if name == "citation"}
    passage_keys = {data["citation_key"] for name, data in frames if name == "passage"}
    for claim in annotations["claims"]:
        valid = set(claim["citation_keys"]) - set(claim["invalid_citation_keys"])
        assert valid <= citation_keys and valid <= passage_keys
        assert not set(claim["invalid_citation_keys"]) & (citation_keys | passage_keys)
        assert "text" not in claim


def test_tool_frames_arrive_live_before_the_answer_is_written(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given an agent whose answer (its second call, after the search) is held until the reader
    # has the search's tool.finished frame
    model = GatedModel(runtime.model, hold=2)
    runtime.__dict__["model"] = model
    names: list[str] = []
    with (
        httpx.Client(timeout=30) as client,
        connect_sse(
            client,
            "POST",
            f"{base_url}/query/v2/stream",
            json={"query": QUESTION},
            headers=headers(signing_key, "default"),
        ) as source,
    ):
        for event in source.iter_sse():
            names.append(event.event)
            if event.event == "tool.finished":
                model.gate.set()
    # then the tool frames came while the agent worked (had they waited for the answer, the gate
    # would never open: the held call gives up and the stream ends in an error frame), and the
    # answer after them
    assert names.index("tool.started") < names.index("tool.finished") < names.index("message.start")
    assert names[-1] == "done"


def test_guard_block_streams_guard_blocked_and_no_passages(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    names = [name for name, _ in stream(base_url, signing_key, "policy_blocked")]
    assert "guard.blocked" in names and "passage" not in names


def test_context_budget_annotations_carry_checked_false(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    frames = dict(stream(base_url, signing_key, "context_budget"))
    assert frames["annotations"]["checked"] is False
    assert frames["done"]["finish_reason"] == "fallback"


@pytest.mark.parametrize("scenario", [s for s in STREAMABLE if s != "judge_deadline"])
def test_checked_is_present_only_on_the_context_budget_refusal_in_body_frame_and_store(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, scenario: str
) -> None:
    # V2-18 / CC-6: "checked": false marks the one answer nothing was checked in; every other
    # report leaves the key out (never true, never null), so its absence cannot mean a pass.
    expected = {"checked": False} if scenario == "context_budget" else {}
    body = post_json(base_url, signing_key, scenario).json()
    frames = dict(stream(base_url, signing_key, scenario))
    view = httpx.get(
        f"{base_url}/conversations/{body['conversation_id']}", headers=headers(signing_key)
    ).json()
    (stored,) = [m["v2_faithfulness"] for m in view["messages"]]
    for report in (body["faithfulness"], frames["annotations"], stored):
        assert {k: v for k, v in report.items() if k == "checked"} == expected


def test_a_search_past_the_tool_deadline_streams_its_timeout_then_the_404_error_frame(
    base_url: str, runtime: Runtime, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given the served index's search hanging past a 200 ms tool deadline,
    index = FaultySearchIndex(runtime.search_index, hang=True)  # type: ignore[arg-type]
    runtime.__dict__["search_index"] = index
    runtime.settings = runtime.settings.model_copy(update={"tool_deadline_s": 0.2})
    try:
        frames = stream(base_url, signing_key, "default")
    finally:
        index.release.set()
    # then the live tool frame says timeout, and the stream ends with the 404's code (V2-19).
    finished = [data for name, data in frames if name == "tool.finished"]
    assert [(f["tool"], f["status"]) for f in finished] == [("search", "timeout")]
    assert frames[-1][0] == "error" and frames[-1][1]["code"] == "no_readable_result"
    assert "deadline" in frames[-1][1]["message"]
    # ... carrying the same tool and status as the JSON route's 404 body.
    assert (frames[-1][1]["tool"], frames[-1][1]["tool_status"]) == ("search", "timeout")
    assert "annotations" not in [name for name, _ in frames]


def test_a_failure_before_the_answer_ends_the_stream_with_an_error_frame(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    frames = stream(base_url, signing_key, "agent_upstream_error")
    assert frames[-1] == ("error", {"code": "upstream_failed", "message": frames[-1][1]["message"]})
    assert "message.start" not in [n for n, _ in frames]
    assert "scripted" not in json.dumps(frames)


def test_a_guard_that_fails_ends_the_stream_before_any_text_of_the_answer(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # V2-13 fails closed, V2-21 guards before message.start: no frame carries the answer.
    frames = stream(base_url, signing_key, "guard_unavailable")
    assert frames[-1][0] == "error" and frames[-1][1]["code"] == "policy_guard_unavailable"
    names = [name for name, _ in frames]
    assert not {"message.start", "annotations", "answer.delta", "passage"} & set(names)
    assert "Rp 5 miliar" not in json.dumps(frames)


def test_a_client_that_disconnects_mid_stream_does_not_lose_the_message(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given a turn whose answer (the agent's second call) is held until the client has left
    model = GatedModel(runtime.model, hold=2)
    runtime.__dict__["model"] = model
    conversation = httpx.post(
        f"{base_url}/conversations", headers=headers(signing_key), timeout=10
    ).json()
    with (
        httpx.Client(timeout=30) as client,
        connect_sse(
            client,
            "POST",
            f"{base_url}/query/v2/stream",
            json={"query": QUESTION, "conversation_id": conversation["conversation_id"]},
            headers=headers(signing_key, "default"),
        ) as source,
    ):
        next(iter(source.iter_sse()))  # the first tool frame, then hang up
    model.gate.set()
    # then the turn is finished and stored all the same (polled: it ends after the client left)
    deadline = time.monotonic() + 10
    messages: list[Any] = []
    while time.monotonic() < deadline and not messages:
        time.sleep(0.1)
        view = httpx.get(
            f"{base_url}/conversations/{conversation['conversation_id']}",
            headers=headers(signing_key),
        )
        messages = view.json()["messages"]
    assert messages and messages[0]["answer"].startswith("Berikut datanya.")


def test_an_empty_conversation_is_claimed_by_the_first_route_and_keeps_its_messages(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    created = httpx.post(f"{base_url}/conversations", headers=headers(signing_key), timeout=10)
    assert created.status_code == 201 and created.json()["route"] is None
    conversation_id = created.json()["conversation_id"]
    answer = post_json(
        base_url, signing_key, "seed_example", conversation_id=conversation_id
    ).json()
    assert answer["conversation_id"] == conversation_id
    view = httpx.get(
        f"{base_url}/conversations/{conversation_id}", headers=headers(signing_key)
    ).json()
    assert view["route"] == "query_v2"
    (message,) = view["messages"]
    # The reader's view shows the full stored answer, the unsupported claim included (V2-22).
    assert message["answer"] == answer["answer"]
    assert [s["verdict"] for s in message["segments"]] == [None, "supported", "unsupported"]
    assert message["v2_faithfulness"]["grounding"] == {
        "claims_supported": 1,
        "claims_total": 2,
        "grounding_rate": 0.5,
    }


def test_a_conversation_owned_by_query_answers_409_on_v2(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    conversation_id = httpx.post(f"{base_url}/conversations", headers=headers(signing_key)).json()[
        "conversation_id"
    ]
    owner = ConversationOwner(issuer=PARTNER, tenant_id="acme", subject="user-1")
    runtime.store.claim(owner, conversation_id, "query")  # /query answered first
    assert_error(
        post_json(base_url, signing_key, "default", conversation_id=conversation_id),
        409,
        "conversation_route_conflict",
    )
    with httpx.Client(timeout=30) as client:
        response = client.post(
            f"{base_url}/query/v2/stream",
            json={"query": QUESTION, "conversation_id": conversation_id},
            headers=headers(signing_key),
        )
    assert_error(response, 409, "conversation_route_conflict")


def test_unknown_or_foreign_conversations_are_404(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    assert_error(
        post_json(base_url, signing_key, "default", conversation_id="nope"),
        404,
        "conversation_not_found",
    )
    mine = httpx.post(f"{base_url}/conversations", headers=headers(signing_key)).json()[
        "conversation_id"
    ]
    admin = sign(signing_key, "https://idp.admin.example", scope="tanda:admin tanda:partner")
    other = {"X-API-Key": API_KEY, "Authorization": f"Bearer {admin}"}
    # The admin issuer maps to tenant acme too, with the same sub: still another owner (issue 11);
    # its token grants the partner scope, as an admin's must to ask on partner routes (V2-01).
    assert_error(
        httpx.get(f"{base_url}/conversations/{mine}", headers=other), 404, "conversation_not_found"
    )


def test_the_next_turn_sees_only_verified_segments(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    model: RecordingModel = runtime.model  # type: ignore[assignment]
    first = post_json(base_url, signing_key, "seed_example").json()
    model.requests.clear()
    second = post_json(
        base_url, signing_key, "default", conversation_id=first["conversation_id"]
    ).json()
    agent = next(r for r in model.requests if r.role is ModelRole.agent)
    history = [m.content for m in agent.messages if m.role in ("user", "assistant")]
    assert history[:2] == [
        QUESTION,
        "Berikut datanya. Anggaran pendidikan 2023 adalah Rp 5 miliar.",
    ]
    assert all("Naik 9 persen" not in text for text in history)
    assert second["history_exchanges_in_view"] == 1 and second["history_truncated"] is False


def test_an_earlier_answer_with_nothing_verified_is_quoted_whole_after_the_note(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    model: RecordingModel = runtime.model  # type: ignore[assignment]
    first = post_json(base_url, signing_key, "disputed").json()
    model.requests.clear()
    post_json(base_url, signing_key, "default", conversation_id=first["conversation_id"])
    agent = next(r for r in model.requests if r.role is ModelRole.agent)
    assistant = next(m.content for m in agent.messages if m.role == "assistant")
    assert assistant == f"{NOTHING_VERIFIED_NOTE}\n{first['answer']}"


def test_verified_statements_become_memory_shown_to_the_users_next_conversation(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    model: RecordingModel = runtime.model  # type: ignore[assignment]
    post_json(base_url, signing_key, "seed_example")  # one supported, one unsupported claim
    model.requests.clear()
    post_json(base_url, signing_key, "default")  # a new conversation of the same user
    agent = next(r for r in model.requests if r.role is ModelRole.agent)
    system = agent.messages[0].content
    assert "Anggaran pendidikan 2023 adalah Rp 5 miliar." in system  # verified: remembered
    assert "Naik 9 persen" not in system  # unsupported: never remembered
    owner = ConversationOwner(issuer=PARTNER, tenant_id="acme", subject="user-1")
    memories = runtime.store.memories(owner, limit=10)
    assert [m.text for m in memories] == ["Anggaran pendidikan 2023 adalah Rp 5 miliar."]


def test_a_segment_citing_only_the_conversation_is_from_conversation(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    from tanda.adapters.scripted import AgentScript, Scenario
    from tanda.contract import Segment

    scripted = runtime.model.inner  # type: ignore[attr-defined]
    scripted.scenarios["repeat"] = Scenario(
        agent=AgentScript(
            segments=[
                Segment(text="Seperti disebut tadi, Rp 5 miliar.", kind="fact", cites=["C2"]),
            ]
        )
    )
    first = post_json(base_url, signing_key, "default").json()
    second = post_json(
        base_url, signing_key, "repeat", conversation_id=first["conversation_id"]
    ).json()
    (claim,) = second["claims"]
    assert claim["verdict"] == "from_conversation"
    assert second["claims_total"] == 0 and second["faithfulness"]["from_conversation"] == 1
    assert second["faithfulness"]["verification"] == "none"


def test_only_a_re_asked_follow_ups_forced_tool_round_cut_at_the_limit_is_agent_output_limit(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    from tanda.contract.common import FallbackReason
    from tanda.pipeline.notices import NOTICES

    model: RecordingModel = runtime.model  # type: ignore[assignment]
    first = post_json(base_url, signing_key, "default").json()
    conversation = first["conversation_id"]

    # Given a conversation that asked QUESTION, when it is asked again with the model's output
    # cut at its limit, then the forced tool round is cut: the could-not-answer notice (V2-17),
    model.requests.clear()
    again = post_json(base_url, signing_key, "agent_output_limit", conversation_id=conversation)
    body = again.json()
    assert again.status_code == 200, again.text
    assert (body["fallback_used"], body["fallback_reason"]) == (True, "agent_output_limit")
    assert body["answer"] == NOTICES[FallbackReason.agent_output_limit]
    assert body["claims"] == [] and body["faithfulness"]["verification"] == "none"
    assert [r.tool_choice for r in model.requests if r.role is ModelRole.agent] == ["required"]

    # and a new question in the same conversation, its answers cut twice, is no such thing:
    # one regeneration, then unparseable_completion.
    other = post_json(
        base_url,
        signing_key,
        "agent_output_limit",
        conversation_id=conversation,
        query="Apa isi Qanun ini tentang kesehatan?",
    ).json()
    assert other["fallback_reason"] == "unparseable_completion"
    # A first turn likewise.
    assert post_json(base_url, signing_key, "agent_output_limit").json()["fallback_reason"] == (
        "unparseable_completion"
    )


def test_include_proof_adds_the_chain_to_the_json_answer_and_the_stream_ignores_it(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # ASK-11 on /query/v2: the JSON answer carries the proof and the refuted claim is not
    # supported; the stream has no frame for the proof and withholds nothing.
    body = post_json(base_url, signing_key, "proof_refuted", include_proof=True).json()
    assert [c["verdict"] for c in body["claims"]] == ["supported", "supported", "unsupported"]
    refuted = [s for s in body["proof"]["steps"] if s["ground"] == "refuted"]
    assert [(s["expression"], s["recomputed"]) for s in refuted] == [
        ("Rp 5 miliar − Rp 3 miliar = Rp 3 miliar", "2")
    ]
    assert "proof" not in post_json(base_url, signing_key, "proof_refuted").json()
    frames = stream(base_url, signing_key, "proof_refuted", include_proof=True)
    annotations = next(data for name, data in frames if name == "annotations")
    assert [c["verdict"] for c in annotations["claims"]] == ["supported"] * 3
    assert all("proof" not in data for _, data in frames)
