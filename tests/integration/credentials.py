"""Credentials for integration tests: a signing key made at test time, settings trusting it, and
tokens signed with it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.auth.api_keys import hash_api_key
from tanda.auth.tokens import public_jwk
from tanda.service.metering import THROTTLE_WINDOW_S
from tanda.settings import DEFAULT_JWT_ADMIN_SCOPE, DEFAULT_JWT_PARTNER_SCOPE, Settings

API_KEY = "tk_integration-shared-key"
V1_KEY = "dip_test_integration-key"
PARTNER = "https://idp.partner.example"
ADMIN = "https://idp.admin.example"


def sign(key: ed25519.Ed25519PrivateKey, issuer: str = PARTNER, **extra: Any) -> str:
    """A token of ``issuer`` with the default scope of its route family (V2-01); ``scope=None``
    leaves the claim out."""
    now = int(time.time())
    scope = DEFAULT_JWT_ADMIN_SCOPE if issuer == ADMIN else DEFAULT_JWT_PARTNER_SCOPE
    claims = {"iss": issuer, "sub": "user-1", "aud": "tanda", "exp": now + 300, "scope": scope}
    claims = {name: value for name, value in {**claims, **extra}.items() if value is not None}
    token: str = jwt.encode(claims, key, algorithm="EdDSA", headers={"kid": "k1"})
    return token


def settings_for(tmp_path: Path, key: ed25519.Ed25519PrivateKey, **overrides: Any) -> Settings:
    jwks = {"keys": [{**public_jwk(key.public_key()), "kid": "k1"}]}
    fields: dict[str, Any] = {
        "home": tmp_path,
        "api_key_hashes": (hash_api_key(API_KEY),),
        "v1_api_key_hashes": {hash_api_key(V1_KEY): "acme"},
        "jwt_public_keys": json.dumps(jwks),
        "jwt_issuers": {PARTNER: "acme", ADMIN: "acme"},
        "jwt_admin_issuer": ADMIN,
        "admin_rate_burst": 2,
        "admin_rate_per_minute": 1,
    }
    fields.update(overrides)
    return Settings(**fields)


def partner_headers(key: ed25519.Ed25519PrivateKey) -> dict[str, str]:
    return {"X-API-Key": API_KEY, "Authorization": f"Bearer {sign(key)}"}


def assert_error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert "Traceback" not in response.text


def wait_for_a_fresh_window(margin_s: float = 5.0) -> None:
    """Sleep into the next /v1 throttle window (ASK-13: fixed one-minute windows) when this one
    ends within ``margin_s``: a test counting requests against the limit must not see the count
    reset by a window boundary falling between its requests."""
    left = THROTTLE_WINDOW_S - time.time() % THROTTLE_WINDOW_S
    if left < margin_s:
        time.sleep(left + 0.05)
