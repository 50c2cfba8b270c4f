"""`tanda ingest` builds the structure layers, `tanda inspect DOCUMENT_ID` lists them (ASK-14),
through the CLI into a real SQLite index file (TANDA_HOME in tmp), with the offline model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tanda.cli import main
from tanda.records.documents import SearchScope
from tanda.settings import load_settings
from tanda.wiring import build_runtime

pytestmark = pytest.mark.integration

DEMO = Path(__file__).resolve().parents[2] / "demo" / "corpus"
INVOICE = (
    "# Faktur 12\n\nPembayaran dilakukan paling lambat 14 hari setelah tanggal faktur. "
    "Jangka waktu pembayaran 30 hari.\n\n"
    "| No | Uraian | Jumlah (Rp) |\n|---|---|---:|\n| 1 | Kertas A4 | 500.000 |\n"
    "| 2 | Tinta | 300.000 |\n| | Total | 800.000 |\n"
)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "apbd" / "2023").mkdir(parents=True)
    shutil.copy(DEMO / "apbd" / "2023" / "Surabaya.csv", root / "apbd" / "2023")
    (root / "faktur.md").write_text(INVOICE, encoding="utf-8")
    return root


def _document_id(title_start: str) -> str:
    documents = build_runtime().search_index.documents(SearchScope(tenant_id="t1"))
    return next(d.document_id for d in documents if d.title.startswith(title_start))


def test_ingest_reports_the_layers_and_inspect_lists_them(
    home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "structure: " in out and "line items (2 summaries, 1 not summing up)" in out

    document_id = _document_id("APBD Surabaya")
    assert main(["inspect", document_id, "--tenant", "t1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"APBD Surabaya 2023  ({document_id})\n")
    assert "tables: 1 · KALEM ÖZETİ: 1 · line items: 29 · rules: 1 (1 IHLAL)" in out
    assert "t1-s" in out and "KALEM ÖZETİ: 17 kalem (29 satır)" in out
    assert "t1-i1" in out and "KALEM: kalem no=1, tanim=Pendapatan Daerah" in out
    assert (
        "KURAL (items_sum_to_total): APBD Surabaya: kalemlerin toplamı = belge toplamı → IHLAL"
        in (out)
    )


def test_inspect_narrows_by_kind_and_speaks_json(
    home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    capsys.readouterr()
    document_id = _document_id("Faktur 12")
    assert main(["inspect", document_id, "--tenant", "t1", "--kind", "rule", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["document"]["document_id"] == document_id
    rules = payload["records"]
    assert [(r["rule_type"], r["evaluation"]) for r in rules] == [
        ("deadline", "IHLAL"),
        ("items_sum_to_total", "sağlandı"),
    ]
    assert rules[0]["violations"][0]["text"] == "Jangka waktu pembayaran = 30 hari"


def test_inspect_of_an_unknown_document_or_another_tenants_fails(
    home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    document_id = _document_id("Faktur 12")
    capsys.readouterr()
    assert main(["inspect", "nope", "--tenant", "t1"]) == 1
    assert main(["inspect", document_id, "--tenant", "t2"]) == 1
    assert "no document" in capsys.readouterr().err


def test_a_document_ingested_without_the_layers_says_so(
    home: Path, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TANDA_STRUCTURE_LAYERS", "false")
    load_settings.cache_clear()
    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    assert "structure:" not in capsys.readouterr().out
    assert main(["inspect", _document_id("Faktur 12"), "--tenant", "t1"]) == 0
    assert "no structure records" in capsys.readouterr().out


PERDA = "\n".join(
    [
        "PERATURAN DAERAH KABUPATEN SLEMAN NOMOR 7 TAHUN 2024",
        "Pasal 1",
        "Dalam Peraturan Daerah ini yang dimaksud dengan:",
        "1. Daerah adalah Kabupaten Sleman.",
        "2. Pemerintah Daerah yang selanjutnya disebut Pemda adalah Bupati Sleman.",
        "Pasal 2",
        "(1) Pajak dipungut oleh Pemda paling lambat 30 hari setelah penetapan.",
        "Pasal 3",
        "Cukup jelas.",
    ]
)


def test_ingest_counts_the_definitions_and_inspect_lists_them(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a statute whose Pasal 1 defines two terms (issue 22)
    (tmp_path / "perda.txt").write_text(PERDA, encoding="utf-8")
    assert main(["ingest", str(tmp_path / "perda.txt"), "--tenant", "t1", "--no-progress"]) == 0
    assert "· 2 definitions" in capsys.readouterr().out
    (document,) = build_runtime().search_index.documents(SearchScope(tenant_id="t1"))
    document_id = document.document_id
    # When its definitions are listed
    assert main(["inspect", document_id, "--tenant", "t1", "--kind", "definition"]) == 0
    out = capsys.readouterr().out
    # Then each shows its evidence line and, below it, the item as the document words it
    assert "definitions: 2" in out and "== definitions" in out
    assert "d1" in out and "DEFINISI: Daerah = Kabupaten Sleman." in out
    assert "DEFINISI: Pemerintah Daerah (Pemda) = Bupati Sleman." in out
    assert "“2. Pemerintah Daerah yang selanjutnya disebut Pemda adalah Bupati Sleman.”" in out
    assert "entities" not in out  # only the kind asked for
