"""``POST /query/v2`` (V2-01 … V2-20): authenticate, validate, hand over to the use case."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from tanda.annotate.aggregate import annotations_frame
from tanda.api.security import AUTH_RESPONSES, current_runtime, partner_principal
from tanda.api.sse import SSE_HEADERS, run_streaming
from tanda.auth import Principal
from tanda.contract import ErrorResponse, QueryV2Request, QueryV2Response
from tanda.contract.frames import (
    AnswerDeltaFrame,
    CitationFrame,
    DoneFrame,
    GuardBlockedFrame,
    MessageStartFrame,
    PassageFrame,
    TraceFrame,
)
from tanda.errors import BadRequest
from tanda.service.answer_v2 import PreparedAnswer, answer_v2, complete_v2, prepare_v2
from tanda.wiring import Runtime

router = APIRouter(tags=["query v2"])

DELTA_CHARS = 80
"""Code points per ``answer.delta`` frame."""

RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    400: {"model": ErrorResponse, "description": "The request cannot be served."},
    404: {"model": ErrorResponse, "description": "The tool that ran returned nothing readable."},
    409: {"model": ErrorResponse, "description": "The conversation belongs to another route."},
    413: {"model": ErrorResponse, "description": "Fixed text: the source material does not fit."},
    502: {"model": ErrorResponse, "description": "A model or source did not answer usably."},
}


@router.post(
    "/query/v2",
    response_model=QueryV2Response,
    responses=RESPONSES,
    summary="Answer with every statement marked (annotate-v2)",
)
def query_v2(
    body: QueryV2Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: Annotated[
        str | None,
        Header(description="Scripted model only: the scenario to answer with; ignored otherwise."),
    ] = None,
) -> QueryV2Response:
    runtime = current_runtime(request)
    return answer_v2(runtime, principal, body, scenario=scenario_for(runtime, x_tanda_scenario))


def scenario_for(runtime: Runtime, header: str | None) -> str | None:
    """The scripted model's scenario from ``X-Tanda-Scenario``; ignored under any other model."""
    if not runtime.scripted or header is None:
        return None
    from tanda.adapters.scripted import ScriptedModel

    model = runtime.model
    if isinstance(model, ScriptedModel) and header not in model.scenarios:
        raise BadRequest("Unknown scenario.", code="unknown_scenario")
    return header


def stream_frames(
    runtime: Runtime,
    prepared: PreparedAnswer,
    body: QueryV2Request,
    scenario: str | None,
    emit: Callable[[BaseModel], None],
) -> list[BaseModel]:
    """V2-21: progress while the agent works; then every frame of the finished, judged and
    guarded answer, in order."""
    response, outcome = complete_v2(runtime, prepared, body, scenario=scenario, progress=emit)
    frames: list[BaseModel] = [
        MessageStartFrame(conversation_id=response.conversation_id, message_id=response.message_id),
        TraceFrame(trace_id=response.trace_id),
    ]
    for citation in response.citations:
        frames.append(CitationFrame(**citation.model_dump(exclude_none=True)))
    if response.fallback_reason == "policy_blocked":
        frames.append(GuardBlockedFrame())
    else:
        for citation in response.citations:
            passage = outcome.passages[citation.citation_key or ""]
            frames.append(
                PassageFrame(
                    kind="chunk" if passage.kind == "chunk" else "tool",
                    citation_key=passage.key,
                    text=passage.text,
                    chunk_id=citation.chunk_id,
                    document_id=citation.document_id,
                    document_title=citation.document_title,
                    page_no=citation.page_no,
                    section=citation.section,
                    legal_reference=citation.legal_reference,
                    tool=passage.producing_call if passage.kind != "chunk" else None,
                )
            )
    frames.append(
        annotations_frame(
            outcome.annotation,
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
    "/query/v2/stream",
    responses={
        **RESPONSES,
        200: {
            "content": {"text/event-stream": {}},
            "description": "Server-Sent Events in the order of V2-21; see `x-sse-events`.",
        },
    },
    response_class=StreamingResponse,
    summary="The same answer as /query/v2, streamed with its annotations first",
)
def query_v2_stream(
    body: QueryV2Request,
    request: Request,
    principal: Annotated[Principal, Depends(partner_principal)],
    x_tanda_scenario: Annotated[
        str | None,
        Header(description="Scripted model only: the scenario to answer with; ignored otherwise."),
    ] = None,
) -> StreamingResponse:
    runtime = current_runtime(request)
    scenario = scenario_for(runtime, x_tanda_scenario)
    # Ownership (404/409) is settled before the stream starts, so it is a real HTTP status.
    prepared = prepare_v2(runtime, principal, body)
    frames = run_streaming(lambda emit: stream_frames(runtime, prepared, body, scenario, emit))
    return StreamingResponse(frames, media_type="text/event-stream", headers=SSE_HEADERS)
