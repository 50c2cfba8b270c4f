"""Credit amounts are bounded and written one way (issue 23, ASK-12): ASCII digits with at most
four decimal places, a grant of at most ``MAX_GRANT``, nothing a store could not keep exact."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from tanda.credits import MAX_BALANCE, MAX_GRANT, CreditLimitError, parse_amount, to_units
from tanda.settings import Settings


@pytest.mark.parametrize(
    ("text", "amount"),
    [("25", Decimal(25)), (" 2.5 ", Decimal("2.5")), ("0.0001", Decimal("0.0001"))],
)
def test_an_amount_in_ascii_digits_is_read_exactly(text: str, amount: Decimal) -> None:
    assert parse_amount(text) == amount


@pytest.mark.parametrize(
    "text",
    [
        "1_000",
        "1e3",
        "1E+3",
        "+5",
        "-1",
        "NaN",
        "Infinity",
        "",
        "1.2.3",
        "\u0661\u0660\u0660",
        "\uff11\uff10\uff10",
        "\u0967\u0966",
    ],
)
def test_digit_groups_exponents_signs_and_other_scripts_are_not_amounts(text: str) -> None:
    with pytest.raises(ValueError, match="not an amount"):
        parse_amount(text)


def test_a_grant_is_at_most_max_grant() -> None:
    assert parse_amount(str(MAX_GRANT)) == MAX_GRANT
    with pytest.raises(CreditLimitError, match="a grant adds at most 1000000000000 credits"):
        parse_amount(str(MAX_GRANT + Decimal("0.0001")))


def test_the_maximum_balance_is_exact_in_a_sqlite_integer() -> None:
    assert to_units(MAX_BALANCE) == 10**18 < 2**63 - 1
    with pytest.raises(CreditLimitError):
        to_units(Decimal("1e100"))  # refused before any arithmetic: no OverflowError later


@pytest.mark.parametrize("name", ["initial_credits", "ask_price", "search_price"])
@pytest.mark.parametrize("value", ["1_000", "\u0661\u0660\u0660", "1e3", "100000000000000.0001"])
def test_a_setting_amount_is_written_in_ascii_digits_and_fits_the_ledger(
    name: str, value: str
) -> None:
    with pytest.raises(ValidationError):
        Settings.model_validate({name: value})
