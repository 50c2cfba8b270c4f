"""``GET /v1/usage`` over HTTP (issue 27): a partner reads its own calls, charges and refunds by
route and day — exactly what its tenant's ledger holds, on a real uvicorn server and SQLite."""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.auth.keys_admin import issue_key
from tanda.contract.v1_cross_check import CrossCheckDocument
from tanda.credits import LedgerRef
from tanda.records.jobs import CrossCheckJob
from tanda.wiring import Runtime
from tests.corpus import add_qanun

from .conftest import ServeApp
from .credentials import assert_error, settings_for

pytestmark = pytest.mark.integration


@pytest.fixture
def served(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> tuple[str, Runtime]:
    settings = settings_for(tmp_path, signing_key, v1_api_key_hashes={}, auth_cache_s=0)
    runtime = Runtime(settings=settings)
    add_qanun(runtime.search_index, "acme")
    return serve_app(create_app(runtime)), runtime


def bearer(runtime: Runtime, tenant: str, kind: str) -> dict[str, str]:
    issued = issue_key(
        runtime.store,
        tenant_id=tenant,
        kind=kind,
        created_by="test",
        now=time.time(),  # type: ignore[arg-type]
    )
    return {"Authorization": f"Bearer {issued.secret}"}


def test_usage_is_the_ledger_by_route_and_day(served: tuple[str, Runtime]) -> None:
    url, runtime = served
    live, test = bearer(runtime, "acme", "v1_live"), bearer(runtime, "acme", "v1_test")
    other = bearer(runtime, "beta", "v1_live")
    # Given acme's calls: three live searches, a test key's search, a live ask,
    question = {"query": "Berapa anggaran pendidikan 2023?"}
    for headers in (live, live, live, test):
        assert httpx.post(f"{url}/v1/search", json=question, headers=headers).is_success
    assert httpx.post(f"{url}/v1/ask", json=question, headers=live, timeout=60).is_success
    # a cross-check job charged and refunded, an operator's grant, and another tenant's call,
    store, settings = runtime.store, runtime.settings
    job = CrossCheckJob(
        job_id="xc_usage",
        tenant_id="acme",
        documents=(CrossCheckDocument(document_id="qanun-2023", label="Qanun"),),
        lang="en",
        created_at=time.time(),
        charged=settings.ask_price,
    )
    assert store.create_job(job, opening=settings.initial_credits, ref=LedgerRef())
    assert store.replace_job(job.next(status="failed"), refund=True)
    store.grant_credits("acme", Decimal(5), opening=settings.initial_credits)
    assert httpx.post(f"{url}/v1/search", json=question, headers=other).is_success

    # when acme reads its usage of today,
    today = dt.datetime.now(dt.UTC).date().isoformat()
    response = httpx.get(f"{url}/v1/usage", params={"from": today, "to": today}, headers=test)
    assert response.status_code == 200, response.text
    usage = response.json()

    # then it is its ledger's call entries added up by day and route — nothing else,
    entries = [e for e in store.ledger("acme") if e.route is not None]
    kinds = Counter((e.route, e.kind) for e in entries)
    rows = {row["route"]: row for row in usage["days"]}
    assert {row["date"] for row in usage["days"]} == {today}
    assert set(rows) == {"/v1/search", "/v1/ask", "/v1/cross-check"}
    for route, row in rows.items():
        charged = [e for e in entries if e.route == route and e.kind == "charge"]
        refunds = [e for e in entries if e.route == route and e.kind == "refund"]
        assert row["charged"] == kinds[(route, "charge")] == len(charged)
        assert row["metered"] == kinds[(route, "metered")]
        assert row["refunded"] == kinds[(route, "refund")]
        assert row["calls"] == row["charged"] + row["metered"]
        assert Decimal(row["credits_charged"]) == -sum(e.amount for e in charged)
        assert Decimal(row["credits_refunded"]) == sum(e.amount for e in refunds)
    # which are the calls made:
    search = rows["/v1/search"]
    assert (search["calls"], search["charged"], search["metered"]) == (4, 3, 1)
    assert Decimal(search["credits_charged"]) == 3 * settings.search_price
    assert (rows["/v1/ask"]["charged"], rows["/v1/cross-check"]["refunded"]) == (1, 1)
    assert usage["totals"]["calls"] == 6 and usage["totals"]["refunded"] == 1
    balance = store.credit_account("acme", opening=settings.initial_credits).balance
    assert Decimal(usage["balance"]) == balance == sum(e.amount for e in store.ledger("acme"))


def test_usage_of_days_without_calls_is_empty(served: tuple[str, Runtime]) -> None:
    url, runtime = served
    live = bearer(runtime, "acme", "v1_live")
    question = {"query": "Berapa anggaran pendidikan 2023?"}
    assert httpx.post(f"{url}/v1/search", json=question, headers=live).is_success
    response = httpx.get(
        f"{url}/v1/usage", params={"from": "2020-01-01", "to": "2020-01-31"}, headers=live
    )
    assert response.status_code == 200
    assert response.json()["days"] == [] and response.json()["totals"]["calls"] == 0
    assert response.json()["from"] == "2020-01-01"


@pytest.mark.parametrize(
    "params",
    [
        {"from": "2026-13-01"},
        {"to": "2026-02-30"},
        {"to": "yesterday"},
        {"to": "0"},
        {"from": "2026-1-01"},
    ],
    ids=["no-month-13", "no-february-30", "not-a-date", "a-number", "one-digit-month"],
)
def test_bad_dates_are_422(served: tuple[str, Runtime], params: dict[str, str]) -> None:
    url, runtime = served
    response = httpx.get(
        f"{url}/v1/usage", params=params, headers=bearer(runtime, "acme", "v1_test")
    )
    assert_error(response, 422, "validation_error")
    assert response.json()["error"]["fields"][0]["loc"] == ["query", next(iter(params))]


def test_a_long_range_is_cut_to_366_days_and_an_inverted_one_reads_nothing(
    served: tuple[str, Runtime],
) -> None:
    url, runtime = served
    headers = bearer(runtime, "acme", "v1_live")
    question = {"query": "Berapa anggaran pendidikan 2023?"}
    assert httpx.post(f"{url}/v1/search", json=question, headers=headers).is_success
    today = dt.datetime.now(dt.UTC).date()

    long = httpx.get(f"{url}/v1/usage", params={"from": "2000-01-01"}, headers=headers).json()
    assert long["from"] == (today - dt.timedelta(days=365)).isoformat()
    assert long["to"] == today.isoformat() and long["totals"]["calls"] == 1

    inverted = {"from": today.isoformat(), "to": (today - dt.timedelta(days=1)).isoformat()}
    body = httpx.get(f"{url}/v1/usage", params=inverted, headers=headers).json()
    assert body["days"] == [] and body["totals"]["calls"] == 0

    edges = {"from": "0001-01-01", "to": "9999-12-31"}
    assert httpx.get(f"{url}/v1/usage", params=edges, headers=headers).status_code == 200
    first = httpx.get(f"{url}/v1/usage", params={"to": "0001-01-01"}, headers=headers).json()
    assert first["from"] == "0001-01-01" and first["days"] == []
