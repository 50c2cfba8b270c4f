"""The request gate: header size, body size and media type, before any parsing and before
authentication (issue 11, issue 23).

FastAPI reads and parses a body before the route's dependencies authenticate the caller, so
without this gate an anonymous 300 MB POST was read whole into memory (1.3 GB RSS) and stalled
every other request before its 401. The gate is pure ASGI and sits outside the app:

- a request head with more than ``MAX_HEADER_FIELDS`` header fields, or more than
  ``MAX_HEADER_BYTES`` of them (names and values) → 431 ``request_header_fields_too_large``,
  before the body is read. Both sit well below the HTTP server's own hard limit on a request head
  (``tanda.api.serve.MAX_REQUEST_HEAD_BYTES``), so that a large head still gets an answer in the
  error shape; over that limit the server refuses it itself, before the app (docs/requests.md).
- a body over ``max_body_bytes`` → 413 ``payload_too_large``. A declared ``Content-Length`` over
  the limit is refused before a byte of the body is read; a chunked body is counted as it
  arrives and reading stops at the limit. The connection is then closed, so the rest of an
  oversize upload is neither read nor kept.
- a body on a route that takes a JSON body whose ``Content-Type`` is missing or not JSON
  (``application/json`` or ``application/*+json``; no charset but UTF-8) → 415
  ``unsupported_media_type`` (docs/requests.md).

Every request's body is read here — also one that declares no length (a Lambda event may carry a
body without a ``Content-Length``; a GET reads as empty at once) — and a body that passes is
handed to the app in one piece, exactly as received.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tanda.api.errors import http_error_body

_CLOSE = {"Connection": "close"}
MAX_HEADER_FIELDS = 100
"""The most header fields a request may send (Apache's ``LimitRequestFields``): every client of
tanda sends fewer than 20."""
MAX_HEADER_BYTES = 32 * 1024
"""The most bytes of header names and values a request may send: room for a partner token at its
longest (8 192 characters, ``tanda.auth.tokens.MAX_TOKEN_CHARS``) four times over."""

BODY_LIMIT_EXTENSION = "x-body-limit"
"""A route whose body has a limit of its own (an upload's, issue 26: its endpoint's
``max_body_bytes(settings)``) says which under this key of its ``openapi_extra``, and documents
its own 415 (its body is not JSON-only); ``tanda.api.openapi`` writes its 413 from it."""


def is_json_media_type(content_type: str) -> bool:
    """``application/json`` or ``application/<x>+json``, with no charset but UTF-8."""
    media_type, _, parameters = content_type.partition(";")
    kind, _, subtype = media_type.strip().lower().partition("/")
    if kind != "application" or not (subtype == "json" or subtype.endswith("+json")):
        return False
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in {
            "utf-8",
            "utf8",
        }:
            return False
    return True


def json_body_routes(routes: Sequence[object]) -> list[BaseRoute]:
    """The routes of ``routes`` that read a JSON body: FastAPI routes with a body model, and
    plain routes whose ASGI endpoint says ``takes_json_body`` (``/mcp``)."""
    return [
        r
        for r in routes
        if (isinstance(r, APIRoute) and r.body_field is not None)
        or (isinstance(r, Route) and getattr(r.endpoint, "takes_json_body", False))
    ]


class BodyGate:
    """ASGI middleware: see the module docstring. ``max_body_bytes(scope)`` gives the limit;
    ``json_routes`` are the routes whose body must be JSON."""

    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: Callable[[Scope], int],
        json_routes: Sequence[BaseRoute],
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.json_routes = tuple(json_routes)

    def takes_json_body(self, scope: Scope) -> bool:
        return any(route.matches(scope)[0] is Match.FULL for route in self.json_routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if headers_too_large(scope["headers"]):
            await _refuse(431, scope, receive, send)  # the body, if any, is never read
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length")
        if declared is not None and not (declared.isascii() and declared.isdigit()):
            await _refuse(400, scope, receive, send)
            return
        limit = _Limit(self.max_body_bytes, scope)
        if declared is not None and int(declared) > 0 and int(declared) > limit.bytes():
            await _refuse(413, scope, receive, send)  # not a byte of it is read
            return
        body = await _read_up_to(receive, limit)
        if body is None:
            await _refuse(413, scope, receive, send)
            return
        if isinstance(body, Disconnected):
            return
        # Checked once the body is read (it is within the limit): a connection closed with a
        # body still arriving would reset, and the client could lose the 415.
        if (
            body
            and not is_json_media_type(headers.get("content-type", ""))
            and self.takes_json_body(scope)
        ):
            await _refuse(415, scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)


def headers_too_large(raw_headers: Sequence[tuple[bytes, bytes]]) -> bool:
    """More than ``MAX_HEADER_FIELDS`` fields, or more than ``MAX_HEADER_BYTES`` of them."""
    if len(raw_headers) > MAX_HEADER_FIELDS:
        return True
    return sum(len(name) + len(value) for name, value in raw_headers) > MAX_HEADER_BYTES


class Disconnected:
    """The client went away before its body was read."""


class _Limit:
    """The limit, looked up only for a request that has a body: reading it builds the runtime
    from the settings, which a bodiless request (``GET /healthz`` on its own Lambda) never
    needs."""

    def __init__(self, lookup: Callable[[Scope], int], scope: Scope) -> None:
        self._lookup = lookup
        self._scope = scope
        self._bytes: int | None = None

    def bytes(self) -> int:
        if self._bytes is None:
            self._bytes = self._lookup(self._scope)
        return self._bytes


async def _read_up_to(receive: Receive, limit: _Limit) -> bytes | Disconnected | None:
    """The whole body, or ``None`` as soon as more than the limit has arrived."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return Disconnected()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size and size > limit.bytes():
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The app's ``receive``: the body in one message, then the server's own (disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(status: int, scope: Scope, receive: Receive, send: Send) -> None:
    # 413, 431 (and a length that cannot be read) close the connection: the unread rest of the
    # body is neither drained nor kept. A 415 body has been read whole, so the connection can stay.
    headers = None if status == 415 else _CLOSE
    response = JSONResponse(http_error_body(status), status_code=status, headers=headers)
    await response(scope, receive, send)
