"""Claims are sentences of the document (issue 22, item 5; ASK-14): through `tanda ingest` into a
real SQLite index (TANDA_HOME in tmp) with the offline model, a heading is the section of the
text under it — never words of a stored passage, a claim or a rule quote — and a re-ingest of an
unchanged file whose structure an older extraction built rebuilds its chunks too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tanda.cli import main
from tanda.ports import SearchIndex
from tanda.records.documents import Chunk, SearchScope
from tanda.records.structure import STRUCTURE_VERSION, ClaimRecord, RecordQuery, RuleRecord
from tanda.wiring import build_runtime
from tests.corpus import shared_data
from tests.unit.retrieval.ingest.sample_sources import PERDA

pytestmark = pytest.mark.integration

SCOPE = SearchScope(tenant_id="t1")
PASAL_5 = (
    "Setiap pelanggaran terhadap ketentuan ketertiban umum dikenakan denda paling banyak "
    "Rp 5.000.000."
)
PASAL_6 = "Walikota menetapkan tata cara pengenaan denda sebagaimana dimaksud dalam Pasal 5."


@pytest.fixture
def perda(tmp_path: Path) -> Path:
    path = tmp_path / "docs" / "perda-3-2020.md"
    path.parent.mkdir()
    path.write_text(PERDA, encoding="utf-8")
    return path


def ingest(path: Path) -> None:
    assert main(["ingest", str(path), "--tenant", "t1", "--no-progress"]) == 0


def index() -> SearchIndex:
    return build_runtime().search_index


def only_document() -> str:
    (document,) = index().documents(SCOPE)
    return document.document_id


def chunks_of(document_id: str) -> list[Chunk]:
    return index().document_chunks(SCOPE, document_id)


def claims_of(document_id: str) -> list[ClaimRecord]:
    scope = SearchScope(tenant_id="t1", document_ids=(document_id,))
    records = index().records(RecordQuery(scope=scope, kinds=("claim",)))
    return [r for r in records if isinstance(r, ClaimRecord)]


def test_given_a_perda_in_markdown_when_ingested_then_its_articles_are_sections_not_words(
    home: Path, perda: Path
) -> None:
    ingest(perda)

    document_id = only_document()
    assert [(c.section, c.text) for c in chunks_of(document_id)] == [
        ("Pasal 5", PASAL_5),
        ("Pasal 6", PASAL_6),
    ]
    assert [(c.section, c.statement, c.quote) for c in claims_of(document_id)] == [
        ("Pasal 5", PASAL_5, PASAL_5),
        ("Pasal 6", PASAL_6, PASAL_6),
    ]
    scope = SearchScope(tenant_id="t1", document_ids=(document_id,))
    (rule,) = index().records(RecordQuery(scope=scope, kinds=("rule",)))
    assert isinstance(rule, RuleRecord)
    assert rule.quote == PASAL_5


def test_given_uu_27_2022_when_ingested_then_its_first_passage_and_claim_are_menimbangs_text(
    home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "pdf"
    folder.mkdir()
    shutil.copy(shared_data("corpus", "id_laws", "UU-27-Tahun-2022.pdf"), folder)

    ingest(folder)

    document_id = only_document()
    first = chunks_of(document_id)[0]
    assert first.section == "Menimbang"
    assert first.text.startswith("a. bahwa pelindungan data pribadi merupakan salah satu hak")
    claim = claims_of(document_id)[0]
    assert claim.node_id == f"{document_id}:c1"
    assert claim.section == "Menimbang"
    assert claim.quote.startswith("bahwa pelindungan data pribadi merupakan salah satu hak")


def test_given_chunks_of_an_older_extraction_when_the_same_file_is_reingested_then_rebuilt(
    home: Path, perda: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the Perda as an older version stored it: one chunk glued to its headings, built by
    # extraction/1 (same file, same content hash)
    ingest(perda)
    document_id = only_document()
    (document,) = index().documents(SCOPE)
    stored = chunks_of(document_id)[0]
    glued = stored.model_copy(
        update={
            "section": None,
            "text": "PERATURAN DAERAH KOTA CONTOH NOMOR 3 TAHUN 2020 TENTANG KETERTIBAN UMUM "
            f"Pasal 5 {PASAL_5}\nPasal 6 {PASAL_6}",
        }
    )
    old = document.model_copy(update={"structure_version": "extraction/1"})
    assert index().upsert_document(old, [glued]).status == "replaced"
    capsys.readouterr()

    # When the unchanged file is ingested again
    ingest(perda)

    # Then its chunks (and records) are rebuilt by this version, not kept
    assert "1 replaced" in capsys.readouterr().out
    assert [c.text for c in chunks_of(document_id)] == [PASAL_5, PASAL_6]
    assert index().documents(SCOPE)[0].structure_version == STRUCTURE_VERSION
    assert [c.statement for c in claims_of(document_id)] == [PASAL_5, PASAL_6]


def test_given_a_document_this_version_built_when_reingested_then_it_is_unchanged(
    home: Path, perda: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(perda)
    capsys.readouterr()

    ingest(perda)

    assert "1 unchanged" in capsys.readouterr().out
