"""The per-tenant credit ledger's record types (ASK-12, ASK-13; DESIGN §6 "Credits and jobs").

Amounts are :class:`~decimal.Decimal` with at most :data:`CREDIT_PLACES` decimal places, end to
end: settings, the ``Store`` port, both adapters and the responses. Nothing here is a float, so
``0.20`` charged ten times is exactly ``2.00``.

Every amount is bounded (issue 23): a balance holds at most :data:`MAX_BALANCE` credits and one
grant adds at most :data:`MAX_GRANT`, so integer units stay exact in a SQLite ``INTEGER`` (64-bit
signed: past 2**63 - 1 SQLite silently stores a lossy REAL) and in a DynamoDB Number (38
significant digits). ``MAX_BALANCE`` is 10**18 units, a ninth of 2**63 - 1: a refund of a job
charged before a grant filled the balance up may still land above it, exactly.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

UsageKind = Literal["ask", "search", "cross_check"]
"""What a tenant is metered for: the /v1 calls that share one throttle (ASK-13)."""
USAGE_KINDS: tuple[UsageKind, ...] = get_args(UsageKind)
CREDIT_PLACES = 4
"""Amounts are exact to 1/10 000 of a credit."""
_UNIT = Decimal(1).scaleb(-CREDIT_PLACES)
_CENT = Decimal("0.01")
MAX_BALANCE = Decimal(100_000_000_000_000)
"""The most a balance may hold: 100 000 000 000 000 credits (10**18 units)."""
MAX_BALANCE_UNITS = int(MAX_BALANCE.scaleb(CREDIT_PLACES))
MAX_GRANT = Decimal(1_000_000_000_000)
"""The most one grant may add: 1 000 000 000 000 credits."""
# 2**63 - 1 units, a SQLite INTEGER's largest; no bounded amount gets near it
_MAX_STORED = Decimal(2**63 - 1).scaleb(-CREDIT_PLACES)
# ASCII digits and one optional point, nothing else: Decimal() itself would also take
# "1_000", "1e100", "NaN", "-1" and digits of any script ("١٠٠", "１００").
_AMOUNT = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


class CreditLimitError(ValueError):
    """An amount, or the balance it would make, over its documented maximum; nothing written."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Usage(_Model):
    """One kind of call of one tenant, counted since the ledger opened."""

    charged: int = Field(default=0, ge=0, description="Calls charged to the balance.")
    metered: int = Field(
        default=0, ge=0, description="Calls with a `dip_test_` key: recorded, never charged."
    )
    refunded: int = Field(
        default=0, ge=0, description="Charged calls given back: cross-check jobs that failed."
    )
    credits: Decimal = Field(
        default=Decimal("0.00"), description="Credits charged for them in all, refunds deducted."
    )


class CreditAccount(_Model):
    tenant_id: str
    balance: Decimal
    usage: dict[UsageKind, Usage] = Field(default_factory=dict)

    def usage_of(self, kind: UsageKind) -> Usage:
        return self.usage.get(kind, Usage())


TenantStatus = Literal["active", "suspended"]


class TenantProfile(_Model):
    """A tenant (issue 27): its name, what it has chosen for itself (ASK-07: the default output
    language) and its status — a ``suspended`` tenant's keys and tokens get 403
    ``tenant_suspended`` and its scheduled cross-checks stop; nothing of it is deleted. A tenant
    never created reads as an active one without a name."""

    tenant_id: str
    lang: str | None = Field(default=None, description="Default `lang` of /v1/ask answers.")
    name: str | None = Field(default=None, description="A display name.")
    status: TenantStatus = "active"
    created_at: float | None = None


LedgerKind = Literal["charge", "metered", "refund", "grant", "adjustment"]
"""What a ledger entry records (issue 27): a charged call (negative), a test key's metered call
(zero), a failed job's refund, a grant (the opening balance too) and an operator's adjustment."""
LEDGER_KINDS: tuple[LedgerKind, ...] = get_args(LedgerKind)
ROUTES: dict[UsageKind, str] = {
    "ask": "/v1/ask",
    "search": "/v1/search",
    "cross_check": "/v1/cross-check",
}
"""The /v1 route each usage kind is charged on (the ``route`` of its ledger entries)."""
OPENING_REASON = "opening balance (TANDA_INITIAL_CREDITS)"
CARRIED_REASON = "balance before the ledger (issue 27)"


class LedgerEntry(_Model):
    """One change of a tenant's balance, written in the same conditional write as the change:
    the balance is the sum of the tenant's entries."""

    entry_id: str
    tenant_id: str
    kind: LedgerKind
    amount: Decimal = Field(description="Signed: a charge is negative, a refund positive.")
    reason: str = ""
    route: str | None = None
    request_id: str | None = Field(default=None, description="The call's id (`req_…`).")
    job_id: str | None = Field(default=None, description="The cross-check job's id.")
    key_id: str | None = Field(default=None, description="The /v1 key that made the call.")
    at: float


class LedgerRef(_Model):
    """What a metered call adds to its ledger entry: who made it and under which id."""

    request_id: str | None = None
    key_id: str | None = None
    job_id: str | None = None


def new_entry_id(at: float) -> str:
    """A ledger entry id that sorts by time: ``le_<microseconds>_<random>``."""
    import secrets

    return f"le_{int(at * 1_000_000):017d}_{secrets.token_hex(6)}"


def call_entry(
    tenant_id: str,
    kind: LedgerKind,
    usage: UsageKind,
    amount: Decimal,
    ref: LedgerRef | None,
    reason: str,
) -> LedgerEntry:
    """The entry of a metered /v1 call or a job's refund, ``amount`` signed as it changes the
    balance, stamped now."""
    import time

    at = time.time()
    ref = ref or LedgerRef()
    return LedgerEntry(
        entry_id=new_entry_id(at),
        tenant_id=tenant_id,
        kind=kind,
        amount=as_credits(amount),
        reason=reason,
        route=ROUTES[usage],
        request_id=ref.request_id,
        job_id=ref.job_id,
        key_id=ref.key_id,
        at=at,
    )


JOB_USAGE: UsageKind = "cross_check"
"""What a cross-check job is charged (and refunded) as."""


def charge_entry(
    tenant_id: str, usage: UsageKind, amount: Decimal, ref: LedgerRef | None
) -> LedgerEntry:
    """The entry of a call (or job) charged ``amount``: the balance goes down by it."""
    return call_entry(tenant_id, "charge", usage, -amount, ref, f"{usage} call")


def metered_entry(tenant_id: str, usage: UsageKind, ref: LedgerRef | None) -> LedgerEntry:
    """The entry of a call made with a test key: counted, nothing charged."""
    return call_entry(tenant_id, "metered", usage, Decimal(0), ref, f"{usage} call with a test key")


def refund_entry(tenant_id: str, job_id: str, charged: Decimal) -> LedgerEntry:
    """The entry of a failed cross-check job's charge given back (XC-2)."""
    return call_entry(
        tenant_id, "refund", JOB_USAGE, charged, LedgerRef(job_id=job_id), "failed cross-check job"
    )


def operator_entry(tenant_id: str, kind: LedgerKind, amount: Decimal, reason: str) -> LedgerEntry:
    """The entry of a grant, an adjustment or an opening balance, stamped now."""
    import time

    at = time.time()
    return LedgerEntry(
        entry_id=new_entry_id(at),
        tenant_id=tenant_id,
        kind=kind,
        amount=as_credits(amount),
        reason=reason,
        at=at,
    )


def new_request_id() -> str:
    import secrets

    return "req_" + secrets.token_hex(10)


def to_units(amount: Decimal) -> int:
    """``amount`` in 1/10 000 credits, exactly; more decimal places is an error, not a rounding,
    and an amount that no store could keep exact is refused before any arithmetic."""
    if not amount.is_finite() or abs(amount) > _MAX_STORED:
        raise CreditLimitError(f"a credit amount too large to be kept exactly: {amount}")
    units = amount / _UNIT
    if units != units.to_integral_value():
        raise ValueError(f"a credit amount has at most {CREDIT_PLACES} decimal places: {amount}")
    return int(units)


def from_units(units: int) -> Decimal:
    """The amount of ``units``, written with two decimal places or as many as it needs (``2.00``,
    ``0.1234``)."""
    amount = Decimal(units).scaleb(-CREDIT_PLACES)
    cents = amount.quantize(_CENT)
    return cents if cents == amount else amount.normalize()


def read_amount(text: str) -> Decimal:
    """A non-negative decimal written in ASCII digits with one optional point, or ValueError."""
    written = text.strip()
    if not _AMOUNT.fullmatch(written):
        raise ValueError(
            f"not an amount: {text!r} (write a number in ASCII digits, e.g. 25 or 2.5)"
        )
    return Decimal(written)


def parse_amount(text: str) -> Decimal:
    """A positive credit amount typed by an operator (``tanda credits grant``), or ValueError
    (:class:`CreditLimitError` over :data:`MAX_GRANT`)."""
    amount = read_amount(text)
    if amount <= 0:
        raise ValueError(f"a credit amount must be a positive number: {text!r}")
    check_grant(amount)
    to_units(amount)
    return amount


def parse_adjustment(text: str) -> Decimal:
    """A signed, non-zero credit amount typed by an operator (``tanda credits adjust``): ``-5``,
    ``+2.5``, ``12``; at most :data:`MAX_GRANT` either way."""
    written = text.strip()
    sign = -1 if written.startswith("-") else 1
    amount = read_amount(written[1:] if written[:1] in ("-", "+") else written)
    if amount == 0:
        raise ValueError("an adjustment changes the balance: it is not zero")
    check_grant(amount)
    to_units(amount)
    return amount * sign


def check_grant(amount: Decimal) -> None:
    """A grant adds a positive amount of at most :data:`MAX_GRANT` credits (issue 23)."""
    if not amount.is_finite() or amount <= 0:
        raise ValueError("a grant adds a positive amount of credits")
    if amount > MAX_GRANT:
        raise CreditLimitError(f"a grant adds at most {MAX_GRANT} credits, not {amount}")


def over_max_balance(amount: Decimal) -> CreditLimitError:
    """The refusal of a grant that would take the balance over :data:`MAX_BALANCE`."""
    return CreditLimitError(
        f"a grant of {amount} credits would take the balance over its maximum of {MAX_BALANCE} "
        "credits; nothing was granted"
    )


def as_credits(amount: Decimal) -> Decimal:
    """``amount`` written the one way :func:`from_units` writes it (``1.8`` → ``1.80``)."""
    return from_units(to_units(amount))
