"""What a /v1 call pays (ASK-12, ASK-13; issue 23 item 13): the throttle and the balance before
any work, the charge after success — on a real SQLite store, at each limit."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tanda.auth import Principal
from tanda.errors import PaymentRequired, Throttled
from tanda.service.metering import admit_v1_call, settle_v1_call
from tanda.settings import Settings
from tanda.wiring import Runtime

LIVE = Principal(tenant_id="acme", partner_id="key-1", subject="key-1")
TEST_KEY = Principal(tenant_id="acme", partner_id="key-2", subject="key-2", is_test=True)
OTHER = Principal(tenant_id="other", partner_id="key-3", subject="key-3")
# 1 000 000 s is the start of a one-minute window (60 × 16 666 = 999 960, + 40).
NOW = 999_960.0


def runtime_with(tmp_path: Path, **settings: object) -> Runtime:
    fields: dict[str, object] = {"home": tmp_path, "initial_credits": Decimal("1.00")}
    return Runtime(settings=Settings(**(fields | settings)))  # type: ignore[arg-type]


def balance(runtime: Runtime, tenant: str = "acme") -> Decimal:
    return runtime.store.credit_account(tenant, opening=Decimal("1.00")).balance


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    return runtime_with(tmp_path)


def test_the_throttle_admits_up_to_the_limit_and_says_when_the_window_ends(
    tmp_path: Path,
) -> None:
    runtime = runtime_with(tmp_path, v1_rate_per_minute=2)
    for _ in range(2):  # exactly the limit is admitted
        admit_v1_call(runtime, LIVE, "ask", clock=lambda: NOW + 15)
    with pytest.raises(Throttled) as refused:
        admit_v1_call(runtime, LIVE, "search", clock=lambda: NOW + 15)
    assert refused.value.retry_after_s == 45  # the one-minute window ends 45 s later
    # test keys count in the same per-tenant window; another tenant has its own
    with pytest.raises(Throttled):
        admit_v1_call(runtime, TEST_KEY, "ask", clock=lambda: NOW + 15)
    admit_v1_call(runtime, OTHER, "ask", clock=lambda: NOW + 15)
    # the next minute starts a fresh count
    admit_v1_call(runtime, LIVE, "ask", clock=lambda: NOW + 60)


def test_a_balance_equal_to_the_price_is_admitted_one_unit_less_is_402(runtime: Runtime) -> None:
    runtime.store.charge("acme", "ask", Decimal("0.80"), opening=Decimal("1.00"))
    admit_v1_call(runtime, LIVE, "ask")  # 0.20 left, the price of an ask
    runtime.store.charge("acme", "ask", Decimal("0.0001"), opening=Decimal("1.00"))
    with pytest.raises(PaymentRequired):
        admit_v1_call(runtime, LIVE, "ask")
    admit_v1_call(runtime, LIVE, "search")  # 0.1999 still covers a search (0.05)
    assert balance(runtime) == Decimal("0.1999")  # admitting charges nothing


def test_search_is_admitted_down_to_its_own_lower_price(runtime: Runtime) -> None:
    runtime.store.charge("acme", "ask", Decimal("0.95"), opening=Decimal("1.00"))
    admit_v1_call(runtime, LIVE, "search")
    with pytest.raises(PaymentRequired):
        admit_v1_call(runtime, LIVE, "ask")
    with pytest.raises(PaymentRequired):
        admit_v1_call(runtime, LIVE, "cross_check")  # XC-2: priced as one ask


def test_a_test_key_is_admitted_with_nothing_left_and_metered_not_charged(
    runtime: Runtime,
) -> None:
    runtime.store.charge("acme", "ask", Decimal("1.00"), opening=Decimal("1.00"))
    admit_v1_call(runtime, TEST_KEY, "ask")
    assert settle_v1_call(runtime, TEST_KEY, "ask") == Decimal("0.00")
    account = runtime.store.credit_account("acme", opening=Decimal("1.00"))
    assert account.balance == Decimal(0)
    assert account.usage_of("ask").metered == 1
    assert account.usage_of("ask").charged == 1  # only the charge of the setup


def test_settling_charges_the_price_of_the_kind_and_returns_it(runtime: Runtime) -> None:
    assert str(settle_v1_call(runtime, LIVE, "search")) == "0.05"
    assert str(settle_v1_call(runtime, LIVE, "ask")) == "0.20"
    account = runtime.store.credit_account("acme", opening=Decimal("1.00"))
    assert account.balance == Decimal("0.75")
    assert account.usage_of("search").credits == Decimal("0.05")
    assert account.usage_of("ask").credits == Decimal("0.20")


def test_settling_the_last_credits_spends_them_then_402_charges_nothing(
    runtime: Runtime,
) -> None:
    runtime.store.charge("acme", "ask", Decimal("0.80"), opening=Decimal("1.00"))
    assert settle_v1_call(runtime, LIVE, "ask") == Decimal("0.20")
    assert balance(runtime) == Decimal(0)
    with pytest.raises(PaymentRequired):
        settle_v1_call(runtime, LIVE, "ask")
    account = runtime.store.credit_account("acme", opening=Decimal("1.00"))
    assert account.balance == Decimal(0) and account.usage_of("ask").charged == 2
