"""Definitions on a real statute (issue 22): UU 27/2022 (the PDF of ``../shared/data``) ingested
into a real SQLite index with the structure layers; its Pasal 1 and its Penjelasan read as
definition records, and "what is data pribadi" retrieved with Pasal 1 first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tanda.adapters.offline import OfflineModel
from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.records.documents import SearchQuery, SearchScope
from tanda.records.structure import DefinitionRecord, RecordQuery
from tanda.retrieval.rerank import LexicalReranker
from tanda.search import retrieve
from tanda.service.ingest import StructureLayers, ingest_paths
from tests.corpus import shared_data

pytestmark = pytest.mark.integration

TENANT = "pdp"
QUESTION = "Apa yang dimaksud dengan data pribadi?"
PASAL_1_TERMS = [
    "Data Pribadi",
    "Pelindungan Data Pribadi",
    "Informasi",
    "Pengendali Data Pribadi",
    "Prosesor Data Pribadi",
    "Subjek Data Pribadi",
    "Setiap Orang",
    "Korporasi",
    "Badan Publik",
    "Organisasi Internasional",
    "Pemerintah Pusat",
]


@pytest.fixture(scope="module")
def uu27(tmp_path_factory: pytest.TempPathFactory) -> SqliteSearchIndex:
    root = tmp_path_factory.mktemp("uu27")
    folder = root / "pdf"
    folder.mkdir()
    shutil.copy(shared_data("corpus", "id_laws", "UU-27-Tahun-2022.pdf"), folder)
    index = SqliteSearchIndex(Path(root / "index.sqlite"))
    report = ingest_paths(
        index, None, [folder], tenant=TENANT, layers=StructureLayers(OfflineModel())
    )
    assert report.structure is not None and report.structure.definitions > 0
    return index


def _definitions(index: SqliteSearchIndex, **narrowing: object) -> list[DefinitionRecord]:
    found = index.records(
        RecordQuery(scope=SearchScope(tenant_id=TENANT), kinds=("definition",), **narrowing)  # type: ignore[arg-type]
    )
    return [r for r in found if isinstance(r, DefinitionRecord)]


def test_pasal_1_of_uu_27_is_read_item_by_item(uu27: SqliteSearchIndex) -> None:
    pasal_1 = [d for d in _definitions(uu27) if d.section == "BAB I > Pasal 1"]
    assert [d.term for d in pasal_1] == PASAL_1_TERMS
    first = pasal_1[0]
    assert first.quote.startswith("1. Data Pribadi adalah data tentang ")
    assert first.definition.startswith("data tentang ")
    assert first.page_no == 2
    government = pasal_1[-1]
    assert (government.term, government.aliases) == ("Pemerintah Pusat", ("Pemerintah",))
    (chunk,) = uu27.chunks(SearchScope(tenant_id=TENANT), [first.chunk_id])
    for record in pasal_1:
        (holder,) = uu27.chunks(SearchScope(tenant_id=TENANT), [record.chunk_id])
        assert record.quote == holder.text[record.span.start : record.span.end]
    assert chunk.text.startswith("Dalam Undang-Undang ini yang dimaksud dengan:")


def test_the_penjelasan_defines_the_principles_of_pasal_3(uu27: SqliteSearchIndex) -> None:
    certainty = _definitions(uu27, terms=("asas kepastian hukum",))
    assert len(certainty) == 1
    assert certainty[0].section == "Penjelasan > Pasal 3"
    assert certainty[0].definition.startswith("bahwa setiap pemrosesan Data Pribadi dilakukan")


def test_no_sentence_outside_a_definition_is_read_as_one(uu27: SqliteSearchIndex) -> None:
    # Every definition is Pasal 1's or the Penjelasan's explicit form
    for record in _definitions(uu27):
        assert record.section == "BAB I > Pasal 1" or record.quote.startswith(
            "Yang dimaksud dengan"
        ), record.quote


def test_retrieval_of_what_data_pribadi_means_puts_pasal_1_first(
    uu27: SqliteSearchIndex,
) -> None:
    # When "data pribadi" is asked for with the embedded reranker's floor of 0.5
    query = SearchQuery(text=QUESTION, scope=SearchScope(tenant_id=TENANT), top_k=5)
    result = retrieve(
        uu27, query, reranker=LexicalReranker(), min_score=0.5, definition_of="data pribadi"
    )
    # Then the Pasal 1 chunk holding "1. Data Pribadi adalah …" comes first, above the floor
    first = result.hits[0]
    assert "1. Data Pribadi adalah data tentang" in first.chunk.text
    assert first.chunk.section == "BAB I > Pasal 1"
    assert first.rerank_score is not None and first.rerank_score >= 0.5
    assert result.definition_chunks == (first.chunk.chunk_id,)
    assert len(result.hits) == 5
    assert len({h.chunk.chunk_id for h in result.hits}) == 5


def test_another_tenant_is_given_nothing_of_uu_27(uu27: SqliteSearchIndex) -> None:
    query = SearchQuery(text=QUESTION, scope=SearchScope(tenant_id="other"), top_k=5)
    result = retrieve(uu27, query, definition_of="data pribadi")
    assert result.hits == [] and result.definition_chunks == ()


def test_the_definition_of_data_pribadi_mistyped_still_comes_first(
    uu27: SqliteSearchIndex,
) -> None:
    # Issue 22 (V2-19): "data pribadii" holds a word UU 27/2022 says three times (OCR), so the
    # search ranks other passages first; the definition is looked up one letter off.
    query = SearchQuery(
        text="Apa yang dimaksud dengan data pribadii?", scope=SearchScope(tenant_id=TENANT), top_k=5
    )
    result = retrieve(uu27, query, definition_of="data pribadii")
    assert "1. Data Pribadi adalah data tentang" in result.hits[0].chunk.text
    assert result.definition_chunks == (result.hits[0].chunk.chunk_id,)
