"""``tanda ask --v1``, ``tanda credits grant|show`` and ``tanda tenants set|show`` on real SQLite
files under TANDA_HOME (ASK-07, ASK-12)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tanda.cli import main
from tanda.credits import MAX_BALANCE
from tanda.settings import Settings, load_settings
from tanda.wiring import Runtime
from tests.corpus import add_qanun

pytestmark = pytest.mark.integration


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    for name, value in {
        "TANDA_HOME": str(home),
        "TANDA_INDEX": "sqlite",
        "TANDA_STORE": "sqlite",
        "TANDA_EMBEDDER": "none",
        "TANDA_MODEL": "offline",
        "TANDA_INITIAL_CREDITS": "10",
    }.items():
        monkeypatch.setenv(name, value)
    load_settings.cache_clear()  # settings are read once per process
    add_qanun(Runtime(settings=Settings(home=home)).search_index, "t1")
    yield home
    load_settings.cache_clear()


def test_ask_v1_prints_the_answer_its_sources_and_usage(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "--v1", "Berapa anggaran pendidikan 2023?", "--tenant", "t1"]) == 0
    out = capsys.readouterr().out
    assert "Anggaran pendidikan 2023 adalah Rp 5 miliar. [S1]" in out
    assert "  [S1] qanun-2023 · hlm. 1 · BAB II > Pasal 5" in out
    assert "lang: tr" in out and "credits charged: 0.00" in out


def test_ask_v1_names_the_layer_of_a_cited_evidence_item(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ASK-08: an evidence item's source line says which structure layer it comes from."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faktur.md").write_text(
        "# Faktur 12\n\nPembayaran dilakukan paling lambat 14 hari setelah tanggal faktur. "
        "Jangka waktu pembayaran 30 hari.\n",
        encoding="utf-8",
    )
    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["ask", "--v1", "Berapa jangka waktu pembayaran faktur?", "--tenant", "t1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"  \[S\d+\] rule · doc_\w+ · Faktur 12\n", out)
    assert re.search(r"  \[S\d+\] entity · doc_\w+ · Faktur 12\n", out)
    assert "DURATION: Jangka waktu pembayaran = 30 hari" in out


def test_ask_v1_json_is_the_routes_response_and_the_operator_is_metered_only(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "Berapa anggaran pendidikan 2023?"
    argv = ["ask", "--v1", question, "--tenant", "t1", "--lang", "en", "--json"]
    assert main(argv) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["query"] == question and body["lang"] == "en"
    assert body["usage"]["test_key"] is True and body["usage"]["credits_charged"] == "0.00"
    assert main(["credits", "show", "--tenant", "t1", "--json"]) == 0
    account = json.loads(capsys.readouterr().out)
    assert account["balance"] == "10.00"
    assert account["usage"]["ask"] == {
        "charged": 0,
        "metered": 1,
        "refunded": 0,
        "credits": "0.00",
    }


def test_ask_v1_refuses_a_bad_body_as_a_usage_error(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["ask", "--v1", "q", "--tenant", "t1", "--document", "d", "--batch", "b"]
    assert main(argv) == 2
    assert "not both" in capsys.readouterr().err


def test_credits_grant_adds_exactly_and_show_prints_balance_and_usage(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["credits", "grant", "--tenant", "t1", "2.5"]) == 0
    assert main(["credits", "grant", "--tenant", "t1", "0.0001"]) == 0
    capsys.readouterr()
    assert main(["credits", "show", "--tenant", "t1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "tenant t1: balance 12.5001 credits"
    assert "ask          charged 0 (0.00 credits) · metered (test keys) 0" in out


@pytest.mark.parametrize(
    "amount",
    [
        "0",
        "-1",
        "abc",
        "0.00001",
        "NaN",
        # issue 23: digit grouping, exponents and digits of other scripts are no amounts,
        "1_000",
        "1e3",
        "1e100",
        "\u0661\u0660\u0660",  # ١٠٠ (Arabic-Indic)
        "\uff11\uff10\uff10",  # １００ (fullwidth)
        # and a grant is at most 10**12 credits.
        "1000000000000.0001",
        "900000000000000",
    ],
)
def test_credits_grant_refuses_what_is_not_a_positive_amount(
    home: Path, capsys: pytest.CaptureFixture[str], amount: str
) -> None:
    assert main(["credits", "grant", "--tenant", "t1", amount]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tanda credits:") and len(err.splitlines()) == 1
    assert main(["credits", "show", "--tenant", "t1"]) == 0
    assert "balance 10.00 credits" in capsys.readouterr().out


def test_credits_grant_over_the_maximum_balance_is_refused_whole(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a ledger opened 5 credits below the maximum balance (issue 23),
    Runtime(settings=Settings(home=home)).store.meter("t1", "ask", opening=MAX_BALANCE - 5)

    # when 5 credits are granted, then 0.0001 more,
    assert main(["credits", "grant", "--tenant", "t1", "5"]) == 0
    assert main(["credits", "grant", "--tenant", "t1", "0.0001"]) == 2

    # then the first lands exactly and the second is one line, with nothing written,
    out, err = capsys.readouterr()
    assert "tenant t1: balance 100000000000000.00 credits" in out
    assert err == (
        "tanda credits: a grant of 0.0001 credits would take the balance over its maximum of "
        "100000000000000 credits; nothing was granted\n"
    )
    assert main(["credits", "show", "--tenant", "t1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["balance"] == "100000000000000.00"
    # and the ledger keeps integer units (a lossy REAL is what SQLite writes past 2**63 - 1).
    with sqlite3.connect(home / "store.sqlite") as db:
        stored = db.execute("SELECT balance_units, typeof(balance_units) FROM credit_accounts")
        assert stored.fetchall() == [(10**18, "integer")]


def test_tenants_set_lang_is_the_default_of_later_asks(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tenants", "set", "--tenant", "t1", "--lang", "id"]) == 0
    assert capsys.readouterr().out.strip() == "tenant t1: active · lang id"
    assert main(["ask", "--v1", "Berapa anggaran pendidikan 2023?", "--tenant", "t1"]) == 0
    assert "lang: id" in capsys.readouterr().out
    assert main(["tenants", "set", "--tenant", "t1", "--lang", "none"]) == 0
    assert main(["tenants", "show", "--tenant", "t1"]) == 0
    assert "tenant t1: active · lang not set (tr)" in capsys.readouterr().out


def test_tenants_set_refuses_an_unknown_language(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tenants", "set", "--tenant", "t1", "--lang", "xx"]) == 2
    assert "--lang is one of tr, id, en or none" in capsys.readouterr().err
