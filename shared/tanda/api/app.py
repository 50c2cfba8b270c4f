"""The FastAPI application: every router of :mod:`tanda.api.routes` (or the ones given), the one
error mapping, and a :class:`~tanda.wiring.Runtime` built on the first request that needs it —
never at import (Lambda cold start).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI, Request
from starlette.routing import BaseRoute, Match
from starlette.types import Scope

from tanda import __version__
from tanda.api.body_gate import BodyGate, json_body_routes
from tanda.api.errors import install_error_handlers
from tanda.api.openapi import build_openapi, install_openapi
from tanda.api.security import current_runtime

if TYPE_CHECKING:
    from tanda.settings import Settings
    from tanda.wiring import Runtime


def create_app(
    runtime: Runtime | None = None, routers: Sequence[APIRouter] | None = None
) -> FastAPI:
    """An app serving ``routers`` (default: ``tanda.api.routes.all_routers()``).

    ``runtime`` defaults to ``tanda.wiring.build_runtime()``, built lazily by
    :func:`tanda.api.security.current_runtime`.
    """
    app = FastAPI(
        title="tanda",
        version=__version__,
        description="Grounded-answer API: every statement of an answer is marked with what "
        "verified it.",
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.runtime = runtime
    install_error_handlers(app)
    install_openapi(app)
    if routers is None:
        from tanda.api.routes import all_routers

        routers = all_routers()
    for router in routers:
        app.include_router(router)
    served = [route for router in routers for route in router.routes]
    # What a 405's `Allow` is read from (tanda.api.errors): the app's own routes and these.
    app.state.served_routes = served
    app.add_middleware(
        BodyGate, max_body_bytes=_body_limits(served), json_routes=json_body_routes(served)
    )
    return app


def _body_limits(served: Sequence[BaseRoute]) -> Callable[[Scope], int]:
    """The body limit of a request: ``TANDA_MAX_BODY_BYTES``, or the route's own where its
    endpoint names one (``max_body_bytes(settings)``: the upload routes, issue 26)."""
    own: list[tuple[BaseRoute, Callable[[Settings], int]]] = []
    for route in served:
        limit = getattr(getattr(route, "endpoint", None), "max_body_bytes", None)
        if callable(limit):
            own.append((route, limit))

    def max_body_bytes(scope: Scope) -> int:
        # Read from the runtime on the first request, like every setting (never at import).
        settings = current_runtime(Request(scope)).settings
        for route, limit in own:
            if route.matches(scope)[0] is Match.FULL:
                return limit(settings)
        return settings.max_body_bytes

    return max_body_bytes


def render_openapi() -> str:
    """The OpenAPI document of the app with every router, as committed in docs/openapi.json."""
    document = build_openapi(create_app())
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
