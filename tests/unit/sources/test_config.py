"""Issue 25: ``TANDA_PORTALS`` and ``TANDA_MCP_SERVERS`` — JSON per tenant, secrets by reference
only (docs/sources.md)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tanda.settings import Settings


def test_portals_and_servers_are_read_per_tenant_from_json(monkeypatch: pytest.MonkeyPatch) -> None:
    portals = {"acme": {"name": "Satu Data", "base_url": "https://data.example.go.id/"}}
    servers = {
        "acme": [
            {"name": "partner", "transport": "streamable_http", "url": "https://mcp.example/mcp"},
            {"name": "local", "transport": "stdio", "command": "tanda", "args": ["mcp"]},
        ]
    }
    monkeypatch.setenv("TANDA_PORTALS", json.dumps(portals))
    monkeypatch.setenv("TANDA_MCP_SERVERS", json.dumps(servers))
    settings = Settings()
    assert settings.portals["acme"].base_url == "https://data.example.go.id"
    assert settings.portals["acme"].kind == "ckan"
    assert sorted(settings.mcp_servers["acme"]) == ["local", "partner"]
    assert settings.mcp_servers["acme"]["local"].args == ["mcp"]


@pytest.mark.parametrize(
    "portal",
    [
        {"name": "p", "base_url": "https://data.example", "api_key_ref": "Bearer 1234-abcd"},
        {"name": "p", "base_url": "https://user:secret@data.example"},
        {"name": "p", "base_url": "https://data.example/?api_key=secret"},
        {"name": "p", "base_url": "file:///etc/passwd"},
        {"name": "p", "base_url": "https://data.example", "kind": "socrata"},
    ],
)
def test_a_portal_with_a_secret_value_or_a_non_http_url_is_refused(portal: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        Settings(portals={"acme": portal})


@pytest.mark.parametrize(
    "server",
    [
        {"name": "a", "transport": "streamable_http"},
        {"name": "a", "transport": "stdio", "url": "https://mcp.example"},
        {"name": "a.b", "transport": "stdio", "command": "x"},
        {"name": "a", "transport": "streamable_http", "url": "https://x", "headers_ref": "{}"},
    ],
)
def test_a_server_without_its_target_or_with_a_secret_value_is_refused(
    server: dict[str, str],
) -> None:
    with pytest.raises(ValidationError):
        Settings(mcp_servers={"acme": [server]})


def test_a_tenant_naming_one_server_twice_is_refused() -> None:
    server = {"name": "a", "transport": "stdio", "command": "x"}
    with pytest.raises(ValidationError):
        Settings(mcp_servers={"acme": [server, server]})


def test_references_are_env_names_or_secrets_manager_arns() -> None:
    arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tanda/portal-AbCdEf"
    settings = Settings(
        portals={"acme": {"name": "p", "base_url": "https://d.example", "api_key_ref": arn}},
        mcp_servers={
            "acme": {"x": {"transport": "stdio", "command": "x", "headers_ref": "PARTNER_HEADERS"}}
        },
    )
    assert settings.portals["acme"].api_key_ref == arn
    assert settings.mcp_servers["acme"]["x"].headers_ref == "PARTNER_HEADERS"
