"""``/mcp`` — the MCP server over streamable HTTP (KB-01 … KB-07, docs/mcp.md).

Stateless, JSON responses: every POST is served on its own (no session, no server-sent stream),
so any process or Lambda instance answers any request. The route serves POST only: a GET would
open the SDK's standalone event stream and hold it (and a file) until the client left, and a
DELETE ends a session there is none of — both answer 405 ``method_not_allowed`` with
``Allow: POST`` in the ErrorResponse shape, before authentication, like every other route
(issue 23). Before the SDK sees a request it is
authenticated like every /v1 route — ``Authorization: Bearer dip_live_…|dip_test_…``, the tenant
is the key's (ASK-01) — and a failure answers in the ErrorResponse shape; the body gate in front
of the app (``tanda.api.body_gate``) applies the same size limit (413) and media type (415) as to
every JSON route. Not in the OpenAPI document: MCP describes its tools itself (``tools/list``).
"""

from __future__ import annotations

import contextvars
import threading
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from tanda.api.errors import domain_error_response
from tanda.api.security import current_runtime, v1_principal
from tanda.errors import TandaError
from tanda.mcp.server import build_server

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from tanda.auth import Principal
    from tanda.service.runtime import Runtime

MCP_PATH = "/mcp"

_caller: contextvars.ContextVar[Principal] = contextvars.ContextVar("tanda_mcp_caller")
_runtime: contextvars.ContextVar[Runtime] = contextvars.ContextVar("tanda_mcp_runtime")


class McpEndpoint:
    """The ASGI endpoint of ``/mcp``: authenticate, then hand the request to the SDK's stateless
    streamable-HTTP transport with the caller in context for the tools."""

    takes_json_body = True
    """The body gate refuses a non-JSON body here with 415, as on every JSON route."""

    def __init__(self) -> None:
        self._server: MCPServer[Any] | None = None
        self._lock = threading.Lock()

    @property
    def server(self) -> MCPServer[Any]:
        with self._lock:
            if self._server is None:
                self._server = build_server(_runtime.get, _caller.get)
            return self._server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            principal = v1_principal(request)
        except TandaError as error:
            await domain_error_response(error)(scope, receive, send)
            return
        # Context variables reach the tools: the transport's tasks and the worker threads the
        # SDK runs sync tools on start from this context.
        runtime_token = _runtime.set(current_runtime(request))
        caller_token = _caller.set(principal)
        try:
            # A transport of its own per request (stateless): nothing to start at app start-up,
            # which Lambda (Mangum, lifespan off) would never run. The SDK names no public
            # accessor of the low-level server its transports serve.
            manager = StreamableHTTPSessionManager(
                app=self.server._lowlevel_server,
                stateless=True,
                json_response=True,
            )
            async with manager.run():
                await manager.handle_request(scope, receive, send)
        finally:
            _caller.reset(caller_token)
            _runtime.reset(runtime_token)


router = APIRouter(tags=["mcp"])
router.routes.append(
    Route(MCP_PATH, endpoint=McpEndpoint(), methods=["POST"], include_in_schema=False)
)
