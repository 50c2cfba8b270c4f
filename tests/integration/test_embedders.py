"""The OpenAI-compatible embedder against a fake ``/embeddings`` server on loopback: batching,
retries with backoff on 5xx / 429 / timeouts, no retry on other 4xx, unreadable replies."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from tanda.adapters.embedders import (
    API_KEY_ENV,
    EmbeddingFailed,
    OpenAICompatEmbedder,
    build_embedder,
)

pytestmark = pytest.mark.integration


@dataclass
class Reply:
    status: int = 200
    body: bytes | None = None  # None: a well-formed answer for the request
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeEmbeddings:
    """Serves ``POST /v1/embeddings``; ``script`` replies in order, then well-formed ones.
    A text's vector is ``[len(text), index, 1.0]``."""

    url: str = ""
    script: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def answer(self, body: dict[str, Any]) -> bytes:
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(text)), float(i), 1.0]}
            for i, text in enumerate(body["input"])
        ]
        data.reverse()  # servers may answer out of order; `index` says where each belongs
        return json.dumps({"object": "list", "data": data, "model": body.get("model")}).encode()


@pytest.fixture
def fake() -> Iterator[FakeEmbeddings]:
    state = FakeEmbeddings()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length))
            state.requests.append(body)
            state.headers.append(dict(self.headers.items()))
            reply = state.script.pop(0) if state.script else Reply()
            if self.path != "/v1/embeddings":
                reply = Reply(404, b'{"error": "no route"}')
            if reply.delay_s:
                time.sleep(reply.delay_s)
            payload = reply.body if reply.body is not None else state.answer(body)
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@dataclass
class Sleeps:
    delays: list[float] = field(default_factory=list)

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def _embedder(fake: FakeEmbeddings, sleeps: Sleeps, **options: Any) -> OpenAICompatEmbedder:
    return OpenAICompatEmbedder(
        fake.url, model="bge-m3", sleep=sleeps, jitter=lambda: 1.0, **options
    )


def test_texts_are_embedded_in_batches_of_64_in_order(fake: FakeEmbeddings) -> None:
    texts = [f"t{'x' * n}" for n in range(130)]
    embedder = _embedder(fake, Sleeps())

    vectors = embedder.embed(texts)

    assert [len(r["input"]) for r in fake.requests] == [64, 64, 2]
    assert all(r["model"] == "bge-m3" for r in fake.requests)
    assert [v[0] for v in vectors] == [float(len(t)) for t in texts]
    assert embedder.dimensions == 3


def test_dimensions_are_learnt_by_a_probe_when_nothing_was_embedded(fake: FakeEmbeddings) -> None:
    assert _embedder(fake, Sleeps()).dimensions == 3
    assert len(fake.requests) == 1


def test_the_api_key_comes_from_the_environment(
    fake: FakeEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(API_KEY_ENV, "sk-test")
    embedder = build_embedder(f"openai:{fake.url}#bge-m3")
    assert embedder is not None
    embedder.embed(["a"])
    assert fake.headers[0]["Authorization"] == "Bearer sk-test"


def test_without_a_key_no_authorization_is_sent(fake: FakeEmbeddings) -> None:
    _embedder(fake, Sleeps()).embed(["a"])
    assert "Authorization" not in fake.headers[0]


def test_a_server_error_is_retried_after_a_backoff(fake: FakeEmbeddings) -> None:
    fake.script = [Reply(500, b'{"error": "SECRET"}'), Reply(503, b"busy")]
    sleeps = Sleeps()

    vectors = _embedder(fake, sleeps, backoff_s=0.5).embed(["abc"])

    assert vectors == [(3.0, 0.0, 1.0)]
    assert len(fake.requests) == 3
    assert sleeps.delays == [0.5, 1.0]  # exponential; jitter pinned to its top


def test_too_many_requests_is_retried_honouring_retry_after(fake: FakeEmbeddings) -> None:
    fake.script = [Reply(429, b"{}", headers={"Retry-After": "3"})]
    sleeps = Sleeps()

    _embedder(fake, sleeps, backoff_s=0.1).embed(["abc"])

    assert len(fake.requests) == 2 and sleeps.delays == [3.0]


def test_a_timeout_is_retried(fake: FakeEmbeddings) -> None:
    fake.script = [Reply(delay_s=1.0)]
    client = httpx.Client(timeout=0.2)

    vectors = _embedder(fake, Sleeps(), client=client).embed(["abc"])

    assert vectors == [(3.0, 0.0, 1.0)]
    assert len(fake.requests) == 2


def test_a_client_error_is_not_retried_and_its_text_not_shown(fake: FakeEmbeddings) -> None:
    fake.script = [Reply(400, b'{"error": "SECRET model not found"}')]
    sleeps = Sleeps()

    with pytest.raises(EmbeddingFailed) as caught:
        _embedder(fake, sleeps).embed(["abc"])

    assert len(fake.requests) == 1 and sleeps.delays == []
    assert "SECRET" not in str(caught.value)
    assert caught.value.code == "embedding_failed"


def test_retries_stop_after_the_last_attempt(fake: FakeEmbeddings) -> None:
    fake.script = [Reply(502, b"x") for _ in range(5)]
    with pytest.raises(EmbeddingFailed):
        _embedder(fake, Sleeps(), max_attempts=3).embed(["abc"])
    assert len(fake.requests) == 3


@pytest.mark.parametrize(
    "body",
    [
        b"not json at all",
        b'{"data": "nope"}',
        b'{"data": []}',
        b'{"data": [{"index": 0, "embedding": "x"}]}',
        b'{"data": [{"index": 0, "embedding": [true, 1.0]}]}',
        b'{"data": [{"index": 0, "embedding": []}]}',
        b"[1, 2]",
    ],
)
def test_an_unreadable_reply_fails_without_retry(fake: FakeEmbeddings, body: bytes) -> None:
    fake.script = [Reply(200, body)]
    with pytest.raises(EmbeddingFailed):
        _embedder(fake, Sleeps()).embed(["abc"])
    assert len(fake.requests) == 1


def test_vectors_of_another_size_than_configured_are_refused(fake: FakeEmbeddings) -> None:
    with pytest.raises(EmbeddingFailed):
        _embedder(fake, Sleeps(), dimensions=768).embed(["abc"])


def test_an_unreachable_server_is_retried_then_fails() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        sleeps = Sleeps()
        embedder = OpenAICompatEmbedder(
            f"http://127.0.0.1:{port}/v1", sleep=sleeps, jitter=lambda: 0.0, max_attempts=2
        )
        with pytest.raises(EmbeddingFailed):
            embedder.embed(["abc"])
    assert sleeps.delays == [0.0]  # full jitter: the bottom of the first backoff is no wait
