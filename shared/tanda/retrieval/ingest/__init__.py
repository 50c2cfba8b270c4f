"""Ingestion: files → documents and chunks with identity (issue 3, V2-07).

``ingest_paths`` is the entry point for code; ``command.ingest_command`` for the CLI.
"""

from tanda.retrieval.ingest.chunking import ChunkingConfig
from tanda.retrieval.ingest.pipeline import IngestReport, SkippedSource, ingest_paths

__all__ = ["ChunkingConfig", "IngestReport", "SkippedSource", "ingest_paths"]
