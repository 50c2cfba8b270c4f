"""The language of an answer (ASK-07) and the server's own sentences in each language.

Precedence: the request's ``lang`` > the tenant's stored default > ``tr``
(:data:`tanda.lang.DEFAULT_ANSWER_LANG`). A code
:func:`tanda.lang.normalize_lang` does not know (it reads ``id-ID``, ``TR``, ``turkish`` …) is
ignored silently, never an error. Only the answer's own words change language; quotes,
snippets, entity values and ``[S#]`` labels stay as the documents have them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from tanda.contract.v1_ask import AskLang
from tanda.lang import DEFAULT_ANSWER_LANG, normalize_lang
from tanda.not_found import ASK_NOT_FOUND

if TYPE_CHECKING:
    from tanda.ports import Store

ASK_LANGS: tuple[AskLang, ...] = get_args(AskLang)

NOT_FOUND_ANSWER: dict[AskLang, str] = dict(ASK_NOT_FOUND)
"""The answer when retrieval found no source: no model call (ASK-03); also what a synthesis says
when its sources do not answer (the one list: :mod:`tanda.not_found`)."""

TRUNCATION_WARNING: dict[AskLang, str] = {
    "tr": "⚠ Uyarı: Cevap çıktı sınırına ulaştığı için kesildi; eksik olabilir.",
    "id": "⚠ Peringatan: Jawaban terpotong karena mencapai batas keluaran; mungkin tidak lengkap.",
    "en": "⚠ Warning: The answer was cut off at its output limit; it may be incomplete.",
}
"""Appended to a truncated answer (ASK-10), so that even a client ignoring ``truncated`` sees it."""

RULE_VIOLATION: dict[AskLang, str] = {
    "tr": "⚠ Belgenin koyduğu bir şart ihlal ediliyor (kural motorunun sonucu):",
    "id": "⚠ Syarat yang ditetapkan dokumen dilanggar (hasil mesin aturan):",
    "en": "⚠ A condition the document sets is violated (the rule engine's result):",
}
"""Leads the server's own sentence that reports a violated rule shown as evidence, asked or not
(ASK-08); the engine's result follows verbatim, with its ``[S#]``."""


def resolve_lang(requested: str | None, tenant_default: str | None) -> AskLang:
    """ASK-07: request > tenant default > ``tr``; unknown codes fall through silently."""
    return normalize_lang(requested) or normalize_lang(tenant_default) or DEFAULT_ANSWER_LANG


def answer_lang(store: Store, tenant_id: str, requested: str | None) -> AskLang:
    """:func:`resolve_lang` with the tenant's stored default (``/v1/ask``, a cross-check job's
    explanations, a scheduled job): the Store is read only when the request does not settle it."""
    if normalize_lang(requested) is not None:
        return resolve_lang(requested, None)
    return resolve_lang(None, store.tenant_profile(tenant_id).lang)
