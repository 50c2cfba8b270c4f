"""``/v1/cross-check`` end to end over HTTP (XC-1, XC-2, XC-5, ASK-12, ASK-13): uvicorn on loopback,
real SQLite index and store files, the worker pool of the app's runtime, the offline model (its
deterministic judge) — charged once on POST, refunded when the job fails, GET free."""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.pipeline.cross_check import XcSchedule, open_scheduled_job
from tanda.records.jobs import CrossCheckJob
from tanda.wiring import Runtime
from tests.corpus import add_qanun
from tests.cross_check import CONTRADICTION, ingest_statutes

from .conftest import ServeApp
from .credentials import V1_KEY, assert_error, settings_for, wait_for_a_fresh_window

pytestmark = pytest.mark.integration

LIVE_KEY = "dip_live_cross-check"
OTHER_KEY = "dip_live_other-tenant"
JOB_KEYS = {"id", "status", "documents"}


class NoLaunch:
    """Jobs stay queued: nothing runs them (the view of a queued job)."""

    def launch(self, job: CrossCheckJob) -> None:
        pass


class BrokenLaunch:
    def launch(self, job: CrossCheckJob) -> None:
        raise ConnectionError("the state machine is unreachable")


def make_runtime(tmp_path: Path, key: ed25519.Ed25519PrivateKey, **overrides: Any) -> Runtime:
    fields: dict[str, Any] = {
        "v1_api_key_hashes": {
            hash_api_key(V1_KEY): "acme",
            hash_api_key(LIVE_KEY): "acme",
            hash_api_key(OTHER_KEY): "other",
        },
        "initial_credits": Decimal("1.00"),
        "v1_rate_per_minute": 1000,
        **overrides,
    }
    return Runtime(settings=settings_for(tmp_path / "home", key, **fields))


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> Runtime:
    return make_runtime(tmp_path, signing_key)


@pytest.fixture
def documents(runtime: Runtime, tmp_path: Path) -> list[str]:
    add_qanun(runtime.search_index, "other", doc_id="other-doc")
    return ingest_statutes(runtime.search_index, tmp_path / "statutes", "acme")


@pytest.fixture
def base_url(serve_app: ServeApp, runtime: Runtime, documents: list[str]) -> str:
    return serve_app(create_app(runtime))


def post(base_url: str, body: Any, key: str = LIVE_KEY) -> httpx.Response:
    return httpx.post(
        f"{base_url}/v1/cross-check",
        json=body,
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )


def get(base_url: str, path: str = "", key: str = LIVE_KEY, **params: Any) -> httpx.Response:
    return httpx.get(
        f"{base_url}/v1/cross-check{path}",
        params=params,
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )


def finished(base_url: str, job_id: str, key: str = LIVE_KEY) -> dict[str, Any]:
    """Poll as a client does until the job is completed or failed."""
    limit = time.monotonic() + 30
    while True:
        body: dict[str, Any] = get(base_url, f"/{job_id}", key).json()
        if body["status"] in ("completed", "failed"):
            return body
        assert time.monotonic() < limit, body
        time.sleep(0.05)


def balance(runtime: Runtime, tenant: str = "acme") -> Decimal:
    return runtime.store.credit_account(tenant, opening=Decimal("1.00")).balance


# --- XC-1, XC-2: queued at once, polled, charged once ---------------------------------------


def test_a_job_is_queued_at_once_then_completes_with_findings_charged_once(
    base_url: str, runtime: Runtime, documents: list[str]
) -> None:
    # When two documents are posted,
    response = post(base_url, {"document_ids": documents, "lang": "en"})

    # then the answer is 202 at once, the job queued with its documents' labels,
    assert response.status_code == 202, response.text
    accepted = response.json()
    assert set(accepted) == JOB_KEYS and accepted["id"].startswith("xc_")
    assert accepted["status"] == "queued"
    assert [d["document_id"] for d in accepted["documents"]] == documents
    assert accepted["documents"][0]["label"].startswith("Undang-Undang Nomor 11 Tahun 2008")

    # and polling it (free) ends completed: findings, stats, version, coverage, cost.
    done = finished(base_url, accepted["id"])
    assert set(done) == JOB_KEYS | {"version", "findings", "stats", "coverage", "cost"}
    assert done["version"] == "xchk-v4"
    # Every candidate was judged: complete, nothing to warn of (XC-4, issue 23).
    assert done["coverage"] == "complete" and done["stats"]["candidates_capped"] == 0
    assert [f["kind"] for f in done["findings"]] == ["contradiction", "support"]
    contradiction = done["findings"][0]
    assert set(contradiction["a"]) == {
        "document_id",
        "node_id",
        "statement",
        "quote",
        "page_no",
        "span",
    }
    assert CONTRADICTION in contradiction["a"]["quote"]
    assert done["stats"]["entity_candidates"] >= 0 and done["stats"]["candidates"] > 0
    assert done["cost"] == {"credits_charged": "0.20", "test_key": False}
    for _ in range(3):
        assert get(base_url, f"/{accepted['id']}").status_code == 200
    assert balance(runtime) == Decimal("0.80")
    usage = runtime.store.credit_account("acme", opening=Decimal("1.00")).usage_of("cross_check")
    assert (usage.charged, usage.refunded) == (1, 0)


def test_a_queued_job_shows_only_its_id_status_and_documents(
    base_url: str, runtime: Runtime, documents: list[str]
) -> None:
    runtime.__dict__["cross_check_jobs"] = NoLaunch()
    accepted = post(base_url, {"document_ids": documents}).json()
    view = get(base_url, f"/{accepted['id']}")
    assert view.status_code == 200 and view.json() == accepted


def test_a_test_key_is_metered_never_charged(
    base_url: str, runtime: Runtime, documents: list[str]
) -> None:
    accepted = post(base_url, {"document_ids": documents}, key=V1_KEY).json()
    done = finished(base_url, accepted["id"], key=V1_KEY)
    assert done["cost"] == {"credits_charged": "0.00", "test_key": True}
    assert balance(runtime) == Decimal("1.00")
    assert (
        runtime.store.credit_account("acme", opening=Decimal("1.00"))
        .usage_of("cross_check")
        .metered
        == 1
    )


def test_a_job_that_cannot_be_started_is_failed_and_refunded_and_the_post_still_succeeds(
    base_url: str, runtime: Runtime, documents: list[str]
) -> None:
    runtime.__dict__["cross_check_jobs"] = BrokenLaunch()
    response = post(base_url, {"document_ids": documents})
    assert response.status_code == 202, response.text
    view = get(base_url, f"/{response.json()['id']}").json()
    assert view["status"] == "failed"
    assert view["error"] == {
        "code": "launch_failed",
        "message": "The job could not be started. Nothing was charged.",
    }
    assert set(view) == JOB_KEYS | {"error"}
    assert balance(runtime) == Decimal("1.00")


# --- validation, ownership, credit, throttle ----------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"document_ids": ["a"]}, "document_ids"),
        ({"document_ids": []}, "document_ids"),
        ({"document_ids": ["a", "a"]}, "document_ids"),
        ({"document_ids": ["a", ""]}, "document_ids"),
        ({"document_ids": ["a", 7]}, "document_ids"),
        ({"document_ids": "a,b"}, "document_ids"),
        ({}, "document_ids"),
        ({"document_ids": ["a", "b"], "lang": "x" * 17}, "lang"),
        ({"document_ids": ["a", "b"], "selection": "x"}, "selection"),
    ],
)
def test_bad_bodies_are_422_at_once_and_cost_nothing(
    base_url: str, runtime: Runtime, body: dict[str, Any], field: str
) -> None:
    response = post(base_url, body)
    assert_error(response, 422, "validation_error")
    assert field in [str(p) for f in response.json()["error"]["fields"] for p in f["loc"]]
    assert balance(runtime) == Decimal("1.00")
    assert runtime.store.jobs("acme", scheduled=None, limit=10).jobs == ()


@pytest.mark.parametrize("stranger", ["doc_unknown", "other-doc"])
def test_a_document_not_the_callers_is_404_without_saying_which(
    base_url: str, runtime: Runtime, documents: list[str], stranger: str
) -> None:
    response = post(base_url, {"document_ids": [documents[0], stranger]})
    assert_error(response, 404, "document_not_found")
    assert stranger not in response.text and documents[0] not in response.text
    assert balance(runtime) == Decimal("1.00")
    assert runtime.store.jobs("acme", scheduled=None, limit=10).jobs == ()


def test_no_upper_bound_on_documents_only_their_ownership(
    base_url: str, documents: list[str]
) -> None:
    many = [documents[0], documents[1], *(f"doc_{n}" for n in range(500))]
    assert_error(post(base_url, {"document_ids": many}), 404, "document_not_found")


def test_a_balance_that_does_not_cover_one_ask_is_402_before_anything_is_created(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    runtime = make_runtime(tmp_path, signing_key, initial_credits=Decimal("0.10"))
    documents = ingest_statutes(runtime.search_index, tmp_path / "statutes", "acme")
    base_url = serve_app(create_app(runtime))

    assert_error(post(base_url, {"document_ids": documents}), 402, "insufficient_credit")
    assert runtime.store.jobs("acme", scheduled=None, limit=10).jobs == ()
    assert post(base_url, {"document_ids": documents}, key=V1_KEY).status_code == 202


def test_ask_search_and_cross_check_share_one_throttle_and_get_is_not_counted(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    runtime = make_runtime(tmp_path, signing_key, v1_rate_per_minute=2)
    runtime.__dict__["cross_check_jobs"] = NoLaunch()
    documents = ingest_statutes(runtime.search_index, tmp_path / "statutes", "acme")
    base_url = serve_app(create_app(runtime))
    headers = {"Authorization": f"Bearer {LIVE_KEY}"}
    wait_for_a_fresh_window()

    accepted = post(base_url, {"document_ids": documents})
    assert accepted.status_code == 202
    for _ in range(5):  # polling is free and never throttled
        assert get(base_url, f"/{accepted.json()['id']}").status_code == 200
    search = httpx.post(f"{base_url}/v1/search", json={"query": "pidana"}, headers=headers)
    assert search.status_code == 200
    refused = post(base_url, {"document_ids": documents})
    assert_error(refused, 429, "rate_limited")
    assert int(refused.headers["Retry-After"]) >= 1


def test_another_tenants_job_is_404_like_an_unknown_one(
    base_url: str, documents: list[str]
) -> None:
    accepted = post(base_url, {"document_ids": documents}).json()
    assert_error(get(base_url, f"/{accepted['id']}", key=OTHER_KEY), 404, "job_not_found")
    assert_error(get(base_url, "/xc_unknown"), 404, "job_not_found")
    assert get(base_url, key=OTHER_KEY).json() == {"jobs": [], "next_cursor": None}


# --- XC-5: the scheduled listing ---------------------------------------------------------------


def test_scheduled_jobs_are_listed_apart_a_page_at_a_time(
    base_url: str, runtime: Runtime, documents: list[str]
) -> None:
    # Given two on-demand jobs and three a schedule started,
    runtime.__dict__["cross_check_jobs"] = NoLaunch()
    on_demand = [post(base_url, {"document_ids": documents}).json()["id"] for _ in range(2)]
    ports = runtime.cross_check_ports()
    schedule = XcSchedule(name="nightly", tenant_id="acme", document_ids=documents)
    scheduled = [open_scheduled_job(ports, schedule).job.job_id for _ in range(3)]

    # when the scheduled ones are listed two at a time, then they come newest first,
    first = get(base_url, scheduled="true", limit=2).json()
    assert [j["id"] for j in first["jobs"]] == scheduled[::-1][:2]
    assert all(j["schedule"] == "nightly" and j["status"] == "queued" for j in first["jobs"])
    rest = get(base_url, scheduled="true", limit=2, cursor=first["next_cursor"]).json()
    assert [j["id"] for j in rest["jobs"]] == scheduled[:1] and rest["next_cursor"] is None

    # and the others apart, and all together.
    assert [j["id"] for j in get(base_url, scheduled="false").json()["jobs"]] == on_demand[::-1]
    assert len(get(base_url).json()["jobs"]) == 5
    assert_error(get(base_url, limit=0), 422, "validation_error")


def test_a_suspended_tenants_schedule_stops_without_a_charge(
    runtime: Runtime, documents: list[str]
) -> None:
    """Issue 27: a suspended tenant's scheduled cross-checks stop; the listing shows the run
    that did not start, and nothing was charged or deleted."""
    from tanda.credits import TenantProfile

    # Given a suspended tenant with a schedule,
    store = runtime.store
    store.put_tenant_profile(TenantProfile(tenant_id="acme", status="suspended"))
    opening = runtime.settings.initial_credits
    ports = runtime.cross_check_ports()
    schedule = XcSchedule(name="nightly", tenant_id="acme", document_ids=documents)

    # when the schedule fires, then its job is stored failed with tenant_suspended, uncharged,
    ref = open_scheduled_job(ports, schedule).job
    job = store.job("acme", ref.job_id)
    assert job is not None and job.status == "failed" and job.error is not None
    assert job.error.code == "tenant_suspended" and job.charged == Decimal("0.00")
    assert store.credit_account("acme", opening=opening).balance == opening
    assert [e.kind for e in store.ledger("acme") if e.kind != "grant"] == []

    # and once active again, the next run is queued and charged as one ask.
    store.put_tenant_profile(TenantProfile(tenant_id="acme"))
    queued = store.job("acme", open_scheduled_job(ports, schedule).job.job_id)
    assert queued is not None and queued.status == "queued"
    assert [e.kind for e in store.ledger("acme")] == ["grant", "charge"]
