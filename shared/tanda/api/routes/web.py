"""The reference web client (CC-1 … CC-6): ``GET /`` and ``GET /static/{name}``.

Plain files packaged with tanda (``tanda/web/``), no build step. Only the files listed in
:data:`STATIC` are served; the page talks to ``/query/v2/stream`` of the same origin with the
caller's own credentials, which it keeps in the browser's ``sessionStorage``. Not part of the
OpenAPI document (it is a page, not an API).
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import Response

from tanda.errors import NotFound

router = APIRouter(tags=["web"], include_in_schema=False)

STATIC: dict[str, str] = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
"""File name → media type: everything ``/static/`` serves."""

SECURITY_HEADERS: dict[str, str] = {
    # Scripts and styles only from this origin, requests only to this origin: the page holds an
    # API key and a token, so nothing else may run on it or receive them.
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def _read(name: str) -> bytes:
    return resources.files("tanda").joinpath("web").joinpath(name).read_bytes()


class PageNotFound(NotFound):
    code = "not_found"
    message = "No such file."


@router.get("/", response_class=Response)
def index() -> Response:
    """The reference client page."""
    return Response(
        _read("index.html"), media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS
    )


@router.get("/static/{name}", response_class=Response)
def static(name: str) -> Response:
    """One of the page's assets (:data:`STATIC`); anything else is 404."""
    media_type = STATIC.get(name)
    if media_type is None:
        raise PageNotFound()
    return Response(_read(name), media_type=media_type, headers=SECURITY_HEADERS)
