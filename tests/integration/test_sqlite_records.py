"""Structure records in the embedded index (ASK-14): written, replaced and rescoped with their
document in one transaction, read by kind, node, chunk and parent inside the caller's scope —
and never across tenants. Definitions' term lookup (issue 22): its column and index, and a file
written before them migrated when opened (the lookup itself: test_records_contract.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from tanda.adapters.sqlite_index import SqliteSearchIndex, record_filter
from tanda.extraction import build_structure
from tanda.records.documents import Chunk, Document, SearchScope
from tanda.records.structure import STRUCTURE_VERSION, RecordQuery, StructureRecord
from tanda.retrieval.ingest.readers import parse_plain_text, read_markdown
from tanda.service.ingest import build_document

pytestmark = pytest.mark.integration

INVOICE = (
    "# Faktur {n}\n\nPembayaran dilakukan paling lambat 14 hari setelah tanggal faktur. "
    "Jangka waktu pembayaran {days} hari.\n\n"
    "| No | Uraian | Jumlah (Rp) |\n|---|---|---:|\n| 1 | Kertas A4 | 500.000 |\n"
    "| 2 | Tinta | 300.000 |\n| | Total | {total} |\n"
)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[SqliteSearchIndex]:
    idx = SqliteSearchIndex(tmp_path / "index.sqlite")
    yield idx
    idx.close()


def invoice(
    tenant: str = "t1",
    document_id: str = "faktur-12",
    *,
    days: int = 30,
    total: str = "850.000",
    batch: str | None = None,
    selections: tuple[str, ...] = (),
) -> tuple[Document, list[Chunk], list[StructureRecord]]:
    text = INVOICE.format(n=12, days=days, total=total)
    parsed = read_markdown(text.encode(), name="faktur.md")
    assert not hasattr(parsed, "reason")
    document, chunks = build_document(
        parsed,  # type: ignore[arg-type]
        tenant=tenant,
        document_id=document_id,
        source="faktur.md",
        digest=f"hash-{days}-{total}",
        batch=batch,
        selections=selections,
        metadata={},
    )
    document = document.model_copy(update={"structure_version": STRUCTURE_VERSION})
    return document, chunks, build_structure(document, chunks).records


def query(tenant: str = "t1", **narrowing: object) -> RecordQuery:
    scope_fields = {k: narrowing.pop(k) for k in ("document_ids", "batch_id", "selection")
                    if k in narrowing}  # fmt: skip
    return RecordQuery(scope=SearchScope(tenant_id=tenant, **scope_fields), **narrowing)  # type: ignore[arg-type]


def test_records_are_stored_with_the_document_and_read_back_whole(
    index: SqliteSearchIndex,
) -> None:
    document, chunks, records = invoice()
    outcome = index.upsert_document(document, chunks, records)
    assert outcome.status == "added"
    assert index.records(query()) == records  # every field, in document order
    assert index.documents(SearchScope(tenant_id="t1"))[0].structure_version == STRUCTURE_VERSION


def test_reads_narrow_by_kind_node_chunk_parent_and_limit(index: SqliteSearchIndex) -> None:
    document, chunks, records = invoice()
    index.upsert_document(document, chunks, records)
    rules = index.records(query(kinds=("rule",)))
    assert [r.kind for r in rules] == ["rule", "rule"] and {r.evaluation for r in rules} == {
        "IHLAL"
    }
    table = next(r for r in records if r.kind == "table")
    children = index.records(query(parent_ids=(table.node_id,)))
    assert {r.kind for r in children} == {"line_item", "line_item_summary", "rule"}
    wanted = (records[3].node_id, records[0].node_id, "faktur-12:nope")
    assert index.records(query(node_ids=wanted)) == [records[0], records[3]]
    text_chunk = next(c for c in chunks if c.kind == "text")
    beside = index.records(query(chunk_ids=(text_chunk.chunk_id,)))
    assert beside and all(r.chunk_id == text_chunk.chunk_id for r in beside)
    assert index.records(query(limit=2)) == records[:2]
    assert index.records(query(node_ids=())) == []


def test_a_replaced_document_replaces_its_records(index: SqliteSearchIndex) -> None:
    index.upsert_document(*invoice(days=30))
    document, chunks, records = invoice(days=10, total="800.000")
    assert index.upsert_document(document, chunks, records).status == "replaced"
    stored = index.records(query())
    assert stored == records
    assert all(r.evaluation == "sağlandı" for r in stored if r.kind == "rule")


def test_a_failed_replace_keeps_the_previous_records(index: SqliteSearchIndex) -> None:
    first = invoice(days=30)
    index.upsert_document(*first)
    document, chunks, records = invoice(days=10)
    broken = [*records, records[0]]  # the same node twice: the write fails midway
    with pytest.raises(Exception, match="UNIQUE"):
        index.upsert_document(document, chunks, broken)
    assert index.records(query()) == first[2]


def test_records_of_another_document_are_refused(index: SqliteSearchIndex) -> None:
    document, chunks, _ = invoice(document_id="a")
    _, _, foreign = invoice(document_id="b")
    with pytest.raises(ValueError, match="belongs to"):
        index.upsert_document(document, chunks, foreign)


def test_the_same_content_built_by_an_older_version_is_rebuilt(index: SqliteSearchIndex) -> None:
    # Given a document indexed before the layers (same content, no structure version)
    document, chunks, records = invoice()
    bare = document.model_copy(update={"structure_version": None})
    index.upsert_document(bare, chunks)
    # When it comes again with its records, it is replaced; again without them, it is kept
    assert index.upsert_document(document, chunks, records).status == "replaced"
    assert index.records(query()) == records
    assert index.upsert_document(bare, chunks).status == "unchanged"
    assert index.records(query()) == records


def test_a_scope_change_moves_every_record(index: SqliteSearchIndex) -> None:
    document, chunks, records = invoice(batch="b1", selections=("lama",))
    index.upsert_document(document, chunks, records)
    moved = document.model_copy(update={"batch_id": "b2", "selections": ("baru",)})
    outcome = index.rescope_document(moved)
    assert outcome is not None and outcome.status == "rescoped"
    assert index.records(query(batch_id="b1")) == []
    assert index.records(query(selection="lama")) == []
    now = index.records(query(batch_id="b2", selection="baru"))
    assert len(now) == len(records)
    assert {(r.batch_id, r.selections) for r in now} == {("b2", ("baru",))}
    assert index.documents(SearchScope(tenant_id="t1"))[0].structure_version == STRUCTURE_VERSION


def test_tenants_never_see_each_others_records(index: SqliteSearchIndex) -> None:
    # Given two tenants with the same document id (so the same node ids), different content
    index.upsert_document(*invoice("t1", days=30))
    index.upsert_document(*invoice("t2", days=10))
    mine, theirs = index.records(query("t1")), index.records(query("t2"))
    assert {r.tenant_id for r in mine} == {"t1"} and {r.tenant_id for r in theirs} == {"t2"}
    assert {r.node_id for r in mine} == {r.node_id for r in theirs}
    # Then no read of one tenant returns the other's — by node, chunk, parent or kind
    node = theirs[0].node_id
    assert [r.tenant_id for r in index.records(query("t1", node_ids=(node,)))] == ["t1"]
    their_chunk = theirs[0].chunk_id
    assert all(r.tenant_id == "t1" for r in index.records(query("t1", chunk_ids=(their_chunk,))))
    assert index.records(query("t3")) == []
    # and replacing one tenant's document leaves the other's records alone
    index.upsert_document(*invoice("t1", days=5, total="800.000"))
    assert index.records(query("t2")) == theirs


def test_a_document_scope_narrows_records(index: SqliteSearchIndex) -> None:
    index.upsert_document(*invoice(document_id="a"))
    index.upsert_document(*invoice(document_id="b"))
    only_b = index.records(query(document_ids=("b",)))
    assert only_b and {r.document_id for r in only_b} == {"b"}
    assert index.records(query(document_ids=())) == []


# --- definitions (issue 22): the term lookup's column, index and migration ---------------------

BEFORE_ISSUE_22 = Path(__file__).resolve().parents[1] / "fixtures" / "index_before_issue_22.sqlite"
"""Written by tanda at a4a8b7e (``extraction/1``, no ``records.term_keys``): the statute
``perda-7`` (a ``Pasal 1`` defining Daerah, Pemerintah Daerah = Pemda, Pajak Daerah) for tenants
t1 and t2, with the entity and rule records that version built."""

PERDA = "\n".join(
    [
        "PERATURAN DAERAH NOMOR 7 TAHUN 2024",
        "Pasal 1",
        "Dalam Peraturan Daerah ini yang dimaksud dengan:",
        "1. Daerah adalah Kabupaten Sleman.",
        "2. Pemerintah Daerah yang selanjutnya disebut Pemda adalah Bupati Sleman.",
        "3. Pajak Daerah adalah kontribusi wajib kepada Daerah.",
        "Pasal 2",
        "(1) Pajak Daerah dipungut oleh Pemda paling lambat 30 hari setelah tanggal penetapan.",
        "Pasal 3",
        "Cukup jelas.",
    ]
)


def _perda(tenant: str) -> tuple[Document, list[Chunk], list[StructureRecord]]:
    document, chunks = build_document(
        parse_plain_text(PERDA, fallback_title="perda"),
        tenant=tenant,
        document_id="perda-7",
        source="perda-7.txt",
        digest="hash-perda-7",
        batch=None,
        selections=(),
        metadata={},
    )
    document = document.model_copy(update={"structure_version": STRUCTURE_VERSION})
    return document, chunks, build_structure(document, chunks).records


def _columns_and_indexes(path: Path) -> tuple[set[str], set[str]]:
    conn = apsw.Connection(str(path))
    try:
        columns = {str(row[1]) for row in conn.execute("PRAGMA table_info(records)")}
        indexes = {
            str(name)
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
        }
        return columns, indexes
    finally:
        conn.close()


@pytest.fixture
def before_issue_22(tmp_path: Path) -> Path:
    copy = tmp_path / "before_issue_22.sqlite"
    shutil.copy(BEFORE_ISSUE_22, copy)
    return copy


def test_a_file_without_the_term_column_gets_it_and_its_index_when_opened(
    before_issue_22: Path,
) -> None:
    # Given a file written before definition records existed
    columns, indexes = _columns_and_indexes(before_issue_22)
    assert "term_keys" not in columns and "records_terms" not in indexes
    # When it is opened
    index = SqliteSearchIndex(before_issue_22)
    try:
        # Then its records are as they were, and a lookup by term finds nothing (yet)
        old = index.records(query())
        assert old and {r.kind for r in old} == {"entity", "rule"}
        assert index.records(query(terms=("daerah",))) == []
    finally:
        index.close()
    columns, indexes = _columns_and_indexes(before_issue_22)
    assert "term_keys" in columns and "records_terms" in indexes


def test_a_migrated_file_rebuilds_older_documents_with_their_definitions(
    before_issue_22: Path,
) -> None:
    index = SqliteSearchIndex(before_issue_22)
    try:
        # When the same statute is ingested again (same content, older structure version)
        outcome = index.upsert_document(*_perda("t1"))
        # Then it is rebuilt, and its definitions are found by term — only in its tenant
        assert outcome.status == "replaced"
        found = index.records(query(terms=("pemda",)))
        assert [(r.kind, getattr(r, "term", None)) for r in found] == [
            ("definition", "Pemerintah Daerah")
        ]
        assert index.records(query("t2", terms=("pemda",))) == []
    finally:
        index.close()
    # And opening it again changes nothing more
    again = SqliteSearchIndex(before_issue_22)
    try:
        assert [r.node_id for r in again.records(query(terms=("pemda",)))] == [found[0].node_id]
    finally:
        again.close()


def test_a_lookup_by_term_reads_the_tenants_definitions_through_their_index(
    index: SqliteSearchIndex,
) -> None:
    index.upsert_document(*_perda("t1"))
    where = record_filter(query(terms=("pajak daerah",)))
    conn = apsw.Connection(str(index.path))
    try:
        plan = " ".join(
            str(row[-1])
            for row in conn.execute(
                f"EXPLAIN QUERY PLAN SELECT r.body FROM records r WHERE {where.sql} "
                "ORDER BY r.document_id, r.ordinal",
                where.params,
            )
        )
    finally:
        conn.close()
    assert "records_terms" in plan, plan
