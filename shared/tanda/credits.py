"""The per-tenant credit ledger's record types (ASK-12, ASK-13; DESIGN §6 "Credits and jobs").

Amounts are :class:`~decimal.Decimal` with at most :data:`CREDIT_PLACES` decimal places, end to
end: settings, the ``Store`` port, both adapters and the responses. Nothing here is a float, so
``0.20`` charged ten times is exactly ``2.00``.
"""

from __future__ import annotations

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
    """``amount`` in 1/10 000 credits, exactly; more decimal places is an error, not a rounding."""
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


def parse_amount(text: str) -> Decimal:
    """A positive credit amount typed by an operator (``tanda credits grant``), or ValueError."""
    try:
        amount = Decimal(text.strip())
    except ArithmeticError:
        raise ValueError(f"not a number: {text!r}") from None
    if not amount.is_finite() or amount <= 0:
        raise ValueError(f"a credit amount must be a positive number: {text!r}")
    to_units(amount)
    return amount


def as_credits(amount: Decimal) -> Decimal:
    """``amount`` written the one way :func:`from_units` writes it (``1.8`` → ``1.80``)."""
    return from_units(to_units(amount))
