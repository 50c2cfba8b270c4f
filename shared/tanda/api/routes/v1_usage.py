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
        "description": "`validation_error`: `from` or `to` is not a date (`YYYY-MM-DD`), `from` "
        f"is after `to`, or the range is longer than {MAX_USAGE_DAYS} days.",
    },
}


def _refuse(field: str, message: str) -> RequestValidationError:
    return RequestValidationError(
        [{"loc": ("query", field), "msg": message, "type": "value_error"}]
    )


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
        dt.date | None,
        Query(
            alias="from",
            description=f"First UTC day, `YYYY-MM-DD` (default: {DEFAULT_USAGE_DAYS - 1} days "
            "before `to`).",
        ),
    ] = None,
    to: Annotated[
        dt.date | None, Query(description="Last UTC day, included (default: today).")
    ] = None,
) -> V1Usage:
    end = to if to is not None else dt.datetime.now(dt.UTC).date()
    start = from_ if from_ is not None else end - dt.timedelta(days=DEFAULT_USAGE_DAYS - 1)
    if start > end:
        raise _refuse("from", "`from` is after `to`")
    if (end - start).days + 1 > MAX_USAGE_DAYS:
        raise _refuse("from", f"one request reads at most {MAX_USAGE_DAYS} days")
    return usage_v1(current_runtime(request), principal, start, end)
