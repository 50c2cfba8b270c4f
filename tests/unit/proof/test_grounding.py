"""Where a value the answer states is written in its sources (ASK-11 ``observed`` grounds)."""

from __future__ import annotations

from tanda.numbers import Quantity, extract_quantities
from tanda.proof import ProofSource
from tanda.proof.grounding import ground

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


def test_an_operand_may_be_the_bare_number_a_source_writes_with_currency_and_scale() -> None:
    bare = q("5.000", "id")
    assert ground(bare, {1}, [APBA], operand=True).ground == "tolerant"
    # Stated as a value of its own, 5.000 is not Rp 5.000 miliar.
    assert ground(bare, {1}, [APBA]).ground == "unverified"
