"""ASK-04: the sources the model is shown, as numbered context blocks.

Each source is a block headed ``[S<n>] [Kaynak: belge=…, sayfa=…, bolum=…]`` followed by its text,
verbatim; blocks are separated by a line ``---``. The numbers are the ``[S#]`` labels the answer
cites (ASK-05); they never change language (ASK-07).

The passages come first, then the evidence items (ASK-08), numbered on: an evidence item's header
adds ``kanit=<record kind>`` (``kanit=entity``, ``kanit=rule`` …) and its text is the record's
evidence line (:func:`tanda.ask.evidence.evidence_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tanda.ask.evidence import EvidenceItem, evidence_text
from tanda.records.documents import Chunk
from tanda.records.structure import NodeKind, StructureRecord

BLOCK_SEPARATOR = "\n---\n"
UNKNOWN = "-"


@dataclass(frozen=True)
class AskSource:
    """One source shown to the model: ``[S<source_no>]``."""

    source_no: int
    chunk: Chunk
    """The passage; for an evidence item, the stored chunk its record was read from."""
    record: StructureRecord | None = None
    """The evidence item (ASK-08); ``None`` for a passage."""

    @property
    def kind(self) -> NodeKind | None:
        """The record's kind; ``None`` for a passage."""
        return self.record.kind if self.record is not None else None

    @property
    def text(self) -> str:
        """What the model is shown: a passage's text, or an evidence item's line, verbatim."""
        return evidence_text(self.record) if self.record is not None else self.chunk.text

    @property
    def page_no(self) -> int | None:
        return self.record.page_no if self.record is not None else self.chunk.page_no

    @property
    def section(self) -> str | None:
        return self.record.section if self.record is not None else self.chunk.section


def number_sources(
    chunks: Sequence[Chunk], evidence: Sequence[EvidenceItem] = ()
) -> list[AskSource]:
    """``[S1]``, ``[S2]`` … in the order given (rank order, or page order for ASK-09), then the
    evidence items in the order :func:`tanda.ask.evidence.pick_evidence` gives them."""
    sources = [AskSource(source_no, chunk) for source_no, chunk in enumerate(chunks, start=1)]
    return sources + [
        AskSource(source_no, item.chunk, item.record)
        for source_no, item in enumerate(evidence, start=len(sources) + 1)
    ]


def _field(value: object) -> str:
    text = UNKNOWN if value is None or value == "" else str(value)
    # A header is one line; "," and "]" would end its fields early.
    return " ".join(text.split()).replace("]", ")")


def source_header(source: AskSource) -> str:
    chunk = source.chunk
    document = chunk.identity.legal_reference or chunk.title or chunk.document_id
    layer = f", kanit={source.kind}" if source.kind is not None else ""
    return (
        f"[S{source.source_no}] [Kaynak: belge={_field(document)}, sayfa={_field(source.page_no)}, "
        f"bolum={_field(source.section)}{layer}]"
    )


def context_blocks(sources: Sequence[AskSource]) -> str:
    return BLOCK_SEPARATOR.join(f"{source_header(source)}\n{source.text}" for source in sources)


def source_identity(source: AskSource) -> list[str]:
    """What places a source, as its header shows it: the document and its section (the
    offline reader reads a sentence in its place, V2-07)."""
    chunk = source.chunk
    document = chunk.identity.legal_reference or chunk.title or chunk.document_id
    return [
        line
        for line in (
            f"Dokumen: {document}",
            f"Bagian: {source.section}" if source.section else None,
            f"Periode: {chunk.identity.period}" if chunk.identity.period else None,
        )
        if line
    ]


def source_items(sources: Sequence[AskSource]) -> list[dict[str, Any]]:
    """What the blocks show, structured (``ChatRequest.items``: scripted and offline models); an
    evidence item also says its ``kind`` and ``node_id``."""
    items: list[dict[str, Any]] = []
    for source in sources:
        item: dict[str, Any] = {
            "source_no": source.source_no,
            "document_id": source.chunk.document_id,
            "page_no": source.page_no,
            "section": source.section,
            "text": source.text,
            "identity": source_identity(source),
        }
        if source.record is not None:
            item |= {"kind": source.record.kind, "node_id": source.record.node_id}
        items.append(item)
    return items
