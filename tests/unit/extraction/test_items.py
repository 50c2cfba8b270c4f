"""Line items and the KALEM ÖZETİ of every item table (ASK-14, ASK-08)."""

from __future__ import annotations

from decimal import Decimal

from tanda.extraction import build_structure
from tanda.extraction.budget import account_key, budget_layout
from tanda.records.structure import LineItemRecord, LineItemSummaryRecord, StructureRecord

from .conftest import from_csv, from_markdown


def _build(records: list[StructureRecord]) -> tuple[list[LineItemRecord], LineItemSummaryRecord]:
    items = [r for r in records if isinstance(r, LineItemRecord)]
    (summary,) = [r for r in records if isinstance(r, LineItemSummaryRecord)]
    return items, summary


def _invoice(total: str) -> list[StructureRecord]:
    document, chunks = from_markdown(
        "# Faktur 12\n\n"
        "| No | Uraian | Qty | Harga Satuan | Jumlah (Rp) |\n|---|---|---:|---:|---:|\n"
        "| 1 | Kertas A4 | 10 | 50.000 | 500.000 |\n"
        "| 2 | Tinta hitam | 2 | 150.000 | 300.000 |\n"
        f"| | Total | | | {total} |\n"
    )
    return build_structure(document, chunks).records


def test_invoice_lines_read_cell_by_cell_as_kalem() -> None:
    items, _ = _build(_invoice("800.000"))
    first = items[0]
    assert first.text == (
        "KALEM: kalem no=1, tanim=Kertas A4, miktar=10, tutar=500.000, Harga Satuan=50.000"
    )
    assert (first.item_no, first.description, first.role) == ("1", "Kertas A4", "item")
    assert first.quantity is not None and first.quantity.surface == "10"
    (amount,) = first.amounts
    assert amount.normal is not None
    assert (amount.normal.value, amount.normal.currency) == (500000, "IDR")
    assert first.quote == "1 | Kertas A4 | 10 | 50.000 | 500.000"


def test_items_that_sum_to_the_stated_total_agree() -> None:
    items, summary = _build(_invoice("800.000"))
    assert (summary.item_count, summary.row_count) == (2, 3)
    assert summary.stated_total == "800.000" and summary.items_sum == 800000
    assert summary.agrees is True
    total = items[-1]
    assert total.role == "total" and total.total_of == (items[0].node_id, items[1].node_id)
    assert summary.text == (
        "KALEM ÖZETİ: 2 kalem (3 satır); belge toplamı (Jumlah (Rp))=800.000; "
        "kalemlerin toplamı=800.000; uyuşuyor"
    )


def test_items_that_do_not_sum_to_the_stated_total_disagree() -> None:
    _, summary = _build(_invoice("850.000"))
    assert summary.agrees is False
    (check,) = summary.checks
    assert (check.stated_value, check.items_sum, check.items_sum_surface) == (
        850000,
        800000,
        "800.000",
    )
    assert "UYUŞMUYOR" in summary.text


def test_rounding_the_surfaces_allow_is_not_a_disagreement() -> None:
    # Two items of 1,004 and 2,004 (M) shown to two decimals: 1,00 + 2,00 = 3,00 but the total,
    # computed before rounding, reads 3,01. Half a last digit each: tolerance 0,015.
    document, chunks = from_csv(
        'akun,anggaran\nJumlah,"3,01 M"\n', path="t.csv"
    )  # a total first, nothing to sum: no check
    assert _checks_of(build_structure(document, chunks).records) == []
    document, chunks = from_csv('uraian,nilai\nA,"1,00 M"\nB,"2,00 M"\nJumlah,"3,01 M"\n')
    _, summary = _build(build_structure(document, chunks).records)
    (check,) = summary.checks
    assert check.tolerance == Decimal("0.015") * 10**9
    assert check.agrees is True
    document, chunks = from_csv('uraian,nilai\nA,"1,00 M"\nB,"2,00 M"\nJumlah,"3,03 M"\n')
    _, summary = _build(build_structure(document, chunks).records)
    assert summary.agrees is False


def _checks_of(records: list[StructureRecord]) -> list[object]:
    return [c for r in records if isinstance(r, LineItemSummaryRecord) for c in r.checks]


def test_subtotals_sum_their_items_and_the_total_every_item() -> None:
    document, chunks = from_markdown(
        "| Uraian | Jumlah |\n|---|---:|\n| A | 10 |\n| B | 20 |\n| Subtotal | 30 |\n"
        "| C | 5 |\n| Subtotal | 5 |\n| Total | 35 |\n"
    )
    items, summary = _build(build_structure(document, chunks).records)
    assert [i.role for i in items] == ["item", "item", "subtotal", "item", "subtotal", "total"]
    assert summary.item_count == 3 and summary.agrees is True
    assert [c.items for c in summary.checks] == [2, 1, 3]


def test_whole_amounts_add_up_exactly() -> None:
    # A total off by one unit is a disagreement: whole numbers of units hide no rounding.
    _, summary = _build(_invoice("800.001"))
    assert summary.agrees is False and summary.checks[0].tolerance == 0


def test_nested_item_numbers_say_which_rows_a_row_sums() -> None:
    document, chunks = from_markdown(
        "| Kode | Uraian | Jumlah |\n|---|---|---:|\n| 1 | Belanja | 30 |\n"
        "| 1.1 | Pegawai | 10 |\n| 1.2 | Barang | 21 |\n"
    )
    items, summary = _build(build_structure(document, chunks).records)
    assert [i.level for i in items] == [1, 2, 2]
    assert items[0].role == "total" and len(items[0].total_of) == 2
    (check,) = summary.checks
    assert (check.stated_value, check.items_sum, check.agrees) == (30, 31, False)


APBD_2021 = """akun,anggaran,realisasi,persentase
Pendapatan Daerah,100.00,90.00,90
PAD,60.00,50.00,83
Pajak Daerah,40.00,30.00,75
Retribusi Daerah,20.00,20.00,100
TKDD,40.00,40.00,100
Pendapatan Transfer Pemerintah Pusat,40.00,40.00,100
Belanja Daerah,110.00,80.00,72
Belanja Pegawai,50.00,40.00,80
Belanja Pegawai,50.00,40.00,80
Belanjaodal,60.00,40.00,66
Surplus/(Defisit),-10.00,10.00,-100
Pembiayaan Daerah,10.00,0.00,0
Penerimaan Pembiayaan Daerah,15.00,12.00,80
Sisa Lebih Perhitungan Anggaran Tahun Sebelumnya,15.00,12.00,80
Pengeluaran Pembiayaan Daerah,5.00,2.00,40
Penyertaan Modal Daerah,5.00,2.00,40
"""


def test_a_budget_table_is_checked_along_its_account_tree() -> None:
    # Given an APBD table (2021 layout: bare numbers, a head repeated as its own item, the
    # capital M lost from "Belanja Modal", a derived surplus, a net financing account) whose
    # stated net financing realisation is 0,00 while 12,00 − 2,00 = 10,00
    document, chunks = from_csv(APBD_2021, path="apbd_jatim/2021/Kota.csv")
    items, summary = _build(build_structure(document, chunks).records)
    # Then the items are the leaves and every head is checked in both amount columns
    assert summary.item_count == 7 and summary.row_count == 16
    assert [i.level for i in items][:7] == [1, 2, 3, 3, 2, 3, 1]
    roles = {i.description: i.role for i in items}
    assert roles["Pajak Daerah"] == "item" and roles["PAD"] == "subtotal"
    assert roles["Surplus/(Defisit)"] == "total"
    failing = [(c.label, c.column) for c in summary.checks if not c.agrees]
    assert failing == [("Pembiayaan Daerah", "realisasi")]
    financing = next(c for c in summary.checks if not c.agrees)
    assert financing.items_sum_surface == "10.00"
    assert financing.formula == (
        "Pembiayaan Daerah = Penerimaan Pembiayaan Daerah − Pengeluaran Pembiayaan Daerah"
    )
    surplus = [c for c in summary.checks if c.label == "Surplus/(Defisit)"]
    assert [(c.column, c.agrees) for c in surplus] == [("anggaran", True), ("realisasi", True)]
    assert summary.agrees is False
    assert "UYUŞMUYOR: Pembiayaan Daerah (realisasi): belge 0.00, kalemlerin toplamı 10.00" in (
        summary.text
    )


def test_account_names_are_matched_folded_and_through_a_lost_letter() -> None:
    assert account_key(" Belanja  Barang dan Jasa") == "belanja barang jasa"
    assert account_key("Belanjaodal") == "belanja modal"
    assert account_key("Pendapatan Hibah") is None  # an item, not a head
    layout = budget_layout(["Belanja Daerah", "Belanja Pegawai", "Belanja Pegawai"])
    assert [(r.level, r.parent) for r in layout] == [(1, None), (2, 0), (3, 1)]


def test_the_summary_counts_every_item_whatever_a_caller_is_shown() -> None:
    rows = "".join(f"| {n} | Barang {n} | {n}.000 |\n" for n in range(1, 73))
    document, chunks = from_markdown(
        f"| No | Uraian | Jumlah |\n|---|---|---:|\n{rows}| | Jumlah | 2.628.000 |\n", target=400
    )
    assert len(chunks) > 3
    items, summary = _build(build_structure(document, chunks).records)
    assert summary.item_count == 72 and len(items) == 73
    assert summary.agrees is True  # 1 + … + 72 thousand
