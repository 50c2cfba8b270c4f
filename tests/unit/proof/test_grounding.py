"""Where a value the answer states is written in its sources (ASK-11 ``observed`` grounds)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import example, given
from hypothesis import strategies as st

from tanda.numbers import Quantity, compare, extract_quantities
from tanda.proof import ProofSource
from tanda.proof.grounding import (
    _as_written,
    _deduction,
    digits_of,
    ground,
    source_quantities,
    weakest,
)

APBA = ProofSource(
    1, "Belanja pegawai tahun 2022 mencapai Rp 871.667.219.294 dan pagu Rp5.000 M.", page_no=4
)
INVOICE = ProofSource(2, "Mal bedeli: 40.470,00 TL. Düzenlenme tarihi 18 Aralık 2023.")
TABLE = ProofSource(3, "Allowance for doubtful accounts | (16) | (15)", layer="table", lang="en")


def q(text: str, lang: str | None = None) -> Quantity:
    (found,) = extract_quantities(text, lang)
    return found


def test_the_same_digits_in_a_cited_source_are_exact() -> None:
    found = ground(q("40.470,00", "tr"), {2}, [APBA, INVOICE])
    assert (found.ground, found.source, found.source_value) == ("exact", INVOICE, "40.470,00 TL")


def test_the_same_value_written_otherwise_is_tolerant() -> None:
    found = ground(q("Rp871,67 miliar", "id"), {1}, [APBA])
    assert (found.ground, found.source_value) == ("tolerant", "Rp 871.667.219.294")


def test_a_value_found_only_in_a_source_the_statement_does_not_cite_is_relocated() -> None:
    found = ground(q("40.470,00 TL", "tr"), {1}, [APBA, INVOICE])
    assert (found.ground, found.source) == ("relocated", INVOICE)


def test_a_value_found_nowhere_is_unverified() -> None:
    found = ground(q("Rp 9 miliar", "id"), {1, 2}, [APBA, INVOICE])
    assert (found.ground, found.source) == ("unverified", None)


def test_another_scale_is_not_the_same_value() -> None:
    assert ground(q("Rp 871 juta", "id"), {1}, [APBA]).ground == "unverified"


def test_a_year_stated_inside_a_date_is_found() -> None:
    assert ground(q("2023"), {2}, [INVOICE]).ground == "tolerant"


def test_a_deduction_in_brackets_is_found_by_its_amount() -> None:
    # (16) in an English table is −16; "an allowance of 16" states its amount.
    assert ground(q("16", "en"), {3}, [TABLE]).ground == "tolerant"
    assert ground(q("-16", "en"), {3}, [TABLE]).ground == "exact"
    # Issue 23 item 13: a minus sign is no bracket — -16 is not a deduction of 16.
    signed = ProofSource(3, "Change in allowance | -16 | -15", layer="table", lang="en")
    assert ground(q("16", "en"), {3}, [signed]).ground == "unverified"


def test_an_operand_may_be_the_bare_number_a_source_writes_with_currency_and_scale() -> None:
    bare = q("5.000", "id")
    assert ground(bare, {1}, [APBA], operand=True).ground == "tolerant"
    # Stated as a value of its own, 5.000 is not Rp 5.000 miliar.
    assert ground(bare, {1}, [APBA]).ground == "unverified"


SCALES = ["", " M", " miliar", " juta", " ribu", "%", " persen"]
CURRENCIES = ["", "Rp ", "Rp"]


def surface(number: Decimal, decimals: int, scale: str, currency: str, bracket: bool) -> str:
    text = f"{number:,.{decimals}f}".replace(",", "_").replace(".", ",").replace("_", ".")
    text = f"({text})" if bracket else text
    return f"{currency}{text}{scale}" if scale not in ("%", " persen") else f"{text}{scale}"


numbers = st.decimals(min_value=0, max_value=10**7, places=2, allow_nan=False, allow_infinity=False)
surfaces = st.builds(
    surface,
    numbers,
    st.integers(0, 2),
    st.sampled_from(SCALES),
    st.sampled_from(CURRENCIES),
    st.booleans(),
)


@given(source=st.lists(surfaces, min_size=1, max_size=12), asked=st.lists(surfaces, max_size=4))
# A window's upper end once stopped short of a later position with the same value.
@example(source=["0", "0", "10.423,55", "10.423,6"], asked=[])
def test_the_index_never_hides_a_quantity_compare_would_call_equal(
    source: list[str], asked: list[str]
) -> None:
    # The windows only spare calls to compare: every source quantity that is equal to the value
    # (as written, as a deduction's amount, or as the bare number an operand copies) is a
    # candidate.
    text = "Tabel anggaran dan realisasi: " + " | ".join(source)
    index = source_quantities(text, "id")
    for value in [*source, *asked]:
        for q in extract_quantities(value, "id"):
            near = set(index.near(q, q.tolerance, operand=True))
            for position, s in enumerate(index.quantities):
                readings = [s, _as_written(s)]
                if (amount := _deduction(s)) is not None:
                    readings.append(amount)
                if any(compare(q, r).equal for r in readings):
                    assert position in near, (q.surface, s.surface)


def test_the_weakest_ground_is_the_least_trusted_and_no_ground_at_all_is_exact() -> None:
    # Issue 23 item 13: by trust (exact < tolerant < relocated < unverified < refuted), not by
    # name.
    assert weakest([]) == "exact"
    assert weakest(["refuted", "unverified"]) == "refuted"
    assert weakest(["tolerant", "relocated", "exact"]) == "relocated"


def test_a_verbatim_copy_in_a_later_cited_source_beats_a_tolerant_one_in_an_earlier() -> None:
    # Issue 23 item 13: every cited source is searched for the exact surface before settling.
    verbatim = ProofSource(2, "Belanja pegawai Rp871,67 miliar.")
    found = ground(q("Rp871,67 miliar", "id"), {1, 2}, [APBA, verbatim])
    assert (found.ground, found.source, found.source_value) == (
        "exact",
        verbatim,
        "Rp871,67 miliar",
    )


def test_a_relocated_value_shows_how_the_uncited_source_writes_it() -> None:
    found = ground(q("40.470,00", "tr"), {1}, [APBA, INVOICE])
    where = (found.ground, found.source, found.source_value)
    assert where == ("relocated", INVOICE, "40.470,00 TL")


def test_the_digits_of_a_value_drop_its_spaces_and_a_surface_without_digits_stays() -> None:
    assert digits_of("1 000 000 €") == "1000000"
    assert digits_of("12 345,67 zł") == "12345,67"
    assert digits_of("€") == "€"


# --- issue 23 item 13: what the second mutation run of tanda/proof left untested ----------


def test_a_tolerant_ground_names_its_source_and_how_that_source_writes_the_value() -> None:
    # Written otherwise, a deduction's amount, the bare number of an operand, a year in a date:
    # each shows the reader where to look and what is written there.
    cases = [
        (ground(q("Rp871,67 miliar", "id"), {1}, [APBA]), APBA, "Rp 871.667.219.294"),
        (ground(q("16", "en"), {3}, [TABLE]), TABLE, "(16)"),
        (ground(q("5.000", "id"), {1}, [APBA], operand=True), APBA, "Rp5.000 M"),
        (ground(q("2023"), {2}, [INVOICE]), INVOICE, "18 Aralık 2023"),
    ]
    for found, source, written in cases:
        assert (found.ground, found.source, found.source_value) == ("tolerant", source, written)


def test_a_zero_the_source_writes_is_exact() -> None:
    nil = ProofSource(4, "Tunggakan pajak: 0 TL.")
    assert ground(q("0 TL", "tr"), {4}, [nil]).ground == "exact"
    assert ground(q("0", "tr"), {4}, [nil]).ground == "exact"


def test_the_first_tolerant_writing_is_kept_and_a_deduction_under_one_is_found() -> None:
    table = ProofSource(3, "Allowance | 16.0 | (16) | (0.5)", layer="table", lang="en")
    assert ground(q("16", "en"), {3}, [table]).source_value == "16.0"
    half = ground(q("0.5", "en"), {3}, [table])
    assert (half.ground, half.source_value) == ("tolerant", "(0.5)")


def test_a_value_exactly_its_tolerance_from_the_source_s_first_value_is_found() -> None:
    # 10,4 states ±0,05: 10,35 is at that limit, and it is the first value of the source.
    edge = ProofSource(1, "Nilai 10,35 dan 20 menurut tabel.")
    found = ground(q("10,4", "id"), {1}, [edge])
    assert (found.ground, found.source_value) == ("tolerant", "10,35")


def test_a_source_is_read_in_its_marked_language_not_the_one_its_words_suggest() -> None:
    # (197) is a deduction of 197 in English, a paragraph's number in Indonesian.
    marked = ProofSource(1, "Penyisihan piutang tak tertagih (197) pada tahun berjalan", lang="en")
    assert ground(q("197", "en"), {1}, [marked]).ground == "tolerant"


def test_only_a_bare_operand_may_be_the_number_a_source_writes_with_a_scale() -> None:
    # Rp 5.000 is not Rp 5.000 miliar, even as an operand; a year is no bare number either.
    assert ground(q("Rp 5.000", "id"), {1}, [APBA], operand=True).ground == "unverified"
    ceiling = ProofSource(1, "Pagu Rp2.022 M.")
    assert ground(q("2022"), {1}, [ceiling], operand=True).ground == "unverified"


def test_a_value_under_a_table_s_declared_scale_is_found_by_that_scale() -> None:
    table = ProofSource(1, "Tabel (dalam jutaan rupiah): Pendapatan 5.000; Belanja 4.000.")
    found = ground(q("Rp 5 miliar", "id"), {1}, [table])
    assert (found.ground, found.source_value) == ("tolerant", "5.000")


def test_an_operand_may_be_the_number_a_source_writes_with_a_scale_word_alone() -> None:
    ceiling = ProofSource(1, "Pagu tahun ini 5.000 miliar menurut peraturan.")
    found = ground(q("5.000", "id"), {1}, [ceiling], operand=True)
    assert (found.ground, found.source_value) == ("tolerant", "5.000 miliar")


def test_an_amount_is_not_grounded_by_a_fiscal_year_of_the_same_digits() -> None:
    # Only a year is looked for among the years a source states for its values (issue 23).
    fiscal = ProofSource(1, "In FY2019 revenue was 500.", lang="en")
    assert not ground(q("$2,019", "en"), {1}, [fiscal]).found
    assert ground(q("2019", "en"), {1}, [fiscal]).source_value == "FY2019"


def test_a_count_is_not_grounded_by_a_year_of_the_same_digits() -> None:
    # A year is a period: 2,019 employees are no FY2019, nor "in 2019" (issue 23).
    for source in ("In FY2019 revenue was 500.", "The plant opened in 2019 near the port."):
        assert not ground(q("2,019 employees", "en"), {1}, [ProofSource(1, source)]).found
    # A count its four digits made a year ("2000 peserta") is still the same count.
    held = ProofSource(1, "Pelatihan diikuti 2000 peserta dari seluruh provinsi.", lang="id")
    found = ground(q("2.000 peserta", "id"), {1}, [held])
    assert (found.ground, found.source_value) == ("tolerant", "2000")


def test_only_a_bare_operand_is_looked_for_as_a_source_s_number_without_its_words() -> None:
    # "12 bulan" counts months and "5 ribu" states its scale: neither is the bare number a
    # source writes before a currency or a scale word ("Rp 12 juta", "Rp 5.000 juta").
    for text, source in (
        ("12 bulan", "Bonus tahunan Rp 12 juta."),
        ("5 ribu", "Pagu Rp 5.000 juta."),
    ):
        assert not ground(q(text, "id"), {1}, [ProofSource(1, source)], operand=True).found
    # Where the source writes the months, they are found.
    held = ground(q("12 bulan", "id"), {1}, [ProofSource(1, "Masa kerja 12 bulan.")], operand=True)
    assert (held.ground, held.source_value) == ("exact", "12 bulan")
