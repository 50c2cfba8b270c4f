"""KALEM ÖZETİ of the real budget tables (issue 14, "Budget tables"): the bundled demo copies
always, and every CSV of the shared corpus against the committed findings
(``bench/results/budget_tables.json``, written by ``bench/budget_tables.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from budget_tables import findings, summary_of  # noqa: E402

# Beside the checkout, or beside the folder of a git worktree (…/wt/<name>).
CORPUS = next(
    (p / "shared" / "data" / "corpus" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
    ROOT.parent / "shared" / "data" / "corpus",
)
DEMO = ROOT / "demo" / "corpus" / "apbd"
COMMITTED = ROOT / "bench" / "results" / "budget_tables.json"


def test_the_bundled_2022_surabaya_budget_sums_up_in_every_account() -> None:
    summary = summary_of(DEMO / "2022" / "Surabaya.csv", "apbd/2022/Surabaya.csv")
    assert (summary.item_count, summary.row_count, len(summary.checks)) == (17, 29, 24)
    assert summary.agrees is True
    assert summary.text == "KALEM ÖZETİ: 17 kalem (29 satır); 24 toplam kontrolünün hepsi uyuşuyor"


def test_the_bundled_2023_surabaya_budget_states_a_net_financing_its_items_do_not_make() -> None:
    summary = summary_of(DEMO / "2023" / "Surabaya.csv", "apbd/2023/Surabaya.csv")
    failing = [(c.label, c.column, c.stated, c.items_sum_surface) for c in summary.checks
               if not c.agrees]  # fmt: skip
    assert failing == [
        ("Pembiayaan Daerah", "realisasi", "0,00 M", "157,51 M"),
        ("Pengeluaran Pembiayaan Daerah", "realisasi", "0,00 M", "20,00 M"),
    ]
    assert summary.agrees is False


def test_every_shared_budget_table_gives_the_committed_findings() -> None:
    folder = CORPUS / "apbd_jatim"
    if not folder.is_dir():
        pytest.skip(f"shared corpus not found at {folder}")
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    found = findings(folder)
    assert (found["tables"], found["agreeing"], found["disagreeing"]) == (152, 93, 59)
    assert found == committed
