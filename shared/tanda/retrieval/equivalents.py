"""Words that say the same thing, within and across Indonesian, Turkish and English (issue 22): the
offline reader lets a question's word meet any word of its group (``PPN`` asked of an invoice that
writes ``VAT``; ``wafat`` of a text that writes ``meninggal``).

General vocabulary of the documents tanda reads — government and business documents, statutes,
budgets, invoices — and the commonest life and time verbs; nothing of any one partner's documents.
A group is matched on folded surfaces and on stems, as :mod:`tanda.retrieval.analysis` analyses
them, so inflected forms of a listed word meet too; every entry is one word, but for
:data:`COMPOUNDS`, two words said by one.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

from tanda.lang import Lang, fold
from tanda.retrieval.analysis import lowercase, reads_as_function_word, stem, surface_terms

EQUIVALENTS: Final[tuple[str, ...]] = (
    # taxes and invoices
    "vat ppn kdv",
    "tax pajak vergi",
    "invoice faktur fatura",
    "seller supplier penjual pemasok satıcı tedarikçi",
    "buyer customer pembeli pelanggan alıcı müşteri",
    "due vade ödenecek",
    "amount jumlah nilai tutar miktar",
    "total jumlah toplam",
    "item line barang kalem satır",
    "price harga fiyat",
    "rate tarif oran",
    "payment pembayaran ödeme",
    # budgets
    "budget anggaran bütçe",
    "revenue income pendapatan gelir",
    "expenditure spending belanja pengeluaran gider harcama",
    "realisation realization realisasi gerçekleşme",
    "percent percentage persen persentase prosentase yüzde",
    "financing pembiayaan finansman",
    # statutes
    "article pasal madde",
    "law undang-undang kanun",
    "regulation peraturan yönetmelik",
    "penalty fine sanksi denda ceza",
    "imprisonment penjara pidana hapis",
    # who signed: an Indonesian act's copy writes "ttd." (tertanda, signed) before the name
    "signed menandatangani ditandatangani tertanda ttd imzaladı imzalandı",
    # people, places and time
    "born lahir dilahirkan kelahiran doğdu doğum",
    "died death meninggal wafat tewas mangkat öldü ölüm vefat",
    "founded established didirikan berdiri dibentuk kuruldu kurulmuştur",
    "released launched introduced dirilis diluncurkan dikeluarkan diterbitkan diperkenalkan "
    "yayınlandı tanıtıldı",
    "led memimpin dipimpin pimpinan yönetti",
    "invasion invaded invasi penyerbuan menyerbu menginvasi işgal",
    # a wife or a husband is who one married (two groups: a wife is not a husband)
    "married menikah menikahi pernikahan evlendi wife istri",
    "married menikah menikahi pernikahan evlendi husband suami",
    "headquartered bermarkas markas berkantor",
    "located terletak berada bulunur yer",
    "capital ibukota başkent",
    "country negara ülke",
    "city kota şehir kent",
    "year tahun yıl",
    "president presiden cumhurbaşkanı",
    "king raja kral",
    "population penduduk populasi nüfus",
    "area luas alan",
    "wife istri permaisuri eş",
    "husband suami koca",
    "son putra anak oğul",
    "father ayah bapak baba",
    "mother ibu anne",
    "character karakter tokoh",
    "appeared muncul tampil",
    "cause caused penyebab disebabkan sebab neden",
    "involved terlibat berperan",
    "logo emblem lambang logosu amblem",
    "reproduce reproduction berkembangbiak bereproduksi reproduksi üreme",
    "initiated coined menggagas penggagas mencetuskan pencetus",
    "changed renamed berubah mengubah diubah berganti mengganti diganti değişti değiştirdi",
)


COMPOUNDS: Final[tuple[tuple[str, str], ...]] = (
    # parents are a father and a mother: a text names them one by one
    ("orang tua", "ayah ibu bapak ayahanda ibunda ayahnya ibunya"),
    ("anne baba", "ebeveyn"),
    # an invoice's due date, as Indonesian says it
    ("jatuh tempo", "due vade"),
)
"""Two words that together say what one word of another group says (``orang tua`` — parents —
said by ``ayah``, ``ibu``): the other way round, the one word does not say the two (a father is
not both parents)."""


ABBREVIATIONS: Final[dict[Lang, tuple[str, ...]]] = {
    # Indonesian laws, regulations and the bodies that make and spend budgets
    "id": (
        "uud = undang-undang dasar",
        "uu = undang-undang",
        "ite = informasi dan transaksi elektronik",
        "pdp = pelindungan data pribadi",
        "kuhp = kitab undang-undang hukum pidana",
        "kuhap = kitab undang-undang hukum acara pidana",
        "hkpd = hubungan keuangan antara pemerintah pusat dan pemerintahan daerah",
        "perpu = peraturan pemerintah pengganti undang-undang",
        "perppu = peraturan pemerintah pengganti undang-undang",
        "pp = peraturan pemerintah",
        "perpres = peraturan presiden",
        "keppres = keputusan presiden",
        "permen = peraturan menteri",
        "kepmen = keputusan menteri",
        "perda = peraturan daerah",
        "perkada = peraturan kepala daerah",
        "pergub = peraturan gubernur",
        "perbup = peraturan bupati",
        "pemda = pemerintah daerah",
        "pemprov = pemerintah provinsi",
        "pemkot = pemerintah kota",
        "pemkab = pemerintah kabupaten",
        "pemilu = pemilihan umum",
        "pilkada = pemilihan kepala daerah",
        "apbn = anggaran pendapatan dan belanja negara",
        "apbd = anggaran pendapatan dan belanja daerah",
        "pad = pendapatan asli daerah",
        "dau = dana alokasi umum",
        "dak = dana alokasi khusus",
        "silpa = sisa lebih pembiayaan anggaran",
        "silpa = sisa lebih perhitungan anggaran",  # a region's budget (Permendagri 77/2020)
        "dpr = dewan perwakilan rakyat",
        "dprd = dewan perwakilan rakyat daerah",
        "dpd = dewan perwakilan daerah",
        "mpr = majelis permusyawaratan rakyat",
        "ma = mahkamah agung",
        "mk = mahkamah konstitusi",
        "bpk = badan pemeriksa keuangan",
        "bps = badan pusat statistik",
        "kpk = komisi pemberantasan korupsi",
        "kpu = komisi pemilihan umum",
        "ojk = otoritas jasa keuangan",
        "bumn = badan usaha milik negara",
        "bumd = badan usaha milik daerah",
        "tni = tentara nasional indonesia",
        "polri = kepolisian negara republik indonesia",
        "pns = pegawai negeri sipil",
        "asn = aparatur sipil negara",
        "opd = organisasi perangkat daerah",
        "npwp = nomor pokok wajib pajak",
        "nik = nomor induk kependudukan",
        "ktp = kartu tanda penduduk",
        "ppn = pajak pertambahan nilai",
        "pph = pajak penghasilan",
        "pdp = pelindungan data pribadi",
        "pdp = perlindungan data pribadi",
        "puskesmas = pusat kesehatan masyarakat",
        "rsud = rumah sakit umum daerah",
        "parpol = partai politik",
        "ormas = organisasi kemasyarakatan",
        "kades = kepala desa",
        "sekda = sekretaris daerah",
    ),
    "tr": (
        "tbmm = türkiye büyük millet meclisi",
        "tc = türkiye cumhuriyeti",
        "kdv = katma değer vergisi",
        "kvkk = kişisel verilerin korunması kanunu",
        "sgk = sosyal güvenlik kurumu",
        "tüik = türkiye istatistik kurumu",
        "ab = avrupa birliği",
    ),
    "en": (
        "vat = value added tax",
        "gdp = gross domestic product",
        "eu = european union",
        "un = united nations",
        "ceo = chief executive officer",
    ),
}
"""Short forms written for a name of several words, both kept in the documents tanda reads:
``Perda`` for ``Peraturan Daerah``, ``UU`` for ``Undang-Undang``, ``TBMM`` for ``Türkiye Büyük
Millet Meclisi``. A question saying one is answered by a text saying the other."""


@cache
def abbreviations(lang: Lang) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """Each listed short form of ``lang``, folded, with its long form as folded words joined by
    one space (as :func:`~tanda.retrieval.analysis.surface_terms` reads a text) and as a set."""
    out: list[tuple[str, str, frozenset[str]]] = []
    for entry in ABBREVIATIONS.get(lang, ()):
        short, long = (part.strip() for part in entry.split("="))
        words = list(surface_terms(long, lang))
        out.append((fold(lowercase(short, lang)), " ".join(words), frozenset(words)))
    return tuple(out)


def search_text(text: str, lang: Lang) -> str:
    """``text`` followed by the short form of each listed long form it spells out
    (:data:`ABBREVIATIONS`), for the lexical search (issue 22): `… pendapatan asli daerah Kota
    Malang …` searches `PAD` too, which the budget tables write. Not the other way: a short
    form is ambiguous where its long form is not — `Energiprojekt AB` is a Swedish company, not
    the Avrupa Birliği, and searching the long form of every `AB` cost XQuAD answers' passages.
    Both engines search this text (the embedded index analyses it, OpenSearch is sent it), so
    they meet the same words; the text itself is returned when it spells none out."""
    text = _YEAR_WORD.sub(" ", text)
    words = list(surface_terms(text, lang))
    if not words:
        return text
    spelt = f" {' '.join(words)} "
    extra: list[str] = []
    for short, long, _ in abbreviations(lang):
        if f" {long} " in spelt:
            extra.append(short.upper() if len(short) <= SHORT_IN_CAPITALS else short)
    return f"{text} {' '.join(extra)}" if extra else text


_YEAR_WORD: Final = re.compile(
    r"(?<!\w)(?:tahun|year)\s+(?=(?:1[5-9]|20)\d\d(?!\d))"
    r"|(?<=(?<!\d)(?:1[5-9]|20)\d\d)(?:['’]?\s*|\s+)(?:yılı(?:nda|ndaki|nın|na)?|yıl)(?!\w)",
    re.IGNORECASE,
)
"""The word that says a year is a year (``tahun 2024``, ``year 2019``, ``2015 yılında``): the
year is the evidence in a text, the word is not — a budget table's row ``Sisa Lebih Perhitungan
Anggaran Tahun Sebelumnya`` said it for every question naming a year, and its short chunk came
before the long one holding the row asked."""


@cache
def compounds(lang: Lang) -> tuple[tuple[tuple[str, ...], frozenset[str]], ...]:
    """Words that together say what one word says, each as its folded words in order → the
    matching keys (folded surface and stem in ``lang``) of the words that say them: the listed
    :data:`COMPOUNDS` (``orang tua`` — ``ayah``), and each long form of
    :data:`ABBREVIATIONS` → its short form (``peraturan daerah`` — ``perda``)."""
    out: list[tuple[tuple[str, ...], frozenset[str]]] = []
    for compound, group in COMPOUNDS:
        words = tuple(fold(lowercase(w, lang)) for w in compound.split())
        out.append((words, _group_keys(group, lang)))
    for short, long, _ in abbreviations(lang):
        # A short form of three letters or fewer is met only written in capitals (``UU``, not
        # the ``ma`` of ``Ma'ruf``): keyed in capitals, as the reader keys a text's capitals.
        key = short.upper() if len(short) <= SHORT_IN_CAPITALS else short
        out.append((tuple(long.split()), frozenset({key})))
    return tuple(out)


SHORT_IN_CAPITALS: Final = 3
"""A short form this long or shorter counts only written in capitals."""


@cache
def equivalents(lang: Lang) -> dict[str, frozenset[str]]:
    """Each listed word's matching keys (folded surface and stem in ``lang``) → the keys of its
    whole group."""
    out: dict[str, set[str]] = {}
    for group in EQUIVALENTS:
        keys = _group_keys(group, lang)
        for key in keys:
            out.setdefault(key, set()).update(keys)
    return {key: frozenset(group) for key, group in out.items()}


def _group_keys(group: str, lang: Lang) -> frozenset[str]:
    """The matching keys of a group's words: each folded and its folded stem in ``lang``, but
    none that a function word reads as (``öldü`` is keyed as written, not as ``oldu``)."""
    words = [lowercase(w, lang) for w in group.split()]
    pairs = [(fold(w), w) for w in words]
    pairs += [(fold(s), w) for w, s in zip(words, stem(words, lang), strict=True)]
    return frozenset(k for k, w in pairs if len(k) > 2 and not reads_as_function_word(k, w, lang))
