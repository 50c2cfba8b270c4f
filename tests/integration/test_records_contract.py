"""One contract for the structure records of every ``SearchIndex`` (ASK-14, issue 22): the same
tests run against ``SqliteSearchIndex`` on a temporary file and ``OpenSearchIndex`` through a real
opensearch-py client against an OpenSearch kept in memory on loopback, which evaluates the bodies
the adapter sends (``tests/opensearch_memory.py``). Definitions are looked up by term — by the
term's key or an alias's — inside the caller's scope, and never across tenants."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tanda.adapters.opensearch_index import OpenSearchIndex, build_client
from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.extraction import build_structure
from tanda.ports import SearchIndex
from tanda.records.documents import Chunk, Document, SearchScope
from tanda.records.structure import (
    STRUCTURE_VERSION,
    DefinitionRecord,
    RecordQuery,
    StructureRecord,
)
from tanda.retrieval.analysis import term_key
from tanda.retrieval.ingest.readers import parse_plain_text
from tanda.service.ingest import build_document
from tests.opensearch_memory import MemoryOpenSearch, serving

pytestmark = pytest.mark.integration

STATUTE = "\n".join(
    [
        "PERATURAN DAERAH NOMOR {n} TAHUN 2024",
        "Pasal 1",
        "Dalam Peraturan Daerah ini yang dimaksud dengan:",
        "1. Daerah adalah Kabupaten {place}.",
        "2. Pemerintah Daerah yang selanjutnya disebut Pemda adalah Bupati {place}.",
        "3. Pajak Daerah adalah kontribusi wajib kepada Daerah.",
        "Pasal 2",
        "(1) Pajak Daerah dipungut oleh Pemda.",
        "Pasal 3",
        "Cukup jelas.",
    ]
)


@pytest.fixture(params=["sqlite", "opensearch"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SearchIndex]:
    if request.param == "sqlite":
        sqlite = SqliteSearchIndex(tmp_path / "index.sqlite")
        yield sqlite
        sqlite.close()
        return
    with serving(MemoryOpenSearch()) as url:
        client = build_client(url, service=None, region=None)
        yield OpenSearchIndex(client, "tanda-chunks", auto_create=False)


def statute(
    tenant: str = "t1",
    document_id: str = "perda-7",
    *,
    n: int = 7,
    place: str = "Sleman",
    batch: str | None = None,
) -> tuple[Document, list[Chunk], list[StructureRecord]]:
    parsed = parse_plain_text(STATUTE.format(n=n, place=place), fallback_title="perda")
    document, chunks = build_document(
        parsed,
        tenant=tenant,
        document_id=document_id,
        source=f"{document_id}.txt",
        digest=f"hash-{n}-{place}",
        batch=batch,
        selections=(),
        metadata={},
    )
    document = document.model_copy(update={"structure_version": STRUCTURE_VERSION})
    return document, chunks, build_structure(document, chunks).records


def definitions(index: SearchIndex, *terms: str, tenant: str = "t1", **scope: object) -> list[str]:
    found = index.records(
        RecordQuery(scope=SearchScope(tenant_id=tenant, **scope), terms=terms)  # type: ignore[arg-type]
    )
    assert all(isinstance(r, DefinitionRecord) for r in found)
    return [r.definition for r in found if isinstance(r, DefinitionRecord)]


def test_definition_records_are_stored_with_the_document_and_read_back_whole(
    index: SearchIndex,
) -> None:
    document, chunks, records = statute()
    index.upsert_document(document, chunks, records)
    stored = index.records(RecordQuery(scope=SearchScope(tenant_id="t1"), kinds=("definition",)))
    assert stored == [r for r in records if r.kind == "definition"]
    assert [r.term for r in stored if isinstance(r, DefinitionRecord)] == [
        "Daerah",
        "Pemerintah Daerah",
        "Pajak Daerah",
    ]


def test_a_definition_is_found_by_its_terms_key(index: SearchIndex) -> None:
    index.upsert_document(*statute())
    assert definitions(index, term_key("pajak  DAERAH")) == ["kontribusi wajib kepada Daerah."]


def test_a_definition_is_found_by_the_key_of_a_name_the_document_gives_it(
    index: SearchIndex,
) -> None:
    index.upsert_document(*statute())
    assert definitions(index, "pemda") == ["Bupati Sleman."]
    assert definitions(index, "pemerintah daerah", "pemda") == ["Bupati Sleman."]  # once


def test_terms_match_whole_keys_only_and_no_terms_match_nothing(index: SearchIndex) -> None:
    index.upsert_document(*statute())
    assert definitions(index, "pajak") == []  # a word of a term is not the term
    assert definitions(index, "retribusi daerah") == []
    assert definitions(index) == []  # `terms=()` narrows to nothing
    every = index.records(RecordQuery(scope=SearchScope(tenant_id="t1"), terms=None))
    assert {r.kind for r in every} > {"definition"}  # `None` does not narrow


def test_terms_narrow_with_the_other_fields(index: SearchIndex) -> None:
    document, chunks, records = statute()
    index.upsert_document(document, chunks, records)
    daerah = next(r for r in records if isinstance(r, DefinitionRecord) and r.term == "Daerah")
    by_kind = index.records(
        RecordQuery(scope=SearchScope(tenant_id="t1"), kinds=("claim",), terms=("daerah",))
    )
    assert by_kind == []
    by_chunk = index.records(
        RecordQuery(
            scope=SearchScope(tenant_id="t1"), terms=("daerah",), chunk_ids=(daerah.chunk_id,)
        )
    )
    assert by_chunk == [daerah]


def test_tenants_never_see_each_others_definitions(index: SearchIndex) -> None:
    # Given the same statute id in two tenants, each defining "Daerah" differently
    index.upsert_document(*statute("t1", place="Sleman"))
    index.upsert_document(*statute("t2", place="Bantul"))
    # Then each tenant's lookup finds its own definition only
    assert definitions(index, "daerah", tenant="t1") == ["Kabupaten Sleman."]
    assert definitions(index, "daerah", tenant="t2") == ["Kabupaten Bantul."]
    assert definitions(index, "daerah", tenant="t3") == []


def test_the_scope_narrows_the_definitions_found(index: SearchIndex) -> None:
    index.upsert_document(*statute(document_id="perda-7", batch="b1", place="Sleman"))
    index.upsert_document(*statute(document_id="perda-8", n=8, batch="b2", place="Bantul"))
    assert definitions(index, "daerah") == ["Kabupaten Sleman.", "Kabupaten Bantul."]
    assert definitions(index, "daerah", document_ids=("perda-8",)) == ["Kabupaten Bantul."]
    assert definitions(index, "daerah", batch_id="b1") == ["Kabupaten Sleman."]
    assert definitions(index, "daerah", document_ids=()) == []


def test_a_replaced_document_replaces_its_definitions(index: SearchIndex) -> None:
    index.upsert_document(*statute(place="Sleman"))
    index.upsert_document(*statute(place="Kulon Progo"))
    assert definitions(index, "daerah") == ["Kabupaten Kulon Progo."]


def test_a_scope_change_moves_the_definitions(index: SearchIndex) -> None:
    index.upsert_document(*statute(batch="b1"))
    moved = index.upsert_document(*statute(batch="b2"))
    assert moved.status == "rescoped"
    assert definitions(index, "daerah", batch_id="b1") == []
    assert definitions(index, "daerah", batch_id="b2") == ["Kabupaten Sleman."]


def test_an_erased_document_is_gone_with_its_records_and_another_tenant_keeps_its_own(
    index: SearchIndex,
) -> None:
    """Issue 26: erasure by document — chunks, structure records and the document record —
    within the tenant only; the second erasure finds nothing."""
    doomed = statute()
    kept = statute(document_id="perda-8", n=8, place="Bantul")
    other = statute(tenant="t2")
    for document, chunks, records in (doomed, kept, other):
        index.upsert_document(document, chunks, records)

    erasure = index.delete_document("t1", "perda-7")

    assert erasure is not None
    assert (erasure.document.document_id, erasure.document.title) == ("perda-7", doomed[0].title)
    assert (erasure.chunks, erasure.records) == (len(doomed[1]), len(doomed[2]))
    t1 = SearchScope(tenant_id="t1")
    assert [d.document_id for d in index.documents(t1)] == ["perda-8"]
    assert index.document_chunks(t1, "perda-7") == []
    assert {r.document_id for r in index.records(RecordQuery(scope=t1))} == {"perda-8"}
    t2 = SearchScope(tenant_id="t2")
    assert [d.document_id for d in index.documents(t2)] == ["perda-7"]
    assert len(index.records(RecordQuery(scope=t2))) == len(other[2])
    assert index.delete_document("t1", "perda-7") is None
    assert index.delete_document("t3", "perda-8") is None  # another tenant's id: not found
    assert [d.document_id for d in index.documents(t1)] == ["perda-8"]


def test_opensearch_erases_by_tenant_and_document_in_three_deletes_by_query() -> None:
    """Issue 26 on OpenSearch: one ``_delete_by_query`` per kind (chunks, structure records,
    the document record), each filtered by tenant and document — an id another tenant shares
    stays (the bodies are checked against OpenSearch's spec by the fixture's teardown)."""
    memory = MemoryOpenSearch()
    with serving(memory) as url:
        index = OpenSearchIndex(
            build_client(url, service=None, region=None), "tanda-chunks", auto_create=False
        )
        for tenant in ("t1", "t2"):
            index.upsert_document(*statute(tenant=tenant))
        held = len(memory.documents)
        memory.requests.clear()
        erasure = index.delete_document("t1", "perda-7")
    deletes = [(m, p, b) for m, p, b in memory.requests if p.endswith("/_delete_by_query")]
    assert [m for m, _, _ in deletes] == ["POST"] * 3
    for _, _, body in deletes:
        filters = body["query"]["bool"]["filter"]
        assert {"term": {"tenant_id": "t1"}} in filters
        assert {"term": {"document_id": "perda-7"}} in filters
    assert erasure is not None
    assert len(memory.documents) == held - 1 - erasure.chunks - erasure.records
    assert {s["tenant_id"] for s in memory.documents.values()} == {"t2"}
