"""ASK-09: the pages a question names explicitly, in Turkish, Indonesian or English.

"sayfa 5", "5. sayfa", "5'inci sayfada", "halaman 5", "hal. 5", "halaman ke-5", "page 5",
"p. 5", "5th page", ranges ("sayfa 3-5", "3'ten 5'e kadar sayfalar", "halaman 3 sampai 5",
"pages 3 to 5") and lists ("sayfa 2, 4 ve 6", "2. ve 4. sayfalar", "halaman 2 dan 4",
"pages 2, 3 and 5") name pages. A page is a scope, like ``document_id``, not a ranking signal:
with one document in scope, exactly those pages' text becomes the context.

Relative and whole-document expressions — "son sayfa", "ilk sayfa", "tüm sayfalar",
"halaman terakhir", "semua halaman", "last page", "all pages" … — never narrow, even beside an
explicit page: they cannot be resolved without reading the document, and narrowing would hide
what they ask for. Numbers written as words ("beşinci sayfa") are not read. A request for more
than :data:`MAX_PAGES` pages does not narrow either.
"""

from __future__ import annotations

import re

MAX_PAGES = 50

_NUM = r"\d{1,4}"
# Between two numbers of a range: a dash, a word, or Turkish "from" glued to the first number.
_TO = (
    r"(?:\s*(?:-|–|—|\.\.)\s*|\s+(?:to|through|thru|until|till|sampai(?:\s+dengan)?|hingga|s/d)\s+"
    r"|'[td][ae]n\s+)"
)
_SUFFIX = r"(?:\.|'\w+)?"
_ITEM = rf"{_NUM}(?:\.?{_TO}{_NUM})?{_SUFFIX}"
_AND = r"(?:\s*[,;&]\s*(?:(?:and|ve|dan|serta)\s+)?|\s+(?:and|ve|dan|serta|ile|or|veya|atau)\s+)"
_LIST = rf"{_ITEM}(?:{_AND}{_ITEM})*"

_PAGE_WORD = r"(?:sayfa\w*|halaman|hal\.|hlm\.|pages?|pp?\.)"
# "sayfa 5", "halaman ke-5", "page no. 5", "pages 3 to 5"
_FORWARD = re.compile(
    rf"(?<!\w){_PAGE_WORD}\s*(?:(?:no\.?|nomor|number|numaral\w*)\s*)?(?:ke-?\s*)?({_LIST})",
    re.IGNORECASE,
)
# Ordinals before the page word: "5. sayfa", "2. ve 4. sayfalar", "5'inci sayfa", "5th page".
_ORDINAL = rf"{_NUM}(?:\.|'?(?:i|ı|u|ü)?nc[iıuü]|st|nd|rd|th)"
_ORDINAL_ITEM = (
    rf"(?:{_NUM}'[td][ae]n\s+{_NUM}'\w+(?:\s+kadar\w*)?|(?:{_NUM}\.?\s*[-–]\s*)?{_ORDINAL})"
)
_BACKWARD = re.compile(
    rf"(?<![\w.])({_ORDINAL_ITEM}(?:{_AND}{_ORDINAL_ITEM})*)\s*(?:the\s+)?(?:sayfa\w*|pages?)\b",
    re.IGNORECASE,
)
_NOT_NARROWING = re.compile(
    r"(?<!\w)(?:"
    # Turkish: last, first, all, every, next, previous page(s); "sayfaların hepsi/tamamı"
    r"(?:son|ilk|tüm|bütün|her|sonraki|önceki|diğer)\s+sayfa\w*"
    r"|sayfa\w*\s+(?:hepsi\w*|tamam\w*|tümü\w*)"
    # Indonesian
    r"|halaman\s+(?:terakhir|pertama|berikutnya|sebelumnya|lain\w*)"
    r"|(?:semua|seluruh|setiap|tiap|segala)\s+halaman"
    # English
    r"|(?:last|first|final|every|all|each|next|previous|other|remaining)\s+(?:the\s+)?pages?"
    r"|all\s+(?:of\s+)?the\s+pages?"
    r")(?!\w)",
    re.IGNORECASE,
)
_NUMBER = re.compile(_NUM)
_RANGE_BETWEEN = re.compile(rf"^{_SUFFIX}{_TO}$", re.IGNORECASE)
# A Turkish range may also read "3'ten 5'e kadar": the first number carries "from".


_BETWEEN = (
    # "between pages 3 and 5", "antara halaman 3 dan 5", "sayfa 3 ile 5 arası": a range
    re.compile(r"\bbetween\s+(pages?)\s+(\d{1,4})\s+and\s+(\d{1,4})", re.IGNORECASE),
    re.compile(r"\bantara\s+(halaman)\s+(\d{1,4})\s+dan\s+(\d{1,4})", re.IGNORECASE),
    re.compile(r"(sayfa\w*)\s+(\d{1,4})\s+ile\s+(\d{1,4})(?=\s+aras)", re.IGNORECASE),
)


def _normalized(question: str) -> str:
    # Python's case-insensitive matching does not fold Turkish dotted capital I to "i".
    text = question.replace("İ", "i").replace("I\u0307", "i")
    for between in _BETWEEN:
        text = between.sub(r"\1 \2-\3", text)
    return text


def _pages_of(listed: str) -> set[int] | None:
    """Every page a matched list names: numbers, and the ranges between two of them; ``None``
    when a range spans more than :data:`MAX_PAGES` pages."""
    numbers = list(_NUMBER.finditer(listed))
    pages: set[int] = set()
    index = 0
    while index < len(numbers):
        first = int(numbers[index].group())
        if index + 1 < len(numbers):
            between = listed[numbers[index].end() : numbers[index + 1].start()]
            if _RANGE_BETWEEN.match(between):
                last = int(numbers[index + 1].group())
                low, high = min(first, last), max(first, last)
                if high - low >= MAX_PAGES:
                    return None
                pages.update(range(low, high + 1))
                index += 2
                continue
        pages.add(first)
        index += 1
    return pages


def requested_pages(question: str) -> tuple[int, ...] | None:
    """The pages ``question`` names, ascending; ``None`` when it names none, names a relative
    or whole-document page, or names more than :data:`MAX_PAGES` pages."""
    text = _normalized(question)
    if _NOT_NARROWING.search(text):
        return None
    pages: set[int] = set()
    for pattern in (_FORWARD, _BACKWARD):
        for found in pattern.finditer(text):
            named = _pages_of(found.group(1))
            if named is None:
                return None
            pages |= named
    pages.discard(0)
    if not pages or len(pages) > MAX_PAGES:
        return None
    return tuple(sorted(pages))
