"""Words and patterns of numbers in Indonesian, Turkish and English, compiled once at import.

Kept as data so a new scale word, currency or unit is one line here, not a change of logic.
"""

from __future__ import annotations

import re
from decimal import Decimal

THOUSAND = Decimal(10) ** 3
MILLION = Decimal(10) ** 6
BILLION = Decimal(10) ** 9
TRILLION = Decimal(10) ** 12

# Scale words (lowercased) → factor. Single letters are handled apart (they depend on the language).
SCALE_WORDS: dict[str, Decimal] = {
    # Indonesian
    "ribu": THOUSAND,
    "rb": THOUSAND,
    "juta": MILLION,
    "jt": MILLION,
    "miliar": BILLION,
    "milyar": BILLION,  # also Turkish
    "triliun": TRILLION,
    "trilyun": TRILLION,
    # Turkish
    "bin": THOUSAND,
    "milyon": MILLION,
    "mn": MILLION,  # also English
    "mln": MILLION,
    "mr": BILLION,
    "mlr": BILLION,
    "trilyon": TRILLION,
    # English
    "thousand": THOUSAND,
    "thousands": THOUSAND,
    "million": MILLION,
    "millions": MILLION,
    "billion": BILLION,
    "billions": BILLION,
    "bn": BILLION,
    "trillion": TRILLION,
    "trillions": TRILLION,
    "tn": TRILLION,
}

# Currency and unit words (lowercased, spaces collapsed) → canonical unit.
UNIT_WORDS: dict[str, str] = {
    "rupiah": "IDR",
    "idr": "IDR",
    "tl": "TRY",
    "try": "TRY",
    "₺": "TRY",
    "lira": "TRY",
    "liralık": "TRY",
    "lirası": "TRY",
    "türk lirası": "TRY",
    "dollar": "USD",
    "dollars": "USD",
    "dolar": "USD",
    "dolar as": "USD",
    "us dollars": "USD",
    "usd": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "eur": "EUR",
    "€": "EUR",
    "%": "%",
    "persen": "%",
    "prosen": "%",
    "percent": "%",
    "per cent": "%",
    "pct": "%",
    "persen poin": "pp",
    "poin persentase": "pp",
    "percentage point": "pp",
    "percentage points": "pp",
    "pp": "pp",
    "yüzde puan": "pp",
    "basis point": "bp",
    "basis points": "bp",
    "bps": "bp",
    "baz puan": "bp",
    "poin": "pt",
    "puan": "pt",
    "point": "pt",
    "points": "pt",
    "orang": "person",
    "jiwa": "person",
    "penduduk": "person",
    "kişi": "person",
    "kişiye": "person",
    "kişinin": "person",
    "kişiden": "person",
    "kişiyi": "person",
    "kişilik": "person",
    "people": "person",
    "persons": "person",
    "person": "person",
    "km": "km",
    "kilometer": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometres": "km",
    "hektar": "ha",
    "hektare": "ha",
    "hectare": "ha",
    "hectares": "ha",
    "ha": "ha",
    "dekar": "decare",
    "ton": "t",
    "tons": "t",
    "tonne": "t",
    "tonnes": "t",
    "kg": "kg",
    "tahun": "yr",
    "yıl": "yr",
    "year": "yr",
    "years": "yr",
    "bulan": "mo",
    "ay": "mo",
    "month": "mo",
    "months": "mo",
    "hari": "d",
    "gün": "d",
    "day": "d",
    "days": "d",
    "jam": "h",
    "hour": "h",
    "hours": "h",
    "menit": "min",
    "dakika": "min",
    "minute": "min",
    "minutes": "min",
}

PREFIX_CURRENCY: dict[str, str] = {
    "rp": "IDR",
    "rp.": "IDR",
    "idr": "IDR",
    "us$": "USD",
    "usd": "USD",
    "$": "USD",
    "€": "EUR",
    "eur": "EUR",
    "£": "GBP",
    "₺": "TRY",
    "try": "TRY",
}

# Reference labels (lowercased) → canonical label of an ordinal.
REF_LABELS: dict[str, str] = {
    "pasal": "article",
    "article": "article",
    "art.": "article",
    "madde": "article",
    "maddesi": "article",
    "ayat": "paragraph",
    "paragraph": "paragraph",
    "paragraf": "paragraph",
    "fıkra": "paragraph",
    "fıkrası": "paragraph",
    "nomor": "number",
    "no": "number",
    "no.": "number",
    "nr.": "number",
    "number": "number",
    "bab": "chapter",
    "chapter": "chapter",
    "bölüm": "chapter",
    "bagian": "part",
    "section": "section",
    "sec.": "section",
    "angka": "item",
    "butir": "item",
    "item": "item",
    "sila": "item",
    "lampiran": "annex",
    "tabel": "table",
    "table": "table",
    "gambar": "figure",
    "figure": "figure",
    "halaman": "page",
    "hal.": "page",
    "page": "page",
    "sayfa": "page",
    "ke": "ordinal",
    "ke-": "ordinal",
}

MONTHS: dict[str, int] = {}
for _month, _names in enumerate(
    (
        "Januari January Jan Ocak",
        "Februari Pebruari February Feb Şubat",
        "Maret March Mar Mart",
        "April Apr Nisan",
        "Mei May Mayıs",
        "Juni June Jun Haziran",
        "Juli July Jul Temmuz",
        "Agustus August Agu Agt Aug Ağustos",
        "September Sept Sep Eylül",
        "Oktober October Okt Oct Ekim",
        "November Nov Kasım",
        "Desember December Des Dec Aralık",
    ),
    start=1,
):
    for _name in _names.split():
        MONTHS[_name.lower()] = _month


def _alternation(words: list[str]) -> str:
    """Longest first, so ``miliar`` wins over ``mi…`` prefixes; spaces match any whitespace."""
    ordered = sorted(set(words), key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ordered)


_MONTH_ALT = _alternation([name.capitalize() for name in MONTHS] + ["MEI", "DESEMBER"])
_NOT_LETTER_AHEAD = r"(?![^\W\d_])"
_NOT_LETTER_BEHIND = r"(?<![^\W\d_])"

# A number as written: dot-grouped (id/tr), comma-grouped (en), space-grouped, or plain.
NUMBER_CORE = (
    r"(?<!\d)"
    r"(?:"
    r"\d{1,3}(?:\.\d{3})+(?:,\d+)?(?!\d|\.\d)"
    r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d|,\d)"
    r"|\d{1,3}(?:[ \u00a0\u202f]\d{3}){2,}(?:[.,]\d+)?(?!\d|[.,]\d)"
    r"|\d{1,3}[\u00a0\u202f]\d{3}(?:[.,]\d+)?(?!\d|[.,]\d)"
    # CSV cells: "2223.07,2275.10" is two numbers; the other separator may follow a decimal.
    r"|\d+(?:(?P<dsep>[.,])\d+)?(?!\d)(?!(?P=dsep)\d)"
    r")"
)

_AMPM = r"(?:[ap]\.m\.|[ap]m|[AP]\.M\.|[AP]M)"

# Surfaces that start with a digit; matched at each digit run (``match``, not ``finditer``: the
# scan jumps from digit run to digit run, which keeps a 1,000-character passage well under 1 ms).
AT_DIGIT = re.compile(
    # 18 Desember 2023 · 31st of August · 1 Ocak 2024
    rf"(?P<dmy>(?<!\d)(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH_ALT})\.?"
    rf"{_NOT_LETTER_AHEAD}(?:,?\s+(?P<y1>(?:1[89]|20|21)\d\d)(?!\d))?)"
    # 31/12/2023 · 31.12.2023 · 2023-12-31
    r"|(?P<numdate>(?<![\d./])(?P<d4>\d{1,2})(?P<sep4>[/.-])(?P<m4>\d{1,2})(?P=sep4)"
    r"(?P<y4>(?:19|20)\d\d)(?![\d.,]\d)"
    r"|(?<![\d./])(?P<y5>(?:19|20)\d\d)-(?P<m5>\d{2})-(?P<d5>\d{2})(?!\d))"
    # 1:34 PM · 7 pm
    rf"|(?P<clock>(?<![\d.,:])(?P<hh>\d{{1,2}}):(?P<mm>\d{{2}})(?![\d:])(?:\s?(?P<ap>{_AMPM}))?"
    rf"|(?<![\d.,:])(?P<hh2>\d{{1,2}})\s?(?P<ap2>{_AMPM}){_NOT_LETTER_AHEAD})"
    # 27/2022 (number/year of a regulation) · 2019/2020
    r"|(?P<refslash>(?<![\d./])(?P<rn>\d{1,4})/(?P<ry>(?:19|20)\d\d)(?![\d/]))"
    rf"|(?P<num>{NUMBER_CORE})"
)
# Surfaces that start with a word, tried only where such a word ends right before a digit run.
AT_WORD = re.compile(
    # August 31st, 2022 · June 26th
    rf"(?P<mdy>{_NOT_LETTER_BEHIND}(?P<m2>{_MONTH_ALT})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?"
    rf"(?![\d.,]\d)(?:,?\s+(?P<y2>(?:1[89]|20|21)\d\d)(?!\d))?)"
    # Desember 2023 · June 2019
    rf"|(?P<my>{_NOT_LETTER_BEHIND}(?P<m3>{_MONTH_ALT})\s+(?P<y3>(?:1[89]|20|21)\d\d)(?!\d))"
    # FY2023 · FY19 · TA 2023 · TA. 2023
    r"|(?P<fy>(?<![^\W\d_])(?:FY|TA\.?|T\.A\.)\s?'?(?P<fyy>\d{4}|\d{2})(?![\d.,]\d))"
)
WORD_BEFORE = re.compile(
    rf"(?:{_NOT_LETTER_BEHIND}(?:{_MONTH_ALT})\.?\s+|(?<![^\W\d_])(?:FY|TA\.?|T\.A\.)\s?'?)\Z"
)
DIGITS = re.compile(r"\d+")

_SCALE_ALT = _alternation(list(SCALE_WORDS))
_UNIT_WORDS_ALT = _alternation([w for w in UNIT_WORDS if w not in {"tl", "try", "₺", "€", "%"}])

# What may follow a number: ``)`` of an accounting negative, ``%``, a spelled-out echo
# ``(lima)``, a scale, then a currency/unit.
RIGHT = re.compile(
    r"(?P<close>\))?"
    r"(?P<pct>[ \u00a0]?%)?"
    r"(?P<echo>\s?\((?:[^\W\d_]|[ \-])+\))?"
    rf"(?:[ \u00a0]?(?P<scale>(?i:{_SCALE_ALT})\.?{_NOT_LETTER_AHEAD}"
    rf"|[MTBK]{_NOT_LETTER_AHEAD}|[kmb]{_NOT_LETTER_AHEAD}))?"
    r"(?:(?:\s|-)?(?P<unit>TL|TRY|₺|€|"
    rf"(?i:{_UNIT_WORDS_ALT}))(?![^\W\d_]))?"
)
SAYILI = re.compile(r"\s+sayılı\b")
ORDINAL_SUFFIX = re.compile(r"(?:st|nd|rd|th)(?![^\W\d_])")
REF_LETTER = re.compile(r"[A-Z](?![^\W\d_])")
TIMEZONE = re.compile(r"\s?(?:WIB|WITA|WIT)\b")

# Matched against the text just before a number (``\Z`` is the number's start).
LEFT_CURRENCY = re.compile(
    r"(?:(?<![^\W\d_])(?i:Rp\.?|IDR|USD|US\$|EUR|TRY)|\$|€|£|₺)(?P<sign>[ \u00a0]?[-−])?[ \u00a0]?"
    r"(?P<paren>\()?\Z"
)
# Last characters of what LEFT_CURRENCY / LEFT_PERCENT can match (before blanks and "(").
CURRENCY_TAIL_CHARS = frozenset("$€£₺pPRrDdYy.-−")
PERCENT_TAIL_CHARS = frozenset("%eE")
LEFT_PERCENT = re.compile(r"(?:%|(?<![^\W\d_])(?i:yüzde|persentase|percentage))[ \u00a0]?\Z")
LEFT_REF = re.compile(
    r"(?<![^\W\d_])(?P<label>(?i:pasal|article|art\.|maddesi|madde|ayat|paragraph|paragraf|"
    r"fıkrası|fıkra|nomor|no\.?|nr\.|number|bab|chapter|bölüm|bagian|section|sec\.|angka|butir|"
    r"item|sila|lampiran|tabel|table|gambar|figure|halaman|hal\.|page|sayfa|ke-?))"
    r"[ \u00a0]?\(?\Z"
)
LEFT_TIME = re.compile(r"(?<![^\W\d_])(?i:pukul|pkl\.?|jam|saat|at)\s\Z")
LEFT_COUNT = re.compile(
    r"(?<![^\W\d_])(?i:sebanyak|sejumlah|jumlah|total|about|approximately|around|nearly|over|"
    r"sekitar|lebih dari|kurang dari|hampir|yaklaşık|toplam|en az|at least)\s\Z"
)
RANGE_JOIN = re.compile(
    r"\s?(?:[-–—]|s\.?d\.?|s/d|(?i:sampai(?:\s+dengan)?|hingga|to|through|ile|ila))\s?"
)
CLOCK_NUMBER = re.compile(r"\d{1,2}[.:]\d\d")
COUNT_UNITS = frozenset({"person", "km", "ha", "decare", "t", "kg", "yr", "mo", "d", "h", "min"})

# A text's declaration of the unit/scale of its bare numbers: ``(in millions)``, ``(dalam
# jutaan rupiah)``, ``(dollars in thousands)``, ``(bin TL)``, ``Tabular amounts in millions``.
DECLARATION = re.compile(
    r"(?i:(?:\(|\b)(?:in|dalam)\s+(?P<scale1>thousands|millions|billions|ribuan|jutaan|miliaran|"
    r"ribu|juta|miliar)(?:\s+(?:of\s+)?(?P<unit1>rupiah|dollars|u\.s\.\s+dollars|euros))?\b"
    r"|\((?P<unit2>dollars|rupiah)\s+in\s+(?P<scale2>thousands|millions|billions)\)"
    r"|\((?P<unit3>rp|\$|tl)\s+(?P<scale3>ribu|juta|miliar|thousands|millions|billions|bin|milyon|"
    r"milyar)\)"
    r"|\((?P<scale4>bin|milyon|milyar)\s+(?P<unit4>tl)\)"
    r"|\((?:dalam\s+)?(?P<unit5>rupiah)\)|\$\s+in\s+(?P<scale6>thousands|millions|billions)"
    # Issue 25: a portal or MCP passage's identity line `Satuan: ribu rupiah` / `Unit: dollars`.
    r"|\b(?:satuan|unit|birim):\s*(?:(?:dalam|in)\s+)?(?:(?P<scale7>ribuan|jutaan|miliaran|ribu|"
    r"juta|miliar|thousands|millions|billions|bin|milyon|milyar)\s+)?(?:of\s+)?"
    r"(?P<unit7>rupiah|rp|dollars|u\.s\.\s+dollars|euros|tl)\b)"
)
STATED_UNIT = re.compile(
    r"(?i:\b(?:satuan|unit|birim):\s*(?:(?:dalam|in)\s+)?(?:[^\W\d_]+\s+)?(?:of\s+)?"
    r"(?P<unit>rupiah|rp|dollars|u\.s\.\s+dollars|euros|tl)\b)"
)
DECLARATION_WORDS = (
    "thousands",
    "millions",
    "billions",
    "ribuan",
    "jutaan",
    "miliaran",
    "dalam ribu",
    "dalam juta",
    "dalam miliar",
    "dalam rupiah",
    "(rp",
    "(bin",
    "(milyon",
    "(milyar",
    "(rupiah",
    "satuan:",
    "unit:",
    "birim:",
)
DECLARED_SCALES: dict[str, Decimal] = {
    "thousands": THOUSAND,
    "ribuan": THOUSAND,
    "ribu": THOUSAND,
    "bin": THOUSAND,
    "millions": MILLION,
    "jutaan": MILLION,
    "juta": MILLION,
    "milyon": MILLION,
    "billions": BILLION,
    "miliaran": BILLION,
    "miliar": BILLION,
    "milyar": BILLION,
}
DECLARED_UNITS: dict[str, str] = {
    "rupiah": "IDR",
    "rp": "IDR",
    "dollars": "USD",
    "u.s. dollars": "USD",
    "$": "USD",
    "euros": "EUR",
    "tl": "TRY",
}

# "naik 9 persen dari 2022": the year after these words is the base of a change, not the period.
BASE_YEAR_CUE = re.compile(
    r"(?<![^\W\d_])(?i:dari|from|since|sejak|than|dibanding(?:kan)?|compared|versus|vs\.?|"
    r"göre|itibaren|beri|over)(?![^\W\d_])"
)
# "30 customers", "2000 peserta": a number followed by a noun counts that noun, so it can never
# stand for money or a percent. These words after a number are not such nouns.
NOUN_AFTER = re.compile(r"[ \u00a0]([^\W\d_]{2,})")
NOT_NOUNS = frozenset(
    [
        "dan",
        "atau",
        "dari",
        "untuk",
        "pada",
        "di",
        "ke",
        "yang",
        "dengan",
        "dalam",
        "per",
        "hingga",
        "sampai",
        "s.d",
        "adalah",
        "menjadi",
        "sebesar",
        "sebanyak",
        "tahun",
        "bulan",
        "hari",
        "naik",
        "turun",
        "atas",
        "oleh",
        "ini",
        "itu",
        "juga",
        "serta",
        "and",
        "or",
        "of",
        "in",
        "on",
        "for",
        "to",
        "from",
        "at",
        "by",
        "as",
        "is",
        "was",
        "were",
        "are",
        "be",
        "than",
        "with",
        "the",
        "a",
        "an",
        "per",
        "vs",
        "versus",
        "compared",
        "up",
        "down",
        "over",
        "under",
        "through",
        "since",
        "respectively",
        "ve",
        "ile",
        "veya",
        "için",
        "de",
        "da",
        "olarak",
        "oldu",
        "olan",
        "ise",
        "göre",
        "kadar",
        "ya",
    ]
)
SENTENCE_END = re.compile(r"[.!?;](?=\s)|\n")
WORD = re.compile(r"[^\W\d_]+")

# Small whole numbers said as one word, by language (lowercased): how a text may say a number a
# question writes in digits ("4" — "dört asal", "en az dört"). One is left out: "bir", "one",
# "satu" are as often an article or a pronoun as a number.
CARDINAL_WORDS: dict[str, dict[int, str]] = {
    "id": {
        2: "dua",
        3: "tiga",
        4: "empat",
        5: "lima",
        6: "enam",
        7: "tujuh",
        8: "delapan",
        9: "sembilan",
        10: "sepuluh",
        11: "sebelas",
        100: "seratus",
        1000: "seribu",
    },
    "tr": {
        2: "iki",
        3: "üç",
        4: "dört",
        5: "beş",
        6: "altı",
        7: "yedi",
        8: "sekiz",
        9: "dokuz",
        10: "on",
        20: "yirmi",
        30: "otuz",
        40: "kırk",
        50: "elli",
        60: "altmış",
        70: "yetmiş",
        80: "seksen",
        90: "doksan",
        100: "yüz",
        1000: "bin",
    },
    "en": {
        2: "two",
        3: "three",
        4: "four",
        5: "five",
        6: "six",
        7: "seven",
        8: "eight",
        9: "nine",
        10: "ten",
        11: "eleven",
        12: "twelve",
        20: "twenty",
        30: "thirty",
        40: "forty",
        50: "fifty",
        100: "hundred",
        1000: "thousand",
    },
}

_ROMAN_DIGITS = ((10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def roman_numeral(value: int) -> str:
    """``value`` (1–39) in Roman numerals, lowercased: ``2`` → ``ii``, ``14`` → ``xiv``."""
    if not 0 < value < 40:
        raise ValueError(f"{value} is not a Roman numeral this reads (1–39)")
    out = []
    for amount, letters in _ROMAN_DIGITS:
        while value >= amount:
            out.append(letters)
            value -= amount
    return "".join(out)
