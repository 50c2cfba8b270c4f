"""KB-02, KB-04: passages and structure records as the nodes a host cites.

A node's citation group is everything needed to cite it exactly: the document's identity, page,
section, node id, the passage the span is in and the verbatim text at that span. A passage's
span is its whole text; a structure record's span is where its quote stands in the passage it
was read from (``quote == passage.text[span]``, ASK-14), so every quote is checked against
stored passage text (KB-05).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from tanda.contract.knowledge import CitationGroup, KnowledgeNode, NodeType, Span
from tanda.contract.v1_search import Identity
from tanda.records.documents import Chunk, Document, LegalIdentity
from tanda.records.structure import NodeKind, StructureRecord
from tanda.retrieval.analysis import surface_terms

NODE_TYPE_OF_KIND: Final[dict[NodeKind, NodeType]] = {
    "entity": "entity",
    "table": "table",
    "line_item": "line_item",
    "line_item_summary": "line_item",  # KALEM ÖZETİ: the summary of an item table's line items
    "claim": "claim",
    "rule": "rule",
    "definition": "definition",
}


def record_kinds(types: Iterable[NodeType]) -> tuple[NodeKind, ...]:
    """The record kinds behind node types (``passage`` has none)."""
    wanted = set(types)
    return tuple(kind for kind, node_type in NODE_TYPE_OF_KIND.items() if node_type in wanted)


def _identity(identity: LegalIdentity) -> Identity:
    return Identity.model_validate(identity.model_dump())


def passage_node(chunk: Chunk, document: Document | None, stale: bool) -> KnowledgeNode:
    return KnowledgeNode(
        node_id=chunk.chunk_id,
        node_type="passage",
        citation=CitationGroup(
            node_id=chunk.chunk_id,
            document_id=chunk.document_id,
            title=document.title if document is not None else chunk.title,
            identity=_identity(chunk.identity),
            page_no=chunk.page_no,
            section=chunk.section,
            passage_id=chunk.chunk_id,
            span=Span(start=0, end=len(chunk.text)),
            text=chunk.text,
        ),
        stale=stale,
    )


def record_node(
    record: StructureRecord, passage: Chunk | None, document: Document | None, stale: bool
) -> KnowledgeNode:
    identity = (
        passage.identity
        if passage is not None
        else document.identity
        if document is not None
        else LegalIdentity()
    )
    title = (
        document.title
        if document is not None
        else passage.title
        if passage is not None
        else record.document_id
    )
    return KnowledgeNode(
        node_id=record.node_id,
        node_type=NODE_TYPE_OF_KIND[record.kind],
        citation=CitationGroup(
            node_id=record.node_id,
            document_id=record.document_id,
            title=title,
            identity=_identity(identity),
            page_no=record.page_no,
            section=record.section,
            passage_id=record.chunk_id,
            span=Span(start=record.span.start, end=record.span.end),
            text=record.quote,
        ),
        summary=record.text,
        stale=stale,
    )


def rank_records(records: Sequence[StructureRecord], query: str) -> list[StructureRecord]:
    """The records read from one accepted passage, those sharing more of the query's words first
    (a passage of a table holds many line items; the one the question names leads), else in
    document order."""
    wanted = set(surface_terms(query))

    def shared(record: StructureRecord) -> int:
        return len(wanted & set(surface_terms(record.text)))

    return sorted(records, key=lambda record: -shared(record))
