"""``answer_v2``: the use case behind ``POST /query/v2`` (V2-01 … V2-23)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from tanda.contract.response import GroundingPassage, QueryV2Response, UsedDoc
from tanda.pipeline.answer_v2 import AnswerDeps, AnswerOutcome
from tanda.pipeline.answer_v2 import answer_v2 as run_pipeline

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.contract import QueryV2Request
    from tanda.wiring import Runtime


def new_id() -> str:
    return uuid.uuid4().hex


def answer_deps(runtime: Runtime) -> AnswerDeps:
    return AnswerDeps(
        index=runtime.search_index,
        model=runtime.model,
        settings=runtime.settings,
        embedder=runtime.embedder,
    )


def answer_v2(
    runtime: Runtime,
    principal: Principal,
    body: QueryV2Request,
    *,
    scenario: str | None = None,
) -> QueryV2Response:
    outcome = run_pipeline(answer_deps(runtime), principal.tenant_id, body, scenario=scenario)
    return to_response(
        outcome,
        body,
        conversation_id=body.conversation_id or new_id(),
        message_id=new_id(),
        trace_id=new_id(),
    )


def to_response(
    outcome: AnswerOutcome,
    body: QueryV2Request,
    *,
    conversation_id: str,
    message_id: str,
    trace_id: str,
) -> QueryV2Response:
    annotation = outcome.annotation
    grounding = annotation.grounding
    cited_docs = {c.document_id for c in outcome.citations}
    return QueryV2Response(
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
        grounding=[
            GroundingPassage(
                citation_key=p.key,
                chunk_id=p.citation.chunk_id,
                document_id=p.citation.document_id,
                text=p.text,
            )
            for p in outcome.passages.values()
        ]
        if body.include_grounding
        else None,
        used_docs=_used_docs(outcome, cited_docs) if body.include_provenance else None,
        tool_call_audit=outcome.tool_audit if body.include_provenance else None,
        model_call_log=outcome.model_calls if body.include_provenance else None,
    )


def _used_docs(outcome: AnswerOutcome, cited: set[str | None]) -> list[UsedDoc]:
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
