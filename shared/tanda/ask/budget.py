"""ASK-10: the output budget is chosen per question.

A narrow question ("gönderici kim?") and a request to list every item ("tüm kalemleri listele")
do not share one ceiling: a question that asks for a list, a breakdown or every item gets the
larger budget. The cues are words in Turkish, Indonesian and English; Turkish and Indonesian words
are matched by their stem, so suffixes ("kalemleri", "listesini", "rinciannya") count too.
"""

from __future__ import annotations

import re

_LISTING = re.compile(
    r"(?<!\w)(?:"
    # Turkish stems: all, every, list, sort, breakdown, line item, detailed, one by one
    r"tüm\w*|bütün\w*|hepsi\w*|liste\w*|sırala\w*|döküm\w*|kalem\w*|ayrıntı\w*|"
    r"tek\s+tek|her\s+bir"
    # Indonesian stems
    r"|semua\w*|seluruh\w*|daftar\w*|sebutkan\w*|rinci\w*|perinci\w*|uraikan\w*|setiap|"
    r"masing-masing|satu\s+per\s+satu"
    # English words
    r"|list|lists|listing|all|every|each|itemi[sz]e\w*|enumerate\w*|breakdown|break\s+down"
    r")(?!\w)",
    re.IGNORECASE,
)


def asks_for_a_list(question: str) -> bool:
    return _LISTING.search(question.replace("İ", "i")) is not None


def without_listing_words(question: str) -> str:
    """``question`` without the words that ask for a list: what it is a list *of*."""
    return _LISTING.sub(" ", question.replace("İ", "i"))


def output_budget(question: str, *, narrow_tokens: int, list_tokens: int) -> int:
    """The ``max_tokens`` of this question's synthesis call (and of its one continuation)."""
    return list_tokens if asks_for_a_list(question) else narrow_tokens
