"""OpenSearch ``_bulk`` under back-pressure (issue 26, "OpenSearch 429 storms"): the adapter backs
off and sends again what a 429 rejected — the whole request, or only the rejected items — until
the document is written whole, or fails it after its attempts (never written in part and
reported done). Through a real opensearch-py client against the in-memory OpenSearch on loopback,
every request checked against OpenSearch's published specification at teardown."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult

import pytest

from tanda.adapters.http_retry import RetryPolicy
from tanda.adapters.opensearch_index import (
    BULK_RETRY,
    OpenSearchIndex,
    SearchIndexFailed,
    build_client,
)
from tanda.records.documents import Chunk, Document, SearchScope
from tanda.retrieval import opensearch_bodies as bodies
from tests.opensearch_memory import MemoryOpenSearch, serve_json

pytestmark = pytest.mark.integration

INDEX = "tanda-chunks"
TENANT = "tenant-a"
REJECTION = {
    "type": "es_rejected_execution_exception",
    "reason": "rejected execution of coordinating operation",
}


@dataclass
class Storm:
    """The in-memory OpenSearch behind a write queue that overflows: ``whole`` ``_bulk`` requests
    are answered 429 outright, then each item of a ``_bulk`` is rejected with probability
    ``item_share`` for ``item_rounds`` requests (seeded: the same storm every run)."""

    store: MemoryOpenSearch = field(default_factory=MemoryOpenSearch)
    whole: int = 0
    item_share: float = 0.0
    item_rounds: int = 0
    refuse: int | None = None
    """Answer every item of every ``_bulk`` with this status instead."""
    seed: int = 7
    bulks: list[list[Any]] = field(default_factory=list)
    url: str = ""

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)

    def answer(self, method: str, url: SplitResult, headers: dict[str, str], body: Any) -> Any:
        if not url.path.endswith("/_bulk"):
            return self.store.reply(method, url.path, body)
        self.bulks.append(body)
        if self.refuse is not None:
            items = [
                {"index": {"_id": a["index"]["_id"], "status": self.refuse, "error": REJECTION}}
                for a in body[0::2]
            ]
            return 200, {"took": 1, "errors": True, "items": items}
        if self.whole > 0:
            self.whole -= 1
            return 429, {"error": {"root_cause": [REJECTION], **REJECTION}, "status": 429}
        if self.item_rounds <= 0:
            return self.store.reply(method, url.path, body)
        self.item_rounds -= 1
        accepted: list[Any] = []
        items: list[dict[str, Any]] = []
        for action, source in zip(body[0::2], body[1::2], strict=True):
            ((verb, meta),) = action.items()
            if self.random.random() < self.item_share:
                items.append({verb: {"_id": meta["_id"], "status": 429, "error": REJECTION}})
            else:
                accepted += [action, source]
                items.append({verb: {"_id": meta["_id"], "status": 201}})
        if accepted:
            self.store.reply(method, url.path, accepted)
        rejected = any(next(iter(i.values()))["status"] == 429 for i in items)
        return 200, {"took": 3, "errors": rejected, "items": items}


@pytest.fixture
def storm() -> Iterator[Storm]:
    state = Storm()
    with serve_json(state.answer) as state.url:
        yield state


class Waits:
    """The policy's sleep, recorded instead of slept."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def _index(storm: Storm, waits: Waits, attempts: int = BULK_RETRY.max_attempts) -> OpenSearchIndex:
    policy = RetryPolicy(
        max_attempts=attempts,
        backoff_s=BULK_RETRY.backoff_s,
        max_backoff_s=BULK_RETRY.max_backoff_s,
        sleep=waits,
        jitter=lambda: 1.0,
    )
    client = build_client(storm.url, service=None, region=None)
    return OpenSearchIndex(
        client, INDEX, auto_create=False, bulk_retry=policy, clock=lambda: "2026-01-01T00:00:00Z"
    )


def _document() -> Document:
    return Document(
        document_id="kvkk-6698",
        tenant_id=TENANT,
        title="KVKK 6698",
        source="uploads/kvkk.pdf",
        content_hash="h1",
    )


def _chunks(count: int) -> list[Chunk]:
    return [
        Chunk(
            chunk_id=f"c{n}",
            document_id="kvkk-6698",
            tenant_id=TENANT,
            ordinal=n,
            title="KVKK 6698",
            text=f"Madde {n}: kişisel veriler",
        )
        for n in range(count)
    ]


def _indexed_chunks(storm: Storm) -> set[str]:
    return {
        str(source["chunk_id"])
        for source in storm.store.documents.values()
        if source.get("record") == "chunk"
    }


def test_a_bulk_rejected_whole_is_sent_again_after_growing_waits(storm: Storm) -> None:
    # Given a domain whose write queue is full for three requests,
    storm.whole = 3
    waits = Waits()

    # when a document of 40 chunks is ingested,
    outcome = _index(storm, waits).upsert_document(_document(), _chunks(40))

    # then the same request went four times, after waits that double, and the document is
    # searchable whole.
    assert outcome.status == "added" and outcome.chunks == 40
    assert len(storm.bulks) == 4 and all(b == storm.bulks[0] for b in storm.bulks)
    assert waits.seconds == [0.5, 1.0, 2.0]
    assert _indexed_chunks(storm) == {f"c{n}" for n in range(40)}
    scope = SearchScope(tenant_id=TENANT)
    (listed,) = _index(storm, waits).documents(scope)
    assert listed.document_id == "kvkk-6698"


def test_only_the_items_a_bulk_rejected_are_sent_again(storm: Storm) -> None:
    # Given a storm that rejects about half of each bulk's items for five requests,
    storm.item_share, storm.item_rounds = 0.5, 5
    waits = Waits()

    # when 200 chunks are ingested,
    outcome = _index(storm, waits).upsert_document(_document(), _chunks(200))

    # then every later request holds only what the one before had rejected, each chunk is
    # indexed exactly once in the end, and the document record is written after them all.
    assert outcome.chunks == 200
    sizes = [len(bulk) // 2 for bulk in storm.bulks]
    assert sizes[0] == 200 and all(b < a for a, b in itertools.pairwise(sizes))
    sent = [action["index"]["_id"] for bulk in storm.bulks for action in bulk[0::2]]
    first = [action["index"]["_id"] for action in storm.bulks[0][0::2]]
    assert set(sent) == set(first)
    assert _indexed_chunks(storm) == {f"c{n}" for n in range(200)}
    record_id = bodies.document_record_id(TENANT, "kvkk-6698")
    assert storm.store.documents[record_id]["chunk_count"] == 200
    assert len(waits.seconds) == len(storm.bulks) - 1


def test_a_storm_past_the_attempts_fails_the_document_and_never_records_it(storm: Storm) -> None:
    # Given a domain that rejects every write for longer than the policy waits,
    storm.whole = 100
    waits = Waits()

    # when a document is ingested, then the ingest fails after the policy's attempts
    with pytest.raises(SearchIndexFailed):
        _index(storm, waits, attempts=4).upsert_document(_document(), _chunks(5))

    # and no document record says it is there (a queue will deliver it again).
    assert len(storm.bulks) == 4
    assert not storm.store.documents


def test_an_item_refused_for_another_reason_fails_at_once(storm: Storm) -> None:
    # Given a bulk whose items come back 400 (a mapping conflict, not back-pressure),
    storm.refuse = 400
    waits = Waits()
    # then the ingest fails without waiting or sending it again.
    with pytest.raises(SearchIndexFailed, match="refused some chunks"):
        _index(storm, waits).upsert_document(_document(), _chunks(3))
    assert len(storm.bulks) == 1 and waits.seconds == []
