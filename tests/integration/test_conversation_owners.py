"""Conversations belong to one user, memory to that user; a failed first turn leaves nothing
behind; a conversation's scope binds its turns (issue 11; V2-19, V2-20, V2-22, CV-1).

Every test here runs the app under uvicorn on loopback with the scripted model, and the ownership
and cleanup tests run once on the SQLite store and once on the DynamoDB store (moto).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from httpx_sse import connect_sse

from tanda.adapters.dynamodb_store import DynamoStore
from tanda.adapters.sqlite_store import SqliteStore
from tanda.api.app import create_app
from tanda.model_calls import ModelRole
from tanda.ports import Store
from tanda.wiring import Runtime
from tests.corpus import QUESTION, add_qanun

from .conftest import ServeApp
from .credentials import ADMIN, API_KEY, PARTNER, assert_error, settings_for, sign
from .test_stream_and_conversations import RecordingModel

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios"
OTHER_PARTNER = "https://idp.other-partner.example"
OTHER_TENANT = "https://idp.other-tenant.example"
REMEMBERED = "Anggaran pendidikan 2023 adalah Rp 5 miliar."
ROUTES = ("/query/v2", "/query/v2/stream", "/query", "/query/stream")


@dataclass(frozen=True)
class Caller:
    """One end user: the issuer that vouches for them and their JWT ``sub``."""

    name: str
    issuer: str
    subject: str

    def headers(
        self, key: ed25519.Ed25519PrivateKey, scenario: str | None = None
    ) -> dict[str, str]:
        # V2-01: an admin asks on partner routes with a token granting both families' scopes.
        scopes = {"scope": "tanda:admin tanda:partner"} if self.issuer == ADMIN else {}
        out = {
            "X-API-Key": API_KEY,
            "Authorization": f"Bearer {sign(key, self.issuer, sub=self.subject, **scopes)}",
        }
        if scenario:
            out["X-Tanda-Scenario"] = scenario
        return out


ALICE = Caller("alice", PARTNER, "alice")
INTRUDERS = [
    Caller("another user of the tenant", PARTNER, "bob"),
    Caller("the same sub under another issuer of the tenant", OTHER_PARTNER, "alice"),
    Caller("an admin token with the same sub", ADMIN, "alice"),
    Caller("the same sub in another tenant", OTHER_TENANT, "alice"),
]


def make_runtime(tmp_path: Path, key: ed25519.Ed25519PrivateKey, store: Store | None) -> Runtime:
    issuers = {PARTNER: "acme", OTHER_PARTNER: "acme", ADMIN: "acme", OTHER_TENANT: "other"}
    settings = settings_for(
        tmp_path,
        key,
        model=f"scripted:{SCENARIOS}",
        request_deadline_s=5.0,
        jwt_issuers=issuers,
        admin_rate_per_minute=100,
        admin_rate_burst=100,
    )
    runtime = Runtime(settings=settings)
    runtime.__dict__["model"] = RecordingModel(runtime.model)
    if store is not None:
        runtime.__dict__["store"] = store
    add_qanun(runtime.search_index, "acme", doc_id="doc-a", selections=("anggaran",))
    add_qanun(
        runtime.search_index,
        "acme",
        doc_id="doc-b",
        texts=["Anggaran pendidikan 2023 adalah Rp 7 miliar menurut laporan B."],
    )
    add_qanun(runtime.search_index, "acme", doc_id="doc-c", texts=["Retribusi parkir kendaraan."])
    add_qanun(runtime.search_index, "other")
    return runtime


@pytest.fixture(params=["sqlite", "dynamodb"])
def runtime(
    request: pytest.FixtureRequest, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> Runtime:
    store = request.getfixturevalue("dynamo_store") if request.param == "dynamodb" else None
    return make_runtime(tmp_path, signing_key, store)


@pytest.fixture
def base_url(serve_app: ServeApp, runtime: Runtime) -> str:
    return serve_app(create_app(runtime))


def ask(
    base_url: str,
    key: ed25519.Ed25519PrivateKey,
    route: str,
    caller: Caller = ALICE,
    scenario: str = "default",
    **body: Any,
) -> httpx.Response:
    """One turn on ``route``; a stream's frames are read whole (``response.frames``)."""
    payload = {"query": QUESTION, **body}
    headers = caller.headers(key, scenario)
    if not route.endswith("/stream"):
        return httpx.post(f"{base_url}{route}", json=payload, headers=headers, timeout=30)
    with (
        httpx.Client(timeout=30) as client,
        connect_sse(client, "POST", f"{base_url}{route}", json=payload, headers=headers) as source,
    ):
        response = source.response
        if response.status_code == 200:
            frames = [(e.event, json.loads(e.data)) for e in source.iter_sse()]
            response.frames = frames  # type: ignore[attr-defined]
        else:
            response.read()
        return response


def view(
    base_url: str, key: ed25519.Ed25519PrivateKey, conversation_id: str, caller: Caller = ALICE
) -> httpx.Response:
    return httpx.get(
        f"{base_url}/conversations/{conversation_id}", headers=caller.headers(key), timeout=10
    )


def create(
    base_url: str, key: ed25519.Ed25519PrivateKey, caller: Caller = ALICE, **body: Any
) -> str:
    response = httpx.post(
        f"{base_url}/conversations", json=body or None, headers=caller.headers(key), timeout=10
    )
    assert response.status_code == 201, response.text
    conversation_id: str = response.json()["conversation_id"]
    return conversation_id


def stored_conversation_ids(store: Store) -> set[str]:
    """Every conversation the Store holds, read behind the adapter's back."""
    if isinstance(store, SqliteStore):
        with sqlite3.connect(store.path) as db:
            return {row[0] for row in db.execute("SELECT conversation_id FROM conversations")}
    assert isinstance(store, DynamoStore)
    items = store.client.scan(TableName=store.table, ConsistentRead=True)["Items"]
    return {
        json.loads(item["body"]["S"])["conversation_id"]
        for item in items
        if item["SK"]["S"] == "CONV"
    }


def agent_prompts(runtime: Runtime) -> Iterator[str]:
    model: RecordingModel = runtime.model  # type: ignore[assignment]
    for request in model.requests:
        if request.role is ModelRole.agent:
            yield from (m.content for m in request.messages)


# --- a conversation belongs to (issuer, tenant, subject) ---------------------------------------


@pytest.mark.parametrize("intruder", INTRUDERS, ids=lambda c: c.name)
def test_another_user_reading_a_conversation_gets_the_404_of_a_random_id(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, intruder: Caller
) -> None:
    # Given alice's conversation with one answer,
    conversation_id = ask(base_url, signing_key, "/query/v2").json()["conversation_id"]
    assert view(base_url, signing_key, conversation_id).status_code == 200

    # when anyone else reads it, then the answer is exactly that of an id that never existed.
    response = view(base_url, signing_key, conversation_id, intruder)
    random_id = view(base_url, signing_key, "0" * 32, intruder)
    assert_error(response, 404, "conversation_not_found")
    assert response.json() == random_id.json()


@pytest.mark.parametrize("intruder", INTRUDERS, ids=lambda c: c.name)
def test_another_user_continuing_a_conversation_gets_404_on_every_route_and_changes_nothing(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey, intruder: Caller
) -> None:
    # Given alice's v2 conversation, whose supported claim is in her memory,
    first = ask(base_url, signing_key, "/query/v2", scenario="seed_example").json()
    conversation_id = first["conversation_id"]
    before = view(base_url, signing_key, conversation_id).json()

    for route in ROUTES:
        # when someone else continues it on any route (the v1 routes included, which would be a
        # 409 for alice: the conversation's existence and route are not revealed),
        response = ask(base_url, signing_key, route, intruder, conversation_id=conversation_id)
        random_id = ask(base_url, signing_key, route, intruder, conversation_id="0" * 32)

        # then it is the 404 of an unknown id,
        assert_error(response, 404, "conversation_not_found")
        assert response.json() == random_id.json()

    # and alice's conversation and memory are as they were; she may still continue it.
    assert view(base_url, signing_key, conversation_id).json() == before
    remembered = [m.text for m in runtime.store.memories(owner(ALICE, "acme"), limit=10)]
    assert remembered == [REMEMBERED]
    assert (
        ask(base_url, signing_key, "/query/v2", conversation_id=conversation_id).status_code == 200
    )


def owner(caller: Caller, tenant: str) -> Any:
    from tanda.records.conversations import ConversationOwner

    return ConversationOwner(issuer=caller.issuer, tenant_id=tenant, subject=caller.subject)


@pytest.mark.parametrize("intruder", INTRUDERS, ids=lambda c: c.name)
def test_memory_is_kept_per_issuer_tenant_and_subject(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey, intruder: Caller
) -> None:
    # Given a supported statement in alice's memory,
    ask(base_url, signing_key, "/query/v2", scenario="seed_example")
    model: RecordingModel = runtime.model  # type: ignore[assignment]

    # when another principal starts a conversation, then its agent is not shown alice's memory,
    model.requests.clear()
    assert ask(base_url, signing_key, "/query/v2", intruder).status_code == 200
    assert not any(
        REMEMBERED in text and "Dari percakapan" in text for text in agent_prompts(runtime)
    )

    # and when alice starts one, she is.
    model.requests.clear()
    ask(base_url, signing_key, "/query/v2")
    assert any(REMEMBERED in text and "Dari percakapan" in text for text in agent_prompts(runtime))


def test_the_playground_replays_only_the_admins_own_conversations(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given alice's conversation and one of an admin whose sub is also "alice",
    admin = Caller("admin", ADMIN, "alice")
    alices = ask(base_url, signing_key, "/query/v2").json()["conversation_id"]
    admins = ask(base_url, signing_key, "/query/v2", admin).json()["conversation_id"]

    def play(conversation_id: str) -> httpx.Response:
        return httpx.post(
            f"{base_url}/playground",
            json={
                "query": QUESTION,
                "editorial_prompt": "Jawab singkat.",
                "conversation_id": conversation_id,
            },
            headers=admin.headers(signing_key, "default"),
            timeout=30,
        )

    # when the admin runs the playground in each, then alice's is the 404 of an unknown id (her
    # verified history is not shown to the admin) and the admin's own replays.
    assert_error(play(alices), 404, "conversation_not_found")
    assert play(alices).json() == play("0" * 32).json()
    assert play(admins).status_code == 200

    # and a replayed conversation's scope binds the run as it binds a turn (CV-1).
    scoped = create(base_url, signing_key, admin, selection="tidak-ada")
    assert play(scoped).json()["fallback_reason"] == "source_scope_empty"


# --- a failed first turn leaves nothing claimed ------------------------------------------------


FAILURES = [
    ("agent_upstream_error", 502, "upstream_failed"),
    ("nothing_found", 404, "no_readable_result"),
]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("scenario", "status", "code"), FAILURES, ids=[f[0] for f in FAILURES])
def test_a_failed_first_turn_leaves_no_conversation_behind(
    runtime: Runtime,
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    route: str,
    scenario: str,
    status: int,
    code: str,
) -> None:
    # Given a store with one conversation that answered,
    kept = ask(base_url, signing_key, route).json() if not route.endswith("stream") else None
    before = stored_conversation_ids(runtime.store)

    # when a first turn without a conversation id fails,
    response = ask(base_url, signing_key, route, scenario=scenario)

    # then the client got the error (a stream: one error frame) and no conversation was kept
    # for an id it never learned.
    if route.endswith("/stream"):
        frames = response.frames  # type: ignore[attr-defined]
        assert frames[-1][0] == "error" and frames[-1][1]["code"] == code
        assert "message.start" not in [name for name, _ in frames]
    else:
        assert_error(response, status, code)
    assert stored_conversation_ids(runtime.store) == before
    if kept is not None:
        assert kept["conversation_id"] in before


@pytest.mark.parametrize("route", ROUTES)
def test_a_failed_first_turn_in_a_created_conversation_keeps_it_unclaimed(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, route: str
) -> None:
    # Given an empty conversation made with POST /conversations,
    conversation_id = create(base_url, signing_key)

    # when its first turn fails on one route,
    ask(
        base_url,
        signing_key,
        route,
        scenario="agent_upstream_error",
        conversation_id=conversation_id,
    )

    # then the conversation is still the client's, empty and owned by no route (V2-19: a route
    # owns it by answering first) ...
    seen = view(base_url, signing_key, conversation_id).json()
    assert (seen["route"], seen["messages"]) == (None, [])

    # ... so the other route may answer in it first.
    other = "/query" if route.startswith("/query/v2") else "/query/v2"
    answered = ask(base_url, signing_key, other, conversation_id=conversation_id)
    assert answered.status_code == 200, answered.text
    assert view(base_url, signing_key, conversation_id).json()["route"] == other.strip("/").replace(
        "/", "_"
    )


@pytest.mark.parametrize("route", ["/query/v2/stream", "/query/stream"])
def test_a_stream_that_cannot_start_leaves_nothing_claimed(
    runtime: Runtime,
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    monkeypatch: pytest.MonkeyPatch,
    route: str,
) -> None:
    from tanda.api.sse import StreamJob
    from tanda.errors import ServiceUnavailable

    def no_worker(*args: Any, **kwargs: Any) -> Any:
        raise ServiceUnavailable("No stream worker is free.", code="streams_busy")

    # Given streams whose worker cannot start after the turn was prepared,
    monkeypatch.setattr(StreamJob, "start", no_worker)
    named = create(base_url, signing_key)
    before = stored_conversation_ids(runtime.store)

    # when a first turn asks on a stream, with and without a conversation id,
    for body in ({}, {"conversation_id": named}):
        assert_error(ask(base_url, signing_key, route, **body), 503, "streams_busy")

    # then no conversation was added, and the named one is still unclaimed.
    assert stored_conversation_ids(runtime.store) == before
    assert view(base_url, signing_key, named).json()["route"] is None


# --- a conversation's scope binds its turns (CV-1) ---------------------------------------------


@pytest.fixture
def scoped(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> tuple[Runtime, str]:
    runtime = make_runtime(tmp_path, signing_key, None)
    return runtime, serve_app(create_app(runtime))


def refusal_of(response: httpx.Response) -> str | None:
    """The ``fallback_reason`` of a JSON answer or of a stream's counts frame."""
    assert response.status_code == 200, response.text
    if not hasattr(response, "frames"):
        reason: str | None = response.json()["fallback_reason"]
        return reason
    counts = dict(response.frames)  # type: ignore[attr-defined]
    frame = counts.get("annotations") or counts["faithfulness"]
    found: str | None = frame["fallback_reason"]
    return found


@pytest.mark.parametrize("route", ROUTES)
def test_a_conversation_made_for_an_empty_selection_refuses_every_turn_before_any_model_call(
    scoped: tuple[Runtime, str], signing_key: ed25519.Ed25519PrivateKey, route: str
) -> None:
    runtime, base_url = scoped
    model: RecordingModel = runtime.model  # type: ignore[assignment]
    # Given a conversation created for a selection with no documents,
    conversation_id = create(base_url, signing_key, selection="tidak-ada")

    # when a turn in it names no scope of its own,
    response = ask(base_url, signing_key, route, conversation_id=conversation_id)

    # then it is the fixed empty-scope refusal (V2-20), and no model was called.
    assert refusal_of(response) == "source_scope_empty"
    assert model.requests == []


def shown_documents(response: httpx.Response) -> set[str]:
    """The documents of the passages shown to the agent (not the conversation's ``C`` ones)."""
    assert response.status_code == 200, response.text
    return {p["document_id"] for p in response.json()["grounding"] if p["document_id"]}


@pytest.mark.parametrize("route", ["/query/v2", "/query"])
def test_a_conversation_made_for_documents_answers_only_from_them(
    scoped: tuple[Runtime, str], signing_key: ed25519.Ed25519PrivateKey, route: str
) -> None:
    _, base_url = scoped
    # Given a conversation created for doc-b only (doc-a matches the question as well),
    conversation_id = create(base_url, signing_key, document_ids=["doc-b"])
    unscoped = ask(base_url, signing_key, route, include_grounding=True)
    assert {"doc-a", "doc-b"} <= shown_documents(unscoped)

    # when its turns name no documents, then only doc-b is searched, first turn and follow-up.
    for _ in range(2):
        response = ask(
            base_url, signing_key, route, conversation_id=conversation_id, include_grounding=True
        )
        assert shown_documents(response) == {"doc-b"}


@pytest.mark.parametrize("route", ["/query/v2", "/query"])
def test_a_turn_may_narrow_its_conversations_documents_but_never_leave_them(
    scoped: tuple[Runtime, str], signing_key: ed25519.Ed25519PrivateKey, route: str
) -> None:
    runtime, base_url = scoped
    model: RecordingModel = runtime.model  # type: ignore[assignment]
    # Given a conversation bound to doc-a and doc-b,
    conversation_id = create(base_url, signing_key, document_ids=["doc-a", "doc-b"])

    def turn(**scope: Any) -> httpx.Response:
        return ask(
            base_url,
            signing_key,
            route,
            conversation_id=conversation_id,
            include_grounding=True,
            **scope,
        )

    # when a turn narrows to one of them, then it answers from that one; its selection applies
    # as in any request naming documents and a selection: it must hold each of them;
    assert shown_documents(turn(document_ids=["doc-b"])) == {"doc-b"}
    assert shown_documents(turn(document_ids=["doc-a"], selection="anggaran")) == {"doc-a"}

    # when a turn names another document of the tenant, or a selection that does not hold them
    # all, then it is refused as out of scope before any model call: a turn's own scope never
    # widens its conversation's.
    model.requests.clear()
    assert refusal_of(turn(document_ids=["doc-a", "doc-c"])) == "source_out_of_scope"
    assert refusal_of(turn(selection="anggaran")) == "source_out_of_scope"
    assert model.requests == []


@pytest.mark.parametrize("route", ["/query/v2", "/query"])
def test_a_turn_may_narrow_its_conversations_selection_but_never_leave_it(
    scoped: tuple[Runtime, str], signing_key: ed25519.Ed25519PrivateKey, route: str
) -> None:
    runtime, base_url = scoped
    model: RecordingModel = runtime.model  # type: ignore[assignment]
    # Given a conversation bound to the selection "anggaran" (doc-a only),
    conversation_id = create(base_url, signing_key, selection="anggaran")

    def turn(**scope: Any) -> httpx.Response:
        return ask(
            base_url,
            signing_key,
            route,
            conversation_id=conversation_id,
            include_grounding=True,
            **scope,
        )

    assert shown_documents(turn()) == {"doc-a"}
    assert shown_documents(turn(document_ids=["doc-a"])) == {"doc-a"}

    # when a turn names another selection, then it is refused as out of scope; when it names
    # only documents outside the selection, the scope both name is empty (V2-20). Neither
    # reaches a model.
    model.requests.clear()
    assert refusal_of(turn(selection="lain")) == "source_out_of_scope"
    assert refusal_of(turn(document_ids=["doc-b"])) == "source_scope_empty"
    assert model.requests == []
