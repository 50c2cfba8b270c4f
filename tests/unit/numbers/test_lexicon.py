"""Number words kept as data (issue 22): Roman numerals a question's digits may be met in."""

from __future__ import annotations

import pytest

from tanda.numbers.lexicon import roman_numeral


@pytest.mark.parametrize(
    ("value", "numeral"),
    [(1, "i"), (2, "ii"), (4, "iv"), (9, "ix"), (14, "xiv"), (19, "xix"), (39, "xxxix")],
)
def test_roman_numerals(value: int, numeral: str) -> None:
    assert roman_numeral(value) == numeral


@pytest.mark.parametrize("value", [0, 40, -3])
def test_a_number_outside_the_read_range_is_refused(value: int) -> None:
    with pytest.raises(ValueError, match="Roman"):
        roman_numeral(value)
