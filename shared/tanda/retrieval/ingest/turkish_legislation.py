"""Identity of Turkish legislation (V2-07), read from the header it is published with.

Two headers are read. mevzuat.gov.tr prints the title, then the Resmî Gazete that published it::

    TEBLİGAT KANUNU
    Kanun Numarası : 7201
    Kabul Tarihi : 11/2/1959
    Yayımlandığı Resmî Gazete : Tarih : 19/2/1959 Sayı : 10139

or, for a regulation, ``Resmî Gazete Tarihi: 08.03.2012 Resmî Gazete Sayısı: 28227`` above the
issuer and the title. The Resmî Gazete issue itself prints its date and number, the kind of act
(``YÖNETMELİK``), the issuer (``Enerji Piyasası Düzenleme Kurumundan:``), then the title. A first
line such as ``7201 sayılı Tebligat Kanunu`` is read too.

The title is an upper-case line (or lines) ending in the kind of act: ``… KANUNU``, ``… KANUN``,
``… YÖNETMELİĞİ``, ``… TEBLİĞ`` (with ``(SERİ NO: 44)``), ``… GENELGESİ`` (with ``2023/9``). The
publisher is the issuer (``Enerji Piyasası Düzenleme Kurumu``) or, for a law, the Grand National
Assembly that passed it. The legal reference is the title as Turkish law cites it —
``7201 sayılı Tebligat Kanunu`` — followed by the Resmî Gazete date and number.
"""

from __future__ import annotations

import re

from tanda.records.documents import LegalIdentity

GRAND_NATIONAL_ASSEMBLY = "Türkiye Büyük Millet Meclisi"

# The last word of a title → the kind of act.
_KINDS: dict[str, str] = {
    "KANUNU": "Kanun",
    "KANUN": "Kanun",
    "YÖNETMELİĞİ": "Yönetmelik",
    "YÖNETMELİK": "Yönetmelik",
    "TEBLİĞİ": "Tebliğ",
    "TEBLİĞ": "Tebliğ",
    "GENELGESİ": "Genelge",
    "GENELGE": "Genelge",
}
_MONTHS = (
    "ocak",
    "şubat",
    "mart",
    "nisan",
    "mayıs",
    "haziran",
    "temmuz",
    "ağustos",
    "eylül",
    "ekim",
    "kasım",
    "aralık",
)
_DATE = r"\d{1,2}[./]\d{1,2}[./]\d{4}"
# "Resmî Gazete Tarihi: 08.03.2012 Resmî Gazete Sayısı: 28227", "Yayımlandığı R.Gazete : Tarih :
# 19/2/1959 Sayı : 10139", "Resmî Gazete Tarihi: 11.02.1959 Sayısı: 10139".
_GAZETTE_RE = re.compile(
    rf"R(?:esm[iî]|\.)\s*Gazete\b[^\n]{{0,40}}?(?P<date>{_DATE})[^\n]{{0,40}}?"
    r"Sayı(?:sı)?\s*:\s*(?P<number>\d+)",
    re.IGNORECASE,
)
# The issue's own masthead: "8 Mart 2012 PERŞEMBE  Resmî Gazete  Sayı : 28227".
_MASTHEAD_RE = re.compile(
    rf"(?P<day>\d{{1,2}})\s+(?P<month>{'|'.join(_MONTHS)})\s+(?P<year>\d{{4}})[^\n]{{0,60}}?"
    r"Resm[iî]\s+Gazete[^\n]{0,20}?Sayı\s*:\s*(?P<number>\d+)",
    re.IGNORECASE,
)
_LAW_NUMBER_RE = re.compile(r"Kanun\s+(?:Numarası|No)\s*\.?\s*:?\s*(?P<number>\d+)", re.IGNORECASE)
_ADOPTED_RE = re.compile(rf"Kabul\s+Tarihi\s*:\s*(?P<date>{_DATE})", re.IGNORECASE)
_NUMBERED_LAW_RE = re.compile(r"^(?P<number>\d+)\s+sayılı\s+(?P<title>.+\bKanunu)$", re.IGNORECASE)
# "Hazine ve Maliye Bakanlığından:" → "Hazine ve Maliye Bakanlığı" (the ablative taken off).
_ISSUER_RE = re.compile(
    r"^(?P<issuer>[A-ZÇĞİÖŞÜ][^:]{2,100}?)(?:(?<=[aeıioöuü])n(?:dan|den)|dan|den|tan|ten):$"
)
_SERIES_RE = re.compile(r"\(\s*(?P<kind>SERİ|SIRA|TEBLİĞ)\s+NO\s*:\s*(?P<number>[\w/.-]+)\s*\)$")
_CIRCULAR_NUMBER_RE = re.compile(r"^(?P<number>\d{4}/\d{1,4})$")
_YEAR_IN_NUMBER_RE = re.compile(r"^((?:19|20)\d\d)/")
_HEADER_LINES = 30
# Inside a title these stay lower case; every other word is capitalised.
_LOWER_WORDS = frozenset(("ve", "ile", "veya", "ya", "da", "de", "ki"))


def turkish_lower(text: str) -> str:
    return text.replace("I", "ı").replace("İ", "i").lower()


def turkish_upper(text: str) -> str:
    return text.replace("i", "İ").replace("ı", "I").upper()


def turkish_title_case(text: str) -> str:
    """``VERGİ USUL KANUNU İLE BAZI KANUNLARDA`` → ``Vergi Usul Kanunu ile Bazı Kanunlarda``."""
    out: list[str] = []
    for i, word in enumerate(text.split()):
        lower = turkish_lower(word)
        if i > 0 and lower in _LOWER_WORDS:
            out.append(lower)
        else:
            out.append(re.sub(r"[^\W\d_]+", lambda m: turkish_upper(m[0][0]) + m[0][1:], lower))
    return " ".join(out)


def turkish_identity(head: str) -> LegalIdentity | None:
    """The identity stated by the header of a Turkish act, or ``None`` when ``head`` (the start
    of a document) has no such header."""
    lines = [line.strip() for line in head.splitlines() if line.strip()][:_HEADER_LINES]
    title = _title(lines)
    if title is None:
        return None
    printed, kind, number = title
    gazette = _gazette(head)
    if kind == "Kanun":
        if number is None:
            law_number = _LAW_NUMBER_RE.search(head)
            number = law_number["number"] if law_number else None
        adopted = _ADOPTED_RE.search(head)
        year = _year_of(adopted["date"]) if adopted else None
        written = turkish_title_case(printed)
        reference = f"{number} sayılı {written}" if number else written
        publisher: str | None = GRAND_NATIONAL_ASSEMBLY
    else:
        year = int(found[1]) if number and (found := _YEAR_IN_NUMBER_RE.match(number)) else None
        reference = turkish_title_case(printed)
        publisher = _issuer(lines)
        if publisher is None and kind == "Genelge" and len(printed.split()) > 1:
            publisher = turkish_title_case(printed.rsplit(" ", 1)[0])  # CUMHURBAŞKANLIĞI GENELGESİ
    if gazette is not None:
        date, gazette_number = gazette
        year = year or _year_of(date)
        reference += f" (Resmî Gazete: {date}, Sayı: {gazette_number})"
    return LegalIdentity(
        legal_reference=reference,
        regulation_type=kind,
        number=number,
        year=year,
        publisher=publisher,
    )


def _title(lines: list[str]) -> tuple[str, str, str | None] | None:
    """The title as printed (with its series or circular number written in), the kind of act,
    and the number the title carries, from the header's lines."""
    if lines and (numbered := _NUMBERED_LAW_RE.match(lines[0])):
        return numbered["title"], "Kanun", numbered["number"]
    run: list[str] = []  # consecutive upper-case lines: a title may wrap
    for index, line in enumerate(lines):
        if not _is_upper(line) or len(line.split()) < 2:
            run = []  # a section head ("YÖNETMELİK"), the issuer, a date: not the title
            continue
        run.append(line)
        printed = " ".join(run)
        series = _SERIES_RE.search(printed)
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if series is None:
            series = _SERIES_RE.fullmatch(following)
        words = _SERIES_RE.sub("", printed).split()
        kind = _KINDS.get(words[-1]) if len(words) >= 2 else None
        if kind is None:
            continue
        written = " ".join(words)
        if series is not None:
            label = turkish_title_case(series["kind"])
            return f"{written} ({label} No: {series['number']})", kind, series["number"]
        if kind == "Genelge" and (circular := _CIRCULAR_NUMBER_RE.match(following)):
            return f"{written} {circular['number']}", kind, circular["number"]
        return written, kind, None
    return None


def _is_upper(line: str) -> bool:
    return any(ch.isalpha() for ch in line) and turkish_upper(line) == line


def _gazette(head: str) -> tuple[str, str] | None:
    """The Resmî Gazete that published the act: its date (``DD.MM.YYYY``) and number."""
    match = _GAZETTE_RE.search(head)
    if match:
        return _normal_date(match["date"]), match["number"]
    masthead = _MASTHEAD_RE.search(head)
    if masthead:
        month = _MONTHS.index(turkish_lower(masthead["month"])) + 1
        return f"{int(masthead['day']):02d}.{month:02d}.{masthead['year']}", masthead["number"]
    return None


def _normal_date(date: str) -> str:
    day, month, year = re.split(r"[./]", date)
    return f"{int(day):02d}.{int(month):02d}.{year}"


def _year_of(date: str) -> int:
    return int(re.split(r"[./]", date)[-1])


def _issuer(lines: list[str]) -> str | None:
    for line in lines:
        match = _ISSUER_RE.match(line)
        if match:
            return match["issuer"]
    return None
