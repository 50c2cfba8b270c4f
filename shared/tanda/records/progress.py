"""Progress events of one answer (V2-21): the ``Progress`` port's value type and the frame codec
every adapter shares (kernel, DESIGN §2: it imports only the contract).

In-process, ``/query/v2/stream`` hands its ``emit`` callback straight to the agent's tools (no
adapter at all). When the answer runs on the state machine, the agent step is another Lambda: it
publishes each ``tool.started`` / ``tool.finished`` frame to a ``Progress`` adapter under the
request's id and the stream function polls the same adapter while the execution runs
(``StepFunctionsRunner.answer(progress=...)``), so the client sees the same frames either way.
``tanda.adapters.memory_progress.MemoryProgress`` serves one process (tests, a local runner);
``tanda.adapters.dynamodb_progress.DynamoProgress`` crosses Lambdas.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.contract.common import WireModel


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
