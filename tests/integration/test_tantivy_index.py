"""The embedded index on tantivy (issue 28): the lexical arm in one tantivy index per tenant, the
SQLite file the source of truth through its ``lexical_pending`` journal. A process killed in the
middle of an ingest leaves the index consistent; a reader in another process keeps answering
while a writer writes and sees its writes; files written before are re-indexed when opened, with
the same hits as FTS5 gave them; the engine can be switched back and forth."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import apsw
import pytest

from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.records.documents import Chunk, Document, SearchQuery, SearchScope
from tanda.records.structure import RecordQuery

pytestmark = pytest.mark.integration

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHARED = Path(__file__).resolve().parents[2] / "shared"

# A writer in another process: documents w0000, w0001, … of CHUNKS chunks each, every chunk
# holding the document's own word (`kataNNNN`) and a common one; tantivy commits every
# FLUSH chunks, so a kill lands in SQLite transactions and tantivy commits alike.
WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.records.documents import Chunk, Document

    path, start, count, chunks, flush = sys.argv[1], *map(int, sys.argv[2:6])
    index = SqliteSearchIndex(Path(path), flush_chunks=flush, progress=False)
    for n in range(start, start + count):
        doc = f"w{n:04d}"
        document = Document(document_id=doc, tenant_id="t1", title=doc, source=doc,
                            content_hash=f"{doc}:v1", lang="id")
        index.upsert_document(document, [
            Chunk(chunk_id=f"{doc}#{i}", document_id=doc, tenant_id="t1", ordinal=i,
                  title=doc, text=f"kata{n:04d} anggaran daerah bagian {i} " + "isi " * 30)
            for i in range(chunks)
        ])
        print(n, flush=True)
    index.close()
    """
)
CHUNKS = 20
"""Chunks per written document: all of them fit one search (``top_k`` ≤ 20)."""


def _document(tenant: str, document_id: str, texts: Sequence[str]) -> tuple[Document, list[Chunk]]:
    document = Document(
        document_id=document_id,
        tenant_id=tenant,
        title=document_id,
        source=document_id,
        content_hash=f"{document_id}:v1",
        lang="id",
    )
    chunks = [
        Chunk(
            chunk_id=f"{document_id}#{i}",
            document_id=document_id,
            tenant_id=tenant,
            ordinal=i,
            title=document_id,
            text=text,
        )
        for i, text in enumerate(texts)
    ]
    return document, chunks


def _writer(path: Path, start: int, count: int, flush: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(SHARED)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(start), str(count), str(CHUNKS), str(flush)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def _ids(index: SqliteSearchIndex, text: str, top_k: int = 20, tenant: str = "t1") -> set[str]:
    query = SearchQuery(text=text, scope=SearchScope(tenant_id=tenant), top_k=top_k, lang="id")
    return {hit.chunk.chunk_id for hit in index.search(query)}


def _old_documents(path: Path) -> None:
    index = SqliteSearchIndex(path)
    for d in range(3):
        index.upsert_document(*_document("t1", f"old{d}", [f"lama{d} arsip kuno", "arsip"]))
    index.close()


@pytest.mark.parametrize("wait_s", [0.0, 0.15, 0.4])
def test_a_writer_killed_mid_ingest_leaves_old_documents_and_whole_new_ones(
    tmp_path: Path, wait_s: float
) -> None:
    # Given three documents indexed, and a writer process ingesting 200 more (a tantivy commit
    # every 100 chunks)
    path = tmp_path / "index.sqlite"
    _old_documents(path)
    writer = _writer(path, 0, 200, 100)
    assert writer.stdout is not None
    for _ in range(3):  # it is writing
        writer.stdout.readline()
    time.sleep(wait_s)
    # When it is killed without warning
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    # Then the index opens, the old documents are all searchable …
    index = SqliteSearchIndex(path)
    try:
        for d in range(3):
            assert _ids(index, f"lama{d}") == {f"old{d}#0"}
        assert _ids(index, "arsip") == {f"old{d}#{i}" for d in range(3) for i in range(2)}
        # … and every document the file holds is whole in search; none beyond it is there
        listed = {d.document_id for d in index.documents(SearchScope(tenant_id="t1"))}
        written = sorted(d for d in listed if d.startswith("w"))
        assert len(written) >= 3
        for doc in written:
            n = int(doc[1:])
            assert _ids(index, f"kata{n:04d}") == {f"{doc}#{i}" for i in range(CHUNKS)}, doc
        assert written == [f"w{n:04d}" for n in range(len(written))]  # in order, no gap
        assert _ids(index, f"kata{len(written):04d}") == set()
        # and the next ingest writes on (tantivy's writer lock died with the process)
        index.upsert_document(*_document("t1", "after", ["sesudah"]))
        assert _ids(index, "sesudah") == {"after#0"}
    finally:
        index.close()


def test_a_reader_in_this_process_keeps_answering_while_another_process_writes(
    tmp_path: Path,
) -> None:
    # Given old documents and a reader (as `tanda serve` holds one) searching in a loop
    path = tmp_path / "index.sqlite"
    _old_documents(path)
    reader = SqliteSearchIndex(path)
    errors: list[BaseException] = []
    seen: list[int] = []
    stop = threading.Event()

    def read() -> None:
        n = 0
        while not stop.is_set():
            try:
                assert _ids(reader, "arsip") == {f"old{d}#{i}" for d in range(3) for i in range(2)}
                seen.append(len(_ids(reader, f"kata{n % 30:04d}")))
                n += 1
            except BaseException as exc:
                errors.append(exc)
                return

    thread = threading.Thread(target=read)
    thread.start()
    try:
        # When another process ingests 30 documents (the way `tanda ingest` does: its own
        # index object, tantivy commits in batches)
        writer = _writer(path, 0, 30, 400)
        assert writer.wait(timeout=120) == 0
    finally:
        stop.set()
        thread.join()
    try:
        # Then the reader never failed nor lost an old document; it saw the writes as they
        # committed — whole documents only — and sees all of them now, without reopening
        assert errors == []
        assert seen and set(seen) <= {0, CHUNKS}
        assert CHUNKS in seen  # it saw writes while they went on
        for n in range(30):
            assert len(_ids(reader, f"kata{n:04d}")) == CHUNKS
    finally:
        reader.close()


def test_a_write_of_one_index_object_is_seen_by_another_at_once(tmp_path: Path) -> None:
    # The writer's tantivy commit waits for a batch; a reader elsewhere flushes the journal
    path = tmp_path / "index.sqlite"
    writer = SqliteSearchIndex(path)
    reader = SqliteSearchIndex(path)
    try:
        writer.upsert_document(*_replaced("a", "v1", "pajak kendaraan bermotor"))
        assert _ids(reader, "kendaraan") == {"a#0"}
        # A replace: the old text is gone, the new one is there, for both
        writer.upsert_document(*_replaced("a", "v2", "retribusi parkir"))
        assert _ids(reader, "kendaraan") == set()
        assert _ids(writer, "parkir") == _ids(reader, "parkir") == {"a#0"}
    finally:
        writer.close()
        reader.close()


def test_a_search_leaves_a_bulk_ingest_in_flight_to_its_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a writer batching its tantivy commits, with more chunks pending than a search
    # flushes itself (a bulk ingest in another process)
    import tanda.adapters.sqlite_index as sqlite_index

    monkeypatch.setattr(sqlite_index, "READER_FLUSH_MAX", 5)
    monkeypatch.setattr(sqlite_index, "FLUSH_SECONDS", 3600.0)
    path = tmp_path / "index.sqlite"
    _old_documents(path)
    writer = SqliteSearchIndex(path)
    reader = SqliteSearchIndex(path)
    try:
        writer.upsert_document(*_document("t1", "bulk", [f"muatan bagian {i}" for i in range(8)]))
        # Then a search answers from what tantivy holds (the old documents), not waiting for
        # or doing the writer's batch …
        assert _ids(reader, "muatan") == set()
        assert _ids(reader, "lama1") == {"old1#0"}
        # … the writer reads its own writes (its search commits its batch) …
        assert len(_ids(writer, "muatan")) == 8
        # … and the reader sees the whole batch once it is committed
        assert len(_ids(reader, "muatan")) == 8
    finally:
        writer.close()
        reader.close()


def test_hits_tantivy_holds_for_replaced_rows_give_way_to_the_next_live_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a tenant whose best chunks for a word are one document's, and a writer that has
    # replaced that document in the file while its tantivy commit still waits (a bulk ingest
    # in flight: more pending than a search flushes itself)
    import tanda.adapters.sqlite_index as sqlite_index

    monkeypatch.setattr(sqlite_index, "READER_FLUSH_MAX", 5)
    monkeypatch.setattr(sqlite_index, "FLUSH_SECONDS", 3600.0)
    path = tmp_path / "index.sqlite"
    seed = SqliteSearchIndex(path)
    seed.upsert_document(*_document("t1", "top", [("arsip " * 9) + f"bab {i}" for i in range(4)]))
    for d in range(3):
        texts = [("arsip " * (1 + (d + i) % 5)) + f"lampiran {d} {i} " * 4 for i in range(4)]
        seed.upsert_document(*_document("t1", f"rest{d}", texts))
    seed.close()
    reader = SqliteSearchIndex(path)
    writer = SqliteSearchIndex(path)
    try:
        query = SearchQuery(text="arsip", scope=SearchScope(tenant_id="t1"), top_k=20, lang="id")
        before = [hit.chunk.chunk_id for hit in reader.search(query)]
        assert {c.split("#")[0] for c in before[:4]} == {"top"}
        writer.upsert_document(*_replaced("top", "v2", "retribusi parkir"))
        writer.upsert_document(*_document("t1", "bulk", [f"muatan bagian {i}" for i in range(8)]))
        # When another process searches for the word, five hits at most
        hits = reader.search(query.model_copy(update={"top_k": 5}))
        # Then the replaced rows tantivy still holds are left out and the next live chunks take
        # their places, in the order they had
        assert [hit.chunk.chunk_id for hit in hits] == [c for c in before if c[:3] != "top"][:5]
        assert [hit.lexical_rank for hit in hits] == [1, 2, 3, 4, 5]
    finally:
        writer.close()
        reader.close()


def test_chunks_that_score_alike_come_in_chunk_id_order_whatever_order_they_were_written(
    tmp_path: Path,
) -> None:
    # Given twelve chunks of the same text (the same score), written last id first
    index = SqliteSearchIndex(tmp_path / "index.sqlite")
    try:
        for d in reversed(range(6)):
            index.upsert_document(*_document("t1", f"d{d}", ["arsip daerah", "arsip daerah"]))
        index.upsert_document(*_document("t1", "other", ["daerah kota lain"]))
        # When a search asks for five of them
        query = SearchQuery(text="arsip", scope=SearchScope(tenant_id="t1"), top_k=5, lang="id")
        # Then the five are the first by chunk id, whichever tantivy met first
        assert [hit.chunk.chunk_id for hit in index.search(query)] == [
            "d0#0",
            "d0#1",
            "d1#0",
            "d1#1",
            "d2#0",
        ]
    finally:
        index.close()


def _replaced(document_id: str, version: str, text: str) -> tuple[Document, list[Chunk]]:
    document, chunks = _document("t1", document_id, [text])
    return document.model_copy(update={"content_hash": f"{document_id}:{version}"}), chunks


def test_a_replaced_document_is_found_by_its_new_text_only(tmp_path: Path) -> None:
    index = SqliteSearchIndex(tmp_path / "index.sqlite")
    try:
        index.upsert_document(*_replaced("a", "v1", "pajak kendaraan bermotor"))
        assert _ids(index, "kendaraan") == {"a#0"}
        assert index.upsert_document(*_replaced("a", "v2", "retribusi parkir")).status == (
            "replaced"
        )
        assert _ids(index, "kendaraan") == set()
        assert _ids(index, "parkir") == {"a#0"}
    finally:
        index.close()


def test_a_rescoped_document_is_found_in_its_new_batch_only(tmp_path: Path) -> None:
    index = SqliteSearchIndex(tmp_path / "index.sqlite")
    document, chunks = _document("t1", "a", ["pajak kendaraan bermotor"])
    try:
        index.upsert_document(document.model_copy(update={"batch_id": "b1"}), chunks)
        outcome = index.rescope_document(document.model_copy(update={"batch_id": "b2"}))
        assert outcome is not None and outcome.status == "rescoped"
        for batch, found in (("b1", set()), ("b2", {"a#0"})):
            query = SearchQuery(
                text="kendaraan", scope=SearchScope(tenant_id="t1", batch_id=batch), lang="id"
            )
            assert {h.chunk.chunk_id for h in index.search(query)} == found
    finally:
        index.close()


def test_a_chunk_rescoped_before_its_batch_is_committed_is_held_once_in_its_new_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a writer whose batch waits for its tantivy commit, holding two chunks of the same
    # length with one query word each, one of them written (a journal row for the run of its new
    # rowids) and then rescoped (a row for its rowid)
    import tanda.adapters.sqlite_index as sqlite_index

    monkeypatch.setattr(sqlite_index, "FLUSH_SECONDS", 3600.0)
    index = SqliteSearchIndex(tmp_path / "index.sqlite")
    document, chunks = _document("t1", "a", ["kendaraan kota"])
    try:
        index.upsert_document(*_document("t1", "b", ["bermotor kota"]))
        index.upsert_document(document.model_copy(update={"batch_id": "b1"}), chunks)
        index.rescope_document(document.model_copy(update={"batch_id": "b2"}))

        # When it searches the whole tenant for both words, then each batch
        def found(batch: str | None) -> list[str]:
            scope = SearchScope(tenant_id="t1", batch_id=batch)
            query = SearchQuery(text="kendaraan bermotor", scope=scope, lang="id")
            return [h.chunk.chunk_id for h in index.search(query)]

        # Then tantivy holds the chunk once (the two score alike, so they come in chunk-id
        # order; a second copy would weigh its word down), in its new batch only
        assert found(None) == ["a#0", "b#0"]
        assert (found("b1"), found("b2")) == ([], ["a#0"])
    finally:
        index.close()


def test_a_journal_of_one_row_per_chunk_left_by_a_killed_writer_is_applied_when_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a file whose journal holds one row per new chunk rowid (as every file written before
    # the journal kept an upsert's rowids as one run does), left by a writer killed before its
    # tantivy commit
    import tanda.adapters.sqlite_index as sqlite_index

    monkeypatch.setattr(sqlite_index, "FLUSH_SECONDS", 3600.0)
    path = tmp_path / "index.sqlite"
    _old_documents(path)
    killed = SqliteSearchIndex(path)
    killed.upsert_document(*_document("t1", "late", ["muatan bagian satu", "muatan bagian dua"]))
    conn = apsw.Connection(str(path))
    try:
        with conn:
            conn.execute(
                "INSERT INTO lexical_pending (tenant_id, chunk_rowid, nonce) "
                "SELECT c.tenant_id, c.id, r.nonce FROM lexical_runs r "
                "JOIN chunks c ON c.id BETWEEN r.first_rowid AND r.last_rowid"
            )
            conn.execute("DELETE FROM lexical_runs")
        # When the file is opened again
        again = SqliteSearchIndex(path)
        try:
            # Then the written chunks are found, the old documents still are, and nothing waits
            assert _ids(again, "muatan") == {"late#0", "late#1"}
            assert _ids(again, "lama1") == {"old1#0"}
            waiting = conn.execute(
                "SELECT (SELECT count(*) FROM lexical_pending) + "
                "(SELECT count(*) FROM lexical_runs)"
            ).fetchall()
            assert waiting == [(0,)]
        finally:
            again.close()
    finally:
        conn.close()
        killed.close()


# -- files written before, and switching engines ------------------------------------------------


def _hits(index: SqliteSearchIndex, text: str, tenant: str) -> list[tuple[str, int | None]]:
    query = SearchQuery(text=text, scope=SearchScope(tenant_id=tenant), top_k=10)
    return [(h.chunk.chunk_id, h.lexical_rank) for h in index.search(query)]


def _table_names(path: Path) -> set[str]:
    conn = apsw.Connection(str(path))
    try:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


@pytest.mark.parametrize(
    "fixture", ["index_before_issue_11.sqlite", "index_before_issue_22.sqlite"]
)
def test_a_file_from_before_is_reindexed_into_tantivy_when_opened(
    tmp_path: Path, fixture: str
) -> None:
    fts_copy, tantivy_copy = tmp_path / "fts.sqlite", tmp_path / "tantivy.sqlite"
    shutil.copy(FIXTURES / fixture, fts_copy)
    shutil.copy(FIXTURES / fixture, tantivy_copy)
    fts = SqliteSearchIndex(fts_copy, lexical="sqlite")
    engine = SqliteSearchIndex(tantivy_copy)
    try:
        # Then the FTS5 tables are gone, one tantivy index per tenant holds the chunks …
        assert not any(n.startswith("chunk_fts") for n in _table_names(tantivy_copy))
        assert sorted(p.name for p in (tmp_path / "tantivy.sqlite.tantivy").iterdir()) == [
            "t1",
            "t2",
        ]
        # … and every tenant's searches find the chunks FTS5 found (the same terms meet; the
        # order may differ where the two BM25s do: FTS5 gives a term in over half the chunks
        # no weight, tantivy a small one)
        for tenant in ("t1", "t2"):
            found_any = False
            for text in ("data pribadi", "pajak daerah", "kişisel veriler", "anggaran 2023"):
                found = {c for c, _ in _hits(engine, text, tenant)}
                assert found == {c for c, _ in _hits(fts, text, tenant)}, (tenant, text)
                found_any = found_any or bool(found)
            assert found_any
            everything = SearchScope(tenant_id=tenant)
            assert engine.documents(everything) == fts.documents(everything)
            assert engine.records(RecordQuery(scope=everything)) == fts.records(
                RecordQuery(scope=everything)
            )
    finally:
        fts.close()
        engine.close()


def test_an_index_switched_to_fts5_and_back_answers_the_same(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    index = SqliteSearchIndex(path)
    index.upsert_document(*_document("t1", "a", ["pajak kendaraan bermotor", "pajak hotel"]))
    index.upsert_document(*_document("t2", "b", ["pajak restoran"]))
    before = [_hits(index, "pajak kendaraan", t) for t in ("t1", "t2")]
    index.close()
    fts = SqliteSearchIndex(path, lexical="sqlite")  # FTS5 tables built, tantivy folder gone
    assert [_hits(fts, "pajak kendaraan", t) for t in ("t1", "t2")] == before
    assert not (tmp_path / "index.sqlite.tantivy").exists()
    fts.upsert_document(*_document("t1", "c", ["pajak kendaraan umum"]))
    fts.close()
    again = SqliteSearchIndex(path)  # back on tantivy: re-indexed, the FTS5 write included
    try:
        assert {c for c, _ in _hits(again, "kendaraan", "t1")} == {"a#0", "c#0"}
        assert _hits(again, "restoran", "t2") == [("b#0", 1)]
    finally:
        again.close()


def test_a_reindex_that_fails_midway_is_finished_by_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tanda.retrieval.analysis as analysis

    copy = tmp_path / "legacy.sqlite"
    shutil.copy(FIXTURES / "index_before_issue_11.sqlite", copy)
    real = analysis.index_text
    calls = [0]

    def failing(text: str, lang: str) -> str:
        calls[0] += 1
        if calls[0] == 5:
            raise RuntimeError("disk on fire")
        return real(text, lang)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis, "index_text", failing)
    with pytest.raises(RuntimeError, match="disk on fire"):
        SqliteSearchIndex(copy)
    monkeypatch.setattr(analysis, "index_text", real)
    index = SqliteSearchIndex(copy)
    try:
        hits = index.search(SearchQuery(text="kişisel", scope=SearchScope(tenant_id="t1")))
        assert hits and hits[0].chunk.document_id == "kvkk"
    finally:
        index.close()


def test_a_file_restored_without_its_tantivy_folder_is_indexed_again(tmp_path: Path) -> None:
    # Given an index whose file is kept (a backup of index.sqlite) but whose folder is lost
    path = tmp_path / "index.sqlite"
    index = SqliteSearchIndex(path)
    index.upsert_document(*_document("t1", "a", ["pajak kendaraan bermotor", "pajak hotel"]))
    index.upsert_document(*_document("t2", "b", ["pajak restoran"]))
    before = [_hits(index, "pajak kendaraan", t) for t in ("t1", "t2")]
    index.close()
    shutil.rmtree(tmp_path / "index.sqlite.tantivy")
    # Then opening it indexes every tenant again: the same hits
    again = SqliteSearchIndex(path)
    try:
        assert [_hits(again, "pajak kendaraan", t) for t in ("t1", "t2")] == before
        assert before[0] and before[1]
    finally:
        again.close()


# -- a chunk's identity in a field of its own (issue 22) ------------------------------------

STATUTE = "Undang-Undang Nomor 27 Tahun 2022 tentang Pelindungan Data Pribadi"


def _statute(index: SqliteSearchIndex) -> None:
    """A statute as the demo corpus holds one: its Penjelasan a run of articles that only say
    "Cukup jelas." (self-explanatory), its closing the sentence saying who enacted it — and
    other laws beside it that name it in their text."""
    texts = ["Cukup jelas."] * 12 + [
        "Setiap Orang berhak atas pelindungan diri pribadi, keluarga, kehormatan, martabat, dan "
        "harta benda yang di bawah kekuasaannya.",
        "Disahkan di Jakarta pada tanggal 17 Oktober 2022 PRESIDEN REPUBLIK INDONESIA, ttd "
        "JOKO WIDODO",
    ]
    document = Document(
        document_id="uu27",
        tenant_id="t1",
        title=STATUTE,
        source="uu27.pdf",
        content_hash="uu27:v1",
        lang="id",
    )
    index.upsert_document(
        document,
        [
            Chunk(
                chunk_id=f"uu27#{i}",
                document_id="uu27",
                tenant_id="t1",
                ordinal=i,
                title=STATUTE,
                section="Penutup" if i == len(texts) - 1 else f"Penjelasan > Pasal {i + 1}",
                text=text,
            )
            for i, text in enumerate(texts)
        ],
    )
    for n in range(3):
        other, chunks = _document("t1", f"uu{n}", [f"Peraturan lain {n} tentang pajak daerah"] * 3)
        index.upsert_document(other, chunks)


def test_a_chunk_saying_nothing_but_its_title_does_not_outrank_the_one_that_answers(
    tmp_path: Path,
) -> None:
    # Given a statute whose title every chunk carries, a dozen of them saying only "Cukup jelas."
    index = SqliteSearchIndex(tmp_path / "index.sqlite")
    try:
        _statute(index)
        # When a partner asks who enacted the law, naming it by its number
        hits = _hits(index, "Siapa yang mengesahkan Undang-Undang Nomor 27 Tahun 2022?", "t1")
        # Then the closing sentence that says it comes first: the title's words count once for
        # the document (its own field), not as though each near-empty chunk said them itself
        assert hits[0][0] == "uu27#13"
        # and the title still finds the law's chunks (a question naming only the title)
        assert {c for c, _ in _hits(index, "Undang-Undang Nomor 27 Tahun 2022", "t1")} <= {
            f"uu27#{i}" for i in range(14)
        }
    finally:
        index.close()


def test_an_index_of_the_layout_before_the_identity_field_is_built_again_when_opened(
    tmp_path: Path,
) -> None:
    import tantivy

    path = tmp_path / "index.sqlite"
    index = SqliteSearchIndex(path)
    _statute(index)
    index.close()
    # Given a file as the layout before left it: marked `tantivy`, each tenant's index without
    # the `ident` field (a chunk's title and section were words of its text)
    conn = apsw.Connection(str(path))
    conn.execute("UPDATE settings SET value = 'tantivy' WHERE name = 'lexical_engine'")
    conn.close()
    folder = tmp_path / "index.sqlite.tantivy"
    shutil.rmtree(folder)
    (folder / "t1").mkdir(parents=True)
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("terms", stored=False, tokenizer_name="raw", index_option="freq")
    builder.add_integer_field("rid", stored=False, indexed=True, fast=True)
    old = tantivy.Index(builder.build(), path=str(folder / "t1"))
    writer = old.writer(heap_size=15_000_000, num_threads=1)
    writer.add_document(tantivy.Document(rid=1, terms="sah"))
    writer.commit()
    writer.wait_merging_threads()
    del writer, old
    # When it is opened, then every tenant is indexed again in the new layout: the same hits
    # as a file written by this code
    again = SqliteSearchIndex(path)
    try:
        assert (
            _hits(again, "Siapa yang mengesahkan Undang-Undang Nomor 27 Tahun 2022?", "t1")[0][0]
            == "uu27#13"
        )
        assert {c for c, _ in _hits(again, "pajak daerah", "t1")} == {
            f"uu{n}#{i}" for n in range(3) for i in range(3)
        }
    finally:
        again.close()
    conn = apsw.Connection(str(path))
    try:
        (engine,) = conn.execute(
            "SELECT value FROM settings WHERE name = 'lexical_engine'"
        ).fetchone()
        assert engine == "tantivy/identity"
    finally:
        conn.close()
