"""Entities of prose: ``TYPE: name = value``, verbatim and in normal form (ASK-14)."""

from __future__ import annotations

from tanda.extraction import build_structure
from tanda.records.structure import EntityRecord

from .conftest import from_markdown, from_text


def _entities(text: str) -> list[EntityRecord]:
    document, chunks = from_text(text)
    records = build_structure(document, chunks).records
    entities = [r for r in records if isinstance(r, EntityRecord)]
    by_id = {c.chunk_id: c for c in chunks}
    for entity in entities:  # every value is the stored text at its span
        assert by_id[entity.chunk_id].text[entity.span.start : entity.span.end] == entity.value
    return entities


def test_amounts_are_named_by_the_words_before_them_and_normalised() -> None:
    (amount, year) = [e for e in _entities("Anggaran pendidikan adalah Rp 5 miliar pada TA 2023.")]
    assert amount.text == "AMOUNT: Anggaran pendidikan = Rp 5 miliar"
    assert amount.canonical == "anggaran pendidikan"
    assert amount.normal is not None
    assert (amount.normal.value, amount.normal.currency, amount.normal.scale) == (
        5_000_000_000,
        "IDR",
        "miliar",
    )
    assert amount.normal.period == 2023
    assert year.entity_type == "PERIOD" and year.name == "tahun anggaran"


def test_dates_durations_and_percentages_in_three_languages() -> None:
    found = {
        (e.entity_type, e.value)
        for e in _entities(
            "Faktur diterbitkan 1 Maret 2024. Ödeme en geç 30 gün içinde yapılır. "
            "The discount is 12 percent."
        )
    }
    assert {("DATE", "1 Maret 2024"), ("DURATION", "30 gün"), ("PERCENT", "12 percent")} <= found


def test_statute_and_invoice_references_are_entities_but_personal_ids_are_not() -> None:
    entities = _entities(
        "Mengingat Undang-Undang Nomor 11 Tahun 2008. Nomor Faktur: INV-2024-0012. "
        "NPWP: 01.234.567.8-901.000. NIK: 3171012345678901."
    )
    references = [(e.name, e.value) for e in entities if e.entity_type == "REFERENCE"]
    assert references == [
        ("Mengingat Undang-Undang", "Nomor 11 Tahun 2008"),
        ("Nomor Faktur", "INV-2024-0012"),
        ("NPWP", "01.234.567.8-901.000"),
    ]
    assert not any("3171012345678901" in e.value for e in entities)


def test_parties_and_places_are_named_once_per_document() -> None:
    entities = _entities(
        "Penjual: PT Sinar Jaya Abadi. Pembeli: Kementerian Keuangan Republik Indonesia.\n"
        "PT Sinar Jaya Abadi mengirim barang.\nAlıcı: Anadolu Gıda Sanayi A.Ş.\n"
        "Ditetapkan di Jakarta"
    )
    parties = [(e.name, e.value) for e in entities if e.entity_type == "PARTY"]
    assert parties == [
        ("Penjual", "PT Sinar Jaya Abadi"),
        ("Pembeli", "Kementerian Keuangan Republik Indonesia"),
        ("Alıcı", "Anadolu Gıda Sanayi A.Ş."),
    ]
    assert [(e.entity_type, e.value) for e in entities if e.entity_type == "PLACE"] == [
        ("PLACE", "Jakarta")
    ]


def test_a_name_never_reaches_back_into_the_value_before_it() -> None:
    entities = _entities("Dipidana penjara paling lama 6 (enam) tahun dan/atau denda paling "
                         "banyak Rp1.000.000.000,00.")  # fmt: skip
    assert [e.name for e in entities] == ["Dipidana penjara paling lama", "denda paling banyak"]


def test_plain_counts_and_article_numbers_are_not_entities() -> None:
    assert _entities("Pasal 5 ayat (2) berlaku bagi 30 orang peserta.") == []


def test_the_cells_of_a_table_that_lists_no_items_are_entities() -> None:
    document, chunks = from_markdown(
        "| Tahun | Inflasi (%) |\n|---|---:|\n| 2022 | 5,51 |\n| 2023 | 2,61 |\n"
    )
    entities = [r for r in build_structure(document, chunks).records if r.kind == "entity"]
    assert [e.text for e in entities] == [
        "PERIOD: 2022 (Tahun) = 2022",
        "PERCENT: 2022 (Inflasi (%)) = 5,51",
        "PERIOD: 2023 (Tahun) = 2023",
        "PERCENT: 2023 (Inflasi (%)) = 2,61",
    ]
