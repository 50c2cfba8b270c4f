"""Erasing a document from the embedded index (issue 26): it is no longer found, read or listed,
its neighbours and other tenants are untouched, and no file under the index holds its text or
the terms its text was indexed as — on both lexical engines (tantivy, FTS5)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import tantivy

from tanda.adapters.sqlite_index import LexicalEngine, SqliteSearchIndex
from tanda.extraction import build_structure
from tanda.records.documents import Chunk, Document, SearchQuery, SearchScope
from tanda.records.structure import STRUCTURE_VERSION, RecordQuery, StructureRecord
from tanda.retrieval import analysis
from tanda.retrieval.ingest.readers import read_markdown
from tanda.service.ingest import build_document

pytestmark = pytest.mark.integration

SECRET = "Zorblaxquintine verbobbled the marmaduketrix"
"""A phrase of the erased document found nowhere else (its words, their stems too)."""

FAKTUR = (
    "# Faktur {n}\n\n{extra}\n\nPembayaran dilakukan paling lambat 14 hari setelah tanggal "
    "faktur. Jangka waktu pembayaran {days} hari.\n\n"
    "| No | Uraian | Jumlah (Rp) |\n|---|---|---:|\n| 1 | Kertas A4 | 500.000 |\n"
    "| 2 | Tinta | 300.000 |\n| | Total | 850.000 |\n\n## Catatan\n\n{extra} di gudang.\n"
)


def faktur(
    tenant: str, document_id: str, *, extra: str, days: int = 30
) -> tuple[Document, list[Chunk], list[StructureRecord]]:
    text = FAKTUR.format(n=document_id, extra=extra, days=days)
    parsed = read_markdown(text.encode(), name=f"{document_id}.md")
    assert not hasattr(parsed, "reason")
    document, chunks = build_document(
        parsed,  # type: ignore[arg-type]
        tenant=tenant,
        document_id=document_id,
        source=f"{document_id}.md",
        digest=f"hash-{document_id}-{extra}",
        batch=None,
        selections=(),
        metadata={},
    )
    document = document.model_copy(update={"structure_version": STRUCTURE_VERSION})
    return document, chunks, build_structure(document, chunks).records


@pytest.fixture(params=["tantivy", "sqlite"])
def engine(request: pytest.FixtureRequest) -> LexicalEngine:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def index(tmp_path: Path, engine: LexicalEngine) -> Iterator[SqliteSearchIndex]:
    idx = SqliteSearchIndex(tmp_path / "home" / "index.sqlite", lexical=engine, progress=False)
    yield idx
    idx.close()


def found(index: SqliteSearchIndex, tenant: str, text: str) -> set[str]:
    hits = index.search(SearchQuery(text=text, scope=SearchScope(tenant_id=tenant)))
    return {hit.chunk.document_id for hit in hits}


def traces(folder: Path, needles: set[bytes]) -> dict[str, list[str]]:
    """Every file under ``folder`` whose bytes hold any of ``needles`` (case-insensitively)."""
    hits: dict[str, list[str]] = {}
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes().lower()
            held = [n.decode() for n in needles if n.lower() in data]
            if held:
                hits[str(path.relative_to(folder))] = held
    return hits


def tantivy_terms(home: Path) -> set[str]:
    """Every term the tantivy indexes under ``home`` hold in their term dictionaries, deleted
    documents' included (tantivy keeps them until a merge). A term dictionary is an FST, so a
    scan of the bytes cannot tell: it is read with tantivy itself, from the files."""
    terms: set[str] = set()
    for meta in (home / "index.sqlite.tantivy").glob("t*/meta.json"):
        searcher = tantivy.Index.open(str(meta.parent)).searcher()
        terms |= {str(term) for term, _ in searcher.terms_with_prefix("terms", "")}
    return terms


def secret_terms() -> set[str]:
    return {
        t for lang in ("en", "id", "tr") for t in analysis.index_terms(SECRET, lang) if len(t) > 4
    }


def needles() -> set[bytes]:
    """The phrase and every word of it, as written and as analyzed (stemmed, folded) for each
    language tanda analyzes — what the lexical index holds instead of the text."""
    found_terms = {SECRET.encode(), *(w.encode() for w in SECRET.split() if len(w) > 4)}
    for lang in ("en", "id", "tr"):
        found_terms |= {t.encode() for t in analysis.index_terms(SECRET, lang) if len(t) > 4}
    return found_terms


def test_an_erased_document_leaves_no_trace_and_its_neighbours_stay(
    index: SqliteSearchIndex, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    doomed = faktur("t1", "faktur-7", extra=SECRET)
    kept = faktur("t1", "faktur-8", extra="Gudang utama menerima kertas", days=14)
    other = faktur("t2", "faktur-7", extra=SECRET)  # another tenant, the same id and phrase
    for document, chunks, records in (doomed, kept, other):
        index.upsert_document(document, chunks, records)
    assert found(index, "t1", "zorblaxquintine marmaduketrix") == {"faktur-7"}
    assert traces(home, needles())  # the probe sees the text while it is there
    if index.lexical == "tantivy":
        assert tantivy_terms(home) & secret_terms()  # and tantivy's terms

    erasure = index.delete_document("t1", "faktur-7")

    assert erasure is not None
    assert erasure.document.document_id == "faktur-7"
    assert erasure.chunks == len(doomed[1]) and erasure.records == len(doomed[2]) > 0
    assert found(index, "t1", "zorblaxquintine marmaduketrix") == set()
    assert found(index, "t1", "pembayaran kertas") == {"faktur-8"}
    assert index.document_chunks(SearchScope(tenant_id="t1"), "faktur-7") == []
    assert index.records(RecordQuery(scope=SearchScope(tenant_id="t1"))) == kept[2]
    assert [d.document_id for d in index.documents(SearchScope(tenant_id="t1"))] == ["faktur-8"]
    # The other tenant keeps its copy, found by the same words.
    assert found(index, "t2", "zorblaxquintine marmaduketrix") == {"faktur-7"}

    index.delete_document("t2", "faktur-7")
    index.close()
    assert traces(home, needles()) == {}
    assert not tantivy_terms(home) & secret_terms()
    assert index.delete_document("t1", "faktur-7") is None  # twice: nothing to erase
    # Reopened, the index still answers for what is left, and takes new writes.
    reopened = SqliteSearchIndex(home / "index.sqlite", lexical=index.lexical, progress=False)
    try:
        assert found(reopened, "t1", "pembayaran kertas") == {"faktur-8"}
        reopened.upsert_document(*faktur("t1", "faktur-9", extra="Tinta biru"))
        assert found(reopened, "t1", "tinta biru") >= {"faktur-9"}
    finally:
        reopened.close()


def test_another_tenants_document_id_is_not_erased(index: SqliteSearchIndex) -> None:
    index.upsert_document(*faktur("t2", "faktur-7", extra=SECRET))
    assert index.delete_document("t1", "faktur-7") is None
    assert found(index, "t2", "zorblaxquintine marmaduketrix") == {"faktur-7"}


def test_an_erasure_cut_short_before_tantivy_is_rebuilt_is_finished_when_the_index_opens(
    tmp_path: Path,
) -> None:
    """Crash safety (issue 26, docs/retrieval.md): the erasure's SQLite transaction commits the
    journal's purge row with it; a process that dies before the flush leaves the terms in
    tantivy, and the next open rebuilds the tenant's index from the file."""
    home = tmp_path / "home"
    index = SqliteSearchIndex(home / "index.sqlite", progress=False)
    index.upsert_document(*faktur("t1", "faktur-7", extra=SECRET))
    index.upsert_document(*faktur("t1", "faktur-8", extra="Gudang utama menerima kertas"))
    index.flush()

    def killed(tenant_id: str | None = None) -> int:
        raise SystemExit("killed before the flush")

    index.flush = killed  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        index.delete_document("t1", "faktur-7")
    assert tantivy_terms(home) & secret_terms()  # the terms are still in tantivy

    reopened = SqliteSearchIndex(home / "index.sqlite", progress=False)
    try:
        assert not tantivy_terms(home) & secret_terms()
        assert {"utama", "erima"} <= tantivy_terms(home)  # the live document's are back
        assert found(reopened, "t1", "zorblaxquintine marmaduketrix") == set()
        assert found(reopened, "t1", "gudang kertas") == {"faktur-8"}
        assert reopened.delete_document("t1", "faktur-7") is None
    finally:
        reopened.close()
