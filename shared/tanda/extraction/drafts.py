"""Records before they are numbered: each layer drafts its records with their anchor (chunk and
span); :func:`tanda.extraction.build.build_structure` orders every draft of a document and gives
it its ``ordinal``. Pure data and one helper that fills the fields every record shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tanda.numbers.normal import NormalForm
from tanda.records.documents import Chunk, Document
from tanda.records.structure import (
    ClaimRecord,
    DefinitionRecord,
    EntityRecord,
    LineItemRecord,
    LineItemSummaryRecord,
    RuleRecord,
    TableRecord,
    node_id_for,
)

RecordClass = (
    type[EntityRecord]
    | type[TableRecord]
    | type[LineItemRecord]
    | type[LineItemSummaryRecord]
    | type[ClaimRecord]
    | type[RuleRecord]
    | type[DefinitionRecord]
)

_KIND_OF: dict[RecordClass, str] = {
    EntityRecord: "entity",
    TableRecord: "table",
    LineItemRecord: "line_item",
    LineItemSummaryRecord: "line_item_summary",
    ClaimRecord: "claim",
    RuleRecord: "rule",
    DefinitionRecord: "definition",
}
KIND_RANK = {
    "table": 0,
    "line_item": 1,
    "line_item_summary": 2,
    "entity": 3,
    "claim": 4,
    "rule": 5,
    "definition": 6,
}
"""Among records at the same place, the order they are listed in."""


@dataclass(frozen=True, slots=True)
class Draft:
    """One record's fields, less its ``ordinal``; ordered by where it was read."""

    order: tuple[int, int, int, int]  # chunk ordinal, span start, kind rank, sequence
    record_class: RecordClass
    fields: dict[str, Any]

    @property
    def node_id(self) -> str:
        return str(self.fields["node_id"])


@dataclass(frozen=True, slots=True)
class DocumentContext:
    """What every layer needs of the document: its ids and scope, its language and period."""

    document: Document
    lang: str | None
    period: int | None

    def node_id(self, local_id: str) -> str:
        return node_id_for(self.document.document_id, local_id)

    def draft(
        self,
        record_class: RecordClass,
        local_id: str,
        chunk: Chunk,
        span: tuple[int, int],
        *,
        text: str,
        sequence: int = 0,
        parent_id: str | None = None,
        **fields: Any,
    ) -> Draft:
        """A draft anchored at ``span`` of ``chunk``: ``quote`` is the stored text there."""
        start, end = span
        kind = _KIND_OF[record_class]
        common: dict[str, Any] = {
            "node_id": self.node_id(local_id),
            "document_id": self.document.document_id,
            "tenant_id": self.document.tenant_id,
            "batch_id": self.document.batch_id,
            "selections": self.document.selections,
            "page_no": chunk.page_no,
            "section": chunk.section,
            "chunk_id": chunk.chunk_id,
            "span": {"start": start, "end": end},  # validated into a SourceSpan with the record
            "quote": chunk.text[start:end],
            "text": text,
            "parent_id": parent_id,
        }
        order = (chunk.ordinal, start, KIND_RANK[kind], sequence)
        return Draft(order, record_class, {**common, **fields})


def normal_value(form: NormalForm) -> dict[str, Any]:
    """The stored shape of ``tanda.numbers``' normal form: the fields of a
    :class:`~tanda.records.structure.NormalValue`, validated with the record that holds them (one
    validation, in pydantic's core, instead of a model per value)."""
    return dict(
        kind=form.kind.value,
        value=form.value,
        tolerance=form.tolerance,
        scale=form.scale,
        unit=form.unit,
        currency=form.currency,
        period=form.period,
        date=form.date,
        label=form.label,
    )


class Numbering:
    """Local ids of one document, per prefix and in the order asked: ``e1``, ``e2``, ``c1``…"""

    def __init__(self) -> None:
        self._next: dict[str, int] = {}

    def next(self, prefix: str) -> str:
        number = self._next.get(prefix, 0) + 1
        self._next[prefix] = number
        return f"{prefix}{number}"


@dataclass(frozen=True, slots=True)
class Fact:
    """A value the document states, as a rule is evaluated against it: an entity's value, its
    name's terms, and where it was read (a rule's own limit is never a fact)."""

    node_id: str
    entity_type: str
    name: str
    name_terms: frozenset[str]
    form: NormalForm
    surface: str
    chunk_id: str
    span: tuple[int, int]
