"""FastAPI dependencies that authenticate a request (V2-01, PG-1, ASK-01).

They adapt :class:`tanda.auth.Authenticator` to HTTP: every value of each credential header is
passed on, so a header sent twice is refused rather than resolved to one of its copies. Use them as
``principal: Annotated[Principal, Depends(partner_principal)]`` and declare
``responses=AUTH_RESPONSES`` and the matching ``openapi_extra=PARTNER_SECURITY`` (or
``ADMIN_SECURITY``, ``V1_SECURITY``) on the route for the OpenAPI document.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from fastapi import Request

from tanda.auth.authenticator import Credentials
from tanda.auth.principal import Principal
from tanda.contract.errors import ErrorResponse

if TYPE_CHECKING:
    from tanda.auth import Authenticator
    from tanda.wiring import Runtime

_runtime_lock = threading.Lock()

AUTH_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "A credential is missing."},
    403: {
        "model": ErrorResponse,
        "description": "A credential is not accepted (an unknown, revoked or expired key alike: "
        "`invalid_api_key`), or its tenant is suspended (`tenant_suspended`).",
    },
    503: {"model": ErrorResponse, "description": "No credentials are configured."},
}
ADMIN_RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    429: {"model": ErrorResponse, "description": "This administrator sent too many requests."},
    503: {
        "model": ErrorResponse,
        "description": "Verified admin identity is disabled, or no credentials are configured.",
    },
}


SECURITY_SCHEMES: dict[str, dict[str, str]] = {
    "ApiKey": {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "The shared API key (V2-01, PG-1); sent with a partner or admin JWT.",
    },
    "PartnerJWT": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "A JWT signed by a partner issuer: its `iss` names the tenant, and its "
        "`scope` (space-separated) or `scp` (array) claim must grant `TANDA_JWT_PARTNER_SCOPE`, "
        "default `tanda:partner`, else 403 `insufficient_scope` (V2-01).",
    },
    "AdminJWT": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "A JWT of the admin issuer (`TANDA_JWT_ADMIN_ISSUER`, PG-1) whose `scope` "
        "or `scp` claim grants `TANDA_JWT_ADMIN_SCOPE`, default `tanda:admin`.",
    },
    "V1ApiKey": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "dip_live_… / dip_test_…",
        "description": "A /v1 API key as the bearer token (ASK-01).",
    },
}
"""The three kinds of credentials, as the OpenAPI document names them (docs/auth.md)."""
PARTNER_SECURITY: dict[str, Any] = {"security": [{"ApiKey": [], "PartnerJWT": []}]}
ADMIN_SECURITY: dict[str, Any] = {"security": [{"ApiKey": [], "AdminJWT": []}]}
V1_SECURITY: dict[str, Any] = {"security": [{"V1ApiKey": []}]}


def current_runtime(request: Request) -> Runtime:
    """The app's :class:`Runtime`, built from the settings on the first request that needs it."""
    state = request.app.state
    runtime: Runtime | None = getattr(state, "runtime", None)
    if runtime is None:
        with _runtime_lock:
            runtime = getattr(state, "runtime", None)
            if runtime is None:
                from tanda.wiring import build_runtime

                runtime = build_runtime()
                state.runtime = runtime
    return runtime


def _authenticator(request: Request) -> Authenticator:
    return current_runtime(request).authenticator


def _credentials(request: Request) -> Credentials:
    return Credentials(
        api_keys=request.headers.getlist("x-api-key"),
        authorizations=request.headers.getlist("authorization"),
    )


def partner_principal(request: Request) -> Principal:
    """V2-01: ``X-API-Key`` **and** ``Authorization: Bearer <partner JWT>``."""
    return _authenticator(request).partner(_credentials(request))


def admin_principal(request: Request) -> Principal:
    """PG-1: shared key + admin JWT; 503 when verified identity is off; 429 per admin."""
    return _authenticator(request).admin(_credentials(request))


def v1_principal(request: Request) -> Principal:
    """ASK-01: ``Authorization: Bearer dip_live_…`` / ``dip_test_…``."""
    return _authenticator(request).v1(_credentials(request))
