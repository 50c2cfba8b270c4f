"""The one mapping from domain errors to HTTP statuses (V2-19). Every error body is an
:class:`~tanda.contract.errors.ErrorResponse`; none carries a stack trace, an input value or the
reason a credential failed.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from tanda import errors
from tanda.contract.errors import ErrorDetail, ErrorResponse, FieldError

log = logging.getLogger(__name__)

STATUS_BY_ERROR: dict[type[errors.TandaError], int] = {
    errors.BadRequest: 400,
    errors.MissingCredentials: 401,
    errors.PaymentRequired: 402,
    errors.Forbidden: 403,
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.PayloadTooLarge: 413,
    errors.UnsupportedMediaType: 415,
    errors.RateLimited: 429,
    errors.UpstreamFailed: 502,
    errors.ServiceUnavailable: 503,
}
INTERNAL_ERROR_MESSAGE = "The request could not be completed."
VALIDATION_MESSAGE = "The request is not valid."
_HTTP_CODES: dict[int, tuple[str, str]] = {
    # FastAPI's 400: a body that is not UTF-8, or JSON nested deeper than the parser goes.
    400: ("bad_request", "The request cannot be served."),
    404: ("not_found", "No such route."),
    405: ("method_not_allowed", "This method is not allowed on this route."),
    413: ("payload_too_large", "The request body is too large."),
    415: ("unsupported_media_type", "The request body must be JSON."),
    431: ("request_header_fields_too_large", "The request's header fields are too large."),
}


def status_for(error: errors.TandaError) -> int:
    """The HTTP status of a domain error: its nearest mapped class, else 500."""
    for cls in type(error).__mro__:
        status = STATUS_BY_ERROR.get(cls)
        if status is not None:
            return status
    return 500


def error_body(
    code: str, message: str, fields: list[FieldError] | None = None, **detail: Any
) -> dict[str, Any]:
    return ErrorResponse(
        error=ErrorDetail(code=code, message=message, fields=fields, **detail)
    ).model_dump(mode="json", exclude_none=True)


def domain_error_body(error: errors.TandaError) -> dict[str, Any]:
    """The body of a mapped domain error: its code, message and detail (V2-19: the tool status
    of a 404)."""
    return error_body(error.code, error.message, **error.detail())


def _http_code(status: int) -> tuple[str, str]:
    return _HTTP_CODES.get(status, ("http_error", "The request failed."))


def http_error_body(status: int) -> dict[str, Any]:
    """The error body of a plain HTTP error status (400, 404, 405, 413, 415, 431…)."""
    return error_body(*_http_code(status))


def _printable(text: str) -> str:
    # A loc names the field the caller sent, and an unknown key may hold a lone surrogate that
    # no JSON encoder writes (issue 11).
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _response(
    status: int, code: str, message: str, *, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    return JSONResponse(error_body(code, message, **extra), status_code=status, headers=headers)


async def _on_domain_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, errors.TandaError)
    if status_for(exc) == 500:
        log.error("unmapped domain error %s on %s", type(exc).__name__, request.url.path)
    return domain_error_response(exc)


def domain_error_response(exc: errors.TandaError) -> JSONResponse:
    """The response of a domain error: its status, body and headers (``WWW-Authenticate`` on
    401, ``Retry-After`` on 429 and 503). Also for routes outside FastAPI's handlers (``/mcp``)."""
    status = status_for(exc)
    headers: dict[str, str] = {}
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer" if exc.code == "missing_token" else "ApiKey"
    retry_after = getattr(exc, "retry_after_s", None)
    if status in (429, 503) and isinstance(retry_after, int):
        headers["Retry-After"] = str(retry_after)
    if status == 500:
        return _response(500, "internal_error", INTERNAL_ERROR_MESSAGE)
    return JSONResponse(domain_error_body(exc), status_code=status, headers=headers or None)


async def _on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    # Never echo `input` or `ctx`: they carry what the caller sent (possibly a secret).
    fields = [
        FieldError(
            loc=[
                _printable(part) if isinstance(part, str) else part
                for part in err.get("loc", ())
                if isinstance(part, str | int)
            ],
            message=_printable(str(err.get("msg", "invalid"))),
            type=str(err.get("type", "invalid")),
        )
        for err in exc.errors()
    ]
    return _response(422, "validation_error", VALIDATION_MESSAGE, fields=fields)


def _allowed_methods(request: Request) -> str | None:
    """Every method some route serves at the request's path. Starlette's 405 names the methods
    of the first route whose path matched only, and one path may be served by several routes
    (``POST`` and ``GET /v1/cross-check``): ``Allow`` must list them all (RFC 9110 §15.5.6)."""
    methods: set[str] = set()
    routes = [*request.app.router.routes, *getattr(request.app.state, "served_routes", ())]
    for route in routes:
        served = getattr(route, "methods", None)
        if served and route.matches(request.scope)[0] != Match.NONE:
            methods |= served
    return ", ".join(sorted(methods)) or None


async def _on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code, message = _http_code(exc.status_code)
    headers = dict(exc.headers) if exc.headers else None
    allowed = _allowed_methods(request) if exc.status_code == 405 else None
    if allowed is not None:
        headers = {**(headers or {}), "Allow": allowed}
    if exc.status_code >= 500:
        return _response(exc.status_code, "internal_error", INTERNAL_ERROR_MESSAGE)
    return _response(exc.status_code, code, message, headers=headers)


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return _response(500, "internal_error", INTERNAL_ERROR_MESSAGE)


def install_error_handlers(app: FastAPI) -> None:
    """Make every error of ``app`` answer in the :class:`ErrorResponse` shape."""
    app.add_exception_handler(errors.TandaError, _on_domain_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(Exception, _on_unexpected)
