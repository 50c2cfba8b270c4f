"""``GET /v1/usage`` (issue 27): a partner's calls, charges and refunds by route and day, read
from its tenant's credit ledger."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from pydantic import ConfigDict, Field

from tanda.contract.common import WireModel

MAX_USAGE_DAYS = 366
"""The longest range one request reads, ``from`` and ``to`` included."""
DEFAULT_USAGE_DAYS = 30


class UsageCounts(WireModel):
    calls: int = Field(ge=0, description="Calls answered: `charged` + `metered`.")
    charged: int = Field(ge=0, description="Calls charged to the balance.")
    metered: int = Field(ge=0, description="Calls with a `dip_test_` key: counted, never charged.")
    refunded: int = Field(ge=0, description="Charges given back (a cross-check job that failed).")
    credits_charged: Decimal = Field(description="Credits the charged calls took.")
    credits_refunded: Decimal = Field(description="Credits the refunds gave back.")


class UsageDay(UsageCounts):
    date: dt.date = Field(description="The UTC day.")
    route: str = Field(description="`/v1/ask`, `/v1/search` or `/v1/cross-check`.")


class V1Usage(WireModel):
    """The tenant's usage from ``from`` to ``to`` (UTC days, both included)."""

    model_config = ConfigDict(extra="forbid", defer_build=True, populate_by_name=True)

    from_: dt.date = Field(alias="from", description="The first day read.")
    to: dt.date = Field(description="The last day read.")
    days: list[UsageDay] = Field(
        description="One row per day and route with any call or refund, by day, then route."
    )
    totals: UsageCounts = Field(description="The rows added up.")
    balance: Decimal = Field(description="The tenant's credit balance now.")
