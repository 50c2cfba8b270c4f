"""Server-Sent Events for the stream routes (V2-21): frames from the contract models, live
progress from a bounded pool of stream workers, keep-alive comments while the agent works.

Issue 11: each stream used to start a thread of its own, so a busy or hostile client could start
any number of them. Now every answer runs on :class:`StreamWorkers`, a pool of
``TANDA_STREAM_WORKERS`` threads; when all are taken a new stream is refused with 503 and
``Retry-After`` before anything is created (:class:`StreamsBusy`), so it is a real HTTP status.

When the client disconnects (docs/streaming.md, "When the client leaves"):

- a turn the client can come back for — its request named the conversation, so
  ``GET /conversations/{id}`` shows the stored turn — is finished within the request deadline and
  stored; but it yields to live clients: when the pool is full and a new stream arrives, such
  answers are abandoned;
- a turn nobody can come back for — the stream started a new conversation and its id is sent only
  in ``message.start``, after the answer is final — is abandoned at once.

An abandoned turn makes no further model call (a call in flight finishes), stores nothing and
ends its worker with :class:`tanda.errors.TurnAbandoned`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from fastapi import Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel
from starlette.types import Receive, Scope, Send

from tanda.api.security import current_runtime
from tanda.contract.frames import STREAM_FRAMES, ErrorFrame
from tanda.contract.query_v1 import V1_STREAM_FRAMES
from tanda.errors import ServiceUnavailable, TandaError, TurnAbandoned

log = logging.getLogger(__name__)

EVENT_OF: dict[type[BaseModel], str] = {
    model: name for frames in (STREAM_FRAMES, V1_STREAM_FRAMES) for name, model in frames.items()
}
KEEPALIVE_S = 10.0
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
RETRY_AFTER_S = 5
"""``Retry-After`` when every worker answers a reading client: about one answer's time."""
RETRY_AFTER_ABANDONED_S = 1
"""``Retry-After`` when a worker holds an abandoned answer: it frees after one model call."""

Emit = Callable[[BaseModel], None]


def encode(frame: BaseModel) -> bytes:
    """One SSE event: ``event: NAME`` and the frame's JSON on one ``data:`` line."""
    name = EVENT_OF[type(frame)]
    return f"event: {name}\ndata: {frame.model_dump_json()}\n\n".encode()


class StreamsBusy(ServiceUnavailable):
    """503 — every stream worker is taken (issue 11); ``Retry-After`` says when to try again."""

    code = "streams_busy"
    message = "Every answer stream of this server is taken; try again shortly."

    def __init__(self, retry_after_s: int) -> None:
        super().__init__()
        self.retry_after_s = retry_after_s


class StreamWork(Protocol):
    """The answer behind one stream: ``emit`` sends live frames, the returned frames follow;
    ``abandoned()`` turns true when nobody will read the answer (stop, store nothing)."""

    def __call__(self, emit: Emit, abandoned: Callable[[], bool]) -> Iterable[BaseModel]: ...


_END = object()


class _Channel:
    """Frames from a worker thread to the event loop that sends the response. The worker may
    emit before the response starts iterating; those frames wait until the loop attaches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._early: list[Any] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[Any] | None = None

    def put(self, item: Any) -> None:
        with self._lock:
            if self._loop is None or self._queue is None:
                self._early.append(item)
                return
            loop, queue = self._loop, self._queue
        # A closed loop (the server stopped) has nobody reading this stream any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def attach(self) -> asyncio.Queue[Any]:
        queue: asyncio.Queue[Any] = asyncio.Queue()
        with self._lock:
            for item in self._early:
                queue.put_nowait(item)
            self._early.clear()
            self._loop, self._queue = asyncio.get_running_loop(), queue
        return queue


class StreamJob:
    """One answer on the pool: its slot, its frames, and what is known of its client."""

    def __init__(self, workers: StreamWorkers, *, resumable: bool) -> None:
        self.resumable = resumable
        """The client can come back for the answer (its request named the conversation)."""
        self._workers = workers
        self._channel = _Channel()
        self._client_gone = threading.Event()
        self._read_to_end = threading.Event()
        self._abandoned = threading.Event()
        self._released = threading.Event()

    @property
    def client_gone(self) -> bool:
        return self._client_gone.is_set()

    def abandoned(self) -> bool:
        """Nobody will read this answer: make no further model call, store nothing."""
        return self._abandoned.is_set()

    def abandon(self) -> None:
        if not self._abandoned.is_set():
            self._abandoned.set()
            log.info("stream answer abandoned: no further model call, nothing stored")

    def client_left(self) -> None:
        """The response ended: unless its body was read to the end, the reader went away."""
        if self._read_to_end.is_set():
            return
        self._client_gone.set()
        if not self.resumable:
            self.abandon()  # its conversation id was never sent: nobody can come back for it

    def start(self, work: StreamWork) -> None:
        """Run ``work`` on the reserved worker; the slot frees when the work ends."""
        self._workers.run(self, work)

    def release(self) -> None:
        """Give the slot back (once): the work ended, or it never started."""
        if not self._released.is_set():
            self._released.set()
            self._workers.release(self)

    def emit(self, frame: BaseModel) -> None:
        self._channel.put(frame)

    def end(self) -> None:
        self._channel.put(_END)

    def response(self, keepalive_s: float = KEEPALIVE_S) -> StreamingResponse:
        """The ``text/event-stream`` response that sends this job's frames."""
        return _AnswerStream(self, keepalive_s)

    async def frames(self, keepalive_s: float = KEEPALIVE_S) -> AsyncIterator[bytes]:
        """Every frame, then the end; keep-alive comments while the work is quiet."""
        queue = self._channel.attach()
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), timeout=keepalive_s)
            except TimeoutError:
                yield b": keep-alive\n\n"  # keeps proxies from closing a quiet stream
                continue
            if item is _END:
                self._read_to_end.set()
                return
            yield encode(item)


class _AnswerStream(StreamingResponse):
    """A job's frames as SSE. However the response ends — read to the end, the client gone
    mid-stream or before the first frame — its ``finally`` tells the job. (A body generator's own
    ``finally`` is not enough: cancelled while the server awaits ``send``, the generator is
    suspended at a ``yield`` and is closed only when collected, maybe much later.)"""

    def __init__(self, job: StreamJob, keepalive_s: float) -> None:
        super().__init__(
            job.frames(keepalive_s), media_type="text/event-stream", headers=SSE_HEADERS
        )
        self.job = job

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.job.client_left()  # nothing when the body was read to the end


class StreamWorkers:
    """The bounded pool every stream's answer runs on (issue 11): at most ``size`` at once, each
    on one of ``size`` reused threads — never a thread per request."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a stream pool needs at least one worker")
        self.size = size
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="tanda-stream")
        self._lock = threading.Lock()
        self._jobs: set[StreamJob] = set()

    @property
    def running(self) -> int:
        """Slots taken: answers reserved or running."""
        with self._lock:
            return len(self._jobs)

    def jobs(self) -> list[StreamJob]:
        """The answers holding a slot now."""
        with self._lock:
            return list(self._jobs)

    def reserve(self, *, resumable: bool) -> StreamJob:
        """A slot for one answer, or :class:`StreamsBusy` when all are taken. Answers whose
        client left yield to a client that is here: they are abandoned now, and their slots free
        after the model call each has in flight."""
        with self._lock:
            if len(self._jobs) < self.size:
                job = StreamJob(self, resumable=resumable)
                self._jobs.add(job)
                return job
            unread = [job for job in self._jobs if job.client_gone]
        for job in unread:
            job.abandon()
        raise StreamsBusy(RETRY_AFTER_ABANDONED_S if unread else RETRY_AFTER_S)

    def run(self, job: StreamJob, work: StreamWork) -> None:
        try:
            self._executor.submit(_run_job, job, work)
        except BaseException:  # e.g. the interpreter is shutting down: the slot is not lost
            job.release()
            raise

    def release(self, job: StreamJob) -> None:
        with self._lock:
            self._jobs.discard(job)


def _run_job(job: StreamJob, work: StreamWork) -> None:
    try:
        for frame in work(job.emit, job.abandoned):
            job.emit(frame)
    except TurnAbandoned:
        pass  # nobody reads this stream; the turn was not stored
    except TandaError as error:
        # The JSON body's extra fields where the frame has them (V2-19: tool, tool_status).
        extra = {k: v for k, v in error.detail().items() if k in ErrorFrame.model_fields}
        job.emit(ErrorFrame(code=error.code, message=error.message, **extra))
    except Exception:
        log.exception("stream worker failed")
        job.emit(ErrorFrame(code="internal_error", message="The request could not be completed."))
    finally:
        job.release()  # before the end frame: a client that read to the end finds the slot free
        job.end()


_workers_lock = threading.Lock()


def stream_workers(request: Request) -> StreamWorkers:
    """The app's stream pool, sized by ``TANDA_STREAM_WORKERS``; made on the first stream."""
    state = request.app.state
    workers: StreamWorkers | None = getattr(state, "stream_workers", None)
    if workers is None:
        with _workers_lock:
            workers = getattr(state, "stream_workers", None)
            if workers is None:
                workers = StreamWorkers(current_runtime(request).settings.stream_workers)
                state.stream_workers = workers
    return workers
