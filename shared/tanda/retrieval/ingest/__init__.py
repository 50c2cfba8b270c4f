"""Ingestion's pure parts: files → parsed blocks → chunks with identity (issue 3, V2-07).

Readers, chunking and identity; the use case that walks files into a ``SearchIndex`` is
``tanda.service.ingest.ingest_paths``, the command ``tanda.cli.ingest``.
"""
