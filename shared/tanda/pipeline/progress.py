"""Publishing an answer's progress frames to the ``Progress`` port from a step that runs apart from
the stream route (V2-21): the agent step on the state machine."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.contract.common import WireModel
    from tanda.ports import Progress

log = logging.getLogger(__name__)


def publisher(progress: Progress, request_id: str) -> Callable[[WireModel], None]:
    """A frame callback (``AgentTools.on_event``) that publishes under ``request_id``. Progress
    is best effort: a failed publish is logged and the answer goes on."""

    def publish(frame: WireModel) -> None:
        try:
            progress.publish(request_id, frame)
        except Exception:
            log.warning("progress event not published", exc_info=True)

    return publish
