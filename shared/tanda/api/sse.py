"""Server-Sent Events for ``/query/v2/stream`` (V2-21): frames from the contract models, live
progress from a worker thread, keep-alive comments while the agent works."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from pydantic import BaseModel

from tanda.contract.frames import STREAM_FRAMES, ErrorFrame
from tanda.contract.query_v1 import V1_STREAM_FRAMES
from tanda.errors import TandaError

log = logging.getLogger(__name__)

EVENT_OF: dict[type[BaseModel], str] = {
    model: name for frames in (STREAM_FRAMES, V1_STREAM_FRAMES) for name, model in frames.items()
}
KEEPALIVE_S = 10.0
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def encode(frame: BaseModel) -> bytes:
    """One SSE event: ``event: NAME`` and the frame's JSON on one ``data:`` line."""
    name = EVENT_OF[type(frame)]
    return f"event: {name}\ndata: {frame.model_dump_json()}\n\n".encode()


_DONE = object()


async def run_streaming(
    work: Callable[[Callable[[BaseModel], None]], Iterable[BaseModel]],
    *,
    keepalive_s: float = KEEPALIVE_S,
) -> AsyncIterator[bytes]:
    """Run ``work(emit)`` in a thread: frames it ``emit``s stream live; the frames it returns
    stream after. The thread finishes (and stores its message) even if the client disconnects."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def put(item: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    def run() -> None:
        try:
            for frame in work(put):
                put(frame)
        except TandaError as error:
            put(ErrorFrame(code=error.code, message=error.message))
        except Exception:
            log.exception("stream worker failed")
            put(ErrorFrame(code="internal_error", message="The request could not be completed."))
        finally:
            put(_DONE)

    threading.Thread(target=run, name="tanda-stream", daemon=True).start()
    while True:
        try:
            item = await asyncio.wait_for(queue.get(), timeout=keepalive_s)
        except TimeoutError:
            yield b": keep-alive\n\n"  # keeps proxies from closing a quiet stream
            continue
        if item is _DONE:
            return
        yield encode(item)
