"""``usage_v1``: the use case behind ``GET /v1/usage`` (issue 27) — the caller's tenant's ledger
entries of /v1 calls (charges, test keys' metered calls, refunds), added up by UTC day and route.
Reading it is free and never throttled: it is the partner's own bill."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal
from typing import TYPE_CHECKING

from tanda.contract.v1_usage import UsageCounts, UsageDay, V1Usage
from tanda.credits import as_credits

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.credits import LedgerEntry
    from tanda.service.runtime import Runtime


DAY_S = 86_400.0


def _midnight(day: dt.date) -> float:
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


class _Tally:
    def __init__(self) -> None:
        self.charged = self.metered = self.refunded = 0
        self.credits_charged = self.credits_refunded = Decimal(0)

    def add(self, entry: LedgerEntry) -> None:
        if entry.kind == "charge":
            self.charged += 1
            self.credits_charged -= entry.amount
        elif entry.kind == "metered":
            self.metered += 1
        elif entry.kind == "refund":
            self.refunded += 1
            self.credits_refunded += entry.amount

    def counts(self) -> dict[str, object]:
        return {
            "calls": self.charged + self.metered,
            "charged": self.charged,
            "metered": self.metered,
            "refunded": self.refunded,
            "credits_charged": as_credits(self.credits_charged),
            "credits_refunded": as_credits(self.credits_refunded),
        }


def usage_v1(runtime: Runtime, principal: Principal, start: dt.date, end: dt.date) -> V1Usage:
    """Usage of ``principal``'s tenant from ``start`` to ``end`` (UTC days, both included; none
    when ``end`` is before ``start``)."""
    entries = (
        runtime.store.ledger(
            principal.tenant_id, since=_midnight(start), until=_midnight(end) + DAY_S
        )
        if start <= end
        else []
    )
    rows: dict[tuple[dt.date, str], _Tally] = defaultdict(_Tally)
    total = _Tally()
    for entry in entries:
        if entry.route is None or entry.kind not in ("charge", "metered", "refund"):
            continue  # grants and adjustments are the operator's, not calls
        day = dt.datetime.fromtimestamp(entry.at, dt.UTC).date()
        rows[(day, entry.route)].add(entry)
        total.add(entry)
    account = runtime.store.credit_account(
        principal.tenant_id, opening=runtime.settings.initial_credits
    )
    return V1Usage.model_validate(
        {
            "from": start,
            "to": end,
            "days": [
                UsageDay(date=day, route=route, **tally.counts())  # type: ignore[arg-type]
                for (day, route), tally in sorted(rows.items())
            ],
            "totals": UsageCounts(**total.counts()),  # type: ignore[arg-type]
            "balance": account.balance,
        }
    )
