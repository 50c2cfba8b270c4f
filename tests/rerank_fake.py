"""A real cross-encoder-shaped ``POST /rerank`` server on 127.0.0.1 whose behaviour each test
scripts, in the TEI shape (``{query, texts}`` → ``[{index, score}]``) or the Cohere shape
(``{model, query, documents, top_n}`` → ``{results: [{index, relevance_score}]}``) — it answers
in the shape it was asked in. Every request is recorded::

    with running_rerank_fake() as fake:
        fake.fail("http_503")          # the next call gets a 503, the one after real scores
        ... HostedReranker(fake.base_url, shape="tei") ...
        assert fake.bodies[0]["texts"] == [...]

Scores: ``fake.scores`` when set (one per passage, in order), else the share of the query's
words found in the passage. Replies are sorted best first, as real servers sort them, so a
client that ignores ``index`` gets them wrong.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

# Appears in every error body the fake sends: tests assert it never reaches an error or a log.
LEAKY_SECRET = "rerank-server-SECRET-TEXT"

Failure = Literal["http_500", "http_503", "http_400", "slow", "not_json", "missing_index", "logits"]
_WORD = re.compile(r"\w+")


@dataclass
class RerankFake:
    base_url: str = ""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    scores: list[float] | None = None
    slow_s: float = 1.0
    """How long a ``slow`` failure sleeps before answering."""
    _failures: deque[Failure] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, *failures: Failure) -> None:
        """The next calls fail, one failure each, in order; later calls are answered."""
        with self._lock:
            self._failures.extend(failures)

    def _next_failure(self) -> Failure | None:
        with self._lock:
            return self._failures.popleft() if self._failures else None

    def answer(self, body: dict[str, Any]) -> tuple[int, Any]:
        failure = self._next_failure()
        if failure == "slow":
            time.sleep(self.slow_s)
        elif failure is not None and failure.startswith("http_"):
            status = int(failure.removeprefix("http_"))
            return status, {"error": f"scripted {failure}: {LEAKY_SECRET}"}
        elif failure == "not_json":
            return 200, f"<html>{LEAKY_SECRET}</html>"
        tei = "texts" in body
        passages: list[str] = body["texts"] if tei else body["documents"]
        scores = self.scores if self.scores is not None else _overlap(body["query"], passages)
        if failure == "logits":
            scores = [8.0 * s - 4.0 for s in scores]  # raw cross-encoder logits, not 0–1
        ranked = sorted(range(len(passages)), key=lambda i: -scores[i])
        if failure == "missing_index":
            ranked = ranked[:-1]
        if tei:
            return 200, [{"index": i, "score": scores[i]} for i in ranked]
        top_n = int(body.get("top_n") or len(passages))
        results = [{"index": i, "relevance_score": scores[i]} for i in ranked[:top_n]]
        return 200, {
            "id": "fake",
            "results": results,
            "meta": {"billed_units": {"search_units": 1}},
        }


def _overlap(query: str, passages: list[str]) -> list[float]:
    wanted = set(_WORD.findall(query.lower()))
    if not wanted:
        return [0.0 for _ in passages]
    return [len(wanted & set(_WORD.findall(p.lower()))) / len(wanted) for p in passages]


@contextmanager
def running_rerank_fake() -> Iterator[RerankFake]:
    fake = RerankFake()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") != "/rerank":
                status, reply = 404, {"error": "no such route"}
            else:
                fake.bodies.append(body)
                fake.headers.append(dict(self.headers.items()))
                status, reply = fake.answer(body)
            payload = (reply if isinstance(reply, str) else json.dumps(reply)).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
