"""The sentences that say the documents do not answer a question, in each language tanda reads
(kernel: the offline model, the prompts, ``/v1/ask`` and ``tanda eval answers`` share them).

- :data:`NOT_FOUND_NOTICE` — ``/query/v2`` and the v1 gate (issue 22): the framing notice an
  agent publishes when no passage answers the question, in the question's language; it may be
  followed by the nearest passage, introduced by :data:`NEAREST_PASSAGE_LEAD` — never presented
  as the answer.
- :data:`ASK_NOT_FOUND` — ``/v1/ask`` (ASK-03): the fixed answer when no source was found, and
  the offline synthesis's answer when no source answers (ASK-05: an honest "not found" cites
  nothing). The Turkish sentence is the seed's, verbatim.

:func:`says_not_found` tells whether an answer carries one of them, whatever the language — what
``tanda eval answers`` counts as holding back.
"""

from __future__ import annotations

from typing import Final, Literal

NoticeLang = Literal["id", "tr", "en"]

NOT_FOUND_NOTICE: Final[dict[NoticeLang, str]] = {
    "id": "Dokumen tidak memuat jawaban atas pertanyaan ini.",
    "tr": "Belgeler bu sorunun cevabını içermiyor.",
    "en": "The documents do not answer this question.",
}

NEAREST_PASSAGE_LEAD: Final[dict[NoticeLang, str]] = {
    "id": "Bagian dokumen yang paling dekat dengan pertanyaan, bukan jawabannya:",
    "tr": "Soruya en yakın belge bölümü (cevap değildir):",
    "en": "The nearest passage in the documents, which is not an answer:",
}

ASK_NOT_FOUND: Final[dict[NoticeLang, str]] = {
    "tr": "Bu soruya belgelerde yanit bulunamadi.",
    "id": "Jawaban atas pertanyaan ini tidak ditemukan dalam dokumen.",
    "en": "No answer to this question was found in the documents.",
}

_ALL: Final = tuple(
    " ".join(text.casefold().split())
    for text in (*NOT_FOUND_NOTICE.values(), *ASK_NOT_FOUND.values())
)


def says_not_found(answer: str) -> bool:
    """Whether ``answer`` carries a not-found sentence of any language (case and spacing aside)."""
    folded = " ".join(answer.casefold().split())
    return any(text in folded for text in _ALL)
