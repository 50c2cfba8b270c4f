"""The sources a tenant has configured (issue 25): its portal and its MCP servers, from
``TANDA_PORTALS`` / ``TANDA_MCP_SERVERS`` (the :class:`~tanda.sources.SourceConnector` port).

Everything is looked up under the request's tenant: a tenant's request can never name, reach or
authenticate to another tenant's portal or servers — their configuration and their secrets are
keyed by tenant here and nowhere else."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from typing import Any

import httpx

from tanda.adapters.ckan_portal import CkanPortal
from tanda.adapters.mcp_source import McpClientSession, McpUnavailable
from tanda.adapters.source_secrets import SecretResolver
from tanda.sources import McpServerConfig, PortalConfig, SourceRefused


class ConfiguredSources:
    """Per tenant: its portal (one client per process, reused) and its MCP servers (one
    session per request's agent step)."""

    def __init__(
        self,
        portals: dict[str, PortalConfig],
        mcp_servers: dict[str, dict[str, McpServerConfig]],
        *,
        secrets: SecretResolver | None = None,
        portal_transport: httpx.BaseTransport | None = None,
        embedded: bool | None = None,
    ) -> None:
        self._portals = portals
        self._servers = mcp_servers
        self._secrets = secrets or SecretResolver()
        self._transport = portal_transport
        self._embedded = (
            embedded if embedded is not None else not os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        )
        self._clients: dict[str, CkanPortal] = {}
        self._lock = threading.Lock()

    def portal(self, tenant_id: str) -> CkanPortal | None:
        config = self._portals.get(tenant_id)
        if config is None:
            return None
        with self._lock:
            client = self._clients.get(tenant_id)
            if client is None:
                ref = config.api_key_ref
                key = (lambda: self._secrets.resolve(ref)) if ref is not None else None
                client = CkanPortal(config, api_key=key, transport=self._transport)
                self._clients[tenant_id] = client
            return client

    def mcp_names(self, tenant_id: str) -> Sequence[str]:
        return list(self._servers.get(tenant_id, {}))

    def open_mcp(self, tenant_id: str, name: str, *, timeout: float) -> McpClientSession:
        config = self._servers.get(tenant_id, {}).get(name)
        if config is None:
            raise McpUnavailable(f"no MCP server {name!r} is configured for this tenant")
        if config.transport == "stdio" and not self._embedded:
            raise McpUnavailable("stdio MCP servers run only in the embedded deployment")
        headers: dict[str, str] = {}
        if config.headers_ref is not None:
            try:
                loaded: Any = json.loads(self._secrets.resolve(config.headers_ref))
            except (SourceRefused, ValueError) as error:
                raise McpUnavailable(f"the headers of {name!r} are unavailable") from error
            if not isinstance(loaded, dict):
                raise McpUnavailable(f"the headers of {name!r} are not a JSON object")
            headers = {str(k): str(v) for k, v in loaded.items()}
        session = McpClientSession(config, headers=headers)
        return session.open(timeout=min(timeout, config.timeout_s))
