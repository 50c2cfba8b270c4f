"""The language of an answer (ASK-07) and the server's own sentences in each language.

Precedence: the request's ``lang`` > the tenant's stored default > ``tr``. A code that is not
one of :data:`ASK_LANGS` (after lower-casing and dropping a region, ``id-ID`` → ``id``) is ignored
silently, never an error. Only the answer's own words change language; quotes, snippets, entity
values and ``[S#]`` labels stay as the documents have them.
"""

from __future__ import annotations

from typing import get_args

from tanda.contract.v1_ask import AskLang

ASK_LANGS: tuple[AskLang, ...] = get_args(AskLang)
DEFAULT_LANG: AskLang = "tr"

NOT_FOUND_ANSWER: dict[AskLang, str] = {
    # ASK-03: the seed's fixed sentence, verbatim; translated only when `lang` asks for it.
    "tr": "Bu soruya belgelerde yanit bulunamadi.",
    "id": "Jawaban atas pertanyaan ini tidak ditemukan dalam dokumen.",
    "en": "No answer to this question was found in the documents.",
}
"""The answer when retrieval found no source: no model call (ASK-03)."""

TRUNCATION_WARNING: dict[AskLang, str] = {
    "tr": "⚠ Uyarı: Cevap çıktı sınırına ulaştığı için kesildi; eksik olabilir.",
    "id": "⚠ Peringatan: Jawaban terpotong karena mencapai batas keluaran; mungkin tidak lengkap.",
    "en": "⚠ Warning: The answer was cut off at its output limit; it may be incomplete.",
}
"""Appended to a truncated answer (ASK-10), so that even a client ignoring ``truncated`` sees it."""

LANGUAGE_NAMES: dict[AskLang, str] = {
    "tr": "Turkish (Türkçe)",
    "id": "Indonesian (Bahasa Indonesia)",
    "en": "English",
}


def known_lang(code: str | None) -> AskLang | None:
    """``code`` as one of :data:`ASK_LANGS`, or ``None`` when it is none of them."""
    if not code:
        return None
    primary = code.strip().lower().replace("_", "-").split("-", 1)[0]
    for lang in ASK_LANGS:
        if primary == lang:
            return lang
    return None


def resolve_lang(requested: str | None, tenant_default: str | None) -> AskLang:
    """ASK-07: request > tenant default > ``tr``; unknown codes fall through silently."""
    return known_lang(requested) or known_lang(tenant_default) or DEFAULT_LANG
