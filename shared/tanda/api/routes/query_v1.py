"""``POST /query`` and ``POST /query/stream``: the v1 gate (CV-2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from tanda.api.routes.query_v2 import DELTA_CHARS, scenario_for
from tanda.api.security import AUTH_RESPONSES, current_runtime, partner_principal
from tanda.api.sse import SSE_HEADERS, run_streaming
from tanda.auth import Principal
from tanda.contract import ErrorResponse
from tanda.contract.frames import (
    AnswerDeltaFrame,
    CitationFrame,
    DoneFrame,
    GuardBlockedFrame,
    PassageFrame,
    TraceFrame,
)
from tanda.contract.query_v1 import (
    QueryV1Request,
    QueryV1Response,
    V1FaithfulnessFrame,
    V1MessageStartFrame,
)
from tanda.service.answer_v1 import PreparedV1, answer_v1_request, complete_v1, prepare_v1
from tanda.wiring import Runtime

router = APIRouter(tags=["query v1"])

RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    404: {"model": ErrorResponse, "description": "Nothing readable, or no such conversation."},
    409: {"model": ErrorResponse, "description": "The conversation belongs to /query/v2."},
    413: {"model": ErrorResponse, "description": "Fixed text: the source material does not fit."},
    502: {"model": ErrorResponse, "description": "A model or source did not answer usably."},
}
ScenarioHeader = Annotated[
    str | None,
    Header(description="Scripted model only: the scenario to answer with; ignored otherwise."),
]


@router.post(
    "/query",
    response_model=QueryV1Response,
    responses=RESPONSES,
    summary="Answer with unconfirmed sentences withheld (v1 gate)",
)
def query_v1(
    body: QueryV1Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> QueryV1Response:
    runtime = current_runtime(request)
    return answer_v1_request(
        runtime, principal, body, scenario=scenario_for(runtime, x_tanda_scenario)
    )


def v1_frames(
    runtime: Runtime,
    prepared: PreparedV1,
    body: QueryV1Request,
    scenario: str | None,
    emit: Callable[[BaseModel], None],
) -> list[BaseModel]:
    response, result = complete_v1(runtime, prepared, body, scenario=scenario, progress=emit)
    frames: list[BaseModel] = [
        V1MessageStartFrame(
            conversation_id=response.conversation_id, message_id=response.message_id
        ),
        TraceFrame(trace_id=response.trace_id),
    ]
    frames += [CitationFrame(**c.model_dump(exclude_none=True)) for c in response.citations]
    if response.fallback_reason == "policy_blocked":
        frames.append(GuardBlockedFrame())
    else:
        for citation in response.citations:
            passage = result.outcome.passages[citation.citation_key or ""]
            frames.append(
                PassageFrame(
                    kind="chunk",
                    citation_key=passage.key,
                    text=passage.text,
                    chunk_id=citation.chunk_id,
                    document_id=citation.document_id,
                    document_title=citation.document_title,
                    page_no=citation.page_no,
                    section=citation.section,
                    legal_reference=citation.legal_reference,
                )
            )
    frames.append(
        V1FaithfulnessFrame(
            claims_supported=response.claims_supported,
            claims_total=response.claims_total,
            grounding_rate=response.grounding_rate,
            dropped_claims_count=response.dropped_claims_count,
            dropped_claim_reasons=response.dropped_claim_reasons,
            provenance_complete=response.provenance_complete,
            fallback_used=response.fallback_used,
            fallback_reason=response.fallback_reason,
        )
    )
    answer = response.answer
    frames += [
        AnswerDeltaFrame(text=answer[i : i + DELTA_CHARS])
        for i in range(0, len(answer), DELTA_CHARS)
    ]
    frames.append(
        DoneFrame(
            finish_reason="fallback" if response.fallback_used else "stop",
            history_truncated=response.history_truncated,
        )
    )
    return frames


@router.post(
    "/query/stream",
    responses={
        **RESPONSES,
        200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events."},
    },
    response_class=StreamingResponse,
    summary="The v1 gate, streamed; its `faithfulness` frame counts withheld sentences",
)
def query_v1_stream(
    body: QueryV1Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: ScenarioHeader = None,
) -> StreamingResponse:
    runtime = current_runtime(request)
    scenario = scenario_for(runtime, x_tanda_scenario)
    prepared = prepare_v1(runtime, principal, body)
    frames = run_streaming(lambda emit: v1_frames(runtime, prepared, body, scenario, emit))
    return StreamingResponse(frames, media_type="text/event-stream", headers=SSE_HEADERS)
