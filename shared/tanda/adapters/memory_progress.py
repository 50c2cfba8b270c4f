"""One process's ``Progress`` channel (V2-21): tests and a local runner. Frames are kept encoded,
as a remote adapter (``tanda.adapters.dynamodb_progress``) keeps them."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from tanda.records.progress import ProgressEvent, decode_frame, encode_frame

if TYPE_CHECKING:
    from tanda.contract.common import WireModel


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
