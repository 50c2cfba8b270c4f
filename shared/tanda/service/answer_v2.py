"""``answer_v2``: the use case behind ``POST /query/v2`` and its stream (V2-01 … V2-23) — the one
turn (:mod:`tanda.service.turn`) seen through the ``/query/v2`` view: every segment published
with its mark, stored as published."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tanda.annotate.aggregate import annotations_frame
from tanda.contract.frames import MessageStartFrame
from tanda.contract.query import QueryV2Request, QueryV2Response
from tanda.service import turn
from tanda.service.publish import Kept, answer_frames, to_response
from tanda.service.turn import Published

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tanda.auth import Principal
    from tanda.conversations.storage import PreparedTurn
    from tanda.pipeline.states import AnswerMode, AnswerOutcome
    from tanda.records.conversations import Route
    from tanda.service.runtime import Runtime

__all__ = ["QUERY_V2", "V2View", "answer_v2", "to_response"]


class V2View:
    """``/query/v2``: the outcome as it is, every segment with its verdict."""

    route: Route = "query_v2"
    mode: AnswerMode = "annotate-v2"

    def publish(
        self, outcome: AnswerOutcome, body: QueryV2Request, prepared: PreparedTurn
    ) -> Published[QueryV2Response]:
        history = prepared.history
        response = to_response(
            outcome,
            body,
            conversation_id=prepared.conversation.conversation_id,
            message_id=prepared.message_id,
            trace_id=prepared.trace_id,
        ).model_copy(
            update={
                "history_truncated": history.truncated,
                "history_exchanges_in_view": history.exchanges_in_view,
            }
        )
        kept = Kept(
            answer=outcome.answer,
            annotation=outcome.annotation,
            fallback_reason=outcome.fallback.value if outcome.fallback else None,
            citations=[c.model_dump(mode="json") for c in outcome.citations],
        )
        return Published(response, outcome, kept)

    def frames(self, published: Published[QueryV2Response]) -> list[BaseModel]:
        response, outcome = published.response, published.outcome
        return answer_frames(
            start=MessageStartFrame(
                conversation_id=response.conversation_id, message_id=response.message_id
            ),
            trace_id=response.trace_id,
            citations=response.citations,
            passages=outcome.passages,
            blocked=response.fallback_reason == "policy_blocked",
            counts=annotations_frame(
                outcome.annotation,
                fallback_used=response.fallback_used,
                fallback_reason=response.fallback_reason,
            ),
            answer=response.answer,
            fallback_used=response.fallback_used,
            history_truncated=response.history_truncated,
        )


QUERY_V2 = V2View()


def answer_v2(
    runtime: Runtime,
    principal: Principal,
    body: QueryV2Request,
    *,
    scenario: str | None = None,
) -> QueryV2Response:
    return turn.answer(runtime, principal, body, QUERY_V2, scenario=scenario)
