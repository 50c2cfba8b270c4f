"""Auth over HTTP: the dependencies of tanda.api.security on a real uvicorn server
(V2-01, PG-1, ASK-01)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from fastapi import APIRouter, Depends, FastAPI

from tanda.api.app import create_app
from tanda.api.security import admin_principal, partner_principal, v1_principal
from tanda.auth import Principal
from tanda.settings import Settings
from tanda.wiring import Runtime

from .conftest import ServeApp, raw_http
from .credentials import ADMIN, API_KEY, V1_KEY, assert_error, settings_for, sign

pytestmark = pytest.mark.integration


def _describe(principal: Principal) -> dict[str, Any]:
    return {
        "tenant_id": principal.tenant_id,
        "partner_id": principal.partner_id,
        "subject": principal.subject,
        "is_admin": principal.is_admin,
        "is_test": principal.is_test,
    }


def protected_router() -> APIRouter:
    """Test-only routes guarded by each dependency."""
    router = APIRouter()

    @router.get("/t/partner")
    def partner(p: Annotated[Principal, Depends(partner_principal)]) -> dict[str, Any]:
        return _describe(p)

    @router.get("/t/admin")
    def admin(p: Annotated[Principal, Depends(admin_principal)]) -> dict[str, Any]:
        return _describe(p)

    @router.get("/t/v1")
    def v1(p: Annotated[Principal, Depends(v1_principal)]) -> dict[str, Any]:
        return _describe(p)

    return router


def make_app(tmp_path: Path, key: ed25519.Ed25519PrivateKey, **overrides: Any) -> FastAPI:
    return create_app(
        Runtime(settings=settings_for(tmp_path, key, **overrides)), routers=[protected_router()]
    )


@pytest.fixture
def base_url(serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> str:
    return serve_app(make_app(tmp_path, signing_key))


def test_given_no_api_key_when_calling_a_partner_route_then_401_missing_api_key(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = httpx.get(
        f"{base_url}/t/partner", headers={"Authorization": f"Bearer {sign(signing_key)}"}
    )
    assert_error(response, 401, "missing_api_key")
    assert response.headers["www-authenticate"]


def test_given_a_wrong_api_key_then_403_invalid_api_key(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = httpx.get(
        f"{base_url}/t/partner",
        headers={"X-API-Key": "nope", "Authorization": f"Bearer {sign(signing_key)}"},
    )
    assert_error(response, 403, "invalid_api_key")


def test_given_no_token_then_401_missing_token(base_url: str) -> None:
    response = httpx.get(f"{base_url}/t/partner", headers={"X-API-Key": API_KEY})
    assert_error(response, 401, "missing_token")
    assert response.headers["www-authenticate"] == "Bearer"


def test_given_an_expired_token_then_403_invalid_token_without_the_reason(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    token = sign(signing_key, exp=int(time.time()) - 3600)
    response = httpx.get(
        f"{base_url}/t/partner", headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {token}"}
    )
    assert_error(response, 403, "invalid_token")
    assert "expired" not in response.text.lower()


@pytest.mark.parametrize(
    ("lifetime_s", "status"), [(24 * 3600, 200), (24 * 3600 + 1, 403), (365 * 24 * 3600, 403)]
)
def test_given_a_token_living_longer_than_the_default_maximum_then_403_invalid_token(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, lifetime_s: int, status: int
) -> None:
    # Given a partner token issued now to live lifetime_s (default TANDA_JWT_MAX_LIFETIME_S: 24 h),
    now = int(time.time())
    token = sign(signing_key, iat=now, exp=now + lifetime_s)

    # then the longest accepted lifetime is 24 h; longer ones are refused like any bad token.
    response = httpx.get(
        f"{base_url}/t/partner", headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {token}"}
    )
    if status == 200:
        assert response.status_code == 200, response.text
    else:
        assert_error(response, 403, "invalid_token")
        assert "lifetime" not in response.text.lower()


def test_given_valid_credentials_then_the_partner_route_answers_with_the_principal(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = httpx.get(
        f"{base_url}/t/partner",
        headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {sign(signing_key)}"},
    )
    assert response.status_code == 200
    assert response.json()["tenant_id"] == "acme"


def test_given_a_partner_token_on_the_admin_route_then_403_not_admin(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = httpx.get(
        f"{base_url}/t/admin",
        headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {sign(signing_key)}"},
    )
    assert_error(response, 403, "not_admin")


# --- V2-01: the route family's scope (issue 23) -------------------------------------------------


@pytest.mark.parametrize(
    "claims",
    [
        {"scope": None},
        {"scope": "openid profile"},
        {"scope": "tanda:partner:read"},
        {"scope": None, "scp": ["tanda:admin"]},
        {"scope": None, "scp": "tanda"},
    ],
    ids=["no-scope", "other-scopes", "a-longer-scope", "scp-admin-only", "scp-prefix"],
)
def test_given_a_partner_token_without_the_partner_scope_then_403_insufficient_scope(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, claims: dict[str, Any]
) -> None:
    token = sign(signing_key, **claims)
    response = httpx.get(
        f"{base_url}/t/partner", headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {token}"}
    )
    assert_error(response, 403, "insufficient_scope")


@pytest.mark.parametrize(
    "claims",
    [
        {"scope": "openid tanda:partner profile"},
        {"scope": None, "scp": ["openid", "tanda:partner"]},
        {"scope": "openid", "scp": ["tanda:partner"]},
    ],
    ids=["space-separated-scope", "scp-array", "either-claim"],
)
def test_given_the_partner_scope_in_scope_or_scp_then_the_partner_route_answers(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, claims: dict[str, Any]
) -> None:
    token = sign(signing_key, **claims)
    response = httpx.get(
        f"{base_url}/t/partner", headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 200, response.text


def test_given_an_admin_token_then_the_partner_route_needs_the_partner_scope_too(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given an admin token with the admin scope only, and one with both scopes
    admin_only = sign(signing_key, ADMIN)
    both = sign(signing_key, ADMIN, scope="tanda:admin tanda:partner")
    url = f"{base_url}/t/partner"
    # Then the scope decides on a partner route, not the admin issuer
    refused = httpx.get(
        url, headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {admin_only}"}
    )
    assert_error(refused, 403, "insufficient_scope")
    served = httpx.get(url, headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {both}"})
    assert served.status_code == 200 and served.json()["is_admin"] is True


def test_given_an_admin_token_without_the_admin_scope_then_403_insufficient_scope(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    token = sign(signing_key, ADMIN, scope="tanda:partner")
    response = httpx.get(
        f"{base_url}/t/admin", headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {token}"}
    )
    assert_error(response, 403, "insufficient_scope")


def test_given_the_scope_settings_emptied_then_tokens_without_a_scope_are_served(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given a server that requires no scope (the migration switch of docs/auth.md)
    url = serve_app(make_app(tmp_path, signing_key, jwt_partner_scope="", jwt_admin_scope=""))
    partner = sign(signing_key, scope=None)
    admin = sign(signing_key, ADMIN, scope=None)
    # Then tokens without any scope claim pass, each on its own family's route
    for path, token in (("/t/partner", partner), ("/t/admin", admin)):
        response = httpx.get(
            f"{url}{path}", headers={"X-API-Key": API_KEY, "Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 200, response.text


def test_given_an_admin_over_the_rate_then_429_with_retry_after(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    headers = {"X-API-Key": API_KEY, "Authorization": f"Bearer {sign(signing_key, ADMIN)}"}
    statuses = [httpx.get(f"{base_url}/t/admin", headers=headers) for _ in range(3)]

    assert [r.status_code for r in statuses[:2]] == [200, 200]
    assert statuses[0].json()["is_admin"] is True
    assert_error(statuses[2], 429, "rate_limited")
    assert int(statuses[2].headers["retry-after"]) >= 1


def test_given_verified_identity_disabled_then_the_admin_route_answers_503(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    url = serve_app(make_app(tmp_path, signing_key, verified_identity=False))
    headers = {"X-API-Key": API_KEY, "Authorization": f"Bearer {sign(signing_key, ADMIN)}"}

    assert_error(httpx.get(f"{url}/t/admin", headers=headers), 503, "verified_identity_disabled")


def test_given_nothing_configured_then_protected_routes_fail_closed_with_503(
    serve_app: ServeApp, tmp_path: Path
) -> None:
    app = create_app(Runtime(settings=Settings(home=tmp_path)), routers=[protected_router()])
    url = serve_app(app)

    response = httpx.get(f"{url}/t/partner", headers={"X-API-Key": "x"})

    assert_error(response, 503, "auth_not_configured")
    assert "tanda keys create" in response.json()["error"]["message"]


def test_given_a_dip_test_key_then_the_v1_route_answers_with_a_test_principal(
    base_url: str,
) -> None:
    response = httpx.get(f"{base_url}/t/v1", headers={"Authorization": f"Bearer {V1_KEY}"})
    assert response.status_code == 200
    assert response.json()["is_test"] is True


def test_given_no_v1_key_then_401(base_url: str) -> None:
    assert_error(httpx.get(f"{base_url}/t/v1"), 401, "missing_api_key")


@pytest.mark.parametrize("header", ["X-API-Key", "Authorization"])
def test_given_a_credential_header_sent_twice_then_403_duplicate_credentials(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, header: str
) -> None:
    lines = {"X-API-Key": API_KEY, "Authorization": f"Bearer {sign(signing_key)}"}
    head = "".join(f"{name}: {value}\r\n" for name, value in lines.items())
    head += f"{header}: {lines[header]}\r\n"
    request = f"GET /t/partner HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{head}\r\n"

    response = raw_http(base_url, request.encode())

    status_line, _, rest = response.partition(b"\r\n")
    assert b" 403 " in status_line
    assert b'"duplicate_credentials"' in rest


def _tanda(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TANDA_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "tanda.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )


def test_given_keys_create_and_token_from_the_cli_then_the_credentials_pass(
    serve_app: ServeApp, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    created = _tanda(home, "keys", "create", "--tenant", "demo", "--test").stdout
    exports = dict(
        line.removeprefix("export ").split("=", 1)
        for line in created.splitlines()
        if line.startswith("export ") and "$(" not in line
    )
    token = _tanda(home, "token", "--tenant", "demo", "--subject", "cli-user").stdout.strip()
    admin_token = _tanda(home, "token", "--tenant", "demo", "--admin").stdout.strip()
    app = create_app(Runtime(settings=Settings(home=home)), routers=[protected_router()])
    url = serve_app(app)

    api_key = exports["TANDA_API_KEY"]
    partner = httpx.get(
        f"{url}/t/partner", headers={"X-API-Key": api_key, "Authorization": f"Bearer {token}"}
    )
    admin = httpx.get(
        f"{url}/t/admin", headers={"X-API-Key": api_key, "Authorization": f"Bearer {admin_token}"}
    )
    v1 = httpx.get(f"{url}/t/v1", headers={"Authorization": f"Bearer {exports['TANDA_V1_KEY']}"})

    assert partner.status_code == 200, partner.text
    assert partner.json()["subject"] == "cli-user"
    assert admin.status_code == 200 and admin.json()["is_admin"] is True
    assert v1.status_code == 200 and v1.json()["is_test"] is True
    # V2-01: each token carries its family's default scope, so the admin token alone is not a
    # partner token; `--scope` mints one that is both.
    admin_as_partner = httpx.get(
        f"{url}/t/partner", headers={"X-API-Key": api_key, "Authorization": f"Bearer {admin_token}"}
    )
    assert_error(admin_as_partner, 403, "insufficient_scope")
    both = _tanda(home, "token", "--admin", "--scope", "tanda:admin tanda:partner").stdout.strip()
    for path in ("/t/partner", "/t/admin"):
        response = httpx.get(
            f"{url}{path}", headers={"X-API-Key": api_key, "Authorization": f"Bearer {both}"}
        )
        assert response.status_code == 200, response.text
