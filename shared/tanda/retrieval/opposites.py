"""Words and their opposites in Indonesian, Turkish and English: the one list the offline judge
(a statement that swaps one for the other says the opposite) and the offline reader (a sentence
holding the opposite of the question's word does not answer it) read."""

from __future__ import annotations

from functools import cache
from typing import Final

from tanda.lang import FUNCTION_WORDS, Lang, fold
from tanda.retrieval.analysis import lowercase, reads_as_function_word, stem

# Words and their opposites, several forms each (the stemmers differ on derived forms). General
# language only, nothing of one domain: a statement that swaps one for the other says the opposite.
OPPOSITES: Final[dict[Lang, tuple[tuple[str, str], ...]]] = {
    "id": (
        (
            "naik meningkat kenaikan peningkatan bertambah menaikkan",
            "turun menurun penurunan berkurang menurunkan",
        ),
        ("tambah menambah penambahan", "kurang mengurangi pengurangan"),
        ("besar terbesar membesar", "kecil terkecil mengecil"),
        ("tinggi tertinggi", "rendah terendah"),
        ("banyak terbanyak", "sedikit tersedikit"),
        ("lebih", "kurang"),
        ("maksimal maksimum", "minimal minimum"),
        ("menang kemenangan memenangkan", "kalah kekalahan"),
        ("terima menerima diterima penerimaan", "tolak menolak ditolak penolakan"),
        ("setuju menyetujui disetujui persetujuan", "menolak ditolak"),
        ("sebelum", "sesudah setelah"),
        ("awal pertama", "akhir terakhir"),
        ("buka membuka dibuka pembukaan", "tutup menutup ditutup penutupan"),
        ("mulai memulai dimulai", "selesai berakhir mengakhiri"),
        ("masuk memasuki pemasukan", "keluar pengeluaran"),
        ("untung keuntungan laba", "rugi kerugian"),
        ("surplus", "defisit"),
        ("positif", "negatif"),
        ("benar", "salah"),
        ("boleh diperbolehkan diizinkan mengizinkan", "dilarang melarang larangan"),
        ("wajib diwajibkan", "dilarang"),
        ("hidup", "mati meninggal"),
        ("baik", "buruk"),
        ("cepat", "lambat"),
        ("mahal", "murah"),
        ("kaya", "miskin"),
        ("lama", "baru"),
        ("jauh", "dekat"),
        ("atas", "bawah"),
        ("beli membeli pembelian", "jual menjual penjualan"),
        ("ekspor", "impor"),
        ("sah", "batal"),
        ("aktif", "nonaktif pasif"),
        ("berhasil keberhasilan sukses", "gagal kegagalan"),
        ("suka menyukai", "benci membenci"),
        ("senang bahagia", "sedih"),
        ("mudah", "sulit sukar"),
        ("kuat", "lemah"),
        ("sama", "berbeda beda"),
        ("selalu", "jarang"),
        ("termasuk", "kecuali"),
        ("mayoritas", "minoritas"),
        ("modern", "tradisional kuno"),
        ("panas hangat", "dingin sejuk"),
        ("tua tertua", "muda termuda"),
        ("panjang terpanjang", "pendek terpendek"),
        ("berat terberat", "ringan teringan"),
        ("tebal", "tipis"),
        ("lebar", "sempit"),
        ("basah", "kering"),
        ("terang", "gelap"),
        ("siang", "malam"),
        ("utara", "selatan"),
        ("timur", "barat"),
        ("pria laki", "wanita perempuan"),
        ("menikah pernikahan", "bercerai perceraian"),
        (
            "membangun dibangun pembangunan",
            "menghancurkan dihancurkan penghancuran merobohkan dirobohkan",
        ),
        # A life and the life of an institution: its beginning is not its end.
        ("lahir dilahirkan kelahiran", "meninggal wafat tewas kematian mangkat"),
        (
            "didirikan berdiri mendirikan pendirian dibentuk pembentukan",
            "dibubarkan bubar membubarkan pembubaran dihapuskan penghapusan runtuh",
        ),
    ),
    "en": (
        (
            "increase increased increases increasing rise rose risen rising grew grow growth up",
            "decrease decreased decreases decreasing fall fell fallen falling decline declined "
            "shrank shrink down",
        ),
        ("more most", "less least fewer fewest"),
        ("higher highest high", "lower lowest low"),
        ("larger largest large bigger biggest big", "smaller smallest small"),
        ("maximum max", "minimum min"),
        ("win wins won winning winner", "lose loses lost losing loser"),
        (
            "accept accepted accepts acceptance approve approved approval",
            "reject rejected rejects rejection deny denied refuse refused",
        ),
        ("agree agreed agrees", "disagree disagreed disagrees"),
        ("before earlier", "after later"),
        ("first", "last"),
        ("open opened opens opening", "close closed closes closing shut"),
        (
            "start started starts begin began begun beginning",
            "end ended ends finish finished stop stopped",
        ),
        ("enter entered", "exit exited leave left"),
        ("profit profits gain gains", "loss losses"),
        ("surplus", "deficit"),
        ("positive", "negative"),
        ("true correct right", "false incorrect wrong"),
        (
            "allow allowed allows permit permitted",
            "forbid forbidden forbids prohibit prohibited ban banned",
        ),
        ("include included includes including", "exclude excluded excludes excluding"),
        ("alive live living born", "dead died die death"),
        ("good better best", "bad worse worst"),
        ("fast faster quick quickly", "slow slower slowly"),
        ("expensive", "cheap cheaper"),
        ("rich wealthy", "poor"),
        ("new newer newest", "old older oldest"),
        ("far", "near close"),
        ("above over", "below under"),
        ("buy buys bought buying buyer", "sell sells sold selling seller"),
        ("export exports exported", "import imports imported"),
        ("valid", "invalid void"),
        ("active", "inactive"),
        ("succeed succeeded success successful", "fail failed failure unsuccessful"),
        ("like liked likes love loved loves", "dislike disliked hate hated hates"),
        ("happy glad", "sad unhappy"),
        ("easy easier", "difficult hard harder"),
        ("strong stronger", "weak weaker"),
        ("same similar", "different"),
        ("always", "rarely seldom"),
        ("early earlier", "late later"),
        ("hot warm", "cold cool"),
        ("public", "private"),
        ("legal", "illegal"),
        ("possible", "impossible"),
        ("present", "absent"),
        ("inside internal", "outside external"),
        ("remember remembered", "forget forgot forgotten"),
        ("add added adds", "remove removed removes"),
        ("arrive arrived", "depart departed"),
        ("push", "pull"),
        ("give gave given", "take took taken"),
        ("birth", "death"),
        ("majority", "minority"),
        ("modern", "traditional ancient"),
        ("young younger youngest", "elder eldest"),
        ("long longer longest", "short shorter shortest"),
        ("heavy heavier heaviest", "light lighter lightest"),
        ("thick", "thin"),
        ("wide", "narrow"),
        ("wet", "dry"),
        ("day", "night"),
        ("north northern", "south southern"),
        ("east eastern", "west western"),
        ("male man men", "female woman women"),
        ("marry married marriage", "divorce divorced"),
        ("build built construct constructed", "destroy destroyed demolish demolished"),
        (
            "found founded establish established establishment formed formation",
            "dissolve dissolved dissolution abolish abolished disband disbanded",
        ),
    ),
    "tr": (
        (
            "artış arttı artıyor arttırdı yükseldi yükseliş",
            "azalış azaldı azalıyor azalttı düştü düşüş",
        ),
        ("fazla çok", "az"),
        ("yüksek en yüksek", "düşük en düşük"),
        ("büyük büyüdü", "küçük küçüldü"),
        ("azami", "asgari"),
        ("kazandı kazanç kazanan", "kaybetti kayıp kaybeden"),
        ("kabul kabul etti onayladı onay", "ret reddetti reddedildi"),
        ("önce", "sonra"),
        ("ilk", "son"),
        ("açık açıldı", "kapalı kapandı"),
        ("başladı başlangıç", "bitti bitiş sona"),
        ("kâr kar", "zarar"),
        ("fazla", "açığı"),
        ("olumlu pozitif", "olumsuz negatif"),
        ("doğru", "yanlış"),
        ("izin verildi serbest", "yasak yasaklandı"),
        ("dahil", "hariç"),
        ("canlı yaşıyor", "öldü ölü"),
        ("iyi", "kötü"),
        ("hızlı", "yavaş"),
        ("pahalı", "ucuz"),
        ("zengin", "fakir yoksul"),
        ("yeni", "eski"),
        ("uzak", "yakın"),
        ("üst", "alt"),
        ("alış aldı", "satış sattı"),
        ("ihracat", "ithalat"),
        ("geçerli", "geçersiz"),
        ("başarılı başarı", "başarısız başarısızlık"),
        ("kolay", "zor"),
        ("güçlü", "zayıf"),
        ("aynı", "farklı"),
        ("doğdu doğum doğumu", "öldü ölüm ölümü vefat"),
        ("çoğunluk", "azınlık"),
        ("modern", "geleneksel"),
        ("sıcak", "soğuk"),
        ("yaşlı", "genç"),
        ("uzun", "kısa"),
        ("ağır", "hafif"),
        ("kalın", "ince"),
        ("geniş", "dar"),
        ("ıslak", "kuru"),
        ("gündüz", "gece"),
        ("kuzey", "güney"),
        ("doğu", "batı"),
        ("erkek", "kadın"),
        ("evlendi evlilik", "boşandı boşanma"),
        ("inşa yapıldı", "yıkıldı yıktı"),
        ("kuruldu kurulan kuruluş kurdu kuran", "kapatıldı dağıtıldı feshedildi kaldırıldı"),
    ),
}


@cache
def opposite_pairs(
    lang: Lang, stopwords: frozenset[str] | None = None
) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """Each pair of opposite word groups as matching keys — the folded words and their stems,
    a word folding to a function word as written instead (:func:`reads_as_function_word`) —
    both ways round. A stem of one letter, or one that is a stopword (``stopwords``, else the
    language's function words) the listed word is not, is left out: it would match anything."""
    if stopwords is None:
        stopwords = frozenset(fold(w) for w in FUNCTION_WORDS[lang])

    stems: dict[str, list[set[str]]] = {}
    """Each stem key: per listed group it is a key of, the listed words it stems from."""
    folded: set[str] = set()
    """Every listed word, folded."""

    def keys(words: str) -> frozenset[str]:
        listed = [lowercase(w, lang) for w in words.split()]
        # A word folding to a function word is keyed as written (``öldü``, not ``oldu``).
        out = {w if reads_as_function_word(fold(w), w, lang) else fold(w) for w in listed}
        folded.update(out)
        sources: dict[str, set[str]] = {}
        for word, stemmed in zip(listed, stem(listed, lang), strict=True):
            key = fold(stemmed)
            if (
                len(key) > 1
                and (key not in stopwords or key == fold(word))
                and not reads_as_function_word(key, word, lang)
            ):
                out.add(key)
                sources.setdefault(key, set()).add(fold(word))
        for key, found in sources.items():
            stems.setdefault(key, []).append(found)
        return frozenset(out)

    listed = [(keys(one), keys(other)) for one, other in OPPOSITES[lang]]
    # A stem that groups of different words share decides none of them: Turkish ``doğdu``
    # (born) and ``doğu`` (east) both stem to ``dok``, and a question about a birth is not one
    # about the east. A stem of the same word listed twice (``menolak``) is the same meaning, and
    # the folded words themselves always stay.
    shared = {
        key
        for key, groups in stems.items()
        if key not in folded and len(groups) > 1 and not set.intersection(*groups)
    }
    pairs: list[tuple[frozenset[str], frozenset[str]]] = []
    for a, b in listed:
        a, b = a - b - shared, b - a - shared  # a key both sides share decides nothing
        pairs += [(a, b), (b, a)]
    return tuple(pairs)
