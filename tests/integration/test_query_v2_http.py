"""POST /query/v2 over HTTP: authentication first, then the body (V2-01, V2-02, V2-19)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.wiring import Runtime

from .conftest import ServeApp
from .credentials import API_KEY, assert_error, partner_headers, settings_for, sign

pytestmark = pytest.mark.integration


@pytest.fixture
def base_url(serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> str:
    return serve_app(create_app(Runtime(settings=settings_for(tmp_path, signing_key))))


def test_given_no_api_key_then_401_even_with_a_bad_body(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = httpx.post(
        f"{base_url}/query/v2",
        json={"offer_artifacts": True},
        headers={"Authorization": f"Bearer {sign(signing_key)}"},
    )
    assert_error(response, 401, "missing_api_key")


def test_given_a_bad_jwt_then_403(base_url: str) -> None:
    response = httpx.post(
        f"{base_url}/query/v2",
        json={"query": "q"},
        headers={"X-API-Key": API_KEY, "Authorization": "Bearer not.a.jwt"},
    )
    assert_error(response, 403, "invalid_token")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "q", "offer_artifacts": True}, "offer_artifacts"),
        ({"query": "q", "claim_map": {}}, "claim_map"),
        ({}, "query"),
    ],
)
def test_given_valid_credentials_and_an_invalid_body_then_422_names_the_field(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, body: dict[str, object], field: str
) -> None:
    response = httpx.post(f"{base_url}/query/v2", json=body, headers=partner_headers(signing_key))
    assert_error(response, 422, "validation_error")
    locs = [part for f in response.json()["error"]["fields"] for part in f["loc"]]
    assert field in locs


def test_given_a_body_that_is_not_json_then_422(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    headers = {**partner_headers(signing_key), "Content-Type": "application/json"}
    response = httpx.post(f"{base_url}/query/v2", content=b"{not json", headers=headers)
    assert_error(response, 422, "validation_error")


def test_openapi_is_served_and_uses_the_error_shape_for_422(base_url: str) -> None:
    document = httpx.get(f"{base_url}/openapi.json").json()
    schema = document["paths"]["/query/v2"]["post"]["responses"]["422"]["content"]
    assert schema["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorResponse"}
    assert "annotations" in document["x-sse-events"]
