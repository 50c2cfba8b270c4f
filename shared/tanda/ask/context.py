"""ASK-04: the sources the model is shown, as numbered context blocks.

Each source is a block headed ``[S<n>] [Kaynak: belge=…, sayfa=…, bolum=…]`` followed by its text,
verbatim; blocks are separated by a line ``---``. The numbers are the ``[S#]`` labels the answer
cites (ASK-05); they never change language (ASK-07).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tanda.records.documents import Chunk

BLOCK_SEPARATOR = "\n---\n"
UNKNOWN = "-"


@dataclass(frozen=True)
class AskSource:
    """One source shown to the model: ``[S<source_no>]``."""

    source_no: int
    chunk: Chunk


def number_sources(chunks: Sequence[Chunk]) -> list[AskSource]:
    """``[S1]``, ``[S2]`` … in the order given (rank order, or page order for ASK-09)."""
    return [AskSource(source_no, chunk) for source_no, chunk in enumerate(chunks, start=1)]


def _field(value: object) -> str:
    text = UNKNOWN if value is None or value == "" else str(value)
    # A header is one line; "," and "]" would end its fields early.
    return " ".join(text.split()).replace("]", ")")


def source_header(source: AskSource) -> str:
    chunk = source.chunk
    document = chunk.identity.legal_reference or chunk.title or chunk.document_id
    return (
        f"[S{source.source_no}] [Kaynak: belge={_field(document)}, sayfa={_field(chunk.page_no)}, "
        f"bolum={_field(chunk.section)}]"
    )


def context_blocks(sources: Sequence[AskSource]) -> str:
    return BLOCK_SEPARATOR.join(
        f"{source_header(source)}\n{source.chunk.text}" for source in sources
    )


def source_items(sources: Sequence[AskSource]) -> list[dict[str, Any]]:
    """What the blocks show, structured (``ChatRequest.items``: scripted and offline models)."""
    return [
        {
            "source_no": source.source_no,
            "document_id": source.chunk.document_id,
            "page_no": source.chunk.page_no,
            "section": source.chunk.section,
            "text": source.chunk.text,
        }
        for source in sources
    ]
