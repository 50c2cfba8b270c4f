"""An OpenSearch that keeps its documents in memory and answers the few requests the records
contract needs, on loopback: ``_bulk`` (index, partial update), ``_doc``, ``_search`` and
``_delete_by_query`` with ``bool`` queries of ``term`` / ``terms`` / ``match_all`` clauses,
``sort``, ``size`` and ``search_after``. It evaluates what the adapter sends, so one contract
test can run against ``SqliteSearchIndex`` and ``OpenSearchIndex`` alike (the wire-level fake of
``tests/integration/test_opensearch_index.py`` only records requests). Text search, vectors and
aggregations are not served: a request it cannot answer is a 400, never a silent empty reply."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import SplitResult, parse_qs, urlsplit

from tests.opensearch_contract import Request, check


class Unsupported(ValueError):
    """A query this fake does not evaluate."""


def _values(source: Mapping[str, Any], field: str) -> list[Any]:
    value: Any = source
    for part in field.split("."):
        if not isinstance(value, Mapping):
            return []
        value = value.get(part)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def matches(source: Mapping[str, Any], query: Mapping[str, Any]) -> bool:
    """Whether a stored ``_source`` matches a query of the supported clauses."""
    ((kind, body),) = query.items()
    if kind == "match_all":
        return True
    if kind == "term":
        ((field, wanted),) = body.items()
        wanted = wanted["value"] if isinstance(wanted, Mapping) else wanted
        return wanted in _values(source, field)
    if kind == "terms":
        ((field, wanted),) = body.items()
        return any(value in wanted for value in _values(source, field))
    if kind == "bool":
        unknown = set(body) - {"filter", "must", "must_not", "should"}
        if unknown or "should" in body:
            raise Unsupported(f"bool with {sorted(unknown) or ['should']}")
        required = [*_clauses(body.get("filter")), *_clauses(body.get("must"))]
        return all(matches(source, q) for q in required) and not any(
            matches(source, q) for q in _clauses(body.get("must_not"))
        )
    raise Unsupported(kind)


def _clauses(value: Any) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _sort_key(source: Mapping[str, Any], sort: Sequence[Any]) -> list[Any]:
    key: list[Any] = []
    for spec in sort:
        ((field, order),) = spec.items()
        order = order["order"] if isinstance(order, Mapping) else order
        if order != "asc":
            raise Unsupported(f"sort {order}")
        values = _values(source, field)
        key.append(values[0] if values else None)
    return key


class MemoryOpenSearch:
    """The documents of one index, by ``_id``."""

    def __init__(self) -> None:
        self.documents: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str, Any]] = []
        self._lock = threading.Lock()

    def search(self, body: Mapping[str, Any]) -> dict[str, Any]:
        query = body.get("query") or {"match_all": {}}
        found = [(i, s) for i, s in self.documents.items() if matches(s, query)]
        sort = body.get("sort")
        hits: list[dict[str, Any]] = []
        if sort:
            keyed = sorted(((_sort_key(s, sort), i, s) for i, s in found), key=lambda t: t[0])
            after = body.get("search_after")
            if after:
                keyed = [t for t in keyed if t[0] > list(after)]
            hits = [{"_id": i, "_score": None, "_source": s, "sort": k} for k, i, s in keyed]
        else:
            hits = [{"_id": i, "_score": 1.0, "_source": s} for i, s in found]
        size = int(body.get("size", 10))
        page = hits[:size]
        return {
            "took": 1,
            "timed_out": False,
            "hits": {"total": {"value": len(hits)}, "hits": page},
        }

    def reply(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        parts = [p for p in path.split("/") if p]
        with self._lock:
            self.requests.append((method, path, body))
            try:
                return self._reply(method, parts, body)
            except Unsupported as exc:
                return 400, {"error": {"type": "unsupported_by_fake", "reason": str(exc)}}

    def _reply(self, method: str, parts: list[str], body: Any) -> tuple[int, Any]:
        if len(parts) == 1 and method == "HEAD":
            return 200, None
        action = parts[1] if len(parts) > 1 else ""
        if action == "_bulk":
            items = []
            for action_line, document in zip(body[0::2], body[1::2], strict=True):
                ((verb, meta),) = action_line.items()
                if verb == "index":
                    self.documents[meta["_id"]] = document
                elif verb == "update":
                    self.documents.setdefault(meta["_id"], {}).update(document["doc"])
                else:
                    raise Unsupported(f"bulk {verb}")
                items.append({verb: {"_id": meta["_id"], "status": 200}})
            return 200, {"took": 1, "errors": False, "items": items}
        if action == "_doc" and method in ("PUT", "POST"):
            self.documents[parts[2]] = body
            return 201, {"_id": parts[2], "result": "created"}
        if action == "_search":
            return 200, self.search(body or {})
        if action == "_delete_by_query":
            doomed = [i for i, s in self.documents.items() if matches(s, body["query"])]
            for record_id in doomed:
                del self.documents[record_id]
            return 200, {"took": 1, "deleted": len(doomed), "failures": []}
        raise Unsupported(f"{method} {'/'.join(parts)}")


Answer = Callable[[str, SplitResult, dict[str, str], Any], tuple[int, Any]]
"""``(method, url, headers, body) -> (status, reply)``; ``body`` is the parsed JSON (a list of
lines for the NDJSON of ``_bulk`` / ``_msearch``), ``reply`` None for an empty body."""


@contextmanager
def serve_json(answer: Answer, *, contract: bool = True) -> Iterator[str]:
    """An OpenSearch-shaped JSON server on a loopback port, each request answered by ``answer``;
    yields its URL. On leaving (the fixtures' teardown), every request it received is checked
    against OpenSearch's API specification (``tests/opensearch_contract.py``, issue 26) and a
    request the spec does not allow fails the test; ``contract=False`` only for a test of that
    check itself."""
    received: list[Request] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _handle(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8") if length else ""
            body: Any = None
            if raw:
                lines = [line for line in raw.splitlines() if line.strip()]
                body = (
                    [json.loads(line) for line in lines]
                    if url.path.endswith(("_bulk", "_msearch"))
                    else json.loads(raw)
                )
            received.append(Request(self.command, url.path, parse_qs(url.query), body))
            status, reply = answer(self.command, url, dict(self.headers.items()), body)
            payload = b"" if reply is None else json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    if contract:
        check(received)


@contextmanager
def serving(store: MemoryOpenSearch) -> Iterator[str]:
    """``store`` on a loopback port; yields its URL."""
    with serve_json(lambda method, url, headers, body: store.reply(method, url.path, body)) as url:
        yield url
