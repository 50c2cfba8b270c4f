"""``find_in``: the claim's quantities its source does not state — the judge may only withhold
``supported`` with it, never grant (V2-08, issue 4 "beyond the seed"; ASK-11 holes).
"""

from __future__ import annotations

import time

import pytest

from tanda.numbers import UnmatchedReason, extract_quantities, find_in

NF, PM, RM = (
    UnmatchedReason.not_found,
    UnmatchedReason.period_mismatch,
    UnmatchedReason.reference_mismatch,
)

UU_27_2022_PASAL_67 = (
    "Pasal 67\n"
    "(1) Setiap Orang yang dengan sengaja dan melawan hukum memperoleh atau mengumpulkan Data "
    "Pribadi yang bukan miliknya dengan maksud untuk menguntungkan diri sendiri atau orang lain "
    "yang dapat mengakibatkan kerugian Subjek Data Pribadi sebagaimana dimaksud dalam Pasal 65 "
    "ayat (1) dipidana dengan pidana penjara paling lama 5 (lima) tahun dan/atau pidana denda "
    "paling banyak Rp5.000.000.000,00 (lima miliar rupiah).\n"
    "(2) Setiap Orang yang dengan sengaja dan melawan hukum mengungkapkan Data Pribadi yang bukan "
    "miliknya sebagaimana dimaksud dalam Pasal 65 ayat (2) dipidana dengan pidana penjara paling "
    "lama 4 (empat) tahun dan/atau pidana denda paling banyak Rp4.000.000.000,00 (empat miliar "
    "rupiah)."
)
APBD_GRESIK_2023 = (
    "APBD Gresik 2023\n"
    "akun,anggaran,realisasi,persentase\n"
    '" Pendapatan Daerah","3.877,20 M","2.467,22 M",63.63\n'
    '" PAD","1.610,93 M","812,07 M",50.41\n'
    '" Belanja Daerah","4.085,73 M","2.090,00 M",51.15'
)
TATQA_KEMET = (
    "Net sales of $1.2 billion for fiscal year 2018 increased 58.5% from $757.3 million for "
    "fiscal year 2017. Solid Capacitor and Film and Electrolytic sales increased by $196.1 million "
    "and $19.7 million, respectively and net sales for MSA, our new reportable segment in fiscal "
    "year 2018, was $227.0 million."
)
TATQA_EBITDA = (
    "Net profit/(loss) after tax was $(9.8) million (2018: $6.6 million). Non-statutory "
    "underlying earnings before interest, tax, depreciation and amortisation (EBITDA) improved "
    "from $62.6 million in FY18 to $85.1 million in FY19."
)
TATQA_VALUATION = (
    "As of December 31, 2019, the Company has provided a full valuation allowances of $19,911 in "
    "respect of deferred tax assets resulting from tax loss carryforward (in thousands)."
)
SALES_EMAIL = (
    "As a token of appreciation for trusted clients like you, we are currently offering an Early "
    "Bird Bundle Package for only $100/month, which includes access to all the above services. The "
    "offer is valid for the first 20 customers who sign up before 31st August 2022, saving you up "
    "to 40% on the regular pricing!"
)
SAMSUM_PUB = (
    "Alex: Wanna grab some beer?TGIF . Jacob: Where? 'The shark'? . Alex: Not this time. I found "
    "a cool pub. . Jacob: Got it! 7? 8? . Alex: Let's make it 7. . Jacob: Ok."
)
NEWS_TURKISH = (
    "Bakanlık verilerine göre 2023 yılında başvuru sayısı 3.450 kişiye ulaştı; bütçe "
    "1.500.000.000 TL olarak gerçekleşti. Yıllık enflasyon %12,5 oldu."
)

# (claim, source, lang, [(surface, reason), …])
CASES: list[tuple[str, str, str | None, list[tuple[str, UnmatchedReason]]]] = [
    # --- the seed's example
    (
        "Anggaran pendidikan 2023 adalah Rp 5 miliar.",
        "Anggaran pendidikan tahun 2023 sebesar Rp5.000.000.000,00.",
        "id",
        [],
    ),
    (
        "Anggaran pendidikan 2023 adalah Rp 5 juta.",
        "Anggaran pendidikan tahun 2023 sebesar Rp5.000.000.000,00.",
        "id",
        [("Rp 5 juta", NF)],
    ),
    (
        "Anggaran pendidikan 2022 adalah Rp 5 miliar.",
        "Anggaran pendidikan tahun 2023 sebesar Rp5.000.000.000,00.",
        "id",
        [("2022", NF), ("Rp 5 miliar", PM)],
    ),
    # --- statutes (UU 27/2022 Pasal 67)
    (
        "Pelanggaran Pasal 67 ayat (1) diancam denda paling banyak Rp5 miliar.",
        UU_27_2022_PASAL_67,
        "id",
        [],
    ),
    (
        "Pelanggaran Pasal 67 diancam denda paling banyak Rp6 miliar.",
        UU_27_2022_PASAL_67,
        "id",
        [("Rp6 miliar", NF)],
    ),
    ("Pasal 68 mengancam denda Rp4 miliar.", UU_27_2022_PASAL_67, "id", [("Pasal 68", RM)]),
    (
        "Pengungkapan data pribadi diancam penjara paling lama 6 tahun.",
        UU_27_2022_PASAL_67,
        "id",
        [("6 tahun", NF)],
    ),
    (
        "Pengungkapan data pribadi diancam penjara paling lama 4 tahun.",
        UU_27_2022_PASAL_67,
        "id",
        [],
    ),
    ("(1) Setiap Orang dilarang memperoleh Data Pribadi.", "Pasal 65", "id", []),
    (
        "Menurut UU 27/2022 dendanya Rp5 miliar.",
        "Undang-Undang Nomor 27 Tahun 2022 ... Rp5.000.000.000,00",
        "id",
        [],
    ),
    (
        "Menurut UU 11/2008 dendanya Rp5 miliar.",
        "Undang-Undang Nomor 27 Tahun 2022 ... Rp5.000.000.000,00",
        "id",
        [("11/2008", RM)],
    ),
    # --- APBD table cells vs an answer in prose
    (
        "Realisasi Pendapatan Daerah Gresik 2023 sebesar Rp2,47 triliun atau 63,63 persen dari "
        "anggaran Rp3,88 triliun.",
        APBD_GRESIK_2023,
        "id",
        [],
    ),
    (
        "Realisasi Pendapatan Daerah Gresik 2023 mencapai 65 persen.",
        APBD_GRESIK_2023,
        "id",
        [("65 persen", NF)],
    ),
    (
        "Realisasi PAD Gresik sebesar Rp812,07 juta.",
        APBD_GRESIK_2023,
        "id",
        [("Rp812,07 juta", NF)],
    ),
    ("Belanja Daerah terealisasi Rp2.090 miliar.", APBD_GRESIK_2023, "id", []),
    # --- TAT-QA
    (
        "Net sales were $1.2 billion in fiscal year 2018, up 58.5% from $757.3 million in fiscal "
        "year 2017.",
        TATQA_KEMET,
        "en",
        [],
    ),
    ("Net sales rose 68.5% in fiscal year 2018.", TATQA_KEMET, "en", [("68.5%", NF)]),
    ("MSA net sales were $227 million.", TATQA_KEMET, "en", []),
    ("MSA net sales were $272.0 million.", TATQA_KEMET, "en", [("$272.0 million", NF)]),
    ("EBITDA was $85.1 million in FY19.", TATQA_EBITDA, "en", []),
    ("EBITDA was $85.1 million in FY18.", TATQA_EBITDA, "en", [("$85.1 million", PM)]),
    ("The net loss after tax was $9.8 million.", TATQA_EBITDA, "en", [("$9.8 million", NF)]),
    ("The net loss after tax was -$9.8 million.", TATQA_EBITDA, "en", []),
    ("The valuation allowance was $19.9 million in 2019.", TATQA_VALUATION, "en", []),
    # --- summedits: consistent summary vs number edits
    (
        "A special Early Bird Bundle Package is currently being offered for $100/month to the "
        "first 20 customers who sign up before August 31st, 2022.",
        SALES_EMAIL,
        "en",
        [],
    ),
    (
        "A special Early Bird Bundle Package is currently being offered for $50/month to the "
        "first 20 customers who sign up before August 31st, 2022.",
        SALES_EMAIL,
        "en",
        [("$50", NF)],
    ),
    (
        "The package is offered for $100/month to the first 30 customers.",
        SALES_EMAIL,
        "en",
        [("30", NF)],
    ),
    (
        "The package is offered to customers who sign up before August 30th, 2022.",
        SALES_EMAIL,
        "en",
        [("August 30th, 2022", NF)],
    ),
    ("They agree to meet at 7 pm.", SAMSUM_PUB, "en", []),
    ("They agree to meet at 9 pm.", SAMSUM_PUB, "en", [("9 pm", NF)]),
    # --- Turkish
    (
        "2023 yılında 3.450 kişi başvurdu ve bütçe 1,5 milyar TL oldu.",
        NEWS_TURKISH,
        "tr",
        [],
    ),
    ("Yıllık enflasyon %13,5 oldu.", NEWS_TURKISH, "tr", [("%13,5", NF)]),
    ("Bütçe 1,5 milyon TL oldu.", NEWS_TURKISH, "tr", [("1,5 milyon TL", NF)]),
    ("2022 yılında 3.450 kişi başvurdu.", NEWS_TURKISH, "tr", [("2022", NF), ("3.450 kişi", PM)]),
    # --- across languages: an English answer over a Turkish source
    ("Inflation was 12.5% in 2023.", NEWS_TURKISH, None, []),
    # --- ranges
    ("Pertumbuhan diperkirakan 5–7 persen.", "tumbuh 5 hingga 7 persen", "id", []),
    ("Pertumbuhan diperkirakan 5–8 persen.", "tumbuh 5 hingga 7 persen", "id", [("8 persen", NF)]),
]


@pytest.mark.parametrize(
    ("claim", "source", "lang", "expected"), CASES, ids=[c[0][:50] for c in CASES]
)
def test_reports_exactly_the_claim_quantities_the_source_does_not_state(
    claim: str, source: str, lang: str | None, expected: list[tuple[str, UnmatchedReason]]
) -> None:
    # Given a claim and its cited source  When checked  Then only unstated quantities are reported
    got = [(u.quantity.surface, u.reason) for u in find_in(claim, source, lang)]
    assert got == expected


def test_a_claim_without_numbers_has_nothing_to_withhold() -> None:
    assert find_in("Data pribadi dilindungi undang-undang.", "") == []


def test_period_mismatch_names_the_source_quantity_and_both_periods() -> None:
    (miss,) = find_in("EBITDA was $85.1 million in FY18.", TATQA_EBITDA, "en")
    assert miss.nearest is not None and miss.nearest.period == 2019
    assert "2019" in miss.detail and "2018" in miss.detail


def test_scale_slip_points_at_the_nearest_source_quantity() -> None:
    (miss,) = find_in("Anggaran Rp 5 juta.", "Anggaran Rp5.000.000.000,00.", "id")
    assert miss.nearest is not None and miss.nearest.surface == "Rp5.000.000.000,00"
    assert miss.detail == "scale_mismatch"


def test_source_lang_may_differ_from_the_claim_lang() -> None:
    assert find_in("a fee of 1.500 rupiah", "biaya Rp1.500", "en", source_lang="id") != []
    assert find_in("a fee of 1,500 rupiah", "biaya Rp1.500", "en", source_lang="id") == []


PASSAGE = (UU_27_2022_PASAL_67 + " " + TATQA_KEMET + " " + NEWS_TURKISH)[:1000]


def test_extracting_a_1000_character_passage_is_fast() -> None:
    # Generous bound (the measured figure is ~0.3 ms); catches accidental quadratic work. The
    # thread's CPU time, not wall time: other processes on the machine do not count (issue 12).
    extract_quantities(PASSAGE)
    runs = 50
    started = time.thread_time()
    for _ in range(runs):
        extract_quantities(PASSAGE)
    assert (time.thread_time() - started) / runs < 0.005
