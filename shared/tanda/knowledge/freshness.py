"""KB-02: how fresh the documents in a scope are — a pure reading of their index times."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal

from tanda.records.documents import Document
from tanda.records.structure import STRUCTURE_VERSION

StaleReason = Literal["indexed_before_freshness_horizon", "structure_outdated"]


def stale_reason(document: Document, now: datetime, horizon_days: int) -> StaleReason | None:
    """Why ``document`` is stale at ``now``, or ``None``: its structure records were built by
    another version of the extraction, or it was indexed before the freshness horizon. A
    document whose index time is unknown (indexed before the index recorded it) or that has no
    structure records is not called stale: nothing says it is."""
    built = document.structure_version
    if built is not None and built != STRUCTURE_VERSION:
        return "structure_outdated"
    if document.indexed_at is None:
        return None
    try:
        indexed = datetime.fromisoformat(document.indexed_at)
    except ValueError:
        return None
    if indexed.tzinfo is None:
        indexed = indexed.replace(tzinfo=UTC)
    if now - indexed > timedelta(days=horizon_days):
        return "indexed_before_freshness_horizon"
    return None


def newest_indexed_at(documents: Sequence[Document]) -> str | None:
    times = [d.indexed_at for d in documents if d.indexed_at is not None]
    return max(times) if times else None


def generation(documents: Sequence[Document]) -> str:
    """A fingerprint of the documents' versions: changes when one is added, replaced, re-indexed
    or removed."""
    digest = hashlib.sha256()
    for document in sorted(documents, key=lambda d: d.document_id):
        line = f"{document.document_id}\0{document.content_hash}\0{document.indexed_at or ''}\n"
        digest.update(line.encode("utf-8"))
    return digest.hexdigest()[:16]
