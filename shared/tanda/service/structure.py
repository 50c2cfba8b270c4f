"""A document's structure records, for a reader that names the document (``tanda inspect``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tanda.ports import SearchIndex
from tanda.records.documents import Document, SearchScope
from tanda.records.structure import NodeKind, RecordQuery, StructureRecord


@dataclass(frozen=True, slots=True)
class DocumentStructure:
    document: Document
    records: list[StructureRecord]


def document_structure(
    index: SearchIndex,
    tenant: str,
    document_id: str,
    kinds: Sequence[NodeKind] | None = None,
) -> DocumentStructure | None:
    """The document and its records (of ``kinds``, or all) in document order; ``None`` when the
    tenant has no such document."""
    scope = SearchScope(tenant_id=tenant, document_ids=(document_id,))
    found = [d for d in index.documents(scope) if d.document_id == document_id]
    if not found:
        return None
    query = RecordQuery(scope=scope, kinds=tuple(kinds) if kinds else None)
    return DocumentStructure(found[0], index.records(query))
