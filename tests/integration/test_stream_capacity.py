"""Streams must not exhaust the server (issue 11), over HTTP on loopback: a bounded pool of stream
workers, 503 with ``Retry-After`` when it is full, what happens to an answer whose client leaves,
and a soak that leaves file descriptors and memory where they started."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from fastapi import FastAPI
from httpx_sse import connect_sse

from tanda.api.app import create_app
from tanda.api.sse import RETRY_AFTER_ABANDONED_S, RETRY_AFTER_S, StreamWorkers
from tanda.wiring import Runtime
from tests.corpus import QUESTION, add_qanun
from tests.fakes import GatedModel

from .conftest import ServeApp
from .credentials import assert_error, partner_headers, settings_for

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios"


def serve(
    serve_app: ServeApp,
    tmp_path: Path,
    key: ed25519.Ed25519PrivateKey,
    *,
    hold: int | None = None,
    **settings: Any,
) -> tuple[str, Runtime, GatedModel, FastAPI]:
    runtime = Runtime(
        settings=settings_for(
            tmp_path, key, model=f"scripted:{SCENARIOS}", request_deadline_s=30.0, **settings
        )
    )
    model = GatedModel(runtime.model, hold=hold)
    runtime.__dict__["model"] = model
    add_qanun(runtime.search_index, "acme")
    app = create_app(runtime)
    return serve_app(app), runtime, model, app


def workers_of(app: FastAPI) -> StreamWorkers:
    workers: StreamWorkers = app.state.stream_workers
    return workers


def stored(runtime: Runtime, table: str) -> int:
    with sqlite3.connect(runtime.settings.home / "store.sqlite") as db:
        (count,) = db.execute(f"SELECT count(*) FROM {table}").fetchone()
    return int(count)


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 20
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


def read_first_frame_then_leave(
    base: str,
    path: str,
    body: dict[str, Any],
    h: Any,
    *,
    when: threading.Event | None = None,
) -> str:
    """Open a stream, read its first event and hang up (once ``when`` is set), as a user closing
    the tab."""
    with (
        httpx.Client(timeout=30) as client,
        connect_sse(client, "POST", f"{base}{path}", json=body, headers=h) as source,
    ):
        assert source.response.status_code == 200
        events = source.iter_sse()  # held: dropping it closes the connection at once
        first = next(events).event
        assert when is None or when.wait(10)
        return first


def read_whole_stream(client: httpx.Client, base: str, path: str, body: dict[str, Any]) -> str:
    with connect_sse(client, "POST", f"{base}{path}", json=body) as source:
        assert source.response.status_code == 200, source.response.read()
        events = [event.event for event in source.iter_sse()]
    return events[-1]


@pytest.fixture
def key(signing_key: ed25519.Ed25519PrivateKey) -> ed25519.Ed25519PrivateKey:
    return signing_key


@pytest.mark.parametrize("path", ["/query/v2/stream", "/query/stream"])
def test_a_stream_beyond_the_pool_gets_503_with_retry_after_and_creates_nothing(
    serve_app: ServeApp, tmp_path: Path, key: ed25519.Ed25519PrivateKey, path: str
) -> None:
    # Given one stream worker, taken by an answer whose agent is still thinking
    base, runtime, model, app = serve(serve_app, tmp_path, key, hold=1, stream_workers=1)
    holder = threading.Thread(
        target=lambda: httpx.post(
            f"{base}/query/v2/stream",
            json={"query": QUESTION},
            headers=partner_headers(key),
            timeout=30,
        )
    )
    holder.start()
    try:
        assert model.waiting.wait(10)
        conversations = stored(runtime, "conversations")
        # When another stream comes
        refused = httpx.post(
            f"{base}{path}", json={"query": QUESTION}, headers=partner_headers(key), timeout=10
        )
        # Then a real 503 in the error shape says when to come back, and nothing was created
        assert_error(refused, 503, "streams_busy")
        assert refused.headers["Retry-After"] == str(RETRY_AFTER_S)
        assert refused.headers["content-type"] == "application/json"
        assert stored(runtime, "conversations") == conversations
        # ... while the JSON route still answers
        answered = httpx.post(
            f"{base}/query/v2", json={"query": QUESTION}, headers=partner_headers(key), timeout=30
        )
        assert answered.status_code == 200, answered.text
    finally:
        model.gate.set()
        holder.join(30)
    wait_until(lambda: workers_of(app).running == 0, "the worker is free")
    with httpx.Client(timeout=30, headers=partner_headers(key)) as client:
        assert read_whole_stream(client, base, path, {"query": QUESTION}) == "done"


def test_a_client_leaving_a_new_conversation_stops_its_model_calls_and_stores_nothing(
    serve_app: ServeApp, tmp_path: Path, key: ed25519.Ed25519PrivateKey
) -> None:
    # Given a first turn (no conversation id: the client learns it only in message.start) whose
    # second agent call is in flight
    base, runtime, model, app = serve(serve_app, tmp_path, key, hold=2)
    first = read_first_frame_then_leave(
        base, "/query/v2/stream", {"query": QUESTION}, partner_headers(key), when=model.waiting
    )
    assert first == "tool.started"
    # When the server has seen the client go
    workers = workers_of(app)
    wait_until(lambda: any(job.abandoned() for job in workers.jobs()), "the answer is abandoned")
    model.gate.set()
    wait_until(lambda: workers.running == 0, "the worker is free")
    # Then the call in flight finished, but no judge, framing check or guard call followed
    assert model.roles == ["agent", "agent"]
    assert stored(runtime, "messages") == 0
    assert stored(runtime, "owner_memories") == 0


def test_a_client_leaving_a_named_conversation_gets_the_turn_finished_and_stored(
    serve_app: ServeApp, tmp_path: Path, key: ed25519.Ed25519PrivateKey
) -> None:
    base, _, model, app = serve(serve_app, tmp_path, key, hold=2)
    conversation = httpx.post(
        f"{base}/conversations", headers=partner_headers(key), timeout=10
    ).json()["conversation_id"]
    read_first_frame_then_leave(
        base,
        "/query/v2/stream",
        {"query": QUESTION, "conversation_id": conversation},
        partner_headers(key),
        when=model.waiting,
    )
    workers = workers_of(app)
    wait_until(lambda: any(job.client_gone for job in workers.jobs()), "the client is gone")
    model.gate.set()
    wait_until(lambda: workers.running == 0, "the worker is free")
    assert model.roles[-1] == "guard"
    view = httpx.get(
        f"{base}/conversations/{conversation}", headers=partner_headers(key), timeout=10
    ).json()
    assert [m["answer"] for m in view["messages"]] == [
        "Berikut datanya. Anggaran pendidikan 2023 adalah Rp 5 miliar."
    ]


def test_an_unread_answer_yields_its_worker_to_a_client_that_is_reading(
    serve_app: ServeApp, tmp_path: Path, key: ed25519.Ed25519PrivateKey
) -> None:
    # Given one worker, held by a follow-up whose client left
    base, runtime, model, app = serve(serve_app, tmp_path, key, hold=2, stream_workers=1)
    conversation = httpx.post(
        f"{base}/conversations", headers=partner_headers(key), timeout=10
    ).json()["conversation_id"]
    body = {"query": QUESTION, "conversation_id": conversation}
    read_first_frame_then_leave(
        base, "/query/v2/stream", body, partner_headers(key), when=model.waiting
    )
    workers = workers_of(app)
    wait_until(lambda: any(job.client_gone for job in workers.jobs()), "the client is gone")
    # When a new stream comes
    refused = httpx.post(
        f"{base}/query/v2/stream", json=body, headers=partner_headers(key), timeout=10
    )
    # Then it is told to retry shortly, and the unread answer stops and stores nothing
    assert_error(refused, 503, "streams_busy")
    assert refused.headers["Retry-After"] == str(RETRY_AFTER_ABANDONED_S)
    model.gate.set()
    wait_until(lambda: workers.running == 0, "the worker is free")
    assert model.roles == ["agent", "agent"]
    assert stored(runtime, "messages") == 0
    with httpx.Client(timeout=30, headers=partner_headers(key)) as client:
        assert read_whole_stream(client, base, "/query/v2/stream", body) == "done"
    assert stored(runtime, "messages") == 1


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.slow
def test_a_thousand_streams_completed_or_dropped_leave_fds_and_memory_where_they_were(
    serve_app: ServeApp, tmp_path: Path, key: ed25519.Ed25519PrivateKey
) -> None:
    """Was: two descriptors and a few MB more per stream, until ``Too many open files``."""
    base, _, _, app = serve(serve_app, tmp_path, key)
    h = partner_headers(key)
    routes = ("/query/v2/stream", "/query/stream")
    failures: list[BaseException] = []

    def run(count: int, client_id: int) -> None:
        try:
            with httpx.Client(timeout=30, headers=h) as client:
                for n in range(count):
                    path = routes[n % 2]
                    if (n + client_id) % 3 == 0:  # a third hang up after the first frame
                        read_first_frame_then_leave(base, path, {"query": QUESTION}, h)
                    else:
                        assert read_whole_stream(client, base, path, {"query": QUESTION}) == "done"
        except BaseException as error:
            failures.append(error)

    def soak(total: int) -> None:
        clients = [threading.Thread(target=run, args=(total // 4, i)) for i in range(4)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        assert not failures, failures[0]
        wait_until(lambda: workers_of(app).running == 0, "every worker is free")

    soak(100)  # warm-up: imports, caches, pooled connections, worker threads
    fds, rss = open_fds(), rss_bytes()
    soak(1000)
    assert open_fds() - fds <= 8
    assert rss_bytes() - rss <= 40 * 2**20
