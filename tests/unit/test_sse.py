"""SSE plumbing: frames encode as `event:`/`data:` pairs; quiet work gets keep-alive comments."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pydantic import BaseModel

from tanda.api.sse import encode, run_streaming
from tanda.contract.frames import DoneFrame, ErrorFrame, ToolStartedFrame
from tanda.errors import NotFound


def collect(
    work: Callable[[Callable[[BaseModel], None]], list[BaseModel]], keepalive_s: float
) -> list[bytes]:
    async def run() -> list[bytes]:
        return [chunk async for chunk in run_streaming(work, keepalive_s=keepalive_s)]

    return asyncio.run(run())


def test_a_frame_is_one_event_with_one_data_line() -> None:
    assert encode(DoneFrame(finish_reason="stop", history_truncated=False)) == (
        b'event: done\ndata: {"finish_reason":"stop","history_truncated":false}\n\n'
    )


def test_progress_streams_live_and_quiet_stretches_get_keep_alive_comments() -> None:
    def work(emit: Callable[[BaseModel], None]) -> list[BaseModel]:
        emit(ToolStartedFrame(call_id="c1", tool="search"))
        time.sleep(0.35)  # the agent thinks; the stream must not go silent
        return [DoneFrame(finish_reason="stop", history_truncated=False)]

    chunks = collect(work, keepalive_s=0.1)
    assert chunks[0].startswith(b"event: tool.started\n")
    assert b": keep-alive\n\n" in chunks[1:-1]
    assert chunks[-1].startswith(b"event: done\n")


def test_a_domain_error_in_the_work_ends_the_stream_with_an_error_frame() -> None:
    def work(emit: Callable[[BaseModel], None]) -> list[BaseModel]:
        raise NotFound("Nothing readable.", code="no_readable_result")

    chunks = collect(work, keepalive_s=5)
    assert chunks == [encode(ErrorFrame(code="no_readable_result", message="Nothing readable."))]


def test_an_unexpected_error_never_leaks_its_text() -> None:
    def work(emit: Callable[[BaseModel], None]) -> list[BaseModel]:
        raise RuntimeError("secret stack detail")

    (chunk,) = collect(work, keepalive_s=5)
    assert b"internal_error" in chunk and b"secret" not in chunk
