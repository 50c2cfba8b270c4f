"""Issue 25: the numbers cross-check reads a portal or MCP result's stated unit (``Satuan:``) and
period from its identity lines."""

from __future__ import annotations

from tanda.numbers import find_in, period_conflict

IDENTITY = "Dataset: APBD Surabaya 2022; Periode: 2022; Satuan: rupiah; Sumber: BPKAD"
SOURCE = f"{IDENTITY}\nakun: Pendapatan Daerah; anggaran: 9.533,44 M"


def test_a_stated_unit_holds_for_the_sources_scaled_figures() -> None:
    assert find_in("Pendapatan Daerah sebesar Rp9.533,44 miliar.", SOURCE) == []
    [miss] = find_in("Pendapatan Daerah sebesar USD 9.533,44 miliar.", SOURCE)
    assert miss.quantity.surface.startswith("USD")
    # Without the identity line the unit is unknown and a dollar figure is not refuted by it.
    assert (
        find_in(
            "Pendapatan Daerah sebesar USD 9.533,44 miliar.", SOURCE.replace("Satuan: rupiah; ", "")
        )
        == []
    )


def test_a_stated_scale_and_unit_read_bare_figures() -> None:
    assert find_in("Belanja sebesar 5 ribu rupiah.", "Satuan: ribu rupiah\nBelanja: 5") == []


def test_a_claim_naming_another_year_than_the_stated_period_conflicts() -> None:
    assert period_conflict("Pendapatan 2023 sebesar Rp 5 miliar.", ["2022"]) is not None
    assert period_conflict("Pendapatan 2022 sebesar Rp 5 miliar.", ["2022"]) is None
    assert (
        period_conflict("Pendapatan tahun anggaran 2022 sebesar Rp 5 miliar.", ["TA 2022"]) is None
    )
    assert period_conflict("Pendapatan 2023 sebesar Rp 5 miliar.", []) is None
