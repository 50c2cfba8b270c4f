"""``answer_v2``: the use case behind ``POST /query/v2`` and its stream (V2-01 … V2-23)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tanda.errors import ServiceUnavailable

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.contract import QueryV2Request, QueryV2Response
    from tanda.wiring import Runtime


class AnsweringNotConfigured(ServiceUnavailable):
    code = "answering_not_configured"
    message = "Answering is not available on this deployment yet."


def answer_v2(runtime: Runtime, principal: Principal, body: QueryV2Request) -> QueryV2Response:
    """Answer a question with annotate-v2 marks.

    Retrieval and the agent → judge → guard pipeline are built by their own issues; until they
    are wired, this answers 503 ``answering_not_configured`` after authentication and validation.
    """
    raise AnsweringNotConfigured()
