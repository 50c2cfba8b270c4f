"""Every router ``tanda serve`` mounts. A Lambda function imports only its own route module
(``functions/<route>/``), so this package imports nothing at import time (cold start)."""

from __future__ import annotations

from importlib import import_module

from fastapi import APIRouter

ROUTE_MODULES: tuple[str, ...] = (
    "health",
    "query_v2",
    "query_v1",
    "conversations",
    "playground",
    "v1_search",
    "v1_ask",
    "v1_cross_check",
    "v1_usage",
    "v1_documents",
    "v1_imports",
    "mcp",
    "web",
)
"""Route modules under ``tanda.api.routes``; each exposes ``router``. Add new routes here."""


def all_routers() -> list[APIRouter]:
    return [import_module(f"tanda.api.routes.{name}").router for name in ROUTE_MODULES]
