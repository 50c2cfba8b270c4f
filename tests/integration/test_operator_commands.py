"""The operator's commands of issue 27 — ``tanda keys create|list|revoke|rotate``, ``tanda
tenants create|list|show|set``, ``tanda credits adjust|history`` — on a real SQLite Store under
TANDA_HOME, and the same commands on DynamoDB (``--store dynamodb``, moto, tables from
template.yaml)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from tanda.auth.api_keys import hash_api_key
from tanda.auth.local import KEYS_FILE, SIGNING_KEY_FILE
from tanda.cli import main
from tanda.settings import Settings, load_settings
from tanda.wiring import Runtime
from tests.aws import moto_dynamo_store
from tests.homes import use_home

pytestmark = pytest.mark.integration


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    use_home(monkeypatch, home)
    monkeypatch.setenv("TANDA_STORE", "sqlite")
    monkeypatch.setenv("TANDA_INITIAL_CREDITS", "10")
    yield home
    load_settings.cache_clear()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def exports(out: str) -> dict[str, str]:
    return dict(
        line.removeprefix("export ").split("=", 1)
        for line in out.splitlines()
        if line.startswith("export ") and "$(" not in line
    )


def listing(out: str) -> dict[str, dict[str, str]]:
    """``tanda keys list`` rows by key id, cells by heading."""
    lines = out.splitlines()
    headings = lines[0].split()
    return {
        cells[0]: dict(zip(headings, cells, strict=True))
        for cells in (line.split() for line in lines[1:])
    }


def test_keys_are_created_listed_without_secrets_rotated_and_revoked(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given keys created with a name and an expiry,
    code, out, _ = run(
        capsys, "keys", "create", "--tenant", "acme", "--name", "ci", "--expires", "90d"
    )
    assert code == 0
    secrets = exports(out)
    assert secrets["TANDA_V1_KEY"].startswith("dip_live_")
    assert secrets["TANDA_API_KEY"].startswith("tk_")
    v1_id = "key_" + hash_api_key(secrets["TANDA_V1_KEY"])[:12]
    shared_id = "key_" + hash_api_key(secrets["TANDA_API_KEY"])[:12]
    assert v1_id in out and shared_id in out
    # embedded, the local signing key and issuers for `tanda token` come with them
    assert (home / SIGNING_KEY_FILE).exists() and "tanda-local:acme" in (
        home / KEYS_FILE
    ).read_text()
    run(capsys, "keys", "create", "--tenant", "beta", "--test")

    # when they are listed, then each is a row, never with its secret,
    code, out, _ = run(capsys, "keys", "list", "--tenant", "acme")
    rows = listing(out)
    assert code == 0 and set(rows) == {v1_id, shared_id}
    assert rows[v1_id]["KIND"] == "v1_live" and rows[shared_id]["KIND"] == "shared"
    assert rows[v1_id]["STATUS"] == "active" and rows[v1_id]["NAME"] == "ci"
    assert rows[v1_id]["EXPIRES"] != "-"
    assert not [s for s in secrets.values() if s in out]
    assert len(listing(run(capsys, "keys", "list")[1])) == 4

    # a rotation gives a new secret of the same kind and name, the old one ending with its grace,
    code, out, _ = run(capsys, "keys", "rotate", v1_id, "--grace", "0")
    assert code == 0
    new_secret = exports(out)["TANDA_V1_KEY"]
    new_id = "key_" + hash_api_key(new_secret)[:12]
    rows = listing(run(capsys, "keys", "list", "--tenant", "acme")[1])
    assert rows[v1_id]["STATUS"] == "expired"
    assert (rows[new_id]["STATUS"], rows[new_id]["KIND"], rows[new_id]["NAME"]) == (
        "active",
        "v1_live",
        "ci",
    )
    assert rows[new_id]["EXPIRES"] != "-"  # the same lifetime, from now

    # and a revocation is immediate in the Store.
    assert run(capsys, "keys", "revoke", shared_id)[0] == 0
    assert (
        listing(run(capsys, "keys", "list", "--tenant", "acme")[1])[shared_id]["STATUS"]
        == "revoked"
    )
    code, _, err = run(capsys, "keys", "rotate", shared_id)
    assert code == 2 and "revoked" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["keys", "revoke", "key_000000000000"], "no key 'key_000000000000'"),
        (["keys", "create", "--expires", "soon"], "not a duration"),
        (["keys", "create", "--tenant", "../etc"], "a tenant id is"),
        (["keys", "rotate", "key_000000000000", "--grace", "1w"], "not a duration"),
    ],
)
def test_keys_commands_refuse_what_they_cannot_do(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code in (1, 2) and message in err and out == ""
    assert err.startswith("tanda keys:")


def test_tenants_are_created_listed_shown_and_suspended(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "tenants", "create", "--tenant", "acme", "--name", "Acme", "--lang", "id"
    )
    assert code == 0 and out.strip() == "tenant acme: active · name Acme · lang id"
    code, _, err = run(capsys, "tenants", "create", "--tenant", "acme")
    assert code == 2 and "exists" in err
    run(capsys, "keys", "create", "--tenant", "beta")  # a key's tenant is listed too

    code, out, _ = run(capsys, "tenants", "set", "--tenant", "acme", "--status", "suspended")
    assert code == 0 and out.startswith("tenant acme: suspended · name Acme · lang id")
    assert "403 tenant_suspended" in out

    code, out, _ = run(capsys, "tenants", "list")
    rows = [line.split() for line in out.splitlines()]
    assert rows[0] == ["TENANT", "STATUS", "NAME", "LANG", "CREATED"]
    assert [(r[0], r[1]) for r in rows[1:]] == [("acme", "suspended"), ("beta", "active")]

    code, out, _ = run(capsys, "tenants", "show", "--tenant", "beta")
    assert "keys 2 active of 2" in out and "balance 10.00 credits" in out


def test_credits_adjust_never_below_zero_unless_allowed_and_history_sums_to_the_balance(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a ledger opening at 10, a grant and a correction,
    assert run(capsys, "credits", "grant", "--tenant", "acme", "2.5")[0] == 0
    code, out, _ = run(
        capsys, "credits", "adjust", "--tenant", "acme", "-5", "--reason", "grant typo"
    )
    assert code == 0 and out.startswith("tenant acme: balance 7.50 credits")

    # when an adjustment would go below zero, then it is refused whole unless allowed,
    code, _, err = run(capsys, "credits", "adjust", "--tenant", "acme", "-8", "--reason", "x")
    assert code == 2 and "below zero" in err and "--allow-negative" in err
    argv = ["credits", "adjust", "--tenant", "acme", "-8", "--reason", "chargeback"]
    code, out, _ = run(capsys, *argv, "--allow-negative")
    assert code == 0 and "balance -0.50 credits" in out
    assert run(capsys, "credits", "adjust", "--tenant", "acme", "0", "--reason", "x")[0] == 2
    assert run(capsys, "credits", "adjust", "--tenant", "acme", "1", "--reason", " ")[0] == 2

    # and the history lists every entry, summing to the balance, as a table or CSV.
    code, out, _ = run(capsys, "credits", "history", "--tenant", "acme")
    assert code == 0 and out.splitlines()[-1] == "4 entries, summing to -0.50 credits"
    code, out, _ = run(capsys, "credits", "history", "--tenant", "acme", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["kind"], r["amount"], r["reason"]) for r in rows] == [
        ("grant", "10.00", "opening balance (TANDA_INITIAL_CREDITS)"),
        ("grant", "2.50", "grant"),
        ("adjustment", "-5.00", "grant typo"),
        ("adjustment", "-8.00", "chargeback"),
    ]
    assert sum(Decimal(r["amount"]) for r in rows) == Decimal("-0.50")
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", r["at"]) for r in rows)
    code, out, _ = run(capsys, "credits", "history", "--tenant", "acme", "--since", "2999-01-01")
    assert code == 0 and out.splitlines()[-1] == "0 entries, summing to 0 credits"
    code, _, err = run(capsys, "credits", "history", "--tenant", "acme", "--since", "last week")
    assert code == 2 and "--since" in err
    store = Runtime(settings=Settings(home=home)).store
    assert store.credit_account("acme", opening=Decimal(10)).balance == Decimal("-0.50")


def test_the_same_commands_work_on_dynamodb(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the DynamoDB table the functions use (moto, made from template.yaml),
    with moto_dynamo_store(monkeypatch) as dynamo:
        monkeypatch.setenv("TANDA_DYNAMODB_TABLE", dynamo.table)
        monkeypatch.setenv("TANDA_DYNAMODB_RECEIPTS_TABLE", dynamo.receipts_table)
        load_settings.cache_clear()

        # when a partner is added with --store dynamodb,
        code, out, _ = run(capsys, "keys", "create", "--tenant", "acme", "--store", "dynamodb")
        assert code == 0 and "in the dynamodb store" in out
        v1_id = "key_" + hash_api_key(exports(out)["TANDA_V1_KEY"])[:12]
        run(capsys, "tenants", "set", "--tenant", "acme", "--name", "Acme", "--store", "dynamodb")
        run(
            capsys,
            "credits",
            "adjust",
            "--tenant",
            "acme",
            "-1",
            "--reason",
            "x",
            "--store",
            "dynamodb",
        )

        # then everything is in DynamoDB — the key, the tenant, the ledger — nothing local,
        found = dynamo.key(v1_id)
        assert found is not None and found.tenant_id == "acme" and found.kind == "v1_live"
        assert [t.name for t in dynamo.tenants()] == ["Acme"]
        assert [str(e.amount) for e in dynamo.ledger("acme")] == ["10.00", "-1.00"]
        assert not (home / KEYS_FILE).exists() and not (home / "store.sqlite").exists()
        code, out, _ = run(capsys, "keys", "list", "--store", "dynamodb")
        assert v1_id in out
        assert run(capsys, "keys", "revoke", v1_id, "--store", "dynamodb")[0] == 0
        assert dynamo.key(v1_id).revoked_at is not None  # type: ignore[union-attr]
