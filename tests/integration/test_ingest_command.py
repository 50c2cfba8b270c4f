"""`tanda ingest` through the CLI into a real SQLite index file (TANDA_HOME in tmp)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tanda.cli import main
from tanda.settings import load_settings

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "corpus"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("TANDA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TANDA_INDEX", "sqlite")
    monkeypatch.setenv("TANDA_EMBEDDER", "none")
    load_settings.cache_clear()  # settings are read once per process: this test's, not the last
    yield tmp_path / "home"
    load_settings.cache_clear()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"shared demo corpus not found at {CORPUS} (expected ../shared/data)")
    root = tmp_path / "docs"
    (root / "apbd" / "2023").mkdir(parents=True)
    shutil.copy(CORPUS / "id_laws" / "perpres-82-2023.pdf", root)
    shutil.copy(CORPUS / "apbd_jatim" / "2023" / "Surabaya.csv", root / "apbd" / "2023")
    (root / "rusak.pdf").write_bytes(b"%PDF-1.4 broken")
    return root


def test_given_a_folder_when_tanda_ingest_runs_twice_then_it_adds_then_reports_unchanged(
    home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    first = capsys.readouterr().out
    assert "documents: 2 (2 added, 0 replaced, 0 unchanged)" in first
    assert "rusak.pdf: not a readable PDF" in first
    assert "pages: 13 · tables: 1" in first

    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    second = capsys.readouterr().out
    assert "documents: 2 (0 added, 0 replaced, 2 unchanged)" in second

    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.retrieval.model import SearchQuery, SearchScope

    index = SqliteSearchIndex(home / "index.sqlite")
    hits = index.search(
        SearchQuery(text="Aplikasi SPBE Prioritas", scope=SearchScope(tenant_id="t1"))
    )
    assert hits and hits[0].chunk.identity.regulation_type == "Peraturan Presiden"
    assert hits[0].chunk.section is not None and "Pasal" in hits[0].chunk.section


def test_given_ingested_files_when_ingested_into_another_selection_then_they_move_there(
    home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["ingest", str(docs), "--tenant", "t1", "--no-progress"]
    assert main([*base, "--selection", "pdp"]) == 0
    capsys.readouterr()

    assert main([*base, "--selection", "spbe", "--batch", "2025-q1"]) == 0

    out = capsys.readouterr().out
    assert "documents: 2 (0 added, 0 replaced, 0 unchanged, 2 rescoped)" in out
    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.retrieval.model import SearchQuery, SearchScope

    index = SqliteSearchIndex(home / "index.sqlite")
    try:
        text = "Aplikasi SPBE Prioritas"
        moved = SearchScope(tenant_id="t1", selection="spbe", batch_id="2025-q1")
        hits = index.search(SearchQuery(text=text, scope=moved))
        assert hits and all(h.chunk.selections == ("spbe",) for h in hits)
        left = SearchScope(tenant_id="t1", selection="pdp")
        assert index.search(SearchQuery(text=text, scope=left)) == []
        assert index.documents(left) == []
    finally:
        index.close()


def test_given_only_missing_paths_when_tanda_ingest_runs_then_it_fails_clearly(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(tmp_path / "nope"), "--no-progress"]) == 2
    assert "no such path" in capsys.readouterr().err


def test_given_only_unreadable_files_when_tanda_ingest_runs_then_exit_is_non_zero(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rusak.pdf").write_bytes(b"not a pdf")
    assert main(["ingest", str(tmp_path / "rusak.pdf"), "--no-progress"]) == 1
    assert "rusak.pdf: not a readable PDF" in capsys.readouterr().out
