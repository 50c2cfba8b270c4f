"""Extraction: every numeric surface with its value, kind, unit, scale and period (V2-08).

Cases are real text from ../shared/data (APBD Jawa Timur CSVs, Indonesian statutes, TAT-QA,
summedits) copied inline, plus realistic Turkish budget and news sentences.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tanda.numbers import Quantity, QuantityKind, extract_quantities, parse_number

A, P, C, Y, D, T, R = "amount", "percent", "count", "year", "date", "time", "ordinal"

# (text, lang, [(kind, value, unit), …] in order)
CASES: list[tuple[str, str | None, list[tuple[str, str, str | None]]]] = [
    # --- APBD Jawa Timur (corpus/apbd_jatim/*/*.csv): `M` = miliar, mixed separators per cell
    (
        '" Pendapatan Daerah","10.723,82 M","6.491,38 M",60.53',  # 2023/Surabaya.csv
        "id",
        [(C, "10723820000000", None), (C, "6491380000000", None), (C, "60.53", None)],
    ),
    (
        '" Pendapatan Daerah","3.877,20 M","2.467,22 M",63.63',  # 2023/Gresik.csv
        None,
        [(C, "3877200000000", None), (C, "2467220000000", None), (C, "63.63", None)],
    ),
    (
        '" Pembiayaan Daerah","-55,71 M","0,00 M",0.00',
        "id",
        [(C, "-55710000000", None), (C, "0", None), (C, "0", None)],
    ),
    (
        '" Pengeluaran Pembiayaan Daerah","1,25 M","21,25 M","1,700.00"',
        "id",
        [(C, "1250000000", None), (C, "21250000000", None), (C, "1700", None)],
    ),
    (
        '" Pembiayaan Daerah","16,00 M","378,81 M","2,367.58"',
        "id",
        [(C, "16000000000", None), (C, "378810000000", None), (C, "2367.58", None)],
    ),
    (
        "Pendapatan Daerah,2223.07,2275.10,102.34",  # 2021/Bangkalan.csv (plain decimals)
        "id",
        [(C, "2223.07", None), (C, "2275.10", None), (C, "102.34", None)],
    ),
    (
        "Surplus/(Defisit),-64.26,63.87,-99.39",
        "id",
        [(C, "-64.26", None), (C, "63.87", None), (C, "-99.39", None)],
    ),
    (
        '" Pendapatan Hibah","6,00 M","-0,30 M",-5.00',
        "id",
        [(C, "6000000000", None), (C, "-300000000", None), (C, "-5", None)],
    ),
    (
        '" Pendapatan Daerah","4.694,76 M","4.644,46 M",98.93',  # 2024/Malang.csv
        "id",
        [(C, "4694760000000", None), (C, "4644460000000", None), (C, "98.93", None)],
    ),
    # --- Indonesian statutes (corpus/id_laws/*.pdf)
    (
        "dipidana dengan pidana penjara paling lama 5 (lima) tahun dan/atau pidana denda "
        "paling banyak Rp5.000.000.000,00 (lima miliar rupiah).",  # UU 27/2022 Pasal 67
        "id",
        [(C, "5", "yr"), (A, "5000000000", "IDR")],
    ),
    (
        "pidana denda paling banyak Rp4.000.000.000,00 (empat miliar rupiah).",
        None,
        [(A, "4000000000", "IDR")],
    ),
    ("paling banyak Rp600.000.000,00 (enam ratus juta rupiah)", "id", [(A, "600000000", "IDR")]),
    ("Pasal 67 ayat (1)", "id", [(R, "67", None), (R, "1", None)]),
    ("Pasal 28D ayat (1) Undang-Undang Dasar", "id", [(R, "28", None), (R, "1", None)]),
    (
        "Undang-Undang Nomor 27 Tahun 2022 tentang Pelindungan Data Pribadi",
        "id",
        [(R, "27", None), (Y, "2022", None)],
    ),
    ("sebagaimana diatur dalam UU 27/2022", "id", [(R, "27", None)]),
    ("Peraturan Presiden Nomor 95 Tahun 2018", "id", [(R, "95", None), (Y, "2018", None)]),
    ("Ditetapkan di Jakarta pada tanggal 18 Desember 2023", "id", [(D, "20231218", None)]),
    (
        "paling tinggi 2 (dua) persen dari pendapatan tahunan",
        "id",
        [(P, "2", "%")],
    ),
    # --- Indonesian prose (the seed's example and budget sentences)
    (
        "Anggaran pendidikan 2023 adalah Rp 5 miliar.",
        "id",
        [(Y, "2023", None), (A, "5000000000", "IDR")],
    ),
    ("Naik 9 persen dari 2022.", "id", [(P, "9", "%"), (Y, "2022", None)]),
    (
        "Belanja pegawai TA 2023 sebesar Rp871,67 miliar",
        None,
        [(Y, "2023", None), (A, "871670000000", "IDR")],
    ),
    (
        "tahun anggaran 2024 mencapai Rp 2,5 triliun",
        "id",
        [(Y, "2024", None), (A, "2500000000000", "IDR")],
    ),
    ("harga naik menjadi Rp 15 rb per kg", "id", [(A, "15000", "IDR")]),
    ("bantuan untuk 1.500 orang", "id", [(C, "1500", "person")]),
    ("lahan seluas 2.350 hektar", "id", [(C, "2350", "ha")]),
    ("produksi 12,5 ribu ton", "id", [(C, "12500", "t")]),
    ("penduduk 1 500 000 jiwa", "id", [(C, "1500000", "person")]),
    ("defisit (1.234,5) juta", "id", [(C, "-1234500000", None)]),
    ("dimulai pukul 14.30 WIB", "id", [(T, "870", None)]),
    # --- Turkish (budget and news sentences)
    (
        "Bütçe açığı 2023 yılında 1,5 milyar TL oldu.",
        "tr",
        [(Y, "2023", None), (A, "1500000000", "TRY")],
    ),
    ("Yıllık enflasyon %12,5 olarak gerçekleşti.", "tr", [(P, "12.5", "%")]),
    ("2023 yılında 3.450 kişi başvurdu.", None, [(Y, "2023", None), (C, "3450", "person")]),
    ("işsizlik oranı yüzde 9,4 oldu", "tr", [(P, "9.4", "%")]),
    (
        "Gelirler 750 milyon TL, giderler 1,2 milyar TL",
        "tr",
        [(A, "750000000", "TRY"), (A, "1200000000", "TRY")],
    ),
    ("Destek tutarı ₺2,5 milyon", "tr", [(A, "2500000", "TRY")]),
    ("Politika faizi 5 puan arttı", "tr", [(C, "5", "pt")]),
    ("6698 sayılı Kişisel Verilerin Korunması Kanunu", "tr", [(R, "6698", None)]),
    ("1 Ocak 2024 tarihinde yürürlüğe girdi", "tr", [(D, "20240101", None)]),
    ("Büyümenin %4-5 aralığında olması bekleniyor", "tr", [(P, "4", "%"), (P, "5", "%")]),
    ("12 bin kişi", "tr", [(C, "12000", "person")]),
    ("3,2 trilyon lira", "tr", [(A, "3200000000000", "TRY")]),
    # --- English (TAT-QA dev paragraphs and tables)
    (
        "Net profit/(loss) after tax was $(9.8) million (2018: $6.6 million).",
        "en",
        [(A, "-9800000", "USD"), (Y, "2018", None), (A, "6600000", "USD")],
    ),
    (
        "improved from $62.6 million in FY18 to $85.1 million in FY19.",
        None,
        [(A, "62600000", "USD"), (Y, "2018", None), (A, "85100000", "USD"), (Y, "2019", None)],
    ),
    (
        "The effective income tax rate for 2018 was 18.3% compared to (48.3)% for 2017.",
        None,
        [(Y, "2018", None), (P, "18.3", "%"), (P, "-48.3", "%"), (Y, "2017", None)],
    ),
    ("we expect to pay Intel approximately $1.4 billion in cash", None, [(A, "1.4e9", "USD")]),
    ("full valuation allowances of $19,911 in respect of", "en", [(A, "19911", "USD")]),
    (
        "risk-free interest rate of 2.14%, expected term of seven years, expected volatility "
        "of 22.44% and dividend yield of 1.49%.",
        "en",
        [(P, "2.14", "%"), (P, "22.44", "%"), (P, "1.49", "%")],
    ),
    (
        "In February 2016, we granted 547,000 PSUs",
        "en",
        [(D, "20160200", None), (C, "547000", None)],
    ),
    (
        "the €10.3 billion of spectrum payments to the UK government in 2000 and 2013.",
        "en",
        [(A, "10.3e9", "EUR"), (Y, "2000", None), (Y, "2013", None)],
    ),
    (
        "Total $ 13,448 $ 13,988 $ 12,185",
        "en",
        [(A, "13448", "USD"), (A, "13988", "USD"), (A, "12185", "USD")],
    ),
    ("revenue of US$1.2bn", "en", [(A, "1.2e9", "USD")]),
    ("up 3.5 percentage points", "en", [(P, "3.5", "pp")]),
    ("a ratio of 1.500", "en", [(C, "1.5", None)]),
    ("as of December 31, 2019", "en", [(D, "20191231", None)]),
    # --- summedits (sales email, samsum, podcast, news)
    (
        "an Early Bird Bundle Package for only $100/month, valid for the first 20 customers who "
        "sign up before 31st August 2022",
        "en",
        [(A, "100", "USD"), (C, "20", None), (D, "20220831", None)],
    ),
    (
        "departing at 1:34 PM, reaching Bedford at 6:55 PM",
        "en",
        [(T, "814", None), (T, "1135", None)],
    ),
    ("They agree to meet at 7 pm.", "en", [(T, "1140", None)]),
    ("a transcript of a 30-minute self-guided meditation", "en", [(C, "30", "min")]),
    ("in the death 35 years ago of an American", "en", [(C, "35", "yr")]),
]


def triples(quantities: list[Quantity]) -> list[tuple[str, Decimal, str | None]]:
    return [(q.kind.value, q.value, q.unit) for q in quantities]


@pytest.mark.parametrize(("text", "lang", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_extracts_every_quantity_with_kind_value_and_unit(
    text: str, lang: str | None, expected: list[tuple[str, str, str | None]]
) -> None:
    # Given real text  When extracted  Then kinds, values (after scale) and units are as stated
    got = triples(extract_quantities(text, lang))
    assert got == [(k, Decimal(v), u) for k, v, u in expected]


@pytest.mark.parametrize(("text", "lang", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_span_is_the_surface_in_code_points(
    text: str, lang: str | None, expected: list[tuple[str, str, str | None]]
) -> None:
    for q in extract_quantities(text, lang):
        assert text[q.start : q.end] == q.surface


# (raw, lang, number, decimals): separators are decided per surface.
NUMBERS = [
    ("1.500", "id", "1500", 0),
    ("1.500", "tr", "1500", 0),
    ("1.500", "en", "1.5", 3),
    ("1.500", None, "1500", 0),
    ("1,500", "en", "1500", 0),
    ("1,500", "id", "1.5", 3),
    ("1,500", None, "1500", 0),
    ("871.667.219.294", "en", "871667219294", 0),
    ("871,667,219,294.50", "id", "871667219294.50", 2),
    ("4.874,35", "en", "4874.35", 2),
    ("0,500", "en", "0.5", 3),
    ("1 500 000", None, "1500000", 0),
    ("60.53", "id", "60.53", 2),
    ("10.723,82", "id", "10723.82", 2),
    ("1,700.00", "id", "1700", 2),
]


@pytest.mark.parametrize(("raw", "lang", "number", "decimals"), NUMBERS)
def test_separators_are_decided_per_surface(
    raw: str, lang: str | None, number: str, decimals: int
) -> None:
    assert parse_number(raw, lang) == (Decimal(number), decimals)


def test_scale_keeps_the_raw_number_the_word_and_its_factor() -> None:
    (q,) = extract_quantities("Rp871,67 miliar", "id")
    assert (q.number, q.scale, q.factor, q.decimals) == (
        Decimal("871.67"),
        "miliar",
        Decimal(10**9),
        2,
    )
    assert q.tolerance == Decimal("0.005") * 10**9


def test_budget_table_m_is_miliar_in_indonesian_and_million_in_english() -> None:
    (id_q,) = extract_quantities("4.874,35 M", "id")
    (en_q,) = extract_quantities("$4.8M", "en")
    assert id_q.value == Decimal("4874.35e9")
    assert en_q.value == Decimal("4.8e6")


@pytest.mark.parametrize(
    ("text", "lang", "period"),
    [
        ("Belanja pegawai TA 2023 sebesar Rp871,67 miliar", "id", 2023),
        ("Realisasi tahun anggaran 2024 mencapai Rp 2,5 triliun", "id", 2024),
        ("2023 yılında 3.450 kişi başvurdu.", "tr", 2023),
        ("EBITDA improved to $85.1 million in FY19.", "en", 2019),
        ("Net sales of $1.2 billion for fiscal year 2018 increased", "en", 2018),
        ("The loss was $(9.8) million (2018: $6.6 million).", "en", None),
        ("Naik 9 persen dari 2022.", "id", None),  # the base year of a change is not its period
    ],
)
def test_period_is_the_year_stated_for_the_quantity(
    text: str, lang: str, period: int | None
) -> None:
    first = next(q for q in extract_quantities(text, lang) if q.kind is not QuantityKind.year)
    assert first.period == period


def test_range_gives_two_quantities_that_share_unit_and_scale() -> None:
    low, high = extract_quantities("anggaran Rp 5 s.d. 7 miliar", "id")
    assert (low.value, low.unit, low.range_part) == (Decimal("5e9"), "IDR", "low")
    assert (high.value, high.unit, high.range_part) == (Decimal("7e9"), "IDR", "high")


def test_hyphen_between_numbers_is_a_range_not_a_minus() -> None:
    low, high = extract_quantities("naik 5-7 persen", "id")
    assert (low.value, high.value) == (Decimal(5), Decimal(7))


def test_enumerator_in_a_statute_is_an_ordinal_and_accounting_parentheses_are_negative() -> None:
    (enum,) = extract_quantities("(2) Setiap Orang dilarang", "id")
    (neg,) = extract_quantities("Operating loss (1,234)", "en")
    assert (enum.kind, enum.label) == (QuantityKind.ordinal, "enumerator")
    assert neg.value == -1234


def test_declared_table_scale_is_an_alternative_reading() -> None:
    text = "Deferred charges and other assets (in thousands): 5,687"
    (q,) = extract_quantities(text, "en")
    assert (q.value, q.implied_factor) == (Decimal(5687), Decimal(1000))


def test_words_glued_to_digits_are_not_quantities() -> None:
    assert extract_quantities("SK No255262A dan 4G", "id") == []


def test_a_noun_after_a_bare_number_is_recorded() -> None:
    (q,) = extract_quantities("the first 20 customers", "en")
    assert q.noun == "customers"
