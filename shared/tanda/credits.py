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


class TenantProfile(_Model):
    """What a tenant has chosen for itself (ASK-07: the default output language)."""

    tenant_id: str
    lang: str | None = Field(default=None, description="Default `lang` of /v1/ask answers.")


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
