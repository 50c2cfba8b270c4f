"""``GET /v1/usage?from=&to=`` (issue 27): a partner's calls, charges and refunds by route and
UTC day, for its own ``dip_`` key's tenant; read from the credit ledger, free. docs/credits.md."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.exceptions import RequestValidationError

from tanda.api.security import AUTH_RESPONSES, V1_SECURITY, current_runtime, v1_principal
from tanda.auth import Principal
from tanda.contract.errors import ErrorResponse
from tanda.contract.v1_usage import DEFAULT_USAGE_DAYS, MAX_USAGE_DAYS, V1Usage
from tanda.service.usage_v1 import usage_v1

router = APIRouter(tags=["v1"])

USAGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    422: {
        "model": ErrorResponse,
        "description": "`validation_error`: `from` or `to` is not a day `YYYY-MM-DD` "
        "(`error.fields` names it).",
    },
}


DAY = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_DAY_SCHEMA = {"format": "date"}


def _day(field: str, written: str) -> dt.date | None:
    """A ``YYYY-MM-DD`` day (``None`` when not given), or 422 ``validation_error`` naming the
    parameter."""
    if not written:
        return None
    try:
        return dt.date.fromisoformat(written)
    except ValueError:
        raise RequestValidationError(
            [
                {
                    "loc": ("query", field),
                    "msg": "not a day YYYY-MM-DD",
                    "type": "date_from_datetime_parsing",
                }
            ]
        ) from None


def usage_range(
    start: dt.date | None, end: dt.date | None, today: dt.date
) -> tuple[dt.date, dt.date]:
    """The days read: ``to`` (default today) and ``from`` (default 29 days before), cut to the
    :data:`MAX_USAGE_DAYS` days ending at ``to``."""
    last = end if end is not None else today
    first_allowed = dt.date.min + dt.timedelta(days=MAX_USAGE_DAYS - 1)
    earliest = (
        last - dt.timedelta(days=MAX_USAGE_DAYS - 1) if last >= first_allowed else dt.date.min
    )
    if start is None:
        default = dt.date.min + dt.timedelta(days=DEFAULT_USAGE_DAYS - 1)
        start = last - dt.timedelta(days=DEFAULT_USAGE_DAYS - 1) if last >= default else dt.date.min
    return max(start, earliest), last


@router.get(
    "/v1/usage",
    response_model=V1Usage,
    responses=USAGE_RESPONSES,
    openapi_extra=V1_SECURITY,
    summary="The caller's calls, charges and refunds by route and UTC day (free)",
)
def get_usage(
    request: Request,
    principal: Annotated[Principal, Depends(v1_principal)],
    from_: Annotated[
        str,
        Query(
            alias="from",
            pattern=DAY,
            json_schema_extra=_DAY_SCHEMA,
            description=f"First UTC day, `YYYY-MM-DD` (default: {DEFAULT_USAGE_DAYS - 1} days "
            f"before `to`; at most {MAX_USAGE_DAYS - 1} days before it: an earlier one is cut "
            "there, and the response's `from` says so).",
        ),
    ] = "",
    to: Annotated[
        str,
        Query(
            pattern=DAY,
            json_schema_extra=_DAY_SCHEMA,
            description="Last UTC day, included (default: today). A `to` before `from` reads "
            "no day.",
        ),
    ] = "",
) -> V1Usage:
    start, end = usage_range(_day("from", from_), _day("to", to), dt.datetime.now(dt.UTC).date())
    return usage_v1(current_runtime(request), principal, start, end)
