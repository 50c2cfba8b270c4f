"""Issue 25: the configured sources, looked up under the request's tenant — another tenant's
server is unknown, a stdio server is refused on AWS (embedded only), and a secret that cannot be
read leaves the server unavailable without naming its value. Nothing here connects."""

from __future__ import annotations

import pytest

from tanda.adapters.mcp_source import McpUnavailable
from tanda.adapters.source_secrets import SecretResolver
from tanda.adapters.sources import ConfiguredSources
from tanda.settings import Settings

SETTINGS = Settings(
    portals={"acme": {"name": "p", "base_url": "http://127.0.0.1:9", "api_key_ref": "ACME_KEY"}},
    mcp_servers={
        "acme": [
            {"name": "local", "transport": "stdio", "command": "tanda", "args": ["mcp"]},
            {
                "name": "partner",
                "transport": "streamable_http",
                "url": "http://127.0.0.1:9/mcp",
                "headers_ref": "PARTNER_HEADERS",
            },
        ]
    },
)


def sources(*, embedded: bool = True, **environ: str) -> ConfiguredSources:
    return ConfiguredSources(
        SETTINGS.portals,
        SETTINGS.mcp_servers,
        secrets=SecretResolver(environ=environ),
        embedded=embedded,
    )


def test_each_tenant_sees_only_its_own_portal_and_servers() -> None:
    configured = sources()
    assert configured.portal("acme") is not None and configured.portal("beta") is None
    assert list(configured.mcp_names("acme")) == ["local", "partner"]
    assert list(configured.mcp_names("beta")) == []
    with pytest.raises(McpUnavailable):
        configured.open_mcp("beta", "partner", timeout=0.1)


def test_a_stdio_server_is_refused_outside_the_embedded_deployment() -> None:
    with pytest.raises(McpUnavailable, match="embedded"):
        sources(embedded=False).open_mcp("acme", "local", timeout=0.1)


def test_headers_that_cannot_be_read_make_the_server_unavailable_without_their_value() -> None:
    with pytest.raises(McpUnavailable) as unset:
        sources().open_mcp("acme", "partner", timeout=0.1)
    with pytest.raises(McpUnavailable) as not_json:
        sources(PARTNER_HEADERS="Bearer s3cret").open_mcp("acme", "partner", timeout=0.1)
    assert "s3cret" not in str(not_json.value) and "s3cret" not in str(unset.value)
