"""Identity of documents and chunks.

Legal identity (V2-07) is read where the document states it — the title block of an Indonesian
regulation (``UNDANG-UNDANG REPUBLIK INDONESIA NOMOR 27 TAHUN 2022 TENTANG …``) — and metadata
(JSONL ``metadata`` or a ``<file>.meta.json`` sidecar) overrides whatever was read. Ids are pure
functions of what identifies the source, so re-ingesting the same source addresses the same rows.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from tanda.retrieval.model import LegalIdentity

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
_TYPE_ALTERNATIVES = "|".join(re.escape(raw) for raw, _ in _REGULATION_TYPES)
# OCR of scanned statutes confuses O/0, I/l/1, T/7, S/5 and U/V; the patterns tolerate it.
_NUMBER = r"[0-9OoIlT]+[A-Z]?"
_YEAR = r"[12][0-9OoIl]{3}"
_REGULATION_RE = re.compile(
    rf"\b(?P<type>{_TYPE_ALTERNATIVES})\s+REPUB\w*\s+INDONES\w*\s+"
    rf"NOMOR\s+(?P<number>{_NUMBER})\s+TAH[UV]N\s+(?P<year>{_YEAR})\s+"
    r"TE\S{1,4}NG\s+(?P<topic>.+?)"
    r"\s*(?:DENGAN\s+RAHMAT|PRESIDEN\s+REPUB|MENIMBANG|Menimbang|\Z)",
    re.DOTALL,
)
_CONSTITUTION_RE = re.compile(
    rf"UNDANG-UNDANG\s+DASAR\s+NEGARA\s+REPUB\w*\s+INDONES\w*\s+TAH[UV]N\s+(?P<year>{_YEAR})"
)
_ENACTED_BY_PRESIDENT_RE = re.compile(r"PRESIDEN\s+REPUB\w*\s+INDONES\w*\s*,")
_JOINT_APPROVAL_RE = re.compile(
    r"Persetujuan\s+Bersama\s+DEWAN\s+PERWAKILAN\s+RAKYAT", re.IGNORECASE
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
        if i > 0 and lower in _LOWER_WORDS:
            out.append(lower)
        elif re.fullmatch(r"[IVXLC]+", word) and len(word) <= 5 and word not in {"DI", "LI"}:
            out.append(word)  # Roman numerals stay as printed
        else:
            out.append("-".join(part[:1].upper() + part[1:].lower() for part in word.split("-")))
    return " ".join(out)


def extract_legal_identity(text: str) -> LegalIdentity:
    """The identity a regulation states in its title block (the first page or so of ``text``).

    Unknown fields stay ``None``; a text that states nothing gives an empty identity.
    """
    head = re.sub(r"[ \t]+", " ", text[:6000])
    match = _REGULATION_RE.search(head)
    if match:
        regulation_type = dict(_REGULATION_TYPES)[match["type"]]
        number = fix_ocr_number(match["number"])
        year = int(fix_ocr_number(match["year"]))
        topic = indonesian_title_case(match["topic"].rstrip(" .,"))
        reference = f"{regulation_type} Nomor {number} Tahun {year} tentang {topic}"
        return LegalIdentity(
            legal_reference=reference,
            regulation_type=regulation_type,
            number=number,
            year=year,
            publisher=_publisher(head),
        )
    constitution = _CONSTITUTION_RE.search(head)
    if constitution:
        year = int(fix_ocr_number(constitution["year"]))
        return LegalIdentity(
            legal_reference=f"Undang-Undang Dasar Negara Republik Indonesia Tahun {year}",
            regulation_type="Undang-Undang Dasar",
            year=year,
            publisher=_publisher(head),
        )
    return LegalIdentity()


def _publisher(head: str) -> str | None:
    # The enacting formula "DENGAN RAHMAT TUHAN YANG MAHA ESA PRESIDEN REPUBLIK INDONESIA," names
    # the issuing authority; a statute passed with the DPR says so ("Dengan Persetujuan Bersama").
    if _ENACTED_BY_PRESIDENT_RE.search(head):
        return "Presiden Republik Indonesia"
    if _JOINT_APPROVAL_RE.search(head):
        return "Dewan Perwakilan Rakyat dan Presiden Republik Indonesia"
    return None


def approved_by(text: str) -> str | None:
    """``Dewan Perwakilan Rakyat Republik Indonesia`` when the statute states joint approval."""
    if _JOINT_APPROVAL_RE.search(re.sub(r"\s+", " ", text[:12000])):
        return "Dewan Perwakilan Rakyat Republik Indonesia"
    return None


_IDENTITY_FIELDS = (
    "legal_reference",
    "regulation_type",
    "number",
    "year",
    "publisher",
    "section",
    "dataset",
    "period",
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
    (``legal_reference, regulation_type, number, year, publisher, section, dataset, period``),
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


_LANG_WORDS: dict[str, frozenset[str]] = {
    "id": frozenset(
        (
            "yang",
            "dan",
            "di",
            "ini",
            "dengan",
            "untuk",
            "dalam",
            "adalah",
            "atau",
            "dari",
            "pada",
            "tidak",
            "akan",
        )
    ),
    "tr": frozenset(
        (
            "ve",
            "bir",
            "bu",
            "için",
            "ile",
            "olarak",
            "da",
            "de",
            "olan",
            "çok",
            "daha",
            "gibi",
            "ama",
            "veya",
        )
    ),
    "en": frozenset(
        (
            "the",
            "and",
            "of",
            "to",
            "is",
            "in",
            "for",
            "that",
            "with",
            "as",
            "are",
            "by",
            "this",
            "from",
        )
    ),
}


def guess_lang(text: str) -> str | None:
    """``id``, ``tr`` or ``en`` by counting common function words; ``None`` when unclear."""
    words = re.findall(r"[a-zçğıöşü]+", text[:20000].lower())
    scores = {lang: sum(1 for w in words if w in vocab) for lang, vocab in _LANG_WORDS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    return best if scores[best] >= 3 else None


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
