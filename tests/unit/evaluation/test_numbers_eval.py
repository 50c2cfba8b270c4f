"""``tanda eval numbers`` (issue 17): TAT-QA answers written as people write them in en/id/tr must
be found equal to their table cell, and the same digits at another scale must not (V2-08)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tanda.service.numbers_eval import (
    Written,
    checks_for,
    format_number,
    numbers_report,
    read_value,
    scaled_answers,
    written_as,
)

TABLE = [
    ["", "", "Years Ended September 30,", ""],
    ["", "2019", "2018", "2017"],
    ["Fixed Price", "$  1,452.4", "$  1,146.2", "$  1,036.9"],
    ["Other", "44.1", "(56.7)", "70.8"],
]


def entry(*questions: dict[str, Any]) -> dict[str, Any]:
    return {"table": {"table": TABLE}, "paragraphs": [], "questions": list(questions)}


def question(answer: Any, scale: str, uid: str = "q1") -> dict[str, Any]:
    return {"uid": uid, "question": "?", "answer": answer, "scale": scale}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$1,496.5", Written(Decimal("1496.5"), 1, negative=False, currency=True)),
        ("$  1,452.4", Written(Decimal("1452.4"), 1, negative=False, currency=True)),
        ("(114)", Written(Decimal(114), 0, negative=True, currency=False)),
        ("$(9,982)", Written(Decimal(9982), 0, negative=True, currency=True)),
        ("-12.6", Written(Decimal("12.6"), 1, negative=True, currency=False)),
        ("13.2%", Written(Decimal("13.2"), 1, negative=False, currency=False)),
        ("$3.0 million", Written(Decimal("3.0"), 1, negative=False, currency=True)),
    ],
)
def test_tatqa_values_are_read_with_sign_currency_and_precision(
    text: str, expected: Written
) -> None:
    assert read_value(text) == expected


def test_what_is_not_one_number_is_not_read() -> None:
    assert read_value("fixed-price type") is None
    assert read_value("1,2 and 3") is None


def test_numbers_are_written_with_each_language_s_separators() -> None:
    assert format_number(Decimal("1234567.5"), 1, "en") == "1,234,567.5"
    assert format_number(Decimal("1234567.5"), 1, "id") == "1.234.567,5"
    assert format_number(Decimal("0.25"), 2, "tr") == "0,25"


def test_values_are_written_as_people_write_them() -> None:
    money = Written(Decimal("1234.5"), 1, negative=False, currency=True)
    assert written_as(money, "million", "en") == "$1,234.5 million"
    assert written_as(money, "million", "en", abbreviated=True) == "$1,234.5m"
    assert written_as(money, "million", "id") == "US$1.234,5 juta"
    assert written_as(money, "billion", "id", abbreviated=True) == "US$1.234,5 M"
    assert written_as(money, "billion", "tr", number=Decimal("1.2"), decimals=1) == (
        "1,2 milyar dolar"
    )
    share = Written(Decimal("12.5"), 1, negative=True, currency=False)
    assert written_as(share, "percent", "tr", abbreviated=True) == "%-12,5"
    assert written_as(share, "percent", "id") == "-12,5 persen"


def test_a_cell_answer_is_checked_against_its_row_under_the_header_and_declared_scale() -> None:
    (answer,) = scaled_answers([entry(question(["$  1,452.4"], "million"))])

    assert not isinstance(answer, tuple)
    assert answer.from_cell
    assert answer.source == (
        "(in millions)\n |  | Years Ended September 30, | \n | 2019 | 2018 | 2017\n"
        "Fixed Price | $  1,452.4 | $  1,146.2 | $  1,036.9"
    )


def test_a_derived_answer_is_written_as_a_table_cell_would_be() -> None:
    (answer,) = scaled_answers([entry(question(1972, "million"))])

    assert not isinstance(answer, tuple)
    assert not answer.from_cell
    assert answer.source == "(in millions)\nValue: 1,972"


def test_answers_without_a_scale_and_years_that_head_a_column_are_not_checked() -> None:
    table_with_years_first = {
        "table": {"table": [["£m", "2019", "2018"], ["Sales", "5.0", "4.0"]]},
        "questions": [
            question(["2019"], "percent"),
            question(["x"], ""),
            question(["a b"], "million"),
        ],
    }

    answers = list(scaled_answers([table_with_years_first]))

    assert [(a.answer, a.why) for a in answers if not hasattr(a, "source")] == [
        ("2019", "a column's year"),
        ("a b", "not one number"),
    ]


def test_each_language_checks_the_equal_forms_found_and_the_other_scales_not() -> None:
    (answer,) = scaled_answers([entry(question(["$  1,452.4"], "million"))])

    checks = list(checks_for(answer))

    equal = [c.claim for c in checks if c.expect_found and c.lang == "id"]
    assert equal == [
        "Nilai yang dilaporkan adalah US$1.452,4 juta.",
        "Nilai yang dilaporkan adalah US$1,5 miliar.",
        "Nilai yang dilaporkan adalah US$1.452,4 jt.",
        "Nilai yang dilaporkan adalah US$1,5 M.",
    ]
    other = [c.claim for c in checks if not c.expect_found and c.lang == "tr"]
    assert other == [
        "Tabloda verilen değer 1.452,4 bin dolar olarak raporlandı.",
        "Tabloda verilen değer 1.452,4 milyar dolar olarak raporlandı.",
    ]
    assert all(c.correct for c in checks)


def test_the_report_gives_the_share_correct_and_lists_the_misses() -> None:
    data = [entry(question(["44.1"], "million", "q1"), question(["(56.7)"], "thousand", "q2"))]

    def finds_nothing(claim: str, source: str) -> list[object]:
        return [claim]  # every claim reported as not found

    honest = numbers_report(data)
    blind = numbers_report(data, finder=finds_nothing, misses=2)

    assert honest["share_correct"] == 1.0
    assert honest["misses"] == []
    assert honest["answers_by_scale"] == {"million": 1, "thousand": 1}
    assert blind["checks"] == honest["checks"]
    # a finder that finds nothing is right only where nothing should be found
    assert blind["found_when_equal"] == 0.0
    assert blind["not_found_at_another_scale"] == 1.0
    assert 0 < blind["share_correct"] < 1
    assert blind["misses_total"] > 2
    assert len(blind["misses"]) == 2
    assert blind["misses"][0]["expected"] == "found"
    assert blind["misses"][0]["uid"] == "q1"
