"""``tanda documents list|show|delete`` (issue 26) through the CLI on a real TANDA_HOME: an
operator lists a tenant's documents, reads one, erases it — after which ``tanda search`` no
longer finds it, no file under TANDA_HOME holds its text, and a second erasure exits 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tanda.cli import main

pytestmark = pytest.mark.integration

SECRET = "Zorblaxquintine verbobbled the marmaduketrix"


def test_an_operator_lists_shows_and_erases_a_document(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "catatan.md").write_text(f"# Catatan\n\n{SECRET} di gudang.\n", encoding="utf-8")
    (docs / "faktur.md").write_text("# Faktur\n\nPembayaran 30 hari.\n", encoding="utf-8")
    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    assert main(["ingest", str(docs), "--tenant", "t2", "--no-progress"]) == 0
    capsys.readouterr()

    assert main(["documents", "list", "--tenant", "t1", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["documents"]
    (note,) = [d["document_id"] for d in listed if d["filename"] == "catatan.md"]
    assert {d["filename"] for d in listed} == {"catatan.md", "faktur.md"}
    assert main(["documents", "show", note, "--tenant", "t1"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["chunks"] >= 1 and shown["status"] == "indexed"

    assert main(["documents", "delete", note, "--tenant", "t1"]) == 0
    out = capsys.readouterr().out
    assert f"erased {note} (catatan.md)" in out and "receipt er_" in out
    assert SECRET not in out

    def found(tenant: str) -> list[str]:
        assert main(["search", "zorblaxquintine marmaduketrix", "--tenant", tenant, "--json"]) == 0
        return [r["title"] for r in json.loads(capsys.readouterr().out)["results"]]

    assert "Catatan" not in found("t1")
    assert "Catatan" in found("t2")  # the other tenant's copy stays
    assert main(["documents", "list", "--tenant", "t2", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["documents"]
    (other,) = [d["document_id"] for d in listed if d["filename"] == "catatan.md"]
    assert main(["documents", "delete", other, "--tenant", "t2"]) == 0
    assert main(["documents", "delete", note, "--tenant", "t1"]) == 1
    assert "no document" in capsys.readouterr().err
    leftovers = [
        p.name for p in home.rglob("*") if p.is_file() and b"zorblaxquint" in p.read_bytes().lower()
    ]
    assert leftovers == []


def test_an_operator_uploads_files_through_the_upload_path(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 26: `tanda documents upload` checks, dedupes and ingests as POST /v1/documents does.
    files = tmp_path / "files"
    files.mkdir()
    (files / "catatan.md").write_text(f"# Catatan\n\n{SECRET} di gudang.\n", encoding="utf-8")
    (files / "harga.csv").write_bytes(b"%PDF-1.4 a PDF named .csv\n")
    (files / "kontrak.docx").write_bytes(b"PK\x03\x04")
    upload = ["documents", "upload", "--tenant", "t1", "--batch", "b1"]
    assert main([*upload, str(files / "catatan.md"), str(files / "harga.csv")]) == 1
    out = capsys.readouterr().out
    assert "indexed" in out and "failed   named .csv but the content is a PDF" in out
    assert main([*upload, str(files / "kontrak.docx")]) == 1
    assert "Documents named .docx cannot be uploaded." in capsys.readouterr().out
    assert main([*upload, str(files / "catatan.md"), "--json"]) == 0
    (again,) = json.loads(capsys.readouterr().out)
    assert again["status"] == "indexed" and again["filename"] == "catatan.md"

    assert main(["documents", "list", "--tenant", "t1", "--status", "failed", "--json"]) == 0
    (failed,) = json.loads(capsys.readouterr().out)["documents"]
    assert failed["filename"] == "harga.csv" and failed["reason"].startswith("named .csv")
    assert main(["search", "zorblaxquintine marmaduketrix", "--tenant", "t1", "--json"]) == 0
    assert [r["title"] for r in json.loads(capsys.readouterr().out)["results"]] == ["Catatan"]
    uploads = sorted(p.name for p in (home / "uploads").rglob("doc_*"))
    assert uploads == sorted([again["document_id"], failed["document_id"]])
    assert main(["documents", "delete", again["document_id"], "--tenant", "t1"]) == 0
    assert sorted(p.name for p in (home / "uploads").rglob("doc_*")) == [failed["document_id"]]
