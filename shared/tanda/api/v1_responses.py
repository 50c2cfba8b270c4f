"""The error responses the /v1 routes document (ASK-01, ASK-12, ASK-13): authentication, credit
and the shared per-tenant throttle; ``/v1/ask`` adds 400 ``unknown_scenario`` and 503
``rag_unavailable``."""

from __future__ import annotations

from typing import Any

from tanda.api.security import AUTH_RESPONSES
from tanda.contract.errors import ErrorResponse

V1_RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    402: {
        "model": ErrorResponse,
        "description": "`insufficient_credit`: the tenant's credit balance does not cover this "
        "call (ASK-12). Nothing was charged.",
    },
    429: {
        "model": ErrorResponse,
        "description": "`rate_limited`: the tenant sent more /v1 requests (ask, search and "
        "cross-check together) than one window admits (ASK-13).",
        "headers": {
            "Retry-After": {
                "description": "Seconds until the tenant's next window opens.",
                "schema": {"type": "integer"},
            }
        },
    },
}
V1_ASK_RESPONSES: dict[int | str, dict[str, Any]] = {
    **V1_RESPONSES,
    400: {"model": ErrorResponse, "description": "`unknown_scenario` (scripted model only)."},
    502: {
        "model": ErrorResponse,
        "description": "`rerank_failed`: the reranker of the floor did not answer (ASK-06; it "
        "fails closed); nothing was charged.",
    },
    503: {
        "model": ErrorResponse,
        "description": "`rag_unavailable`: the synthesis model failed, refused the request or "
        "is not configured (ASK-04); nothing was charged. Or no credentials are configured.",
    },
}
