"""KALEM ÖZETİ on every budget table of the shared corpus (issue 14, "Budget tables"): the
committed findings (``bench/results/budget_tables.json``, written by ``bench/budget_tables.py``)
are what the code finds in ``../shared/data/corpus/apbd_jatim`` — 152 tables, 93 that sum to
their stated totals, 59 that do not, each disagreeing check listed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.corpus import shared_data

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from budget_tables import findings  # noqa: E402

pytestmark = pytest.mark.integration

COMMITTED = ROOT / "bench" / "results" / "budget_tables.json"


def test_every_shared_budget_table_gives_the_committed_findings() -> None:
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    found = findings(shared_data("corpus", "apbd_jatim"))
    assert (found["tables"], found["agreeing"], found["disagreeing"]) == (152, 93, 59)
    assert found == committed


def test_the_disagreements_are_all_in_the_financing_accounts() -> None:
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    totals = {d["total"] for t in committed["disagreeing_tables"] for d in t["disagreeing"]}
    assert totals == {
        "Pembiayaan Daerah",
        "Penerimaan Pembiayaan Daerah",
        "Pengeluaran Pembiayaan Daerah",
    }
