"""The embedded index per tenant (issue 11, "Search cost proportional to the caller's tenant"):
a query's work and its BM25 statistics are the caller's tenant's alone, and files written before
the change are migrated once, in one transaction, to the same results a fresh file gives."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import apsw
import pytest

import tanda.retrieval.analysis as analysis
from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.records.documents import Chunk, Document, SearchHit, SearchQuery, SearchScope

pytestmark = pytest.mark.integration

LEGACY_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "index_before_issue_11.sqlite"
"""Built at commit 1ec5197 (main before issue 11, one FTS5 table for every tenant) by
``SqliteSearchIndex(path).upsert_document(*pair)`` for each pair of :func:`legacy_corpus`, in
order, then ``close()``. It is never written: tests open a copy."""

TENANT_FTS = re.compile(r"chunk_fts_\d+")
"""A tenant's FTS5 table (its shadow tables have a further suffix)."""


def _document(
    tenant: str,
    document_id: str,
    title: str,
    texts: Sequence[str],
    *,
    lang: str | None = None,
    batch: str | None = None,
    selections: tuple[str, ...] = (),
    vectors: Sequence[tuple[float, float]] | None = None,
) -> tuple[Document, list[Chunk]]:
    document = Document(
        document_id=document_id,
        tenant_id=tenant,
        title=title,
        source=f"/docs/{document_id}.txt",
        content_hash=f"{tenant}:{document_id}:v1",
        batch_id=batch,
        selections=selections,
        lang=lang,
    )
    chunks = [
        Chunk(
            chunk_id=f"{document_id}#{i}",
            document_id=document_id,
            tenant_id=tenant,
            ordinal=i,
            title=title,
            section=f"Pasal {i + 1}",
            text=text,
            batch_id=batch,
            selections=selections,
            embedding=None if vectors is None else vectors[i],
        )
        for i, text in enumerate(texts)
    ]
    return document, chunks


def legacy_corpus() -> list[tuple[Document, list[Chunk]]]:
    """Two tenants; languages given, guessed per document (Indonesian and Turkish), and per
    chunk; scopes; vectors for one tenant."""
    return [
        _document(
            "t1",
            "uu-pdp",
            "Undang-Undang Nomor 27 Tahun 2022 tentang Pelindungan Data Pribadi",
            [
                "Data pribadi adalah data tentang orang perseorangan yang teridentifikasi.",
                "Pengendali data pribadi wajib melindungi data pribadi dari pemrosesan yang "
                "tidak sah.",
                "Sanksi administratif berupa denda paling tinggi 2 persen dari pendapatan tahunan.",
            ],
            lang="id",
            batch="b1",
            selections=("pdp",),
            vectors=[(1.0, 0.0), (0.9, 0.1), (0.7, 0.3)],
        ),
        _document(
            "t1",
            "apbd-batu",
            "APBD Kota Batu 2023",
            [
                "Anggaran pendidikan Kota Batu tahun 2023 sebesar Rp 10.723,82 miliar.",
                "Belanja pegawai daerah meningkat dibandingkan tahun anggaran sebelumnya.",
            ],
            batch="b2",
            vectors=[(0.0, 1.0), (0.2, 0.8)],
        ),
        _document(
            "t1",
            "kvkk",
            "Kişisel Verilerin Korunması Kanunu",
            [
                "Kişisel veriler ancak kanunda öngörülen usul ve esaslara uygun olarak "
                "işlenebilir.",
                "İlgili kişi, veri sorumlusuna başvurarak kişisel verilerinin işlenip "
                "işlenmediğini öğrenme hakkına sahiptir.",
            ],
            vectors=[(0.5, 0.5), (0.6, 0.4)],
        ),
        _document(
            "t2",
            "uu-pdp",
            "Undang-Undang Nomor 27 Tahun 2022 tentang Pelindungan Data Pribadi",
            [
                "Data pribadi data pribadi data pribadi: salinan milik penyewa kedua.",
                "Pemrosesan data pribadi oleh pengendali data di daerah.",
            ],
            selections=("pdp",),
        ),
        _document(
            "t2",
            "catatan",
            "Catatan rapat anggaran",
            ["Rapat anggaran daerah menyetujui belanja pendidikan dan kesehatan."],
        ),
    ]


def build(
    path: Path, corpus: Sequence[tuple[Document, list[Chunk]]], lexical: str = "tantivy"
) -> SqliteSearchIndex:
    index = SqliteSearchIndex(path, lexical=lexical)  # type: ignore[arg-type]
    for document, chunks in corpus:
        index.upsert_document(document, chunks)
    return index


def _table_names(path: Path) -> set[str]:
    conn = apsw.Connection(str(path))
    try:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


def _hits(index: SqliteSearchIndex, query: SearchQuery) -> list[tuple[str, float, int | None]]:
    return [(h.chunk.chunk_id, h.score, h.lexical_rank) for h in index.search(query)]


QUERIES = [
    "data pribadi pengendali",
    "anggaran pendidikan 2023",
    "kişisel veriler işlenmesi",
    "UU 27/2022 sanksi denda",
    "belanja daerah",
]
SCOPES = [
    {"tenant_id": "t1"},
    {"tenant_id": "t2"},
    {"tenant_id": "t1", "selection": "pdp"},
    {"tenant_id": "t1", "batch_id": "b2"},
    {"tenant_id": "t3"},
]


@pytest.fixture
def legacy_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "legacy.sqlite"
    shutil.copy(LEGACY_FILE, copy)
    return copy


# -- statistics and cost per tenant ------------------------------------------------------------


def _crowd(
    tenant: str, documents: int, chunks_per_document: int, words: str
) -> Iterator[tuple[Document, list[Chunk]]]:
    """Another tenant's documents full of ``words``."""
    for d in range(documents):
        yield _document(
            tenant,
            f"crowd-{d:04d}",
            "Arsip",
            [f"{words} nomor {d * chunks_per_document + i}" for i in range(chunks_per_document)],
        )


def test_another_tenants_documents_change_neither_the_ranking_nor_the_scores(
    tmp_path: Path,
) -> None:
    # Given tenant t1 where "pajak" and "retribusi" are equally rare, one chunk repeating "pajak"
    t1 = [
        _document("t1", "x", "Daerah", ["pajak pajak pajak daerah"]),
        _document("t1", "y", "Daerah", ["retribusi daerah"]),
        *(_document("t1", f"z{i}", "Daerah", [f"belanja daerah {i}"]) for i in range(4)),
    ]
    index = build(tmp_path / "i.sqlite", t1)
    try:
        query = SearchQuery(text="pajak retribusi", scope=SearchScope(tenant_id="t1"), top_k=10)
        alone = _hits(index, query)
        # When another tenant loads many chunks that all say "pajak"
        for document, chunks in _crowd("t9", 20, 10, "pajak kendaraan"):
            index.upsert_document(document, chunks)
        beside = _hits(index, query)
    finally:
        index.close()
    # Then t1 sees exactly what it saw alone: its statistics are its own (main ranked "y" first
    # once "pajak" was common elsewhere: a score-order side channel into another tenant)
    assert [chunk_id for chunk_id, _, _ in alone] == ["x#0", "y#0"]
    assert beside == alone


def _vm_steps(index: SqliteSearchIndex, query: SearchQuery, counter: list[int]) -> int:
    before = counter[0]
    index.search(query)
    return counter[0] - before


def test_a_querys_work_does_not_grow_with_another_tenants_postings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given every connection counts the SQLite VM instructions it executes (a count, not time)
    counter = [0]

    def count_steps(conn: apsw.Connection) -> None:
        def tick() -> bool:
            counter[0] += 1
            return False  # False: go on

        conn.set_progress_handler(tick, 1)

    monkeypatch.setattr(apsw, "connection_hooks", [*apsw.connection_hooks, count_steps])
    # (FTS5's work: tantivy's per-tenant folders are outside SQLite's count)
    index = build(
        tmp_path / "i.sqlite",
        [p for p in legacy_corpus() if p[0].tenant_id == "t1"],
        lexical="sqlite",
    )
    try:
        query = SearchQuery(text="data pribadi pengendali", scope=SearchScope(tenant_id="t1"))
        index.search(query)  # statistics cached, statements prepared
        alone = _vm_steps(index, query, counter)
        # When another tenant holds 100× as many chunks, every one matching the query
        for document, chunks in _crowd("t9", 50, 10, "data pribadi pengendali"):
            index.upsert_document(document, chunks)
        index.search(query)
        beside = _vm_steps(index, query, counter)
    finally:
        index.close()
    # Then the query executes about as many instructions as before (main: ~×60)
    assert alone > 0
    assert beside <= 1.2 * alone, (alone, beside)


def test_a_tenant_that_never_ingested_finds_nothing(tmp_path: Path) -> None:
    index = build(tmp_path / "i.sqlite", legacy_corpus())
    try:
        query = SearchQuery(text="data pribadi", scope=SearchScope(tenant_id="t3"))
        assert index.search(query) == []
        vector_query = query.model_copy(update={"vector": (1.0, 0.0)})
        assert index.search(vector_query) == []
    finally:
        index.close()


# -- files written before the change -----------------------------------------------------------


def test_a_file_from_before_is_migrated_to_one_fts_table_per_tenant(legacy_copy: Path) -> None:
    assert "chunk_fts" in _table_names(legacy_copy)
    SqliteSearchIndex(legacy_copy, lexical="sqlite").close()
    names = _table_names(legacy_copy)
    assert "chunk_fts" not in names
    assert {n for n in names if TENANT_FTS.fullmatch(n)} == {"chunk_fts_1", "chunk_fts_2"}


@pytest.mark.parametrize("lexical", ["tantivy", "sqlite"])
@pytest.mark.parametrize("text", QUERIES)
def test_a_migrated_file_answers_exactly_like_a_fresh_one(
    legacy_copy: Path, tmp_path: Path, text: str, lexical: str
) -> None:
    migrated = SqliteSearchIndex(legacy_copy, lexical=lexical)  # type: ignore[arg-type]
    fresh = build(tmp_path / "fresh.sqlite", legacy_corpus(), lexical=lexical)
    try:
        for scope in SCOPES:
            for vector in (None, (0.8, 0.2)):
                query = SearchQuery(
                    text=text,
                    scope=SearchScope(**scope),
                    top_k=10,
                    vector=vector,  # type: ignore[arg-type]
                )
                assert _hits(migrated, query) == _hits(fresh, query), (scope, vector)
        everything = SearchScope(tenant_id="t1")
        # The same documents; the fresh file records when it indexed them (KB-02), the legacy
        # file did not.
        assert [d.model_copy(update={"indexed_at": None}) for d in fresh.documents(everything)] == (
            migrated.documents(everything)
        )
    finally:
        migrated.close()
        fresh.close()


@pytest.mark.parametrize("lexical", ["tantivy", "sqlite"])
def test_a_migrated_file_keeps_taking_writes_and_is_migrated_once(
    legacy_copy: Path, lexical: str
) -> None:
    first = SqliteSearchIndex(legacy_copy, lexical=lexical)  # type: ignore[arg-type]
    document, chunks = _document("t2", "baru", "Dokumen baru", ["kelautan dan perikanan"])
    first.upsert_document(document, chunks)
    first.close()
    second = SqliteSearchIndex(legacy_copy, lexical=lexical)  # type: ignore[arg-type]
    # nothing left to migrate: the write survives
    try:
        hits = second.search(SearchQuery(text="perikanan", scope=SearchScope(tenant_id="t2")))
        assert [h.chunk.chunk_id for h in hits] == ["baru#0"]
    finally:
        second.close()


def test_a_migration_that_fails_midway_leaves_the_file_as_it_was(
    legacy_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given analysis fails on the fifth chunk of the migration
    real = analysis.index_text
    calls = [0]

    def failing(text: str, lang: str) -> str:
        calls[0] += 1
        if calls[0] == 5:
            raise RuntimeError("disk on fire")
        return real(text, lang)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis, "index_text", failing)
    with pytest.raises(RuntimeError, match="disk on fire"):
        SqliteSearchIndex(legacy_copy, lexical="sqlite")
    # Then the file still has its shared table and no per-tenant one, and opens fine later
    names = _table_names(legacy_copy)
    assert "chunk_fts" in names
    assert not any(TENANT_FTS.fullmatch(n) for n in names)
    monkeypatch.setattr(analysis, "index_text", real)
    index = SqliteSearchIndex(legacy_copy, lexical="sqlite")
    try:
        hits = index.search(SearchQuery(text="kişisel", scope=SearchScope(tenant_id="t1")))
        assert hits and hits[0].chunk.document_id == "kvkk"
    finally:
        index.close()


def test_hits_of_a_migrated_file_are_complete_chunks(legacy_copy: Path) -> None:
    index = SqliteSearchIndex(legacy_copy)
    try:
        (hit, *_) = index.search(
            SearchQuery(text="sanksi denda", scope=SearchScope(tenant_id="t1", selection="pdp"))
        )
    finally:
        index.close()
    assert isinstance(hit, SearchHit)
    assert (hit.chunk.chunk_id, hit.chunk.batch_id, hit.chunk.section) == (
        "uu-pdp#2",
        "b1",
        "Pasal 3",
    )
    assert hit.chunk.embedding == pytest.approx((0.7, 0.3))
