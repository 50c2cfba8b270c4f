"""Every router ``tanda serve`` mounts. Add a route's router to ``ALL_ROUTERS``; a Lambda
function mounts only its own (``functions/<route>/``)."""

from fastapi import APIRouter

from tanda.api.routes import health, query_v2

ALL_ROUTERS: list[APIRouter] = [
    health.router,
    query_v2.router,
]
