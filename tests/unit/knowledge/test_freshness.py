"""KB-02: a document's freshness — stale when indexed more than the horizon ago or built by
another extraction; the newest index time and the generation fingerprint of a scope (docs/mcp.md
"Freshness"). Issue 23 item 13: these limits are what a mutation of freshness.py changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tanda.knowledge.freshness import generation, newest_indexed_at, stale_reason
from tanda.records.documents import Document
from tanda.records.structure import STRUCTURE_VERSION

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
HORIZON = 365


def document(document_id: str = "doc_1", **changes: object) -> Document:
    fields: dict[str, object] = {
        "document_id": document_id,
        "tenant_id": "acme",
        "title": "UU 27/2022",
        "source": "uu.pdf",
        "content_hash": "h1",
        **changes,
    }
    return Document.model_validate(fields)


def indexed(ago: timedelta, **changes: object) -> Document:
    return document(indexed_at=(NOW - ago).isoformat(), **changes)


def test_a_document_indexed_exactly_the_horizon_ago_is_fresh_and_a_second_more_is_stale() -> None:
    at_the_horizon = indexed(timedelta(days=HORIZON))
    assert stale_reason(at_the_horizon, NOW, HORIZON) is None
    past_it = indexed(timedelta(days=HORIZON, seconds=1))
    assert stale_reason(past_it, NOW, HORIZON) == "indexed_before_freshness_horizon"
    # the horizon is the setting's, not a constant
    assert stale_reason(indexed(timedelta(days=2)), NOW, 1) == "indexed_before_freshness_horizon"
    assert stale_reason(indexed(timedelta(days=2)), NOW, 3) is None


def test_an_index_time_without_a_zone_is_read_as_utc() -> None:
    # A naive time one second inside the horizon, read as UTC, is fresh (and not an error);
    naive = (NOW - timedelta(days=HORIZON, seconds=-1)).replace(tzinfo=None).isoformat()
    assert stale_reason(document(indexed_at=naive), NOW, HORIZON) is None
    # one second past it, stale.
    late = (NOW - timedelta(days=HORIZON, seconds=1)).replace(tzinfo=None).isoformat()
    assert stale_reason(document(indexed_at=late), NOW, HORIZON) == (
        "indexed_before_freshness_horizon"
    )
    # A zone other than UTC counts: 11:00 at -02:00 is 13:00 UTC, an hour after NOW - 365 d.
    zoned = (NOW - timedelta(days=HORIZON)).replace(hour=11, tzinfo=None).isoformat() + "-02:00"
    assert stale_reason(document(indexed_at=zoned), NOW, HORIZON) is None


def test_an_unknown_or_unreadable_index_time_says_nothing_is_stale() -> None:
    assert stale_reason(document(indexed_at=None), NOW, HORIZON) is None
    assert stale_reason(document(indexed_at="yesterday"), NOW, HORIZON) is None
    assert stale_reason(document(indexed_at=None), NOW, 0) is None


def test_records_built_by_another_extraction_are_outdated_whatever_the_index_time() -> None:
    fresh = timedelta(days=1)
    assert stale_reason(indexed(fresh, structure_version="extraction/1"), NOW, HORIZON) == (
        "structure_outdated"
    )
    # outdated is the reason even when the document is also past the horizon, or its time unknown
    old = indexed(timedelta(days=HORIZON + 1), structure_version="extraction/1")
    assert stale_reason(old, NOW, HORIZON) == "structure_outdated"
    unknown = document(indexed_at=None, structure_version="extraction/1")
    assert stale_reason(unknown, NOW, HORIZON) == "structure_outdated"
    # built by this extraction, or without records at all: not outdated
    assert stale_reason(indexed(fresh, structure_version=STRUCTURE_VERSION), NOW, HORIZON) is None
    assert stale_reason(indexed(fresh, structure_version=None), NOW, HORIZON) is None
    current_but_old = indexed(timedelta(days=HORIZON + 1), structure_version=STRUCTURE_VERSION)
    assert stale_reason(current_but_old, NOW, HORIZON) == "indexed_before_freshness_horizon"


def test_the_newest_index_time_skips_unknown_ones_and_is_none_without_any() -> None:
    documents = [
        document("a", indexed_at="2026-11-30T20:02:49.376+00:00"),
        document("b", indexed_at=None),
        document("c", indexed_at="2026-12-01T08:00:00+00:00"),
        document("d", indexed_at="2026-01-01T00:00:00+00:00"),
    ]
    assert newest_indexed_at(documents) == "2026-12-01T08:00:00+00:00"
    assert newest_indexed_at([document("b", indexed_at=None)]) is None
    assert newest_indexed_at([]) is None


def test_the_generation_changes_when_a_document_is_added_replaced_reindexed_or_removed() -> None:
    a = document("a", indexed_at="2026-11-30T20:00:00+00:00")
    b = document("b", content_hash="h2", indexed_at="2026-11-30T21:00:00+00:00")
    scope = generation([a, b])
    assert len(scope) == 16 and int(scope, 16) >= 0  # as docs/mcp.md shows it
    assert generation([b, a]) == scope  # not the order they were listed in
    assert generation([a, b]) == scope  # the same documents, the same generation
    # titles, sources and the rest of a document are not its version
    assert generation([a.model_copy(update={"title": "other"}), b]) == scope
    changed = {
        "added": generation([a, b, document("c")]),
        "replaced": generation([a, b.model_copy(update={"content_hash": "h3"})]),
        "reindexed": generation(
            [a, b.model_copy(update={"indexed_at": "2026-12-01T00:00:00+00:00"})]
        ),
        "index time lost": generation([a, b.model_copy(update={"indexed_at": None})]),
        "removed": generation([a]),
        "renamed": generation([a, b.model_copy(update={"document_id": "b2"})]),
    }
    assert scope not in changed.values()
    assert len(set(changed.values())) == len(changed)


def test_the_generation_keeps_ids_hashes_and_times_apart() -> None:
    # The same characters split differently between a document's id, hash and time, or between
    # two documents, are other versions.
    one = generation([document("ab", content_hash="c", indexed_at="t")])
    assert one != generation([document("a", content_hash="bc", indexed_at="t")])
    assert one != generation([document("ab", content_hash="", indexed_at="ct")])
    pair = generation([document("a", content_hash="x"), document("b", content_hash="y")])
    assert pair != generation([document("a", content_hash="x\nb\0y")])
    assert generation([]) != generation([document("a", content_hash="")])
