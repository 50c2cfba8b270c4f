"""Sources beyond the tenant's documents (issue 25, V2-07): a tenant's open-data portal (CKAN)
and its partner MCP servers, offered to the agent as tools.

This package is kernel: what the settings say (``TANDA_PORTALS``, ``TANDA_MCP_SERVERS``;
docs/sources.md), what a source returns (:class:`SourceRecord`, one citable passage each) and the
ports the agent's tools call through (:class:`PortalClient`, :class:`McpSession`,
:class:`SourceConnector`). The clients themselves are adapters (``tanda.adapters.ckan_portal``,
``tanda.adapters.mcp_source``), built by the one factory.

Secrets are never values here: ``api_key_ref`` / ``headers_ref`` name an environment variable
(embedded) or a Secrets Manager ARN (AWS), resolved by the adapter that sends them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SERVER_NAME = r"^[A-Za-z0-9_-]{1,64}$"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_SECRETS_ARN = re.compile(r"^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+$")


def is_secret_ref(value: str) -> bool:
    """A reference, never a value: an environment variable name or a Secrets Manager ARN."""
    return bool(_ENV_NAME.match(value) or _SECRETS_ARN.match(value))


def _checked_ref(value: str | None) -> str | None:
    if value is not None and not is_secret_ref(value):
        raise ValueError(
            "a secret is configured by reference only: an environment variable name or a "
            "Secrets Manager ARN"
        )
    return value


def _checked_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("an http(s) URL with a host")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("no credentials, query or fragment in the URL (secrets by reference)")
    return value.rstrip("/")


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class PortalConfig(_Config):
    """A tenant's open-data portal (``TANDA_PORTALS``)."""

    name: str = Field(min_length=1, max_length=128, description="Shown as part of the source.")
    base_url: str = Field(description="The portal's root, e.g. `https://data.jatimprov.go.id`.")
    kind: Literal["ckan"] = "ckan"
    api_key_ref: str | None = Field(
        default=None, description="The API key, by reference (env var name or Secrets ARN)."
    )
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    max_rows: int = Field(default=20, ge=1, le=1000, description="Rows one `portal_read` shows.")
    max_bytes: int = Field(
        default=2_000_000, ge=1024, le=50_000_000, description="Largest response body read."
    )

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        return _checked_url(value)

    @field_validator("api_key_ref")
    @classmethod
    def _ref(cls, value: str | None) -> str | None:
        return _checked_ref(value)


class McpServerConfig(_Config):
    """One partner MCP server of a tenant (``TANDA_MCP_SERVERS``)."""

    name: str = Field(pattern=SERVER_NAME, description="The name a request's `mcp_servers` uses.")
    transport: Literal["streamable_http", "stdio"]
    url: str | None = Field(default=None, description="streamable_http: the endpoint.")
    command: str | None = Field(default=None, description="stdio (embedded only): the program.")
    args: list[str] = Field(default_factory=list, description="stdio: its arguments.")
    env: dict[str, str] = Field(
        default_factory=dict, description="stdio: extra environment (no secrets: headers_ref)."
    )
    headers_ref: str | None = Field(
        default=None,
        description="HTTP headers (a JSON object) by reference (env var name or Secrets ARN).",
    )
    allowed_tools: list[str] | None = Field(
        default=None, description="Only these of the server's tools are offered (None: all)."
    )
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    max_bytes: int = Field(default=1_000_000, ge=1024, le=50_000_000)

    @field_validator("headers_ref")
    @classmethod
    def _ref(cls, value: str | None) -> str | None:
        return _checked_ref(value)

    @model_validator(mode="after")
    def _transport_target(self) -> McpServerConfig:
        if self.transport == "streamable_http":
            if self.url is None or self.command is not None:
                raise ValueError("streamable_http takes a url (and no command)")
            object.__setattr__(self, "url", _checked_url(self.url))
        elif self.command is None or self.url is not None:
            raise ValueError("stdio takes a command (and no url)")
        return self


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def parse_portals(value: Any) -> dict[str, PortalConfig]:
    """``TANDA_PORTALS``: JSON map tenant → portal."""
    raw = _json(value) or {}
    if not isinstance(raw, Mapping):
        raise ValueError("TANDA_PORTALS: a JSON map tenant → portal")
    return {str(t): PortalConfig.model_validate(p) for t, p in raw.items()}


def parse_mcp_servers(value: Any) -> dict[str, dict[str, McpServerConfig]]:
    """``TANDA_MCP_SERVERS``: JSON map tenant → its servers (a list, or a map name → server)."""
    raw = _json(value) or {}
    if not isinstance(raw, Mapping):
        raise ValueError("TANDA_MCP_SERVERS: a JSON map tenant → servers")
    out: dict[str, dict[str, McpServerConfig]] = {}
    for tenant, servers in raw.items():
        if isinstance(servers, Mapping):
            items = [
                s if isinstance(s, McpServerConfig) else {"name": n, **s}
                for n, s in servers.items()
            ]
        else:
            items = list(servers)
        parsed = [McpServerConfig.model_validate(s) for s in items]
        names = [s.name for s in parsed]
        if len(set(names)) != len(names):
            raise ValueError(f"TANDA_MCP_SERVERS: tenant {tenant!r} names a server twice")
        out[str(tenant)] = {s.name: s for s in parsed}
    return out


# --- what a source returns ------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceRecord:
    """One row, record or result of a portal or an MCP server: one citable passage with its
    identity (V2-07: dataset, source, period and the producing call)."""

    text: str
    dataset: str
    source: str
    producing_call: str
    """The call that produced it, without secrets: ``datastore_search(resource_id=…, q=…)``."""
    period: str | None = None
    unit: str | None = None
    title: str | None = None
    """What the reader opens: the dataset's title (defaults to ``dataset``)."""
    ref: str | None = None
    """The record's own id at its source (a resource and row id): shown once per answer."""


@dataclass(frozen=True)
class PortalResource:
    resource_id: str
    name: str
    format: str
    datastore: bool


@dataclass(frozen=True)
class PortalDataset:
    """A ``package_search`` hit: what the agent needs to pick a resource to read."""

    dataset_id: str
    title: str
    organisation: str | None
    period: str | None
    unit: str | None
    notes: str
    resources: tuple[PortalResource, ...] = ()


@dataclass(frozen=True)
class McpTool:
    name: str
    description: str
    input_schema: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class McpResult:
    """A tool call's result: its text contents and its structured content."""

    texts: tuple[str, ...] = ()
    structured: dict[str, Any] | None = None
    is_error: bool = False


class SourceRefused(Exception):
    """A source call the clients refuse before or instead of sending it: a URL outside the
    configured origin, a body over its cap, a content type that is not data (issue 25)."""


class PortalClient(Protocol):
    """A tenant's portal (CKAN action API). Every call is bounded by ``timeout`` seconds."""

    name: str
    max_rows: int

    def search(
        self, query: str, period: str | None, *, rows: int, timeout: float
    ) -> tuple[list[PortalDataset], str]:
        """``package_search`` hits and the call as shown (no secrets)."""
        ...

    def read(self, resource_id: str, query: str | None, *, timeout: float) -> list[SourceRecord]:
        """The resource's rows: ``datastore_search`` when it is in the datastore, else the CSV or
        JSON file itself (size-capped; same origin only)."""
        ...


class McpSession(Protocol):
    """An open session with one MCP server (``initialize`` done)."""

    name: str

    def tools(self, *, timeout: float) -> list[McpTool]: ...

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float) -> McpResult: ...

    def close(self) -> None: ...


class SourceConnector(Protocol):
    """Per tenant: its portal and its MCP servers, as configured — never another tenant's."""

    def portal(self, tenant_id: str) -> PortalClient | None: ...

    def mcp_names(self, tenant_id: str) -> Sequence[str]: ...

    def open_mcp(self, tenant_id: str, name: str, *, timeout: float) -> McpSession:
        """Connect and ``initialize`` within ``timeout``; raises when the server does not answer
        (→ ``mcp_source_unavailable``) or is not the tenant's."""
        ...


def single_text_arguments(schema: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Arguments for a tool whose input schema takes one text argument (a search tool): the
    text there, and ``{}`` for a required object that itself requires nothing; ``None`` when the
    schema wants anything else (issue 25: the offline agent calls such a tool with the
    question)."""
    properties = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    strings = [n for n in required if (properties.get(n) or {}).get("type") == "string"]
    if not required:
        strings = [n for n, p in properties.items() if (p or {}).get("type") == "string"][:1]
    if len(strings) != 1:
        return None
    arguments: dict[str, Any] = {strings[0]: text}
    for name in required:
        if name in arguments:
            continue
        prop = _resolved(schema, properties.get(name) or {})
        if prop.get("type") != "object" or prop.get("required"):
            return None
        arguments[name] = {}
    return arguments


def _resolved(schema: Mapping[str, Any], prop: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = prop.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return prop
    node: Any = schema
    for part in ref[2:].split("/"):
        node = node.get(part, {}) if isinstance(node, Mapping) else {}
    return node if isinstance(node, Mapping) else {}
