"""A partner MCP server as a source of the agent (issue 25; docs/sources.md), spoken to with the
official ``mcp`` SDK client over streamable HTTP or stdio (stdio: embedded only).

One :class:`McpClientSession` is one open session for one request's agent step: the SDK's async
client runs on its own event loop thread (an anyio blocking portal); the agent's tools call it
synchronously, each call bounded by its timeout. ``initialize`` must finish within the tool
deadline, else the server is unavailable (``mcp_source_unavailable``).

Safety: the endpoint is the configured URL only — the SDK follows a redirect only within that
origin; every HTTP response body is read up to ``max_bytes`` and no further; headers (secrets)
come by reference and never appear in a producing call.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import AbstractContextManager, AsyncExitStack
from typing import Any

import anyio
import httpx2
from anyio.from_thread import BlockingPortal, start_blocking_portal

from tanda.sources import McpResult, McpServerConfig, McpTool, SourceRefused

log = logging.getLogger(__name__)


class McpUnavailable(Exception):
    """The server did not answer ``initialize`` in time, or could not be reached."""


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, stream: Any, cap: int) -> None:
        self._stream = stream
        self._cap = cap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._stream:
            read += len(chunk)
            if read > self._cap:
                raise SourceRefused("the MCP server's response is larger than its cap")
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """Every response body read up to ``cap`` bytes, never further."""

    def __init__(self, cap: int, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx2.AsyncHTTPTransport()
        self._cap = cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdecimal() and int(declared) > self._cap:
            await response.aclose()
            raise SourceRefused("the MCP server's response is larger than its cap")
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_CappedStream(response.stream, self._cap),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class McpClientSession:
    """An open session with one configured MCP server (the :class:`~tanda.sources.McpSession`
    port)."""

    def __init__(self, config: McpServerConfig, *, headers: dict[str, str] | None = None) -> None:
        self.config = config
        self.name = config.name
        self._headers = headers or {}
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._client: Any = None
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._stop: anyio.Event | None = None
        self._task: Future[None] | None = None

    def open(self, *, timeout: float) -> McpClientSession:
        """Connect and ``initialize`` within ``timeout`` seconds, or :class:`McpUnavailable`."""
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._task = self._portal.start_task_soon(self._serve)
        if not self._ready.wait(timeout) or self._failed is not None or self._client is None:
            self.close(wait=False)
            raise McpUnavailable(f"MCP server {self.name!r} did not answer initialize in time")
        return self

    async def _serve(self) -> None:
        self._stop = anyio.Event()
        try:
            async with AsyncExitStack() as stack:
                self._client = await stack.enter_async_context(self._new_client(stack))
                self._ready.set()
                await self._stop.wait()
        except BaseException as error:  # reported through open(); never raised past the portal
            self._failed = error
            self._ready.set()
            if not isinstance(error, Exception):
                raise

    def _new_client(self, stack: AsyncExitStack) -> Any:
        from mcp import Client, StdioServerParameters

        config = self.config
        if config.transport == "stdio":
            params = StdioServerParameters(
                command=config.command or "", args=list(config.args), env=dict(config.env)
            )
            return Client(params, read_timeout_seconds=config.timeout_s)
        from mcp.client.streamable_http import streamable_http_client

        http = httpx2.AsyncClient(
            headers=self._headers,
            timeout=config.timeout_s,
            follow_redirects=False,
            transport=CappedTransport(config.max_bytes),
        )
        stack.push_async_callback(http.aclose)
        transport = streamable_http_client(
            config.url or "", http_client=http, max_sse_event_size=config.max_bytes
        )
        return Client(transport, read_timeout_seconds=config.timeout_s)

    def _run(self, fn: Any, timeout: float) -> Any:
        portal = self._portal
        if portal is None or self._client is None:
            raise McpUnavailable(f"MCP server {self.name!r} is not open")
        seconds = max(0.001, min(timeout, self.config.timeout_s))

        async def bounded() -> Any:
            with anyio.fail_after(seconds):
                return await fn()

        return portal.call(bounded)

    def tools(self, *, timeout: float) -> list[McpTool]:
        listed = self._run(lambda: self._client.list_tools(), timeout)
        allowed = self.config.allowed_tools
        return [
            McpTool(
                name=tool.name,
                description=(tool.description or tool.title or tool.name)[:1000],
                input_schema=dict(tool.input_schema or {}),
            )
            for tool in listed.tools
            if allowed is None or tool.name in allowed
        ]

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float) -> McpResult:
        allowed = self.config.allowed_tools
        if allowed is not None and tool not in allowed:
            raise SourceRefused(f"tool {tool!r} is not allowed on {self.name!r}")
        result = self._run(lambda: self._client.call_tool(tool, arguments), timeout)
        texts = tuple(
            str(getattr(c, "text", "")) for c in result.content if getattr(c, "type", "") == "text"
        )
        structured = result.structured_content
        size = sum(len(t) for t in texts) + len(str(structured or ""))
        if size > self.config.max_bytes:
            raise SourceRefused("the MCP result is larger than its cap")
        return McpResult(
            texts=texts,
            structured=dict(structured) if isinstance(structured, dict) else None,
            is_error=bool(result.is_error),
        )

    def close(self, *, wait: bool = True) -> None:
        """End the session (a stdio server's process with it); ``wait=False``: do not wait for
        a session that never finished ``initialize``."""
        portal, portal_cm = self._portal, self._portal_cm
        self._portal = self._portal_cm = None
        if portal is None or portal_cm is None:
            return
        stop = self._stop
        try:
            if stop is not None and wait:
                portal.call(stop.set)
            if self._task is not None and not wait:
                self._task.cancel()
            elif self._task is not None:
                try:
                    self._task.result(timeout=self.config.timeout_s)
                except (FutureTimeout, Exception):
                    self._task.cancel()
        finally:
            try:
                portal_cm.__exit__(None, None, None)
            except Exception as error:  # closing a broken session must not fail the answer
                log.warning("closing MCP session %s: %s", self.name, type(error).__name__)
