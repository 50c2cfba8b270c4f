"""Legal identity read from title blocks (V2-07): Indonesian regional regulations and decrees, and
Turkish legislation, each written as it is printed."""

from __future__ import annotations

import pytest

from tanda.records.documents import LegalIdentity
from tanda.retrieval.ingest.identity import approved_by, extract_legal_identity


def _identity(
    reference: str, regulation_type: str, number: str | None, year: int | None, publisher: str
) -> LegalIdentity:
    return LegalIdentity(
        legal_reference=reference,
        regulation_type=regulation_type,
        number=number,
        year=year,
        publisher=publisher,
    )


INDONESIAN_REGIONAL = [
    pytest.param(
        "SALINAN\nQANUN ACEH\nNOMOR 1 TAHUN 2023\nTENTANG\nANGGARAN PENDAPATAN DAN BELANJA ACEH\n"
        "TAHUN ANGGARAN 2023\n\nBISMILLAHIRRAHMANIRRAHIM\nDENGAN RAHMAT ALLAH YANG MAHA KUASA\n"
        "GUBERNUR ACEH,\n\nMenimbang : a. bahwa berdasarkan ketentuan Pasal 311",
        _identity(
            "Qanun Aceh Nomor 1 Tahun 2023 tentang Anggaran Pendapatan dan Belanja Aceh Tahun "
            "Anggaran 2023",
            "Qanun Aceh",
            "1",
            2023,
            "Gubernur Aceh",
        ),
        id="qanun-aceh",
    ),
    pytest.param(
        "QANUN KABUPATEN ACEH BESAR\nNOMOR 4 TAHUN 2019\nTENTANG\nPENYELENGGARAAN PENDIDIKAN\n"
        "BISMILLAHIRRAHMANIRRAHIM\nDENGAN RAHMAT ALLAH YANG MAHA KUASA\nBUPATI ACEH BESAR,",
        _identity(
            "Qanun Kabupaten Aceh Besar Nomor 4 Tahun 2019 tentang Penyelenggaraan Pendidikan",
            "Qanun Kabupaten",
            "4",
            2019,
            "Bupati Aceh Besar",
        ),
        id="qanun-kabupaten",
    ),
    pytest.param(
        "QANUN KOTA BANDA ACEH\nNOMOR 1 TAHUN 2016\nTENTANG\nPENGELOLAAN KEUANGAN GAMPONG\n"
        "BISMILLAHIRRAHMANIRRAHIM\nWALI KOTA BANDA ACEH,",
        _identity(
            "Qanun Kota Banda Aceh Nomor 1 Tahun 2016 tentang Pengelolaan Keuangan Gampong",
            "Qanun Kota",
            "1",
            2016,
            "Wali Kota Banda Aceh",
        ),
        id="qanun-kota",
    ),
    pytest.param(
        "PERATURAN DAERAH PROVINSI JAWA TIMUR\nNOMOR 9 TAHUN 2022\nTENTANG\nPERUBAHAN ANGGARAN "
        "PENDAPATAN DAN BELANJA DAERAH\nDENGAN RAHMAT TUHAN YANG MAHA ESA\nGUBERNUR JAWA TIMUR,",
        _identity(
            "Peraturan Daerah Provinsi Jawa Timur Nomor 9 Tahun 2022 tentang Perubahan Anggaran "
            "Pendapatan dan Belanja Daerah",
            "Peraturan Daerah Provinsi",
            "9",
            2022,
            "Gubernur Jawa Timur",
        ),
        id="perda-provinsi",
    ),
    pytest.param(
        "PERATURAN DAERAH KABUPATEN SIDOARJO\nNOMOR 9 TAHUN 2022\nTENTANG\nPAJAK DAERAH DAN "
        "RETRIBUSI DAERAH\nDENGAN RAHMAT TUHAN YANG MAHA ESA\nBUPATI SIDOARJO,",
        _identity(
            "Peraturan Daerah Kabupaten Sidoarjo Nomor 9 Tahun 2022 tentang Pajak Daerah dan "
            "Retribusi Daerah",
            "Peraturan Daerah Kabupaten",
            "9",
            2022,
            "Bupati Sidoarjo",
        ),
        id="perda-kabupaten",
    ),
    pytest.param(
        "PERATURAN DAERAH KOTA SURABAYA\nNOMOR 1 TAHUN 2023\nTENTANG\nRENCANA PEMBANGUNAN JANGKA "
        "MENENGAH DAERAH KOTA SURABAYA TAHUN 2021-2026\nDENGAN RAHMAT TUHAN YANG MAHA ESA\n"
        "WALI KOTA SURABAYA,",
        _identity(
            "Peraturan Daerah Kota Surabaya Nomor 1 Tahun 2023 tentang Rencana Pembangunan Jangka "
            "Menengah Daerah Kota Surabaya Tahun 2021-2026",
            "Peraturan Daerah Kota",
            "1",
            2023,
            "Wali Kota Surabaya",
        ),
        id="perda-kota",
    ),
    pytest.param(
        "GUBERNUR JAWA TIMUR\nPERATURAN GUBERNUR JAWA TIMUR\nNOMOR 12 TAHUN 2023\nTENTANG\n"
        "PETUNJUK PELAKSANAAN PERATURAN DAERAH PROVINSI JAWA TIMUR NOMOR 7 TAHUN 2022\n"
        "DENGAN RAHMAT TUHAN YANG MAHA ESA\nGUBERNUR JAWA TIMUR,",
        _identity(
            "Peraturan Gubernur Jawa Timur Nomor 12 Tahun 2023 tentang Petunjuk Pelaksanaan "
            "Peraturan Daerah Provinsi Jawa Timur Nomor 7 Tahun 2022",
            "Peraturan Gubernur",
            "12",
            2023,
            "Gubernur Jawa Timur",
        ),
        id="peraturan-gubernur",
    ),
    pytest.param(
        "PERATURAN BUPATI ACEH BESAR\nNOMOR 10 TAHUN 2020\nTENTANG\nTATA CARA PEMBAGIAN DAN "
        "PENETAPAN RINCIAN DANA DESA\nBUPATI ACEH BESAR,",
        _identity(
            "Peraturan Bupati Aceh Besar Nomor 10 Tahun 2020 tentang Tata Cara Pembagian dan "
            "Penetapan Rincian Dana Desa",
            "Peraturan Bupati",
            "10",
            2020,
            "Bupati Aceh Besar",
        ),
        id="peraturan-bupati",
    ),
    pytest.param(
        "PERATURAN WALI KOTA SURABAYA\nNOMOR 62 TAHUN 2023\nTENTANG\nPERUBAHAN ATAS PERATURAN "
        "WALI KOTA SURABAYA NOMOR 47 TAHUN 2012\nWALI KOTA SURABAYA,",
        _identity(
            "Peraturan Wali Kota Surabaya Nomor 62 Tahun 2023 tentang Perubahan atas Peraturan "
            "Wali Kota Surabaya Nomor 47 Tahun 2012",
            "Peraturan Wali Kota",
            "62",
            2023,
            "Wali Kota Surabaya",
        ),
        id="peraturan-wali-kota",
    ),
    pytest.param(
        "PERATURAN WALIKOTA SURABAYA\nNOMOR 47 TAHUN 2012\nTENTANG\nTATA CARA PEMUNGUTAN PAJAK "
        "HOTEL\nWALIKOTA SURABAYA,",
        _identity(
            "Peraturan Wali Kota Surabaya Nomor 47 Tahun 2012 tentang Tata Cara Pemungutan Pajak "
            "Hotel",
            "Peraturan Wali Kota",
            "47",
            2012,
            "Wali Kota Surabaya",
        ),
        id="peraturan-walikota-older-spelling",
    ),
    pytest.param(
        "KEPUTUSAN GUBERNUR JAWA TIMUR\nNOMOR 188/889/KPTS/013/2022\nTENTANG\nUPAH MINIMUM "
        "KABUPATEN/KOTA DI JAWA TIMUR TAHUN 2023\nGUBERNUR JAWA TIMUR,",
        _identity(
            "Keputusan Gubernur Jawa Timur Nomor 188/889/KPTS/013/2022 tentang Upah Minimum "
            "Kabupaten/Kota di Jawa Timur Tahun 2023",
            "Keputusan Gubernur",
            "188/889/KPTS/013/2022",
            2022,
            "Gubernur Jawa Timur",
        ),
        id="keputusan-gubernur",
    ),
    pytest.param(
        "KEPUTUSAN BUPATI PIDIE JAYA\nNOMOR : 100.3.3.2/45/2024\nTENTANG\nPENETAPAN LOKASI "
        "PEMBANGUNAN PASAR\nBUPATI PIDIE JAYA,",
        _identity(
            "Keputusan Bupati Pidie Jaya Nomor 100.3.3.2/45/2024 tentang Penetapan Lokasi "
            "Pembangunan Pasar",
            "Keputusan Bupati",
            "100.3.3.2/45/2024",
            2024,
            "Bupati Pidie Jaya",
        ),
        id="keputusan-bupati",
    ),
    pytest.param(
        "KEPUTUSAN WALI KOTA BANDA ACEH\nNOMOR 123 TAHUN 2021\nTENTANG\nPEMBENTUKAN TIM\n"
        "WALI KOTA BANDA ACEH,",
        _identity(
            "Keputusan Wali Kota Banda Aceh Nomor 123 Tahun 2021 tentang Pembentukan Tim",
            "Keputusan Wali Kota",
            "123",
            2021,
            "Wali Kota Banda Aceh",
        ),
        id="keputusan-wali-kota",
    ),
    pytest.param(
        "KEPUTUSAN MENTERI KESEHATAN REPUBLIK INDONESIA\nNOMOR HK.01.07/MENKES/1186/2022\n"
        "TENTANG\nPANDUAN PRAKTIK KLINIS BAGI DOKTER DI FASILITAS PELAYANAN KESEHATAN TINGKAT "
        "PERTAMA\nDENGAN RAHMAT TUHAN YANG MAHA ESA\nMENTERI KESEHATAN REPUBLIK INDONESIA,",
        _identity(
            "Keputusan Menteri Kesehatan Nomor HK.01.07/MENKES/1186/2022 tentang Panduan Praktik "
            "Klinis bagi Dokter di Fasilitas Pelayanan Kesehatan Tingkat Pertama",
            "Keputusan Menteri",
            "HK.01.07/MENKES/1186/2022",
            2022,
            "Menteri Kesehatan Republik Indonesia",
        ),
        id="keputusan-menteri",
    ),
    pytest.param(
        "PERATURAN MENTERI DALAM NEGERI REPUBLIK INDONESIA\nNOMOR 77 TAHUN 2020\nTENTANG\n"
        "PEDOMAN TEKNIS PENGELOLAAN KEUANGAN DAERAH\nDENGAN RAHMAT TUHAN YANG MAHA ESA\n"
        "MENTERI DALAM NEGERI REPUBLIK INDONESIA,",
        _identity(
            "Peraturan Menteri Dalam Negeri Nomor 77 Tahun 2020 tentang Pedoman Teknis "
            "Pengelolaan Keuangan Daerah",
            "Peraturan Menteri",
            "77",
            2020,
            "Menteri Dalam Negeri Republik Indonesia",
        ),
        id="peraturan-menteri",
    ),
    pytest.param(
        "PERATURAN DAERAH PROVINSI DAERAH KHUSUS IBUKOTA JAKARTA\nNOMOR 1 TAHUN 2014\nTENTANG\n"
        "RENCANA DETAIL TATA RUANG DAN PERATURAN ZONASI\n\nDengan Persetujuan Bersama",
        _identity(
            "Peraturan Daerah Provinsi Daerah Khusus Ibukota Jakarta Nomor 1 Tahun 2014 tentang "
            "Rencana Detail Tata Ruang dan Peraturan Zonasi",
            "Peraturan Daerah Provinsi",
            "1",
            2014,
            "Gubernur Daerah Khusus Ibukota Jakarta",
        ),
        id="perda-dki-title-then-blank-line",
    ),
    pytest.param(
        "QANUN KABUPATEN ACEH BESAR NOMOR 4 TAHUN 2019 TENTANG PENYELENGGARAAN PENDIDIKAN",
        _identity(
            "Qanun Kabupaten Aceh Besar Nomor 4 Tahun 2019 tentang Penyelenggaraan Pendidikan",
            "Qanun Kabupaten",
            "4",
            2019,
            "Bupati Aceh Besar",
        ),
        id="title-on-one-line",
    ),
]


@pytest.mark.parametrize(("title_block", "expected"), INDONESIAN_REGIONAL)
def test_given_a_regional_title_block_when_read_then_type_number_year_and_region_are_known(
    title_block: str, expected: LegalIdentity
) -> None:
    assert extract_legal_identity(title_block) == expected


TURKISH = [
    pytest.param(
        "TEBLİGAT KANUNU\nKanun Numarası : 7201\nKabul Tarihi : 11/2/1959\n"
        "Yayımlandığı Resmî Gazete : Tarih : 19/2/1959 Sayı : 10139\n"
        "Yayımlandığı Düstur : Tertip : 4 Cilt : 1 Sayfa : 1220\nBİRİNCİ BÖLÜM\nUmumi hükümler",
        _identity(
            "7201 sayılı Tebligat Kanunu (Resmî Gazete: 19.02.1959, Sayı: 10139)",
            "Kanun",
            "7201",
            1959,
            "Türkiye Büyük Millet Meclisi",
        ),
        id="kanun-mevzuat-header",
    ),
    pytest.param(
        "Resmî Gazete Tarihi: 11.02.1959 Sayısı: 10139\nTEBLİGAT KANUNU\nKanun Numarası : 7201\n",
        _identity(
            "7201 sayılı Tebligat Kanunu (Resmî Gazete: 11.02.1959, Sayı: 10139)",
            "Kanun",
            "7201",
            1959,
            "Türkiye Büyük Millet Meclisi",
        ),
        id="kanun-gazette-line-first",
    ),
    pytest.param(
        "7201 sayılı Tebligat Kanunu\nMadde 1 – Kaza mercilerinin tebliğe müteallik işleri",
        _identity(
            "7201 sayılı Tebligat Kanunu", "Kanun", "7201", None, "Türkiye Büyük Millet Meclisi"
        ),
        id="kanun-as-cited",
    ),
    pytest.param(
        "KANUN\nVERGİ USUL KANUNU İLE BAZI KANUNLARDA DEĞİŞİKLİK\nYAPILMASINA DAİR KANUN\n"
        "Kanun No. 7524 Kabul Tarihi: 28/7/2024\nMADDE 1",
        _identity(
            "7524 sayılı Vergi Usul Kanunu ile Bazı Kanunlarda Değişiklik Yapılmasına Dair Kanun",
            "Kanun",
            "7524",
            2024,
            "Türkiye Büyük Millet Meclisi",
        ),
        id="kanun-gazette-issue-wrapped-title",
    ),
    pytest.param(
        "Resmî Gazete Tarihi: 08.03.2012 Resmî Gazete Sayısı: 28227\n"
        "Enerji Piyasası Düzenleme Kurumundan:\nELEKTRİK PİYASASI TÜKETİCİ HİZMETLERİ "
        "YÖNETMELİĞİ\nBİRİNCİ BÖLÜM\nAmaç, Kapsam, Dayanak ve Tanımlar",
        _identity(
            "Elektrik Piyasası Tüketici Hizmetleri Yönetmeliği "
            "(Resmî Gazete: 08.03.2012, Sayı: 28227)",
            "Yönetmelik",
            None,
            2012,
            "Enerji Piyasası Düzenleme Kurumu",
        ),
        id="yonetmelik",
    ),
    pytest.param(
        "26 Nisan 2014 CUMARTESİ Resmî Gazete Sayı : 28983\nTEBLİĞ\nMaliye Bakanlığından:\n"
        "KATMA DEĞER VERGİSİ GENEL UYGULAMA TEBLİĞİ\nBİRİNCİ BÖLÜM",
        _identity(
            "Katma Değer Vergisi Genel Uygulama Tebliği (Resmî Gazete: 26.04.2014, Sayı: 28983)",
            "Tebliğ",
            None,
            2014,
            "Maliye Bakanlığı",
        ),
        id="teblig-gazette-masthead",
    ),
    pytest.param(
        "TEBLİĞ\nHazine ve Maliye Bakanlığından:\nKATMA DEĞER VERGİSİ GENEL UYGULAMA "
        "TEBLİĞİNDE DEĞİŞİKLİK YAPILMASINA DAİR TEBLİĞ\n(SERİ NO: 44)\nMADDE 1",
        _identity(
            "Katma Değer Vergisi Genel Uygulama Tebliğinde Değişiklik Yapılmasına Dair Tebliğ "
            "(Seri No: 44)",
            "Tebliğ",
            "44",
            None,
            "Hazine ve Maliye Bakanlığı",
        ),
        id="teblig-series-number",
    ),
    pytest.param(
        "Resmî Gazete Tarihi: 29.07.2023 Resmî Gazete Sayısı: 32263\nGENELGE\n"
        "Cumhurbaşkanlığından:\nKonu: Tasarruf Tedbirleri\nCUMHURBAŞKANLIĞI GENELGESİ\n2023/9\n",
        _identity(
            "Cumhurbaşkanlığı Genelgesi 2023/9 (Resmî Gazete: 29.07.2023, Sayı: 32263)",
            "Genelge",
            "2023/9",
            2023,
            "Cumhurbaşkanlığı",
        ),
        id="genelge",
    ),
]


@pytest.mark.parametrize(("header", "expected"), TURKISH)
def test_given_a_turkish_act_header_when_read_then_type_number_year_and_gazette_are_known(
    header: str, expected: LegalIdentity
) -> None:
    assert extract_legal_identity(header) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Menurut Qanun Aceh Nomor 6 Tahun 2014 tentang Hukum Jinayat, pelaku dihukum cambuk.",
        "QANUN JAWA TIMUR NOMOR 1 TAHUN 2020 TENTANG SESUATU",  # only Aceh makes qanun
        "Türk Ceza Kanunu, 2004 yılında kabul edilmiş ve 5237 sayılı Kanun olarak yürürlüğe "
        "girmiştir.",
        "Anggaran pendidikan Kabupaten Aceh Besar naik pada tahun 2023.",
    ],
)
def test_given_prose_that_cites_an_act_when_read_then_it_states_no_identity(text: str) -> None:
    assert extract_legal_identity(text) == LegalIdentity()


@pytest.mark.parametrize(
    ("text", "body"),
    [
        (
            "Dengan Persetujuan Bersama\nDEWAN PERWAKILAN RAKYAT REPUBLIK INDONESIA\ndan\n"
            "PRESIDEN REPUBLIK INDONESIA",
            "Dewan Perwakilan Rakyat Republik Indonesia",
        ),
        (
            "Dengan Persetujuan Bersama\nDEWAN PERWAKILAN RAKYAT KABUPATEN ACEH BESAR\ndan\n"
            "BUPATI ACEH BESAR\nMEMUTUSKAN:",
            "Dewan Perwakilan Rakyat Kabupaten Aceh Besar",
        ),
        (
            "Dengan Persetujuan Bersama DEWAN PERWAKILAN RAKYAT ACEH dan GUBERNUR ACEH MEMUTUSKAN:",
            "Dewan Perwakilan Rakyat Aceh",
        ),
        (
            "Dengan Persetujuan Bersama\nDEWAN PERWAKILAN RAKYAT DAERAH PROVINSI JAWA TIMUR\ndan\n"
            "GUBERNUR JAWA TIMUR",
            "Dewan Perwakilan Rakyat Daerah Provinsi Jawa Timur",
        ),
        ("PERATURAN GUBERNUR JAWA TIMUR NOMOR 12 TAHUN 2023", None),
    ],
)
def test_given_a_joint_approval_when_read_then_the_approving_body_is_the_one_named(
    text: str, body: str | None
) -> None:
    assert approved_by(text) == body
