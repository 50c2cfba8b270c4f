"""Progress events of one answer (V2-21): the ``Progress`` port's value type, the frame codec every
adapter shares, and the in-memory adapter.

In-process, ``/query/v2/stream`` hands its ``emit`` callback straight to the agent's tools (no
adapter at all). When the answer runs on the state machine, the agent step is another Lambda: it
publishes each ``tool.started`` / ``tool.finished`` frame to a ``Progress`` adapter under the
request's id and the stream function polls the same adapter while the execution runs
(``StepFunctionsRunner.answer(progress=...)``), so the client sees the same frames either way.
:class:`MemoryProgress` serves one process (tests, a local runner);
``tanda.adapters.dynamodb_progress.DynamoProgress`` crosses Lambdas.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.contract.common import WireModel
    from tanda.ports import Progress


@dataclass(frozen=True)
class ProgressEvent:
    seq: int
    """1, 2, … per request: a reader passes the last one it saw as ``after``."""
    frame: WireModel


def frame_name(frame: WireModel) -> str:
    """The SSE event name of a stream frame (``tool.started`` …)."""
    from tanda.contract.frames import STREAM_FRAMES

    for name, model in STREAM_FRAMES.items():
        if type(frame) is model:
            return name
    raise ValueError(f"not a stream frame: {type(frame).__name__}")


def encode_frame(frame: WireModel) -> str:
    """``{"event": NAME, "data": {...}}``: what an adapter stores for a frame."""
    return json.dumps(
        {"event": frame_name(frame), "data": frame.model_dump(mode="json")}, ensure_ascii=False
    )


def decode_frame(text: str) -> WireModel:
    from tanda.contract.frames import STREAM_FRAMES

    stored = json.loads(text)
    return STREAM_FRAMES[stored["event"]].model_validate(stored["data"])


def publisher(progress: Progress, request_id: str) -> Callable[[WireModel], None]:
    """A frame callback (``AgentTools.on_event``) that publishes under ``request_id``. Progress
    is best effort: a failed publish is logged and the answer goes on."""
    import logging

    log = logging.getLogger(__name__)

    def publish(frame: WireModel) -> None:
        try:
            progress.publish(request_id, frame)
        except Exception:
            log.warning("progress event not published", exc_info=True)

    return publish


class MemoryProgress:
    """One process's progress channel. Frames are kept encoded, as a remote adapter keeps them,
    so both hand back equal, independent frame objects."""

    def __init__(self) -> None:
        self._events: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def publish(self, request_id: str, frame: WireModel) -> int:
        encoded = encode_frame(frame)
        with self._lock:
            events = self._events.setdefault(request_id, [])
            events.append(encoded)
            return len(events)

    def read(self, request_id: str, after: int = 0) -> list[ProgressEvent]:
        with self._lock:
            events = list(self._events.get(request_id, ()))
        return [
            ProgressEvent(seq, decode_frame(text))
            for seq, text in enumerate(events, start=1)
            if seq > after
        ]
