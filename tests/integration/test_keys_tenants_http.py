"""Keys and tenants as data over HTTP (issue 27): the whole app under a real uvicorn server on
loopback, its keys records in a real SQLite Store. A revoked, expired or rotated-out key is
refused on every route family exactly like an unknown one, within the cache bound; a suspended
tenant's keys and tokens get 403 ``tenant_suspended`` everywhere; ``keys.json`` is migrated on
the first start."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.auth.keys_admin import IssuedKey, issue_key, revoke_key, rotate_key
from tanda.auth.local import KEYS_FILE, create_local_keys
from tanda.cli import main
from tanda.credits import TenantProfile
from tanda.settings import Settings, load_settings
from tanda.wiring import Runtime
from tests.homes import use_home

from .conftest import ServeApp
from .credentials import ADMIN, assert_error, settings_for, sign

pytestmark = pytest.mark.integration

CACHE_S = 0.5
BOOTSTRAP_V1_KEY = "dip_live_bootstrap-from-settings"

Call = Callable[[str, dict[str, str]], httpx.Response]


def post(path: str, body: Any = None) -> Callable[[str, dict[str, str]], httpx.Response]:
    def call(url: str, headers: dict[str, str]) -> httpx.Response:
        return httpx.post(f"{url}{path}", json={} if body is None else body, headers=headers)

    return call


def get(path: str) -> Callable[[str, dict[str, str]], httpx.Response]:
    def call(url: str, headers: dict[str, str]) -> httpx.Response:
        return httpx.get(f"{url}{path}", headers=headers)

    return call


# One route of each family and each /v1 route: a body they refuse (422) or a page they read is
# enough to tell "authenticated" from "refused", without running a model.
PARTNER_ROUTES = {
    "POST /query/v2": post("/query/v2"),
    "POST /query": post("/query"),
    "GET /conversations/{id}": get("/conversations/c-unknown"),
}
ADMIN_ROUTES = {"POST /playground": post("/playground")}
V1_ROUTES = {
    "POST /v1/ask": post("/v1/ask"),
    "POST /v1/search": post("/v1/search"),
    "POST /v1/cross-check": post("/v1/cross-check"),
    "GET /v1/cross-check": get("/v1/cross-check"),
    "GET /v1/usage": get("/v1/usage"),
    "POST /mcp": post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
}


def accepted(response: httpx.Response) -> bool:
    return response.status_code not in (401, 403, 503)


class Deployment:
    """The app on loopback over a runtime whose Store holds the keys."""

    def __init__(self, serve_app: ServeApp, settings: Settings) -> None:
        self.runtime = Runtime(settings=settings)
        self.store = self.runtime.store
        self.url = serve_app(create_app(self.runtime))

    def issue(self, tenant: str, kind: str, **extra: Any) -> IssuedKey:
        return issue_key(
            self.store,
            tenant_id=tenant,
            kind=kind,  # type: ignore[arg-type]
            created_by="test",
            now=time.time(),
            **extra,
        )


@pytest.fixture
def deployment(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> Deployment:
    settings = settings_for(
        tmp_path,
        signing_key,
        api_key_hashes=(),
        v1_api_key_hashes={hash_api_key(BOOTSTRAP_V1_KEY): "acme"},
        auth_cache_s=CACHE_S,
        admin_rate_burst=1000,
        admin_rate_per_minute=1000,
    )
    return Deployment(serve_app, settings)


def family_headers(
    deployment: Deployment, key: ed25519.Ed25519PrivateKey, shared: str, v1: str
) -> dict[str, tuple[dict[str, Call], dict[str, str]]]:
    return {
        "partner": (
            PARTNER_ROUTES,
            {"X-API-Key": shared, "Authorization": f"Bearer {sign(key)}"},
        ),
        "admin": (
            ADMIN_ROUTES,
            {"X-API-Key": shared, "Authorization": f"Bearer {sign(key, ADMIN)}"},
        ),
        "v1": (V1_ROUTES, {"Authorization": f"Bearer {v1}"}),
    }


def outcomes(
    deployment: Deployment, key: ed25519.Ed25519PrivateKey, shared: str, v1: str
) -> dict[str, httpx.Response]:
    """Every route's response to these credentials."""
    found = {}
    for routes, headers in family_headers(deployment, key, shared, v1).values():
        for name, call in routes.items():
            found[name] = call(deployment.url, headers)
    return found


def test_a_revoked_key_is_refused_on_every_route_like_an_unknown_one(
    deployment: Deployment, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given a shared key and a /v1 key of acme in the Store, accepted on every route,
    shared = deployment.issue("acme", "shared")
    v1 = deployment.issue("acme", "v1_live")
    before = outcomes(deployment, signing_key, shared.secret, v1.secret)
    assert all(accepted(r) for r in before.values()), {n: r.text for n, r in before.items()}

    # when both are revoked, then within the cache bound every route refuses them with the
    # very answer an unknown key gets.
    revoke_key(deployment.store, shared.record.key_id, now=time.time())
    revoke_key(deployment.store, v1.record.key_id, now=time.time())
    time.sleep(CACHE_S + 0.1)
    after = outcomes(deployment, signing_key, shared.secret, v1.secret)
    unknown = outcomes(deployment, signing_key, "tk_unknown", "dip_live_unknown")
    for name, response in after.items():
        assert_error(response, 403, "invalid_api_key")
        assert response.json() == unknown[name].json(), name


def test_an_expired_key_is_refused_from_its_expiry(deployment: Deployment) -> None:
    v1 = deployment.issue("acme", "v1_test", expires_at=time.time() + 1.0)
    headers = {"Authorization": f"Bearer {v1.secret}"}
    assert get("/v1/usage")(deployment.url, headers).status_code == 200
    time.sleep(1.1)
    # The expiry is in the cached record: refused at once, not a cache bound later.
    assert_error(get("/v1/usage")(deployment.url, headers), 403, "invalid_api_key")


def test_a_rotated_key_works_until_the_end_of_its_grace_and_the_new_one_after(
    deployment: Deployment, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given keys in use,
    shared = deployment.issue("acme", "shared", name="ci")
    old = deployment.issue("acme", "v1_live", name="ci")
    assert all(
        accepted(r) for r in outcomes(deployment, signing_key, shared.secret, old.secret).values()
    )

    # when the /v1 key and the shared key are rotated with a grace of 1.5 s,
    new, ended = rotate_key(
        deployment.store, old.record.key_id, grace_s=1.5, created_by="test", now=time.time()
    )
    new_shared, _ = rotate_key(
        deployment.store, shared.record.key_id, grace_s=1.5, created_by="test", now=time.time()
    )
    assert new.record.name == "ci" and new.record.kind == "v1_live"
    assert ended.expires_at is not None

    # then during the grace both generations are accepted everywhere,
    during_old = outcomes(deployment, signing_key, shared.secret, old.secret)
    during_new = outcomes(deployment, signing_key, new_shared.secret, new.secret)
    assert all(accepted(r) for r in [*during_old.values(), *during_new.values()])

    # and after it only the new ones.
    time.sleep(1.5 + CACHE_S + 0.1)
    for response in outcomes(deployment, signing_key, shared.secret, old.secret).values():
        assert_error(response, 403, "invalid_api_key")
    after = outcomes(deployment, signing_key, new_shared.secret, new.secret)
    assert all(accepted(r) for r in after.values()), {n: r.text for n, r in after.items()}


def test_a_suspended_tenants_keys_and_tokens_get_403_everywhere_and_nothing_is_deleted(
    deployment: Deployment, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given acme's keys (the Store's and the settings' bootstrap key) and its JWTs, and beta's key,
    shared = deployment.issue("acme", "shared")
    v1 = deployment.issue("acme", "v1_live")
    beta = deployment.issue("beta", "v1_live")
    store = deployment.store
    store.put_tenant_profile(TenantProfile(tenant_id="acme", name="Acme", lang="id"))
    balance = store.credit_account("acme", opening=deployment.runtime.settings.initial_credits)

    # when acme is suspended,
    store.put_tenant_profile(
        store.tenant_profile("acme").model_copy(update={"status": "suspended"})
    )
    time.sleep(CACHE_S + 0.1)

    # then every route of every family refuses its credentials with tenant_suspended,
    for response in outcomes(deployment, signing_key, shared.secret, v1.secret).values():
        assert_error(response, 403, "tenant_suspended")
    for response in outcomes(deployment, signing_key, shared.secret, BOOTSTRAP_V1_KEY).values():
        assert_error(response, 403, "tenant_suspended")
    # while another tenant is served, and a wrong key still learns nothing of acme,
    assert get("/v1/usage")(deployment.url, {"Authorization": f"Bearer {beta.secret}"}).is_success
    unknown = get("/v1/usage")(deployment.url, {"Authorization": "Bearer dip_live_nope"})
    assert_error(unknown, 403, "invalid_api_key")
    # nothing of acme is deleted,
    assert [k.key_id for k in store.api_keys("acme")] == [shared.record.key_id, v1.record.key_id]
    assert store.tenant_profile("acme").lang == "id"
    assert store.credit_account("acme", opening=balance.balance) == balance

    # and reactivated, it is served again.
    store.put_tenant_profile(store.tenant_profile("acme").model_copy(update={"status": "active"}))
    time.sleep(CACHE_S + 0.1)
    again = outcomes(deployment, signing_key, shared.secret, v1.secret)
    assert all(accepted(r) for r in again.values()), {n: r.text for n, r in again.items()}


def test_a_keys_last_use_is_recorded_off_the_request(deployment: Deployment) -> None:
    v1 = deployment.issue("acme", "v1_test")
    assert deployment.store.key(v1.record.key_id).last_used_at is None  # type: ignore[union-attr]
    started = time.time()
    for _ in range(3):
        assert get("/v1/usage")(deployment.url, {"Authorization": f"Bearer {v1.secret}"}).is_success
    deadline = time.monotonic() + 10
    while (
        found := deployment.store.key(v1.record.key_id)
    ) is not None and found.last_used_at is None:
        assert time.monotonic() < deadline, "the last use was never written"
        time.sleep(0.05)
    assert found is not None and found.last_used_at is not None
    assert started <= found.last_used_at <= time.time()


# --- keys.json migration ----------------------------------------------------------------------


@pytest.fixture
def cli_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    use_home(monkeypatch, home)
    monkeypatch.setenv("TANDA_STORE", "sqlite")
    monkeypatch.setenv("TANDA_AUTH_CACHE_S", str(CACHE_S))
    yield home
    load_settings.cache_clear()


def test_keys_json_is_moved_into_the_store_on_the_first_start(
    serve_app: ServeApp, cli_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a home whose keys.json holds key digests, as tanda wrote it before issue 27,
    old = create_local_keys(cli_home, tenant="acme", test=False)
    digests = json.loads((cli_home / KEYS_FILE).read_text(encoding="utf-8"))
    assert len(digests["v1_api_keys"]) == 1 and len(digests["shared_api_keys"]) == 1

    # when a server starts on it, then its keys work,
    url = serve_app(create_app(Runtime(settings=load_settings())))
    headers = {"Authorization": f"Bearer {old['v1_key']}"}
    assert get("/v1/usage")(url, headers).status_code == 200

    # they are records of the Store, and the file keeps only its issuers and JWKS,
    assert main(["keys", "list"]) == 0
    listing = capsys.readouterr().out
    v1_id = "key_" + hash_api_key(old["v1_key"])[:12]
    shared_id = "key_" + hash_api_key(old["api_key"])[:12]
    assert v1_id in listing and shared_id in listing and "from keys.json" in listing
    document = json.loads((cli_home / KEYS_FILE).read_text(encoding="utf-8"))
    assert document["v1_api_keys"] == [] and document["shared_api_keys"] == []
    assert "tanda-local:acme" in document["issuers"] and document["jwks"]["keys"]
    assert document["migrated"][0]["keys"] == 2

    # so revoking one is a command, not an edit of the file.
    assert main(["keys", "revoke", v1_id]) == 0
    time.sleep(CACHE_S + 0.1)
    assert_error(get("/v1/usage")(url, headers), 403, "invalid_api_key")
    # A second start migrates nothing more and keeps the revocation.
    url = serve_app(create_app(Runtime(settings=load_settings())))
    assert_error(get("/v1/usage")(url, headers), 403, "invalid_api_key")


def test_a_store_that_cannot_be_read_answers_503_and_keeps_its_message(
    deployment: Deployment,
    signing_key: ed25519.Ed25519PrivateKey,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 27: a key is checked against the Store; a Store that fails then (locked, throttled,
    unreachable) is the server's fault — 503 ``auth_unavailable`` with ``Retry-After``, never a
    500, a refusal of the key, or the Store's own message."""
    shared = deployment.issue("acme", "shared")
    v1 = deployment.issue("acme", "v1_live")

    def locked(*_: Any, **__: Any) -> Any:
        import sqlite3

        raise sqlite3.OperationalError("database is locked: /secret/path/store.sqlite")

    monkeypatch.setattr(deployment.store, "key", locked)
    for name, response in outcomes(deployment, signing_key, shared.secret, v1.secret).items():
        assert response.status_code == 503, name
        assert response.json()["error"]["code"] == "auth_unavailable", name
        assert response.headers["Retry-After"] == "1", name
        assert "locked" not in response.text and "/secret" not in response.text, name
    assert "the key store could not be read" in caplog.text
    monkeypatch.undo()
    assert all(
        accepted(r) for r in outcomes(deployment, signing_key, shared.secret, v1.secret).values()
    )
