"""A real OpenAI-compatible HTTP server on 127.0.0.1 whose behaviour each test scripts.

Serves ``POST /chat/completions`` from a queue of steps (a reply, or a failure) and
``POST /embeddings`` with deterministic vectors. Every request is recorded. Use it as a context
manager or as a pytest fixture::

    from tests.openai_fake import OpenAIFake, running_fake

    with running_fake() as fake:
        fake.reply("hello", usage=(12, 3))
        fake.fail("http_500")            # the next call gets a 500, the one after "hello"
        ... OpenAICompatModel(fake.base_url, "m") ...
        assert fake.bodies[0]["model"] == "m"

or, in a test module, ``from tests.openai_fake import openai_fake  # noqa: F401`` and take
``openai_fake: OpenAIFake`` as a test argument.

When the queue is empty the server answers with ``fake.default`` (a reply ``"ok"`` unless changed),
or calls ``fake.responder(body)`` when one is set, so other tests can answer from the request.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

# Appears in every error body the fake sends: tests assert it never reaches an exception.
LEAKY_SECRET = "sk-live-LEAKED-4f9c2e7a"

FailureKind = Literal[
    "http_500",
    "http_429",
    "http_400",
    "context_length",
    "malformed_json",
    "missing_choices",
    "drop_connection",
]


@dataclass(frozen=True)
class Reply:
    """A successful chat completion. ``tool_calls`` items: ``{"name", "arguments", "id"?}`` where
    ``arguments`` is a dict (sent JSON-encoded) or a raw string (sent as is)."""

    content: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    finish_reason: str | None = None
    usage: tuple[int, int] | None = (10, 5)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    status: int | None = None
    retry_after: str | None = None
    delay_s: float = 0.0


@dataclass(frozen=True)
class Raw:
    """Any status with any body, sent as is (``application/json``)."""

    status: int
    body: bytes
    delay_s: float = 0.0


Step = Reply | Failure | Raw


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class OpenAIFake:
    """The scripting surface. ``base_url`` is set once the server is listening."""

    base_url: str = ""
    default: Step = field(default_factory=lambda: Reply(content="ok"))
    responder: Callable[[dict[str, Any]], Step] | None = None
    embedding_dimensions: int = 16
    requests: list[RecordedRequest] = field(default_factory=list)
    _steps: deque[Step] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)

    # --- scripting ----------------------------------------------------------------------------

    def reply(
        self,
        content: str | None = None,
        *,
        tool_calls: list[dict[str, Any]] | None = None,
        finish_reason: str | None = None,
        usage: tuple[int, int] | None = (10, 5),
        delay_s: float = 0.0,
    ) -> OpenAIFake:
        """Queue a successful reply (``usage`` = (prompt_tokens, completion_tokens))."""
        return self.then(Reply(content, tuple(tool_calls or ()), finish_reason, usage, delay_s))

    def slow(self, seconds: float, content: str | None = "late") -> OpenAIFake:
        """Queue a reply that comes only after ``seconds``."""
        return self.then(Reply(content=content, delay_s=seconds))

    def fail(
        self,
        kind: FailureKind,
        *,
        status: int | None = None,
        retry_after: str | None = None,
        times: int = 1,
    ) -> OpenAIFake:
        """Queue ``times`` failures. ``status`` overrides the HTTP status of ``http_500``
        (502, 503…); ``retry_after`` is the ``Retry-After`` header of ``http_429``."""
        for _ in range(times):
            self.then(Failure(kind, status=status, retry_after=retry_after))
        return self

    def then(self, step: Step) -> OpenAIFake:
        with self._lock:
            self._steps.append(step)
        return self

    # --- inspection ---------------------------------------------------------------------------

    @property
    def bodies(self) -> list[Any]:
        """Bodies of every ``/chat/completions`` request, in arrival order."""
        with self._lock:
            return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._steps)

    # --- server side --------------------------------------------------------------------------

    def _record(self, path: str, headers: dict[str, str], body: Any) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(path, headers, body))

    def _next_step(self, body: Any) -> Step:
        with self._lock:
            if self._steps:
                return self._steps.popleft()
        if self.responder is not None and isinstance(body, dict):
            return self.responder(body)
        return self.default

    def _wait(self, seconds: float) -> None:
        self._stop.wait(seconds)  # shutdown cuts a slow step short


def completion_payload(step: Reply, model: str) -> dict[str, Any]:
    tool_calls = [
        {
            "id": call.get("id", f"call_{index}"),
            "type": "function",
            "function": {
                "name": call["name"],
                "arguments": call["arguments"]
                if isinstance(call.get("arguments"), str)
                else json.dumps(call.get("arguments", {})),
            },
        }
        for index, call in enumerate(step.tool_calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": step.content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    finish = step.finish_reason or ("tool_calls" if tool_calls else "stop")
    payload: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if step.usage is not None:
        prompt, completion = step.usage
        payload["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return payload


def embedding(text: str, dimensions: int) -> list[float]:
    """Deterministic bag-of-words vector: texts sharing words get close vectors."""
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        vector[digest[0] % dimensions] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else [1.0] + [0.0] * (dimensions - 1)


def _error_body(message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def do_POST(self) -> None:
        fake = self.server.fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        fake._record(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/chat/completions"):
            self._chat(fake, body)
        elif path.endswith("/embeddings"):
            self._embeddings(fake, body)
        else:
            self._json(404, _error_body(f"no route {path}"))

    def _chat(self, fake: OpenAIFake, body: Any) -> None:
        step = fake._next_step(body)
        if step.delay_s:
            fake._wait(step.delay_s)
        model = body.get("model", "fake") if isinstance(body, dict) else "fake"
        if isinstance(step, Reply):
            self._json(200, completion_payload(step, model))
            return
        if isinstance(step, Raw):
            self._raw(step.status, step.body, "application/json")
            return
        kind = step.kind
        if kind == "drop_connection":
            self.close_connection = True
            self.connection.shutdown(2)  # SHUT_RDWR: no status line, no body
            return
        if kind == "http_500":
            self._json(step.status or 500, _error_body(f"upstream crashed near {LEAKY_SECRET}"))
        elif kind == "http_429":
            headers = {"Retry-After": step.retry_after} if step.retry_after is not None else {}
            self._json(429, _error_body(f"rate limited for key {LEAKY_SECRET}"), headers)
        elif kind == "http_400":
            self._json(400, _error_body(f"invalid 'messages': key {LEAKY_SECRET} is not valid"))
        elif kind == "context_length":
            message = (
                "This model's maximum context length is 8192 tokens. However, your messages "
                f"resulted in 9001 tokens ({LEAKY_SECRET})."
            )
            self._json(400, _error_body(message, "context_length_exceeded"))
        elif kind == "malformed_json":
            self._raw(200, b'{"choices": [{"message": ', "application/json")
        elif kind == "missing_choices":
            self._json(200, {"id": "chatcmpl-fake", "object": "chat.completion", "choices": []})

    def _embeddings(self, fake: OpenAIFake, body: Any) -> None:
        if not isinstance(body, dict) or "input" not in body:
            self._json(400, _error_body("missing input"))
            return
        texts = [body["input"]] if isinstance(body["input"], str) else list(body["input"])
        dimensions = int(body.get("dimensions") or fake.embedding_dimensions)
        data = [
            {"object": "embedding", "index": i, "embedding": embedding(str(t), dimensions)}
            for i, t in enumerate(texts)
        ]
        tokens = sum(len(str(t).split()) for t in texts)
        self._json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "fake"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._raw(status, json.dumps(payload).encode(), "application/json", headers)

    def _raw(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout) before the reply
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, fake: OpenAIFake) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-reply is expected (timeouts, dropped connections)


@contextmanager
def running_fake() -> Iterator[OpenAIFake]:
    """Start a fake on a free loopback port; stop it (cutting slow replies short) on exit."""
    fake = OpenAIFake()
    server = _Server(fake)
    host, port = server.server_address[:2]
    fake.base_url = f"http://{host!s}:{port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield fake
    finally:
        fake._stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def openai_fake() -> Iterator[OpenAIFake]:
    """A running :class:`OpenAIFake` for one test."""
    with running_fake() as fake:
        yield fake
