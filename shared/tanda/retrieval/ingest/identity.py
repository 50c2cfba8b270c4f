"""Identity of documents and chunks.

Legal identity (V2-07) is read where the document states it — the title block of an Indonesian
regulation, national (``UNDANG-UNDANG REPUBLIK INDONESIA NOMOR 27 TAHUN 2022 TENTANG …``) or
regional (``QANUN KABUPATEN ACEH BESAR NOMOR 4 TAHUN 2019 TENTANG …``), or the header of Turkish
legislation (``turkish_legislation.py``) — and metadata (JSONL ``metadata`` or a
``<file>.meta.json`` sidecar) overrides whatever was read. Ids are pure functions of what
identifies the source, so re-ingesting the same source addresses the same rows.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from tanda.records.documents import LegalIdentity
from tanda.retrieval.ingest.turkish_legislation import turkish_identity

# Regulation types as they are printed in a title block, longest first, with their written form.
_REGULATION_TYPES: tuple[tuple[str, str], ...] = (
    (
        "PERATURAN PEMERINTAH PENGGANTI UNDANG-UNDANG",
        "Peraturan Pemerintah Pengganti Undang-Undang",
    ),
    ("PERATURAN PEMERINTAH", "Peraturan Pemerintah"),
    ("PERATURAN PRESIDEN", "Peraturan Presiden"),
    ("KEPUTUSAN PRESIDEN", "Keputusan Presiden"),
    ("INSTRUKSI PRESIDEN", "Instruksi Presiden"),
    ("PERATURAN MAHKAMAH KONSTITUSI", "Peraturan Mahkamah Konstitusi"),
    ("PERATURAN BADAN PEMERIKSA KEUANGAN", "Peraturan Badan Pemeriksa Keuangan"),
    ("UNDANG-UNDANG", "Undang-Undang"),
)
# OCR of scanned statutes prints a hyphen as a dot (UNDANG.UNDANG, INDONESI.A).
_TYPE_ALTERNATIVES = "|".join(
    raw.replace("-", "[-.]").replace(" ", r"\s+") for raw, _ in _REGULATION_TYPES
)
# OCR of scanned statutes confuses O/0, I/l/1, T/7, S/5 and U/V; the patterns tolerate it.
_NUMBER = r"[0-9OoIlT]+[A-Z]?"
_YEAR = r"[12][0-9OoIl]{3}"
_REPUBLIC = r"REPUB\S*\s+INDONES\S*"
# Where a title block's topic ends: the enacting formula (DENGAN RAHMAT …, BISMILLAH… in Aceh, or
# the enacting head's own line, "BUPATI ACEH BESAR,"), the preamble, the body, or a blank line.
_TOPIC_END = (
    r"\s*(?:DENGAN\s+RAHMAT|BISMILLAH|PRESIDEN\s+REPUB"
    r"|\n\s*(?:GUBERNUR|BUPATI|WALI\s*KOTA|MENTERI)\b[^\n,]*,"
    r"|MENIMBANG|Menimbang|\n\s*BAB\s+[I1]\b|\n\s*Pasal\s+1\b|\n[ \t]*\n|\Z)"
)
_REGULATION_RE = re.compile(
    rf"\b(?P<type>{_TYPE_ALTERNATIVES})\s+{_REPUBLIC}\s+"
    rf"NOMOR\s+(?P<number>{_NUMBER})\s+TAH[UV]N\s+(?P<year>{_YEAR})\s+"
    rf"TE\S{{1,4}}NG\s+(?P<topic>.+?){_TOPIC_END}",
    re.DOTALL,
)
_CONSTITUTION_RE = re.compile(
    rf"UNDANG-UNDANG\s+DASAR\s+NEGARA\s+{_REPUBLIC}\s+TAH[UV]N\s+(?P<year>{_YEAR})"
)

# Regional regulations and decrees, and ministers' (V2-07). The printed form is followed by the
# region (or the ministry) it belongs to, and the head of that region enacts it — the title block
# closes with "BUPATI ACEH BESAR," — so that head is its publisher.
# Printed form → (regulation type, the head who enacts it).
_REGIONAL_FORMS: dict[str, tuple[str, str]] = {
    "QANUN": ("Qanun Aceh", "Gubernur"),  # QANUN ACEH: the province's own (UU 11/2006)
    "QANUN KABUPATEN": ("Qanun Kabupaten", "Bupati"),
    "QANUN KOTA": ("Qanun Kota", "Wali Kota"),
    "PERATURAN DAERAH PROVINSI": ("Peraturan Daerah Provinsi", "Gubernur"),
    "PERATURAN DAERAH KABUPATEN": ("Peraturan Daerah Kabupaten", "Bupati"),
    "PERATURAN DAERAH KOTA": ("Peraturan Daerah Kota", "Wali Kota"),
    "PERATURAN GUBERNUR": ("Peraturan Gubernur", "Gubernur"),
    "PERATURAN BUPATI": ("Peraturan Bupati", "Bupati"),
    "PERATURAN WALI KOTA": ("Peraturan Wali Kota", "Wali Kota"),
    "KEPUTUSAN GUBERNUR": ("Keputusan Gubernur", "Gubernur"),
    "KEPUTUSAN BUPATI": ("Keputusan Bupati", "Bupati"),
    "KEPUTUSAN WALI KOTA": ("Keputusan Wali Kota", "Wali Kota"),
    "PERATURAN MENTERI": ("Peraturan Menteri", "Menteri"),
    "KEPUTUSAN MENTERI": ("Keputusan Menteri", "Menteri"),
}
_REGIONAL_ALTERNATIVES = "|".join(
    form.replace(" ", r"\s+").replace(r"WALI\s+KOTA", r"WALI\s*KOTA")
    for form in sorted(_REGIONAL_FORMS, key=len, reverse=True)
)
_REGION_WORD = r"[A-Z][A-Z'.-]*"
_REGIONAL_RE = re.compile(
    rf"\b(?P<form>{_REGIONAL_ALTERNATIVES})\s+"
    rf"(?P<region>{_REGION_WORD}(?:\s+{_REGION_WORD}){{0,6}}?)(?P<republic>\s+{_REPUBLIC})?\s+"
    # A decree's number carries its year and register (188/889/KPTS/013/2022), often no TAHUN.
    r"NOMOR\s*:?\s*(?P<number>[0-9A-Z][0-9A-Za-z./-]*?)\.?"
    rf"(?:\s+TAH[UV]N\s+(?P<year>{_YEAR}))?\s+"
    rf"TE\S{{1,4}}NG\s+(?P<topic>.+?){_TOPIC_END}",
    re.DOTALL,
)
_YEAR_IN_NUMBER_RE = re.compile(r"(?:^|[/.-])((?:19|20)\d\d)$")
_NUMBER_IN_TOPIC_RE = re.compile(r"\b(NOMOR|TAH[UV]N)\s+([0-9OoIl]*[0-9][0-9OoIl]*)\b")
_ENACTED_BY_PRESIDENT_RE = re.compile(rf"PRESIDEN\s+{_REPUBLIC}\s*,")
# The body that approved it: the words after "Dengan Persetujuan Bersama" up to "dan" or the
# line's end: DEWAN PERWAKILAN RAKYAT REPUBLIK INDONESIA, … RAKYAT ACEH, … RAKYAT KOTA SURABAYA.
_JOINT_APPROVAL_RE = re.compile(
    r"Persetujuan\s+Bersama\s+(?P<body>DEWAN\s+PERWAKILAN\s+RAKYAT\b"
    r"(?:[ \t]+(?!DAN\b)[A-Z][A-Z'.-]*){0,8})",
    re.IGNORECASE,
)
_OCR_DIGITS = str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1", "T": "7"})

# Indonesian title case keeps these words lower case inside a title.
_LOWER_WORDS = frozenset(
    (
        "dan",
        "atau",
        "di",
        "ke",
        "dari",
        "yang",
        "untuk",
        "tentang",
        "atas",
        "dalam",
        "pada",
        "serta",
        "terhadap",
        "dengan",
        "oleh",
        "bagi",
        "sebagai",
        "antara",
    )
)


def fix_ocr_number(token: str) -> str:
    """``2O22`` → ``2022``, ``4OA`` → ``40A``: digits misread as letters in scanned statutes."""
    if not token:
        return token
    suffix = token[-1] if len(token) > 1 and token[-1].isupper() and token[-1] not in "OIT" else ""
    body = token[: len(token) - len(suffix)]
    return body.translate(_OCR_DIGITS) + suffix


def indonesian_title_case(text: str) -> str:
    """``PELINDUNGAN DATA PRIBADI`` → ``Pelindungan Data Pribadi`` (conjunctions stay lower)."""
    words = re.sub(r"\s+", " ", text).strip().split(" ")
    out: list[str] = []
    for i, word in enumerate(words):
        lower = word.lower()
        letters = re.findall(r"[^\W\d_]+", lower)
        if i > 0 and letters and all(part in _LOWER_WORDS for part in letters):
            out.append(lower)  # "dan", "dan/atau"
        elif re.fullmatch(r"[IVXLC]+", word) and len(word) <= 5 and word not in {"DI", "LI"}:
            out.append(word)  # Roman numerals stay as printed
        else:
            out.append(re.sub(r"[^\W\d_]+", _capitalized, lower))  # Kabupaten/Kota, Bau-Bau
    return " ".join(out)


def _capitalized(match: re.Match[str]) -> str:
    return match.group().capitalize()


def extract_legal_identity(text: str) -> LegalIdentity:
    """The identity a regulation states in its title block (the first page or so of ``text``).

    Unknown fields stay ``None``; a text that states nothing gives an empty identity.
    """
    head = re.sub(r"[ \t]+", " ", text[:6000])
    found = [
        read for read in (_national(head), _regional(head), _constitution(head)) if read is not None
    ]
    if found:
        # The title block opens the document; a later match is a regulation it cites.
        return min(found, key=lambda read: read[0])[1]
    return turkish_identity(head) or LegalIdentity()


def _national(head: str) -> tuple[int, LegalIdentity] | None:
    match = _REGULATION_RE.search(head)
    if match is None:
        return None
    printed = re.sub(r"\s+", " ", match["type"]).replace(".", "-")
    regulation_type = dict(_REGULATION_TYPES)[printed]
    number = fix_ocr_number(match["number"])
    year = int(fix_ocr_number(match["year"]))
    reference = f"{regulation_type} Nomor {number} Tahun {year} tentang {_topic(match['topic'])}"
    identity = LegalIdentity(
        legal_reference=reference,
        regulation_type=regulation_type,
        number=number,
        year=year,
        publisher=_publisher(head),
    )
    return match.start(), identity


def _regional(head: str) -> tuple[int, LegalIdentity] | None:
    for match in _REGIONAL_RE.finditer(head):
        printed = re.sub(r"\s+", " ", match["form"]).replace("WALIKOTA", "WALI KOTA")
        regulation_type, enacting_head = _REGIONAL_FORMS[printed]
        region = indonesian_title_case(match["region"])
        if printed == "QANUN" and region != "Aceh":
            continue  # only Aceh and its kabupaten/kota make qanun
        number = match["number"]
        if re.fullmatch(_NUMBER, number):
            number = fix_ocr_number(number)
        if match["year"]:
            year: int | None = int(fix_ocr_number(match["year"]))
            dated = f" Tahun {year}"
        else:
            in_number = _YEAR_IN_NUMBER_RE.search(number)
            year, dated = (int(in_number.group(1)) if in_number else None), ""
        form = indonesian_title_case(printed)
        reference = f"{form} {region} Nomor {number}{dated} tentang {_topic(match['topic'])}"
        publisher = f"{enacting_head} {region}"
        if match["republic"]:
            publisher += " Republik Indonesia"
        identity = LegalIdentity(
            legal_reference=reference,
            regulation_type=regulation_type,
            number=number,
            year=year,
            publisher=publisher,
        )
        return match.start(), identity
    return None


def _constitution(head: str) -> tuple[int, LegalIdentity] | None:
    match = _CONSTITUTION_RE.search(head)
    if match is None:
        return None
    year = int(fix_ocr_number(match["year"]))
    identity = LegalIdentity(
        legal_reference=f"Undang-Undang Dasar Negara Republik Indonesia Tahun {year}",
        regulation_type="Undang-Undang Dasar",
        year=year,
        publisher=_publisher(head),
    )
    return match.start(), identity


def _topic(printed: str) -> str:
    """The topic as written in a reference; numbers of the regulations it names OCR-repaired
    (``… NOMOR I1 TAHUN 2OO8 …`` → ``… Nomor 11 Tahun 2008 …``)."""
    repaired = _NUMBER_IN_TOPIC_RE.sub(lambda m: f"{m[1]} {fix_ocr_number(m[2])}", printed)
    return indonesian_title_case(repaired.rstrip(" .,"))


def _publisher(head: str) -> str | None:
    # The enacting formula "DENGAN RAHMAT TUHAN YANG MAHA ESA PRESIDEN REPUBLIK INDONESIA," names
    # the issuing authority; a statute passed with the DPR says so ("Dengan Persetujuan Bersama").
    if _ENACTED_BY_PRESIDENT_RE.search(head):
        return "Presiden Republik Indonesia"
    if _JOINT_APPROVAL_RE.search(head):
        return "Dewan Perwakilan Rakyat dan Presiden Republik Indonesia"
    return None


def approved_by(text: str) -> str | None:
    """The representative body that approved the regulation jointly with its enacting head, as
    the title block states it: ``Dewan Perwakilan Rakyat Republik Indonesia`` for a statute,
    ``Dewan Perwakilan Rakyat Kabupaten Aceh Besar`` for a qanun of that kabupaten."""
    match = _JOINT_APPROVAL_RE.search(re.sub(r"[ \t]+", " ", text[:12000]))
    return indonesian_title_case(match["body"]) if match else None


_IDENTITY_FIELDS = (
    "legal_reference",
    "regulation_type",
    "number",
    "year",
    "publisher",
    "section",
    "dataset",
    "period",
    "document_type",
    "issue_date",
    "seller",
    "buyer",
    "currency",
)


@dataclass(frozen=True)
class MetadataOverrides:
    """What metadata says about a document, split into identity, title, language and the rest."""

    identity: LegalIdentity
    title: str | None
    lang: str | None
    metadata: dict[str, str]


def apply_metadata(
    identity: LegalIdentity, title: str | None, lang: str | None, metadata: Mapping[str, object]
) -> MetadataOverrides:
    """Metadata wins over what was read from the document: identity fields
    (``legal_reference, regulation_type, number, year, publisher, section, dataset, period``, and
    for invoices ``document_type, issue_date, seller, buyer, currency``),
    ``title`` and ``lang``; every other key is kept as document metadata (as text)."""
    updates: dict[str, object] = {}
    rest: dict[str, str] = {}
    for key, value in metadata.items():
        if value is None:
            continue
        if key in _IDENTITY_FIELDS:
            if key == "year":
                try:
                    updates["year"] = int(str(value).strip())
                except ValueError:
                    rest["year"] = str(value)
            else:
                updates[key] = str(value)
        elif key == "title":
            title = str(value)
        elif key == "lang":
            lang = str(value)
        elif key != "document_id":
            rest[key] = value if isinstance(value, str) else _as_text(value)
    if updates.get("legal_reference") and not title:
        title = str(updates["legal_reference"])
    return MetadataOverrides(identity.model_copy(update=updates), title, lang, rest)


def _as_text(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def document_id_for(tenant_id: str, source_key: str) -> str:
    """Stable id of a file-backed document: tenant + the source's key (its path relative to the
    ingest root), so a changed file addresses — and replaces — the same document."""
    return "doc_" + _digest("document", tenant_id, source_key)[:24]


def chunk_id_for(
    document_id: str, section: str | None, page_no: int | None, text: str, occurrence: int
) -> str:
    """Same content at the same place of the same document → the same id."""
    where = f"{section or ''}\x1e{page_no if page_no is not None else ''}\x1e{occurrence}"
    return "chk_" + _digest("chunk", document_id, where, text)[:24]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
