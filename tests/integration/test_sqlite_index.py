"""The embedded SearchIndex on real SQLite files (issue 3, ASK-02): replace semantics, scopes,
tenant isolation, the vector arm and Turkish matching."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import tanda.retrieval.analysis as analysis
from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.ports import SearchIndex
from tanda.records.documents import Chunk, Document, SearchQuery, SearchScope

pytestmark = pytest.mark.integration


@pytest.fixture(params=["tantivy", "sqlite"])
def index(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[SqliteSearchIndex]:
    # Every promise of the port holds on both lexical engines (issue 28).
    idx = SqliteSearchIndex(tmp_path / "index.sqlite", lexical=request.param)
    yield idx
    idx.close()


def doc(
    document_id: str,
    texts: Sequence[str],
    *,
    tenant: str = "t1",
    version: str = "v1",
    batch: str | None = None,
    selections: tuple[str, ...] = (),
    lang: str | None = "id",
    vectors: Sequence[tuple[float, ...]] | None = None,
) -> tuple[Document, list[Chunk]]:
    document = Document(
        document_id=document_id,
        tenant_id=tenant,
        title=f"Dokumen {document_id}",
        source=f"/tmp/{document_id}.txt",
        content_hash=f"{document_id}:{version}",
        batch_id=batch,
        selections=selections,
        lang=lang,
    )
    chunks = [
        Chunk(
            chunk_id=f"{document_id}:{version}:{i}",
            document_id=document_id,
            tenant_id=tenant,
            ordinal=i,
            title=document.title,
            text=text,
            batch_id=batch,
            selections=selections,
            lang=lang,
            embedding=None if vectors is None else vectors[i],
        )
        for i, text in enumerate(texts)
    ]
    return document, chunks


def search(
    index: SearchIndex, text: str, top_k: int = 5, lang: str | None = None, **scope: object
) -> list[str]:
    query = SearchQuery(text=text, scope=SearchScope(**scope), top_k=top_k, lang=lang)  # type: ignore[arg-type]
    return [hit.chunk.chunk_id for hit in index.search(query)]


def test_the_adapter_satisfies_the_search_index_port(index: SqliteSearchIndex) -> None:
    assert isinstance(index, SearchIndex)


def test_first_upsert_adds_and_the_same_hash_again_is_unchanged(
    index: SqliteSearchIndex,
) -> None:
    first = index.upsert_document(*doc("a", ["anggaran pendidikan", "belanja pegawai"]))
    again = index.upsert_document(*doc("a", ["anggaran pendidikan", "belanja pegawai"]))
    assert (first.status, first.chunks) == ("added", 2)
    assert (again.status, again.chunks) == ("unchanged", 2)


def test_a_new_hash_replaces_the_chunks_and_the_old_ones_are_never_returned(
    index: SqliteSearchIndex,
) -> None:
    index.upsert_document(*doc("a", ["anggaran pendidikan lama"], version="v1"))
    outcome = index.upsert_document(*doc("a", ["anggaran kesehatan baru"], version="v2"))
    assert outcome.status == "replaced"
    assert search(index, "anggaran", tenant_id="t1") == ["a:v2:0"]
    assert search(index, "pendidikan", tenant_id="t1") == []
    scope = SearchScope(tenant_id="t1")
    assert [c.chunk_id for c in index.document_chunks(scope, "a")] == ["a:v2:0"]
    assert index.chunks(scope, ["a:v1:0"]) == []


def test_a_replace_may_reuse_chunk_ids_of_unchanged_passages(index: SqliteSearchIndex) -> None:
    document, chunks = doc("a", ["pasal satu", "pasal dua"], version="v1")
    index.upsert_document(document, chunks)
    changed = document.model_copy(update={"content_hash": "a:v2"})
    edited = [chunks[0], chunks[1].model_copy(update={"text": "pasal dua diubah"})]
    assert index.upsert_document(changed, edited).status == "replaced"
    texts = [c.text for c in index.document_chunks(SearchScope(tenant_id="t1"), "a")]
    assert texts == ["pasal satu", "pasal dua diubah"]


def test_a_failure_midway_rolls_back_and_keeps_the_previous_version(
    index: SqliteSearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given version 1 is indexed
    index.upsert_document(*doc("a", ["anggaran pendidikan"], version="v1"))
    # When analysis fails on the second chunk of version 2
    calls = itertools.count()
    real = analysis.index_text

    def failing(text: str, lang: str) -> str:
        if next(calls) == 1:
            raise RuntimeError("disk on fire")
        return real(text, lang)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis, "index_text", failing)
    with pytest.raises(RuntimeError, match="disk on fire"):
        index.upsert_document(*doc("a", ["kesehatan", "pertahanan"], version="v2"))
    # Then version 1 is still what search, reads and the document list see
    assert search(index, "anggaran pendidikan", tenant_id="t1") == ["a:v1:0"]
    assert search(index, "kesehatan", tenant_id="t1") == []
    scope = SearchScope(tenant_id="t1")
    assert [c.chunk_id for c in index.document_chunks(scope, "a")] == ["a:v1:0"]
    assert [d.content_hash for d in index.documents(scope)] == ["a:v1"]


def test_a_constraint_violation_midway_rolls_back_too(index: SqliteSearchIndex) -> None:
    index.upsert_document(*doc("a", ["anggaran pendidikan"], version="v1"))
    document, chunks = doc("a", ["satu", "dua"], version="v2")
    duplicate = [chunks[0], chunks[1].model_copy(update={"chunk_id": chunks[0].chunk_id})]
    with pytest.raises(Exception, match="UNIQUE"):
        index.upsert_document(document, duplicate)
    assert search(index, "pendidikan", tenant_id="t1") == ["a:v1:0"]


def test_chunks_of_another_document_are_refused(index: SqliteSearchIndex) -> None:
    document, _ = doc("a", ["x"])
    _, foreign = doc("b", ["y"])
    with pytest.raises(ValueError, match="belongs to"):
        index.upsert_document(document, foreign)


@pytest.fixture
def scoped(index: SqliteSearchIndex) -> SqliteSearchIndex:
    index.upsert_document(*doc("a", ["anggaran daerah Batu"], batch="b1", selections=("apbd",)))
    index.upsert_document(*doc("b", ["anggaran daerah Malang"], batch="b1"))
    index.upsert_document(*doc("c", ["anggaran daerah Kediri"], batch="b2", selections=("apbd",)))
    return index


def test_document_ids_scope_narrows_search(scoped: SqliteSearchIndex) -> None:
    hits = search(scoped, "anggaran", tenant_id="t1", document_ids=("a", "c"))
    assert sorted(hits) == ["a:v1:0", "c:v1:0"]


def test_an_empty_document_ids_scope_sees_nothing(scoped: SqliteSearchIndex) -> None:
    assert search(scoped, "anggaran", tenant_id="t1", document_ids=()) == []
    assert scoped.documents(SearchScope(tenant_id="t1", document_ids=())) == []


def test_batch_scope_narrows_search_and_documents(scoped: SqliteSearchIndex) -> None:
    assert sorted(search(scoped, "anggaran", tenant_id="t1", batch_id="b1")) == [
        "a:v1:0",
        "b:v1:0",
    ]
    docs = scoped.documents(SearchScope(tenant_id="t1", batch_id="b2"))
    assert [d.document_id for d in docs] == ["c"]


def test_selection_scope_narrows_search_and_reads(scoped: SqliteSearchIndex) -> None:
    scope = SearchScope(tenant_id="t1", selection="apbd")
    assert sorted(search(scoped, "anggaran", tenant_id="t1", selection="apbd")) == [
        "a:v1:0",
        "c:v1:0",
    ]
    assert scoped.document_chunks(scope, "b") == []
    assert [c.chunk_id for c in scoped.chunks(scope, ["a:v1:0", "b:v1:0"])] == ["a:v1:0"]
    assert [d.document_id for d in scoped.documents(scope)] == ["a", "c"]


def test_scopes_combine(scoped: SqliteSearchIndex) -> None:
    assert search(scoped, "anggaran", tenant_id="t1", batch_id="b1", selection="apbd") == ["a:v1:0"]


SCOPE_VARIANTS = [
    {},
    {"document_ids": ("same",)},
    {"document_ids": ("same", "other")},
    {"batch_id": "b1"},
    {"selection": "apbd"},
    {"document_ids": ("same",), "selection": "apbd"},
    {"batch_id": "b1", "selection": "apbd"},
]


@pytest.mark.parametrize("narrowing", SCOPE_VARIANTS)
def test_two_tenants_with_identical_documents_never_see_each_others_chunks(
    index: SqliteSearchIndex, narrowing: dict[str, object]
) -> None:
    # Given two tenants hold byte-identical documents (same ids, same text, same vectors)
    for tenant in ("t1", "t2"):
        document, chunks = doc(
            "same",
            ["rahasia anggaran daerah", "data pribadi warga"],
            tenant=tenant,
            batch="b1",
            selections=("apbd",),
            vectors=[(1.0, 0.0), (0.0, 1.0)],
        )
        chunks = [c.model_copy(update={"chunk_id": f"{tenant}-{c.ordinal}"}) for c in chunks]
        index.upsert_document(document, chunks)
    for tenant, other in (("t1", "t2"), ("t2", "t1")):
        scope = SearchScope(tenant_id=tenant, **narrowing)  # type: ignore[arg-type]
        # When each reads through every method, with and without a query vector
        hits = [
            *index.search(SearchQuery(text="rahasia anggaran data", scope=scope, top_k=20)),
            *index.search(
                SearchQuery(text="rahasia anggaran", scope=scope, top_k=20, vector=(1.0, 0.1))
            ),
        ]
        read = [
            *(h.chunk for h in hits),
            *index.chunks(scope, [f"{other}-0", f"{other}-1", f"{tenant}-0"]),
            *index.document_chunks(scope, "same"),
        ]
        # Then only its own chunks and documents come back, and they do come back
        assert read
        assert {c.tenant_id for c in read} == {tenant}
        assert {c.chunk_id for c in read} <= {f"{tenant}-0", f"{tenant}-1"}
        assert {d.tenant_id for d in index.documents(scope)} == {tenant}


def test_the_vector_arm_ranks_by_cosine_and_fuses_with_lexical(
    index: SqliteSearchIndex,
) -> None:
    # Given chunks with hand-made vectors; "b" matches the query vector but not its words
    index.upsert_document(
        *doc("a", ["anggaran pendidikan"], vectors=[(1.0, 0.0, 0.0)]),
    )
    index.upsert_document(*doc("b", ["belanja sekolah"], vectors=[(0.0, 1.0, 0.0)]))
    index.upsert_document(*doc("c", ["jalan raya"], vectors=[(0.0, 0.0, 1.0)]))
    scope = SearchScope(tenant_id="t1")
    query = SearchQuery(text="anggaran", scope=scope, top_k=3, vector=(0.0, 1.0, 0.1))
    hits = index.search(query)
    by_id = {h.chunk.chunk_id: h for h in hits}
    # Then the vector arm ranks b first, the lexical arm a first, and both are returned
    assert by_id["b:v1:0"].vector_rank == 1
    assert by_id["b:v1:0"].lexical_rank is None
    assert by_id["a:v1:0"].lexical_rank == 1
    assert hits[0].score >= hits[-1].score
    assert by_id["b:v1:0"].chunk.embedding == (0.0, 1.0, 0.0)


def test_the_vector_arm_inside_a_narrow_scope_is_exact(index: SqliteSearchIndex) -> None:
    index.upsert_document(*doc("a", ["satu"], vectors=[(1.0, 0.0)], batch="b1"))
    index.upsert_document(*doc("b", ["dua"], vectors=[(0.9, 0.1)], batch="b2"))
    query = SearchQuery(
        text="zzz", scope=SearchScope(tenant_id="t1", batch_id="b2"), vector=(1.0, 0.0)
    )
    assert [(h.chunk.chunk_id, h.vector_rank) for h in index.search(query)] == [("b:v1:0", 1)]


def test_without_a_query_vector_only_the_lexical_arm_runs(index: SqliteSearchIndex) -> None:
    index.upsert_document(*doc("a", ["anggaran"], vectors=[(1.0, 0.0)]))
    hits = index.search(SearchQuery(text="anggaran", scope=SearchScope(tenant_id="t1")))
    assert [(h.lexical_rank, h.vector_rank) for h in hits] == [(1, None)]


def test_a_replaced_document_leaves_no_stale_vectors(index: SqliteSearchIndex) -> None:
    index.upsert_document(*doc("a", ["lama"], version="v1", vectors=[(1.0, 0.0)]))
    index.upsert_document(*doc("a", ["baru"], version="v2", vectors=[(0.0, 1.0)]))
    query = SearchQuery(text="zzz", scope=SearchScope(tenant_id="t1"), vector=(1.0, 0.0))
    assert [h.chunk.chunk_id for h in index.search(query)] == ["a:v2:0"]


def test_an_embedding_of_another_size_is_refused(index: SqliteSearchIndex) -> None:
    index.upsert_document(*doc("a", ["satu"], vectors=[(1.0, 0.0)]))
    with pytest.raises(ValueError, match="dimensions"):
        index.upsert_document(*doc("b", ["dua"], vectors=[(1.0, 0.0, 0.0)]))


@pytest.mark.parametrize("query", ["ışık hızı", "IŞIK HIZI", "isik hizi", "ISIK HIZI", "Işık Hızı"])
def test_turkish_dotted_and_dotless_i_match_end_to_end(
    index: SqliteSearchIndex, query: str
) -> None:
    index.upsert_document(
        *doc("tr", ["IŞIK HIZI saniyede yaklaşık 300.000 kilometredir."], lang="tr")
    )
    index.upsert_document(*doc("id", ["Kecepatan cahaya di ruang hampa."], lang="id"))
    assert search(index, query, lang="tr", tenant_id="t1") == ["tr:v1:0"]


def test_istanbul_written_with_capital_dotted_i_matches_a_lowercase_query(
    index: SqliteSearchIndex,
) -> None:
    index.upsert_document(*doc("tr", ["İSTANBUL BOĞAZI"], lang="tr"))
    assert search(index, "istanbul bogazi", tenant_id="t1") == ["tr:v1:0"]


def test_numbers_match_whole_and_by_their_parts(index: SqliteSearchIndex) -> None:
    index.upsert_document(*doc("uu", ["Undang-Undang Nomor 27 Tahun 2022 tentang PDP"]))
    index.upsert_document(*doc("rp", ["Realisasi Rp 10.723,82 miliar"]))
    assert search(index, "UU 27/2022", tenant_id="t1")[0] == "uu:v1:0"
    assert search(index, "10.723,82", tenant_id="t1") == ["rp:v1:0"]


STALAGMIT = "Stalagmit adalah pembentukan gua secara vertikal (tumbuh dari bawah ke atas)."


def test_a_word_the_tenant_holds_nowhere_is_searched_as_its_nearest_word(
    index: SqliteSearchIndex,
) -> None:
    # Issue 22 (V2-19): "stalakmit" matched nothing — a 404 in a tenant holding "Stalagmit".
    index.upsert_document(*doc("gua", [STALAGMIT]))
    index.upsert_document(*doc("tubuh", ["Homeostasis merujuk pada mekanisme pengaturan."]))
    index.upsert_document(*doc("pajak", ["Pajak daerah dipungut oleh pemerintah daerah."]))
    assert search(index, "Apa itu stalakmit?", tenant_id="t1") == ["gua:v1:0"]
    assert search(index, "homeostatis", tenant_id="t1") == ["tubuh:v1:0"]
    # A word shorter than five letters is not corrected: too many real words sit one letter off.
    assert search(index, "pajk", tenant_id="t1") == []


def test_a_word_the_tenant_holds_is_searched_as_written_however_rare(
    index: SqliteSearchIndex,
) -> None:
    index.upsert_document(*doc("salah", ["Di sini stalakmit tertulis salah."]))
    for n in range(3):
        index.upsert_document(*doc(f"gua{n}", [STALAGMIT]))
    assert search(index, "stalakmit", tenant_id="t1") == ["salah:v1:0"]


def test_a_word_is_corrected_though_the_query_s_other_words_find_something(
    index: SqliteSearchIndex,
) -> None:
    # Issue 22 (V2-19), issue 28: a typo beside words that match was searched as written —
    # "Apa yang dimaksud dengan homeostatis?" found passages saying "yang dimaksud" and never the
    # one defining homeostasis; "stalakmit Jomblang" found the Jomblang cave only.
    index.upsert_document(*doc("gua", [STALAGMIT]))
    index.upsert_document(*doc("gua2", ["Gua Jomblang terletak di Gunungkidul."]))
    assert sorted(search(index, "stalakmit Jomblang", tenant_id="t1")) == ["gua2:v1:0", "gua:v1:0"]
    # the passage holding the corrected word and another of the query's words leads
    assert search(index, "stalakmit gua", tenant_id="t1")[0] == "gua:v1:0"


def test_a_correction_counts_every_neighbour_wherever_its_edit_falls(
    index: SqliteSearchIndex,
) -> None:
    # Issue 28: an engine reads a word's neighbours by walking its dictionary by the word's first
    # letters and looks the others up: a neighbour edited in its second letter is counted as one
    # edited further in is,
    index.upsert_document(*doc("a1", ["Sxalakmit pertama."]))
    index.upsert_document(*doc("a2", ["Sxalakmit kedua."]))
    index.upsert_document(*doc("b1", ["Stalagmit satu."]))
    assert sorted(search(index, "stalakmit", tenant_id="t1")) == ["a1:v1:0", "a2:v1:0"]
    # and one a document's title alone says counts too.
    index.upsert_document(*doc("sxalakmit", ["Gua kapur."], tenant="t2"))
    assert search(index, "stalakmit", tenant_id="t2") == ["sxalakmit:v1:0"]


def test_a_tenant_s_write_is_read_by_its_next_correction(index: SqliteSearchIndex) -> None:
    # Issue 28: the frequencies a correction reads are kept until the tenant's next write —
    # a word it had no neighbour of, once a document says one, is corrected to it.
    index.upsert_document(*doc("gua2", ["Gua Jomblang terletak di Gunungkidul."]))
    assert search(index, "stalakmit", tenant_id="t1") == []
    assert search(index, "stalakmit Jomblang", tenant_id="t1") == ["gua2:v1:0"]
    index.upsert_document(*doc("gua", [STALAGMIT]))
    assert search(index, "stalakmit", tenant_id="t1") == ["gua:v1:0"]
    assert sorted(search(index, "stalakmit Jomblang", tenant_id="t1")) == ["gua2:v1:0", "gua:v1:0"]


def test_a_correction_reads_the_searched_tenants_words_only(index: SqliteSearchIndex) -> None:
    # Given t2 holding a neighbour of "stalakmit" far more often than t1 holds its own,
    index.upsert_document(*doc("mine", [STALAGMIT], tenant="t1"))
    for n in range(4):
        index.upsert_document(*doc(f"theirs{n}", ["Stalaknit di gua ini."], tenant="t2"))
    # each tenant's "stalakmit" is its own nearest word, and a tenant holding neither finds
    # nothing.
    assert search(index, "stalakmit", tenant_id="t1") == ["mine:v1:0"]
    assert len(search(index, "stalakmit", tenant_id="t2")) == 4
    index.upsert_document(*doc("other", ["Pajak daerah."], tenant="t3"))
    assert search(index, "stalakmit", tenant_id="t3") == []


def test_results_are_deterministic(index: SqliteSearchIndex) -> None:
    for i in range(12):
        index.upsert_document(*doc(f"d{i:02d}", ["anggaran daerah yang sama"]))
    runs = {tuple(search(index, "anggaran daerah", top_k=10, tenant_id="t1")) for _ in range(5)}
    assert len(runs) == 1
    assert list(next(iter(runs))) == sorted(next(iter(runs)))  # equal scores: by chunk id


def test_hits_carry_ranks_and_the_full_chunk(index: SqliteSearchIndex) -> None:
    index.upsert_document(*doc("a", ["anggaran pendidikan"], batch="b1", selections=("s",)))
    (hit,) = index.search(SearchQuery(text="pendidikan", scope=SearchScope(tenant_id="t1")))
    assert hit.lexical_rank == 1
    assert hit.score > 0
    assert hit.chunk.batch_id == "b1"
    assert hit.chunk.selections == ("s",)
    assert hit.chunk.title == "Dokumen a"


def test_the_index_survives_reopening(tmp_path: Path) -> None:
    first = SqliteSearchIndex(tmp_path / "i.sqlite")
    first.upsert_document(*doc("a", ["anggaran"]))
    first.close()
    second = SqliteSearchIndex(tmp_path / "i.sqlite")
    try:
        assert search(second, "anggaran", tenant_id="t1") == ["a:v1:0"]
    finally:
        second.close()


def test_concurrent_readers_and_a_writer_from_many_threads(index: SqliteSearchIndex) -> None:
    index.upsert_document(*doc("a", ["anggaran pendidikan"]))
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for _ in range(50):
                assert search(index, "anggaran", tenant_id="t1")
        except BaseException as error:  # surfaced in the main thread
            errors.append(error)

    def write() -> None:
        try:
            for i in range(20):
                index.upsert_document(*doc(f"w{i}", [f"anggaran tambahan {i}"]))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=read) for _ in range(4)] + [threading.Thread(target=write)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(index.documents(SearchScope(tenant_id="t1"))) == 21


def test_maxscore_pruning_returns_exactly_the_plain_ranking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a corpus where one word is common and others are rare, and pruning always on
    import tanda.adapters.sqlite_index as sqlite_index

    monkeypatch.setattr(sqlite_index, "PRUNE_MIN_POSTINGS", 0)
    pruned = SqliteSearchIndex(tmp_path / "i.sqlite", lexical="sqlite")  # FTS5's own path
    plain = SqliteSearchIndex(tmp_path / "i.sqlite", prune=False, lexical="sqlite")
    rare = ["pendidikan", "kesehatan", "pertahanan", "pertanian", "perikanan"]
    for d in range(12):
        texts = [
            f"anggaran daerah {rare[(d + i) % 5]} tahun {2000 + i} " + "anggaran " * (i % 3)
            for i in range(8)
        ]
        pruned.upsert_document(*doc(f"d{d:02d}", texts, batch="b1" if d % 2 else "b2"))
    pools: list[int] = []
    real_pool = SqliteSearchIndex._pool

    def spy(self: SqliteSearchIndex, *args: object) -> object:
        pools.append(1)
        return real_pool(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(SqliteSearchIndex, "_pool", spy)
    try:
        for text, scope in itertools.product(
            ["anggaran pendidikan", "anggaran daerah kesehatan 2003", "perikanan anggaran"],
            [{"tenant_id": "t1"}, {"tenant_id": "t1", "batch_id": "b1"}, {"tenant_id": "t2"}],
        ):
            for top_k in (3, 10):
                assert search(pruned, text, top_k, **scope) == search(plain, text, top_k, **scope)
        # Then the pruned path ran, and a write is seen by the cached term statistics
        assert pools
        pruned.upsert_document(*doc("z", ["anggaran kelautan"]))
        assert search(pruned, "anggaran kelautan", tenant_id="t1")[0] == "z:v1:0"
        assert search(pruned, "anggaran kelautan", 10, tenant_id="t1") == search(
            plain, "anggaran kelautan", 10, tenant_id="t1"
        )
    finally:
        plain.close()
        pruned.close()


# -- scope changes on re-ingest (issue 11) -----------------------------------------------------


def test_the_same_content_with_another_scope_is_rescoped_everywhere(
    index: SqliteSearchIndex,
) -> None:
    # Given a document in batch b1 and selection "pdp", with vectors
    document, chunks = doc(
        "a",
        ["data pribadi warga", "sanksi denda"],
        batch="b1",
        selections=("pdp",),
        vectors=[(1.0, 0.0), (0.0, 1.0)],
    )
    index.upsert_document(document, chunks)
    # When the same content comes again with another batch and selection
    moved = document.model_copy(update={"batch_id": "b2", "selections": ("privasi",)})
    outcome = index.upsert_document(moved, [])
    # Then it is rescoped: the document and both chunks carry the new scope, nothing else moved
    assert (outcome.status, outcome.chunks) == ("rescoped", 2)
    new_scope = SearchScope(tenant_id="t1", selection="privasi", batch_id="b2")
    assert [d.document_id for d in index.documents(new_scope)] == ["a"]
    assert index.documents(SearchScope(tenant_id="t1", selection="pdp")) == []
    assert index.documents(SearchScope(tenant_id="t1", batch_id="b1")) == []
    stored = index.document_chunks(new_scope, "a")
    assert [(c.chunk_id, c.batch_id, c.selections) for c in stored] == [
        ("a:v1:0", "b2", ("privasi",)),
        ("a:v1:1", "b2", ("privasi",)),
    ]
    assert stored[1].embedding == (0.0, 1.0)
    assert search(index, "sanksi", selection="privasi", tenant_id="t1") == ["a:v1:1"]
    assert search(index, "sanksi", selection="pdp", tenant_id="t1") == []
    by_vector = SearchQuery(text="zzz", scope=new_scope, vector=(0.0, 1.0))
    assert index.search(by_vector)[0].chunk.chunk_id == "a:v1:1"


def test_a_document_can_leave_every_selection_and_its_batch(index: SqliteSearchIndex) -> None:
    document, chunks = doc("a", ["anggaran"], batch="b1", selections=("apbd", "pdp"))
    index.upsert_document(document, chunks)
    bare = document.model_copy(update={"batch_id": None, "selections": ()})
    assert index.upsert_document(bare, chunks).status == "rescoped"
    assert index.documents(SearchScope(tenant_id="t1", selection="apbd")) == []
    (chunk,) = index.document_chunks(SearchScope(tenant_id="t1"), "a")
    assert (chunk.batch_id, chunk.selections) == (None, ())


def test_the_same_selections_in_another_order_are_the_same_scope(
    index: SqliteSearchIndex,
) -> None:
    document, chunks = doc("a", ["anggaran"], selections=("apbd", "pdp"))
    index.upsert_document(document, chunks)
    reordered = document.model_copy(update={"selections": ("pdp", "apbd", "pdp")})
    assert index.upsert_document(reordered, chunks).status == "unchanged"


def test_rescope_document_acts_only_on_the_indexed_version(index: SqliteSearchIndex) -> None:
    document, chunks = doc("a", ["anggaran"], batch="b1")
    assert index.rescope_document(document) is None  # not indexed yet
    index.upsert_document(document, chunks)
    newer = document.model_copy(update={"content_hash": "a:v2", "batch_id": "b2"})
    assert index.rescope_document(newer) is None  # another version: index it in full
    assert index.documents(SearchScope(tenant_id="t1", batch_id="b1"))
    moved = document.model_copy(update={"batch_id": "b2"})
    outcome = index.rescope_document(moved)
    assert outcome is not None and (outcome.status, outcome.chunks) == ("rescoped", 1)
    again = index.rescope_document(moved)
    assert again is not None and again.status == "unchanged"
    assert search(index, "anggaran", batch_id="b2", tenant_id="t1") == ["a:v1:0"]


def test_a_long_form_asked_finds_the_short_form_a_table_writes(index: SqliteSearchIndex) -> None:
    # issue 22: a budget table writes `PAD` for `Pendapatan Asli Daerah`; the question spells
    # it out (both engines search the other form too: tanda.retrieval.equivalents.search_text)
    index.upsert_document(
        *doc("apbd", ["PAD | 1.035,84 M | 927,36 M", "Belanja Daerah | 4.962,91 M | 4.597,53 M"])
    )
    assert search(index, "Berapa pendapatan asli daerah?", tenant_id="t1")[0] == "apbd:v1:0"
