"""Rules the document imposes, evaluated against its own facts — no model (ASK-14, ASK-08)."""

from __future__ import annotations

from tanda.extraction import build_structure
from tanda.records.structure import RuleRecord

from .conftest import from_markdown, from_text


def _rules(text: str) -> list[RuleRecord]:
    document, chunks = from_text(text)
    return [r for r in build_structure(document, chunks).records if isinstance(r, RuleRecord)]


def test_a_deadline_broken_by_the_documents_own_term_is_a_violation() -> None:
    (rule,) = _rules(
        "Pembayaran dilakukan paling lambat 14 hari setelah tanggal faktur. "
        "Jangka waktu pembayaran 30 hari."
    )
    assert (rule.rule_type, rule.subject, rule.condition) == ("deadline", "Pembayaran", "≤ 14 hari")
    assert rule.evaluation == "IHLAL"
    assert [(v.text, v.value) for v in rule.violations] == [
        ("Jangka waktu pembayaran = 30 hari", "30 hari")
    ]
    assert rule.quote == "Pembayaran dilakukan paling lambat 14 hari setelah tanggal faktur."
    assert rule.limit is not None and (rule.limit.value, rule.limit.unit) == (14, "d")


def test_a_deadline_the_document_meets_is_met() -> None:
    (rule,) = _rules(
        "Pembayaran dilakukan paling lambat 30 hari setelah tanggal faktur. "
        "Jangka waktu pembayaran 15 hari."
    )
    assert rule.evaluation == "sağlandı"
    assert [f.value for f in rule.satisfied_by] == ["15 hari"]


def test_a_condition_without_facts_to_check_is_not_evaluable_with_the_reason() -> None:
    (rule,) = _rules("Setiap orang dipidana dengan pidana penjara paling lama 6 (enam) tahun.")
    assert (rule.rule_type, rule.subject) == ("cap", "orang dipidana dengan pidana penjara")
    assert rule.evaluation == "DEĞERLENDİRİLEMEDİ"
    assert rule.reason is not None and "no comparable value" in rule.reason


def test_a_norms_limit_is_never_a_fact_against_another_norm() -> None:
    # Two penalties of one statute, the second misread by OCR ("paling tama"): its six years is
    # a norm like the first, not a fact that breaks "paling lama 4 tahun".
    rules = _rules(
        "Pelanggar dipidana dengan pidana penjara paling lama 4 (empat) tahun.\n\n"
        "Pelanggar berat dipidana dengan pidana penjara paling tama 6 (enam) tahun."
    )
    assert [r.evaluation for r in rules] == ["DEĞERLENDİRİLEMEDİ"]


def test_turkish_and_english_caps_and_floors() -> None:
    turkish = _rules(
        "Toplam tutar 100.000 TL'yi aşamaz. Faturanın toplam tutarı 120.000 TL olarak belirlendi."
    )
    assert [(r.rule_type, r.evaluation) for r in turkish] == [("cap", "IHLAL")]
    english = _rules(
        "The deposit shall be at least 10 percent of the price. The deposit paid was 8 percent."
    )
    assert [(r.rule_type, r.subject, r.evaluation) for r in english] == [
        ("floor", "deposit", "IHLAL")
    ]


def test_a_deadline_of_three_times_24_hours_is_72_hours() -> None:
    (rule,) = _rules("Pemberitahuan disampaikan paling lambat 3 x 24 jam.")
    assert rule.condition == "≤ 3 x 24 jam"
    assert rule.limit is not None and rule.limit.value == 72


def test_an_item_table_imposes_that_its_items_sum_to_its_total() -> None:
    document, chunks = from_markdown(
        "# Faktur\n\n| No | Uraian | Jumlah |\n|---|---|---:|\n| 1 | A | 500.000 |\n"
        "| 2 | B | 300.000 |\n| | Total | 850.000 |\n"
    )
    (rule,) = [r for r in build_structure(document, chunks).records if isinstance(r, RuleRecord)]
    assert (rule.rule_type, rule.evaluation) == ("items_sum_to_total", "IHLAL")
    assert rule.quote == " | Total | 850.000"  # the stored row that states the total
    assert [v.text for v in rule.violations] == [
        "Total (Jumlah) = 850.000; kalemlerin toplamı 800.000"
    ]
    assert rule.parent_id == "d1:t1"


def test_paling_lama_counted_from_an_event_is_a_deadline_not_a_cap() -> None:
    (rule,) = _rules(
        "Peraturan Pemerintah harus sudah ditetapkan paling lama 2 (dua) tahun setelah "
        "diundangkannya Undang-Undang ini."
    )
    assert (rule.rule_type, rule.subject) == ("deadline", "Peraturan Pemerintah")


def test_a_rule_quote_starts_after_the_ayat_number_of_its_sentence() -> None:
    (rule,) = _rules(
        "Pasal 7\n\n(1) Faktur diterbitkan setiap bulan.\n"
        "(2) Pembayaran dilakukan paling lambat 14 hari setelah tanggal faktur.\n\n"
        "Pasal 8\n\nCukup."
    )
    assert rule.quote == "Pembayaran dilakukan paling lambat 14 hari setelah tanggal faktur."
    assert rule.subject == "Pembayaran"
