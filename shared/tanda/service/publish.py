"""Publish (DESIGN §3 step 7, issue 24): what a finished turn shows and what its conversation
keeps — the room of the step, shared by every answering route.

- the ``/query/v2`` body of an outcome (:func:`to_response`; the playground shows the same
  fields), with the opt-ins every answering body shares (:func:`grounding_passages`,
  :func:`used_docs`);
- the stored message (CV-3) and the owner's memory of its supported claims (V2-22):
  :func:`store_published` of what a route's view keeps (:class:`Kept`);
- the frames of a finished answer in stream order (V2-21, :func:`answer_frames`).

The verdicts are aggregated into ``faithfulness`` by the guard step, before this: what is
published here is already final.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tanda.contract.common import Citation
from tanda.contract.frames import (
    AnswerDeltaFrame,
    CitationFrame,
    DoneFrame,
    GuardBlockedFrame,
    PassageFrame,
    TraceFrame,
)
from tanda.contract.query import GroundingPassage, QueryV2Response, UsedDoc
from tanda.conversations.storage import PreparedTurn, build_message, store_turn

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tanda.annotate.outcome import Annotation
    from tanda.contract.query import QueryV2Request
    from tanda.conversations.scope import Scope
    from tanda.passages import Passage
    from tanda.pipeline.states import AnswerOutcome
    from tanda.ports import Store

DELTA_CHARS = 80
"""Code points per ``answer.delta`` frame."""


# --- the response ----------------------------------------------------------------------------


def grounding_passages(outcome: AnswerOutcome) -> list[GroundingPassage]:
    """``include_grounding``: every passage shown to the agent, by citation key."""
    return [
        GroundingPassage(
            citation_key=p.key,
            chunk_id=p.citation.chunk_id,
            document_id=p.citation.document_id,
            text=p.text,
        )
        for p in outcome.passages.values()
    ]


def used_docs(outcome: AnswerOutcome, cited: set[str | None]) -> list[UsedDoc]:
    """``include_provenance``: every document a shown passage came from, once, and whether the
    answer cites it."""
    docs: dict[str, UsedDoc] = {}
    for passage in outcome.passages.values():
        doc_id = passage.citation.document_id
        if doc_id and doc_id not in docs:
            docs[doc_id] = UsedDoc(
                document_id=doc_id,
                document_title=passage.citation.document_title,
                cited=doc_id in cited,
            )
    return list(docs.values())


def to_response(
    outcome: AnswerOutcome,
    body: QueryV2Request,
    *,
    conversation_id: str,
    message_id: str,
    trace_id: str,
) -> QueryV2Response:
    """The ``/query/v2`` body of ``outcome``, with the opt-ins ``body`` asked for."""
    annotation = outcome.annotation
    grounding = annotation.grounding
    cited_docs = {c.document_id for c in outcome.citations}
    response = QueryV2Response(
        answer=outcome.answer,
        conversation_id=conversation_id,
        message_id=message_id,
        trace_id=trace_id,
        citations=outcome.citations,
        tool=outcome.tool,
        tool_executed=outcome.tool_executed,
        fallback_used=outcome.fallback_used,
        fallback_reason=outcome.fallback,
        claims=annotation.claims,
        framing=annotation.framing,
        faithfulness=annotation.faithfulness,
        claims_supported=grounding.claims_supported,
        claims_total=grounding.claims_total,
        grounding_rate=grounding.grounding_rate,
        grounding=grounding_passages(outcome) if body.include_grounding else None,
        used_docs=used_docs(outcome, cited_docs) if body.include_provenance else None,
        tool_call_audit=outcome.tool_audit if body.include_provenance else None,
        model_call_log=outcome.model_calls if body.include_provenance else None,
    )
    if body.include_proof:
        # Set even when null: asked and nothing to prove is `proof: null`, not asked is absent.
        response = response.model_copy(update={"proof": outcome.proof})
    return response


# --- what the conversation keeps -------------------------------------------------------------


@dataclass(frozen=True)
class Kept:
    """What a route's view stores of a published turn (CV-3): the answer as published, its
    annotation (whose supported claims become the owner's memory, V2-22), the fallback, the
    citations as JSON, and — when it differs from the published annotation's — the report of
    every checked claim (``v2_faithfulness``: the v1 gate withholds some)."""

    answer: str
    annotation: Annotation
    fallback_reason: str | None
    citations: list[dict[str, object]]
    v2_faithfulness: dict[str, Any] | None = None


def store_published(
    store: Store, prepared: PreparedTurn, question: str, kept: Kept, used: Scope
) -> None:
    """CV-3: the turn's message in its conversation, then the owner's memory (V2-22). The
    message keeps the sources and MCP servers the turn answered with (``used``: its scope as
    bound), for the conversation's next turns (issue 25)."""
    message = build_message(
        conversation=prepared.conversation,
        route=prepared.route,
        question=question,
        answer=kept.answer,
        annotation=kept.annotation,
        fallback_reason=kept.fallback_reason,
        citations=kept.citations,
        message_id=prepared.message_id,
        trace_id=prepared.trace_id,
        sources=[str(kind) for kind in used.sources] if used.sources is not None else None,
        mcp_servers=used.mcp_servers,
    )
    if kept.v2_faithfulness is not None:
        message = message.model_copy(update={"v2_faithfulness": kept.v2_faithfulness})
    store_turn(store, prepared, message, kept.annotation)


# --- the stream ------------------------------------------------------------------------------


def answer_frames(
    *,
    start: BaseModel,
    trace_id: str,
    citations: Sequence[Citation],
    passages: Mapping[str, Passage],
    blocked: bool,
    counts: BaseModel,
    answer: str,
    fallback_used: bool,
    history_truncated: bool,
) -> list[BaseModel]:
    """``start``, ``trace``, ``citation``…, ``guard.blocked`` or ``passage``…, ``counts``,
    ``answer.delta``…, ``done`` — every valid claim key pairs with one citation and one passage."""
    frames: list[BaseModel] = [start, TraceFrame(trace_id=trace_id)]
    frames += [CitationFrame(**c.model_dump(exclude_none=True)) for c in citations]
    if blocked:
        frames.append(GuardBlockedFrame())
    else:
        for citation in citations:
            passage = passages[citation.citation_key or ""]
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
    frames.append(counts)
    frames += [
        AnswerDeltaFrame(text=answer[i : i + DELTA_CHARS])
        for i in range(0, len(answer), DELTA_CHARS)
    ]
    frames.append(
        DoneFrame(
            finish_reason="fallback" if fallback_used else "stop",
            history_truncated=history_truncated,
        )
    )
    return frames
