"""Equality of quantities at the stated precision (V2-08): same value written differently is
equal; another scale, unit, kind or a value outside the rounding of the less precise side is not.
"""

from __future__ import annotations

import pytest

from tanda.numbers import MatchReason, Quantity, compare, extract_quantities, same_quantity


def one(text: str, lang: str | None) -> Quantity:
    """The last quantity of ``text`` (the one a case is about; earlier ones give context)."""
    return extract_quantities(text, lang)[-1]


# (a, lang a, b, lang b, equal, reason when not equal)
PAIRS: list[tuple[str, str | None, str, str | None, bool, MatchReason | None]] = [
    # --- the spec's own examples
    ("871.667.219.294", "id", "Rp871,67 miliar", "id", True, None),
    ("Rp 5 miliar", "id", "Rp 5 juta", "id", False, MatchReason.scale_mismatch),
    ("9 persen", "id", "9 poin persentase", "id", False, MatchReason.unit_mismatch),
    ("%94,3", "tr", "94.3 percent", "en", True, None),
    ("4.874,35 M", "id", "Rp4.874.350.000.000", "id", True, None),
    ("4.874,35 M", "id", "Rp4,87 triliun", "id", True, None),
    ("4.874,35 M", "id", "Rp4,9 miliar", "id", False, MatchReason.scale_mismatch),
    # --- APBD cells vs prose (2023/Surabaya.csv, 2023/Gresik.csv)
    ("10.723,82 M", "id", "Rp10,72 triliun", "id", True, None),
    ("10.723,82 M", "id", "Rp10,73 triliun", "id", False, MatchReason.value_mismatch),
    ("10.723,82 M", "id", "Rp10.723.820.000.000", "id", True, None),
    ("6.491,38 M", "id", "Rp6,5 triliun", "id", True, None),
    ("6.491,38 M", "id", "Rp6,49 miliar", "id", False, MatchReason.scale_mismatch),
    ("60.53", "id", "60,53 persen", "id", True, None),
    ("60,53 persen", "id", "60,5 persen", "id", True, None),
    ("60,53 persen", "id", "60,6 persen", "id", False, MatchReason.value_mismatch),
    ("2.467,22 M", "id", "2,47 triliun rupiah", "id", True, None),
    ("-55,71 M", "id", "Rp55,71 miliar", "id", False, MatchReason.value_mismatch),
    # --- explicit rounding: the less precise surface sets the tolerance
    ("871.667.219.294", "id", "Rp871,7 miliar", "id", True, None),
    ("871.667.219.294", "id", "Rp872 miliar", "id", True, None),
    ("871.667.219.294", "id", "Rp871 miliar", "id", False, MatchReason.value_mismatch),
    ("94,3 persen", "id", "94 persen", "id", True, None),
    ("94,3 persen", "id", "95 persen", "id", False, MatchReason.value_mismatch),
    ("Rp2,5 triliun", "id", "Rp2.500 miliar", "id", True, None),
    ("Rp 15 rb", "id", "Rp15.000", "id", True, None),
    # --- statutes: fines written in full and in words
    ("Rp5.000.000.000,00", "id", "denda Rp5 miliar", "id", True, None),
    ("Rp6.000.000.000,00", "id", "denda Rp5 miliar", "id", False, MatchReason.value_mismatch),
    ("Rp600.000.000,00", "id", "Rp600 juta", "id", True, None),
    ("Rp600.000.000,00", "id", "Rp600 miliar", "id", False, MatchReason.scale_mismatch),
    ("5 (lima) tahun", "id", "5 tahun", "id", True, None),
    ("5 (lima) tahun", "id", "5 bulan", "id", False, MatchReason.unit_mismatch),
    # --- Turkish
    ("1,5 milyar TL", "tr", "1.500.000.000 TL", "tr", True, None),
    ("1,5 milyar TL", "tr", "1,5 milyon TL", "tr", False, MatchReason.scale_mismatch),
    ("12 bin kişi", "tr", "12.000 kişi", "tr", True, None),
    ("3.450 kişi", "tr", "3450 people", "en", True, None),
    ("3.450 kişi", "tr", "3.450 TL", "tr", False, MatchReason.kind_mismatch),
    ("%12,5", "tr", "yüzde 12,5", "tr", True, None),
    ("%12,5", "tr", "12,5 puan", "tr", False, MatchReason.kind_mismatch),
    ("₺2,5 milyon", "tr", "2.500.000 lira", "tr", True, None),
    ("750 milyon TL", "tr", "$750 million", "en", False, MatchReason.unit_mismatch),
    # --- English (TAT-QA)
    ("$1.2 billion", "en", "$1,200 million", "en", True, None),
    ("$1.2 billion", "en", "€1.2 billion", "en", False, MatchReason.unit_mismatch),
    ("$1.2bn", "en", "$1.24 billion", "en", True, None),
    ("$5m", "en", "$5 million", "en", True, None),
    ("$5m", "en", "$5 billion", "en", False, MatchReason.scale_mismatch),
    ("$(9.8) million", "en", "-$9.8 million", "en", True, None),
    ("(48.3)%", "en", "48.3%", "en", False, MatchReason.value_mismatch),
    ("3.5 percentage points", "en", "3.5%", "en", False, MatchReason.unit_mismatch),
    ("50 bps", "en", "0.5 pp", "en", False, MatchReason.unit_mismatch),
    ("1.500 orang", "id", "1,500 people", "en", True, None),
    ("a ratio of 1.500", "en", "1.5", "en", True, None),
    ("(in thousands) $19,911", "en", "$19.9 million", "en", True, None),
    ("(in thousands) $19,911", "en", "$19.9 billion", "en", False, MatchReason.scale_mismatch),
    ("Rp 5 miliar", "id", "$5 billion", "en", False, MatchReason.unit_mismatch),
    # --- a noun after a number: it counts things, never money or percent
    ("the first 30 customers", "en", "$30/user", "en", False, MatchReason.kind_mismatch),
    ("the first 20 customers", "en", "first 20 customers", "en", True, None),
    # --- years, dates, times, references
    ("tahun 2023", "id", "TA 2023", "id", True, None),
    ("FY2023", "en", "2023 yılı", "tr", True, None),
    ("FY19", "en", "in 2019", "en", True, None),
    ("tahun 2022", "id", "tahun 2023", "id", False, MatchReason.value_mismatch),
    ("tahun 2023", "id", "Rp2.023", "id", False, MatchReason.kind_mismatch),
    # a year is a period, not a count (issue 23) — unless its digits count a noun themselves
    ("2,019 employees", "en", "FY2019", "en", False, MatchReason.kind_mismatch),
    ("2,019 employees", "en", "in 2019", "en", False, MatchReason.kind_mismatch),
    ("a total of 2,019", "en", "2019", "en", False, MatchReason.kind_mismatch),
    ("2.000 peserta", "id", "2000 peserta", "id", True, None),
    ("2,019 employees", "en", "2019 employees", "en", True, None),
    ("2.000 peserta", "id", "2000 kendaraan", "id", False, MatchReason.kind_mismatch),
    ("18 Desember 2023", "id", "18/12/2023", "id", True, None),
    ("18 Desember 2023", "id", "December 18, 2023", "en", True, None),
    ("before 31st August 2022", "en", "August 31st, 2022", "en", True, None),
    ("August 31st, 2022", "en", "August 30th, 2022", "en", False, MatchReason.value_mismatch),
    ("June 26th", "en", "June 26th, 2022", "en", True, None),
    ("7 pm", "en", "19:00", "en", True, None),
    ("6:55 PM", "en", "5:55 PM", "en", False, MatchReason.value_mismatch),
    ("Let's make it 7.", "en", "at 7 pm", "en", True, None),
    ("Pasal 67", "id", "Pasal 67", "id", True, None),
    ("Pasal 67", "id", "ayat (67)", "id", False, MatchReason.label_mismatch),
    ("Pasal 28D", "id", "Pasal 28", "id", False, MatchReason.value_mismatch),
    ("UU 27/2022", "id", "Undang-Undang Nomor 27 Tahun 2022", "id", True, None),
    ("UU 27/2022", "id", "Undang-Undang Nomor 27 Tahun 2008", "id", False, None),
]


@pytest.mark.parametrize(
    ("a", "lang_a", "b", "lang_b", "equal", "reason"),
    PAIRS,
    ids=[f"{p[0]} ~ {p[2]}" for p in PAIRS],
)
def test_same_value_written_differently_is_equal_and_nothing_else_is(
    a: str,
    lang_a: str | None,
    b: str,
    lang_b: str | None,
    equal: bool,
    reason: MatchReason | None,
) -> None:
    # Given two surfaces  When compared both ways  Then the verdict is symmetric and explained
    qa = one(a, lang_a) if "Undang" not in a else extract_quantities(a, lang_a)[0]
    qb = one(b, lang_b) if "Undang" not in b else extract_quantities(b, lang_b)[0]
    forward, backward = compare(qa, qb), compare(qb, qa)
    assert forward.equal is equal
    assert backward.equal is equal
    assert same_quantity(qa, qb) is equal
    if equal:
        assert forward.reason is MatchReason.equal
    elif reason is not None:
        assert forward.reason is reason


def test_tolerance_is_half_a_unit_of_the_less_precise_last_digit() -> None:
    result = compare(one("871.667.219.294", "id"), one("Rp871,67 miliar", "id"))
    assert result.tolerance == 5_000_000


def test_match_is_truthy_only_when_equal() -> None:
    assert compare(one("Rp 5 miliar", "id"), one("Rp5.000.000.000", "id"))
    assert not compare(one("Rp 5 miliar", "id"), one("Rp 5 juta", "id"))
