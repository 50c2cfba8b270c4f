"""Documents for the structure layers, read and chunked as ``tanda ingest`` reads them."""

from __future__ import annotations

from pathlib import PurePosixPath

from tanda.records.documents import Chunk, Document
from tanda.retrieval.ingest.chunking import ChunkingConfig
from tanda.retrieval.ingest.parsed import ParsedDocument, Skipped
from tanda.retrieval.ingest.readers import parse_plain_text, read_csv, read_markdown
from tanda.service.ingest import build_document


def ingested(
    parsed: ParsedDocument | Skipped, *, document_id: str = "d1", target: int = 1200
) -> tuple[Document, list[Chunk]]:
    assert isinstance(parsed, ParsedDocument), parsed
    return build_document(
        parsed,
        tenant="t1",
        document_id=document_id,
        source=f"{document_id}.src",
        digest=f"hash-{document_id}",
        batch=None,
        selections=(),
        metadata={},
        chunking=ChunkingConfig(target_chars=target),
    )


def from_text(text: str, *, document_id: str = "d1") -> tuple[Document, list[Chunk]]:
    return ingested(parse_plain_text(text, fallback_title="doc"), document_id=document_id)


def from_markdown(text: str, *, target: int = 1200) -> tuple[Document, list[Chunk]]:
    return ingested(read_markdown(text.encode(), name="doc.md"), target=target)


def from_csv(
    text: str, *, path: str = "apbd_jatim/2023/Kota.csv", target: int = 1200
) -> tuple[Document, list[Chunk]]:
    return ingested(read_csv(text.encode(), path=PurePosixPath(path)), target=target)
