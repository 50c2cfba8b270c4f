"""What every /v1 call pays (ASK-12, ASK-13): one per-tenant throttle, a balance checked before any
work, and one conditional charge after success.

A route calls :func:`admit_v1_call` before it does anything and :func:`settle_v1_call` once it
has its answer — never after a failure, so a 503 is never charged. ``/v1/ask`` and
``/v1/search`` do; ``/v1/cross-check`` admits the same way and is charged in the write that
creates its job (XC-2: charged as one ask, on POST; refunded if the job fails —
``tanda.service.cross_check``).

- **Throttle** (ASK-13): ``TANDA_V1_RATE_PER_MINUTE`` requests per tenant per one-minute window,
  counted in the Store (``Store.hit``), so every process and Lambda instance sees one count; over
  it → 429 with ``Retry-After``. It counts every admitted attempt, test keys included.
- **Balance** (ASK-12): before any work the balance must cover the price (402
  ``insufficient_credit``). ``dip_test_`` keys skip it: they are metered, never charged.
- **Charge**: after success, ONE conditional write takes the price only if the balance still
  covers it, with its ledger entry (issue 27: the request id and the key id). Concurrent calls
  all pass the read before work; those the balance no longer covers at the charge get 402 and
  their answer is withheld, so no answer goes unpaid, the balance never goes negative and
  nothing is charged twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from tanda.credits import LedgerRef, UsageKind, as_credits, new_request_id
from tanda.errors import PaymentRequired, Throttled

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.service.runtime import Runtime
    from tanda.settings import Settings

THROTTLE_WINDOW_S = 60.0


def throttle_key(tenant_id: str) -> str:
    """One counter per tenant for every /v1 route (ASK-13: they share the throttle)."""
    return f"v1:{tenant_id}"


def price_of(settings: Settings, kind: UsageKind) -> Decimal:
    # XC-2: a cross-check is charged as one ask.
    return settings.search_price if kind == "search" else settings.ask_price


def admit_v1_call(
    runtime: Runtime,
    principal: Principal,
    kind: UsageKind,
    *,
    clock: Callable[[], float] = time.time,
) -> None:
    """Throttle, then the balance — before any work. Raises 429 or 402."""
    store = runtime.store
    decision = store.hit(
        throttle_key(principal.tenant_id),
        limit=runtime.settings.v1_rate_per_minute,
        window_s=THROTTLE_WINDOW_S,
        now=clock(),
    )
    if not decision.allowed:
        raise Throttled(decision.retry_after_s)
    if principal.is_test:
        return
    price = price_of(runtime.settings, kind)
    account = store.credit_account(principal.tenant_id, opening=runtime.settings.initial_credits)
    if account.balance < price:
        raise PaymentRequired()


def settle_v1_call(runtime: Runtime, principal: Principal, kind: UsageKind) -> Decimal:
    """Charge the successful call (or meter a test key's); the credits taken. Raises 402 when the
    balance no longer covers it (concurrent calls spent it): the caller withholds its answer."""
    settings = runtime.settings
    ref = call_ref(principal)
    if principal.is_test:
        runtime.store.meter(principal.tenant_id, kind, opening=settings.initial_credits, ref=ref)
        return as_credits(Decimal(0))
    price = price_of(settings, kind)
    charged = runtime.store.charge(
        principal.tenant_id, kind, price, opening=settings.initial_credits, ref=ref
    )
    if not charged:
        raise PaymentRequired()
    return as_credits(price)


def call_ref(principal: Principal) -> LedgerRef:
    """What the ledger entry of a /v1 call records of it (issue 27): a new request id and the
    caller's key id (``Principal.partner_id`` of a /v1 key)."""
    return LedgerRef(request_id=new_request_id(), key_id=principal.partner_id)
