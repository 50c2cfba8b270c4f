"""Passages: what the agent is shown under a citation key, and the judge sees again with the same
document identity (V2-07, V2-11). A passage crosses Lambda boundaries as it is (the pipeline's
states hold it directly), so it never carries its chunk's embedding."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tanda.contract.common import Citation
from tanda.records.documents import Chunk, LegalIdentity


@dataclass(frozen=True)
class Passage:
    key: str
    kind: Literal["chunk", "tool", "conversation"]
    text: str
    citation: Citation
    identity: LegalIdentity
    chunk: Chunk | None = None
    producing_call: str | None = None
    """For tool/portal results: the call that produced it, e.g. ``search("anggaran")``."""
    unit: str | None = None
    """For portal/MCP results: the unit its figures are stated in (issue 25: the numbers
    cross-check reads it, as it reads the period)."""

    def identity_lines(self) -> list[str]:
        """The identity as both the agent and the judge see it, one ``label: value`` a line."""
        ident = self.identity
        pairs: list[tuple[str, Any]] = [
            ("Dokumen", self.citation.document_title),
            ("Rujukan hukum", ident.legal_reference),
            ("Jenis peraturan", ident.regulation_type),
            ("Jenis dokumen", ident.document_type),
            ("Nomor", ident.number),
            ("Tahun", ident.year),
            ("Tanggal terbit", ident.issue_date),
            ("Penjual", ident.seller),
            ("Pembeli", ident.buyer),
            ("Mata uang", ident.currency),
            ("Penerbit", ident.publisher),
            ("Bagian", self.citation.section),
            ("Halaman", self.citation.page_no),
            ("Dataset", ident.dataset),
            ("Periode", ident.period),
            ("Satuan", self.unit),
            ("Sumber", self.citation.source),
            ("Dihasilkan oleh", self.producing_call),
        ]
        return [f"{label}: {value}" for label, value in pairs if value not in (None, "")]

    def as_block(self) -> str:
        header = "; ".join(self.identity_lines())
        return f"[{self.key}] {header}\n{self.text}"

    def as_item(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "text": self.text,
            "identity": self.identity_lines(),
            "document_id": self.citation.document_id,
        }


def passage_from_chunk(key: str, chunk: Chunk, producing_call: str | None = None) -> Passage:
    if chunk.embedding is not None:
        # Nothing downstream reads it, and it would fill a state (256 KB) with numbers.
        chunk = chunk.model_copy(update={"embedding": None})
    citation = Citation(
        citation_key=key,
        chunk_id=chunk.chunk_id,
        document_id=chunk.document_id,
        document_title=chunk.title,
        page_no=chunk.page_no,
        section=chunk.section,
        legal_reference=chunk.identity.legal_reference,
    )
    return Passage(
        key=key,
        kind="chunk",
        text=chunk.text,
        citation=citation,
        identity=chunk.identity,
        chunk=chunk,
        producing_call=producing_call,
    )
