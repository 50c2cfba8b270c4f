"""SSE plumbing: frames encode as `event:`/`data:` pairs; quiet work gets keep-alive comments; the
bounded stream pool (issue 11) — reused threads, 503 when full, abandoned answers."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import pytest
from pydantic import BaseModel
from starlette.types import Message, Scope

from tanda.api.sse import (
    RETRY_AFTER_ABANDONED_S,
    RETRY_AFTER_S,
    StreamJob,
    StreamsBusy,
    StreamWork,
    StreamWorkers,
    encode,
)
from tanda.contract.frames import DoneFrame, ErrorFrame, ToolStartedFrame
from tanda.errors import NotFound, TurnAbandoned

DONE = DoneFrame(finish_reason="stop", history_truncated=False)


def read(job: StreamJob, keepalive_s: float = 5) -> list[bytes]:
    async def run() -> list[bytes]:
        return [chunk async for chunk in job.frames(keepalive_s)]

    return asyncio.run(run())


def collect(work: StreamWork, keepalive_s: float = 5) -> list[bytes]:
    job = StreamWorkers(1).reserve(resumable=True)
    job.start(work)
    return read(job, keepalive_s)


def serve(job: StreamJob, *, leave_after: int | None) -> list[bytes]:
    """Send the job's response as the server does, to a client that disconnects after
    ``leave_after`` body chunks (``0``: before the first; ``None``: never). Asserts that the job
    knows its client left as soon as the response ends, not when the loop closes."""
    chunks: list[bytes] = []

    async def run() -> None:
        gone = asyncio.Event()
        if leave_after == 0:
            gone.set()

        async def send(message: Message) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                chunks.append(message["body"])
                if leave_after is not None and len(chunks) >= leave_after:
                    gone.set()
                    # The client is gone while the server sends: only the disconnect ends this.
                    await asyncio.Event().wait()

        async def receive() -> Message:
            await gone.wait()
            return {"type": "http.disconnect"}

        scope: Scope = {"type": "http", "asgi": {"spec_version": "2.3"}}
        await job.response()(scope, receive, send)
        assert job.client_gone == (leave_after is not None)

    asyncio.run(asyncio.wait_for(run(), timeout=10))
    return chunks


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def test_a_frame_is_one_event_with_one_data_line() -> None:
    assert encode(DONE) == (
        b'event: done\ndata: {"finish_reason":"stop","history_truncated":false}\n\n'
    )


def test_progress_streams_live_and_quiet_stretches_get_keep_alive_comments() -> None:
    kept_alive = threading.Event()

    def work(emit: Callable[[BaseModel], None], abandoned: Callable[[], bool]) -> list[BaseModel]:
        emit(ToolStartedFrame(call_id="c1", tool="search"))
        # the agent thinks until the reader got a keep-alive: the stream must not go silent
        assert kept_alive.wait(10), "no keep-alive while the work was quiet"
        return [DONE]

    job = StreamWorkers(1).reserve(resumable=True)
    job.start(work)

    async def run() -> list[bytes]:
        chunks = []
        async for chunk in job.frames(keepalive_s=0.01):
            chunks.append(chunk)
            if chunk == b": keep-alive\n\n":
                kept_alive.set()
        return chunks

    chunks = asyncio.run(run())
    assert chunks[0].startswith(b"event: tool.started\n")
    assert b": keep-alive\n\n" in chunks[1:-1]
    assert chunks[-1].startswith(b"event: done\n")


def test_a_domain_error_in_the_work_ends_the_stream_with_an_error_frame() -> None:
    def work(emit: Callable[[BaseModel], None], abandoned: Callable[[], bool]) -> list[BaseModel]:
        raise NotFound("Nothing readable.", code="no_readable_result")

    chunks = collect(work)
    assert chunks == [encode(ErrorFrame(code="no_readable_result", message="Nothing readable."))]


def test_an_unexpected_error_never_leaks_its_text() -> None:
    def work(emit: Callable[[BaseModel], None], abandoned: Callable[[], bool]) -> list[BaseModel]:
        raise RuntimeError("secret stack detail")

    (chunk,) = collect(work)
    assert b"internal_error" in chunk and b"secret" not in chunk


def test_every_stream_runs_on_one_of_the_pools_reused_threads() -> None:
    workers = StreamWorkers(2)
    threads: set[int] = set()

    def work(emit: Callable[[BaseModel], None], abandoned: Callable[[], bool]) -> list[BaseModel]:
        threads.add(threading.get_ident())
        return [DONE]

    for _ in range(30):
        job = workers.reserve(resumable=True)
        job.start(work)
        assert read(job) == [encode(DONE)]
    assert 1 <= len(threads) <= 2
    assert workers.running == 0


class Gate:
    """Work that holds its worker until the test opens the gate."""

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.saw_abandoned = threading.Event()

    def __call__(
        self, emit: Callable[[BaseModel], None], abandoned: Callable[[], bool]
    ) -> list[BaseModel]:
        emit(ToolStartedFrame(call_id="c1", tool="search"))
        assert self.opened.wait(10)
        if abandoned():
            self.saw_abandoned.set()
            raise TurnAbandoned()
        return [DONE]


def test_a_full_pool_refuses_the_next_stream_with_retry_after_until_a_slot_frees() -> None:
    # Given a pool of two, both answering clients that read
    workers = StreamWorkers(2)
    gate = Gate()
    jobs = [workers.reserve(resumable=False) for _ in range(2)]
    for job in jobs:
        job.start(gate)
    # When a third stream comes
    with pytest.raises(StreamsBusy) as refused:
        workers.reserve(resumable=False)
    # Then it is refused with the full wait, and no live answer is disturbed
    assert refused.value.retry_after_s == RETRY_AFTER_S
    assert refused.value.code == "streams_busy"
    assert not any(job.abandoned() for job in jobs)
    gate.opened.set()
    assert read(jobs[0])[-1] == encode(DONE)
    wait_until(lambda: workers.running < 2)
    workers.reserve(resumable=False).release()  # a slot is free again


def test_a_reserved_slot_that_never_starts_is_given_back() -> None:
    workers = StreamWorkers(1)
    job = workers.reserve(resumable=False)
    job.release()
    job.release()  # once only
    workers.reserve(resumable=False)


def test_a_client_leaving_a_new_conversation_abandons_its_answer() -> None:
    # Given a stream that started a new conversation (its id is sent only at the end)
    workers = StreamWorkers(1)
    gate = Gate()
    job = workers.reserve(resumable=False)
    job.start(gate)
    # When its client reads the first frame and leaves
    assert serve(job, leave_after=1)[0].startswith(b"event: tool.started\n")
    gate.opened.set()
    # Then the work sees it abandoned and the slot frees
    assert gate.saw_abandoned.wait(10)
    wait_until(lambda: workers.running == 0)


def test_a_client_leaving_a_named_conversation_lets_the_answer_finish() -> None:
    workers = StreamWorkers(2)
    gate = Gate()
    job = workers.reserve(resumable=True)
    job.start(gate)
    serve(job, leave_after=1)
    assert job.client_gone and not job.abandoned()
    gate.opened.set()
    wait_until(lambda: workers.running == 0)
    assert not gate.saw_abandoned.is_set()


def test_an_unread_answer_yields_its_slot_to_a_new_client_when_the_pool_is_full() -> None:
    # Given a pool of one, held by a named-conversation answer whose client left
    workers = StreamWorkers(1)
    gate = Gate()
    job = workers.reserve(resumable=True)
    job.start(gate)
    serve(job, leave_after=1)
    # When a new stream comes
    with pytest.raises(StreamsBusy) as refused:
        workers.reserve(resumable=True)
    # Then the unread answer is abandoned, and the newcomer is told to retry soon
    assert job.abandoned()
    assert refused.value.retry_after_s == RETRY_AFTER_ABANDONED_S
    gate.opened.set()
    assert gate.saw_abandoned.wait(10)
    wait_until(lambda: workers.running == 0)
    workers.reserve(resumable=True).release()


def test_a_client_gone_before_the_first_frame_is_a_client_that_left() -> None:
    workers = StreamWorkers(1)
    gate = Gate()
    job = workers.reserve(resumable=False)
    job.start(gate)
    serve(job, leave_after=0)
    assert job.client_gone and job.abandoned()
    gate.opened.set()
    wait_until(lambda: workers.running == 0)


def test_a_client_that_reads_to_the_end_is_not_a_client_that_left() -> None:
    workers = StreamWorkers(1)
    job = workers.reserve(resumable=False)
    job.start(lambda emit, abandoned: [DONE])
    assert serve(job, leave_after=None) == [encode(DONE)]
    assert not job.client_gone and not job.abandoned()
