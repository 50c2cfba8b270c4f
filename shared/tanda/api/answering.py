"""What the answering routes share: the scenario header, the error statuses, and opening a stream
on the stream pool (the frames of a finished answer are published by ``tanda.service.publish``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from fastapi import Header, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from tanda.api.security import AUTH_RESPONSES
from tanda.api.sse import Emit, stream_workers
from tanda.contract.errors import ErrorResponse
from tanda.errors import BadRequest
from tanda.wiring import Runtime

ANSWER_RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    400: {"model": ErrorResponse, "description": "The request cannot be served."},
    404: {"model": ErrorResponse, "description": "Nothing readable, or no such conversation."},
    409: {"model": ErrorResponse, "description": "The conversation belongs to the other route."},
    413: {"model": ErrorResponse, "description": "Fixed text: the source material does not fit."},
    502: {"model": ErrorResponse, "description": "A model or source did not answer usably."},
}
STREAM_BUSY_RESPONSE: dict[str, Any] = {
    "model": ErrorResponse,
    "description": "`streams_busy`: every stream worker is taken, retry after `Retry-After` "
    "seconds; or no credentials are configured.",
    "headers": {
        "Retry-After": {
            "description": "Seconds to wait before opening the stream again.",
            "schema": {"type": "integer"},
        }
    },
}


def stream_responses(frames: Mapping[str, type[BaseModel]]) -> dict[int | str, dict[str, Any]]:
    """The responses of a stream route whose events are ``frames`` (event name → model): the
    media type says which frame each event carries (``x-sse-events``); 503 when no stream worker
    is free (issue 11)."""
    events = {event: {"$ref": f"#/components/schemas/{m.__name__}"} for event, m in frames.items()}
    return {
        **ANSWER_RESPONSES,
        200: {
            "content": {"text/event-stream": {"x-sse-events": events}},
            "description": "Server-Sent Events; `x-sse-events` names the frame of each event "
            "(docs/streaming.md).",
        },
        503: STREAM_BUSY_RESPONSE,
    }


ScenarioHeader = Annotated[
    str | None,
    Header(description="Scripted model only: the scenario to answer with; ignored otherwise."),
]


def scenario_for(runtime: Runtime, header: str | None) -> str | None:
    """The scripted model's scenario from ``X-Tanda-Scenario``; ignored under any other model."""
    if not runtime.scripted or header is None:
        return None
    known = runtime.scenarios
    if known is not None and header not in known:
        raise BadRequest("Unknown scenario.", code="unknown_scenario")
    return header


Prepared = TypeVar("Prepared")


def stream_answer(
    request: Request,
    *,
    resumable: bool,
    prepare: Callable[[], Prepared],
    frames: Callable[[Prepared, Emit, Callable[[], bool]], list[BaseModel]],
    give_back: Callable[[Prepared], None],
) -> StreamingResponse:
    """Open an answer stream (issue 11): take a stream worker — 503 ``streams_busy`` when none is
    free, before any conversation is created —, ``prepare`` the turn (404/409 stay real HTTP
    statuses), then compute ``frames`` on the worker while the response streams them.

    ``resumable``: the client can come back for this turn (its request named the conversation),
    so it is finished and stored even if the client leaves; see :mod:`tanda.api.sse`.
    ``give_back``: what a turn that cannot start leaves behind — nothing claimed (issue 11); once
    started, the turn's own failure path gives it back."""
    job = stream_workers(request).reserve(resumable=resumable)
    try:
        prepared = prepare()
    except BaseException:
        job.release()
        raise
    try:
        job.start(lambda emit, abandoned: frames(prepared, emit, abandoned))
    except BaseException:
        give_back(prepared)
        raise
    return job.response()
