"""KALEM ÖZETİ of the bundled demo budget tables (issue 14, "Budget tables"); every CSV of the
shared corpus is checked against the committed findings in
tests/integration/test_budget_tables.py."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from budget_tables import summary_of  # noqa: E402

DEMO = ROOT / "demo" / "corpus" / "apbd"


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
