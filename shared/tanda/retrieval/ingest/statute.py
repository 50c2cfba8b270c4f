"""Page text → paragraphs under a section path, with the structure of Indonesian statutes.

Published statutes repeat a running head on every page (``PRESIDEN / REPUBLIK INDONESIA``, a page
number like ``- 3 -``), end each page with a registry line (``SK No 155205 A``) and a catchword (the
first words of the next page, ``5. Prosesor . . .``). Those are dropped. The structure — ``BAB``,
``Bagian``, ``Paragraf``, ``Pasal``, the ``Penjelasan`` — becomes the section path of what follows,
e.g. ``BAB II > Pasal 5`` or ``Penjelasan > Pasal 3``. Scanned statutes are full of OCR slips
(``Pasal I`` for ``Pasal 1``, ``BAB Ix``, ``Pasal 4O``); headings are matched with that in mind and
a ``Pasal`` heading must continue the numbering, so a reference wrapped onto its own line
(``… dimaksud dalam`` / ``Pasal 13``) is not taken for a heading.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from tanda.retrieval.ingest.identity import fix_ocr_number
from tanda.retrieval.ingest.parsed import Paragraph, TextBlock

_PAGE_NUMBER_RE = re.compile(r"^[-–—\s]*\d{1,4}\s*[-–—]*\s*$")
_REGISTRY_RE = re.compile(r"^SK\s*No\.?\s*[0-9lIO]{3}", re.IGNORECASE)
_CATCHWORD_RE = re.compile(r"(\.\s?\.\s?\.|…)\s*$")
_URL_FOOTER_RE = re.compile(r"^(www\.)?[\w-]+(\.[\w-]+)+\.(go\.id|id|com|org)\s*$", re.IGNORECASE)
_RUNNING_HEADS = ("PRESIDEN", "REPUBLIKINDONESIA", "SALINAN")

_BAB_RE = re.compile(r"^BAB\s*([IVXLCivxlc1]+[A-Z]?)$")
_BAGIAN_RE = re.compile(r"^Bagian\s+(Ke[a-z]+)$")
_PARAGRAF_RE = re.compile(r"^Paragraf\s+(\d+|[IVX]+|Ke[a-z]+)$")
_PASAL_RE = re.compile(r"^Pasal\s*([0-9OIlTS]{1,4}[A-Z]?)$")
_ROMAN_PASAL_RE = re.compile(r"^Pasal\s+([IVX]+)$")
_NUMBERED_HEAD_RE = re.compile(r"^(?:I{1,3}|IV|V)\.\s*(.+)$")
_PARAGRAPH_START_RE = re.compile(r"^(\(\s*[0-9lI]{1,3}[a-z]?\s*[)l1]|[a-z]\.\s|\d{1,3}\.\s)")
_AYAT_RE = re.compile(r"^\(\s*([0-9lI]{1,3}[a-z]?)\s*\)")


def _letters(line: str) -> str:
    return re.sub(r"[^A-Za-z]", "", line).upper()


def _similar(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b).ratio()


def _is_running_head(line: str) -> bool:
    letters = _letters(line)
    if not letters or "," in line or len(letters) > 20:
        return False
    if len(letters) <= 2 and len(line.strip()) <= 2:
        return True  # OCR crumbs of the state emblem ("I", "KB")
    return any(
        _similar(letters, head) >= 0.75 or (len(letters) >= 8 and head.endswith(letters[-8:]))
        for head in _RUNNING_HEADS
    )


def _is_ocr_page_number(line: str) -> bool:
    # "- 3 -", "-3-", "2-", and OCR'd ones such as "-t7-"
    return bool(re.fullmatch(r"-?\s*[0-9OIlt]{1,4}\s*-?", line)) and (
        "-" in line or any(ch.isdigit() for ch in line)
    )


def _noise_key(line: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"\s+", " ", line.strip().lower()))


def clean_pages(pages: Sequence[str]) -> list[list[str]]:
    """Each page's lines without running heads, page numbers, registry lines, catchwords and
    lines repeated at the top or bottom of most pages. Whitespace runs are collapsed."""
    split = [[re.sub(r"\s+", " ", ln).strip() for ln in page.splitlines()] for page in pages]
    split = [[ln for ln in lines if ln] for lines in split]
    # Lines that open or close at least half of the pages are page furniture, whatever they say.
    edges: Counter[str] = Counter()
    for lines in split:
        edges.update({_noise_key(ln) for ln in lines[:3] + lines[-3:]})
    furniture = {key for key, n in edges.items() if len(split) >= 4 and n >= len(split) / 2}
    cleaned: list[list[str]] = []
    for lines in split:
        kept: list[str] = []
        for i, line in enumerate(lines):
            if _REGISTRY_RE.match(line):
                break  # the registry line and the catchword after it close the page
            if _noise_key(line) in furniture or _URL_FOOTER_RE.match(line):
                continue
            if i < 8 and (_is_running_head(line) or _PAGE_NUMBER_RE.match(line)):
                continue
            if i < 8 and _is_ocr_page_number(line):
                continue
            kept.append(line)
        # The catchword ("(2) Pemberitahuan . . .") sits in the last lines, not always the last.
        tail = len(kept) - 5
        kept = [ln for i, ln in enumerate(kept) if i < tail or not _CATCHWORD_RE.search(ln)]
        cleaned.append(kept)
    return cleaned


def join_lines(lines: Sequence[str]) -> str:
    """Lines of one paragraph → one line; a word hyphenated at a line end stays whole."""
    out = ""
    for line in lines:
        if not out:
            out = line
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and line[:1].isalpha():
            out += line  # "Undang-" + "Undang" → "Undang-Undang"
        else:
            out += " " + line
    return out


@dataclass
class _Heading:
    kind: str  # bab | bagian | paragraf | pasal | root
    label: str


class _SectionPath:
    """The current position in the statute's outline."""

    _ORDER = ("root", "bab", "bagian", "paragraf", "pasal_roman", "pasal")

    def __init__(self) -> None:
        self.levels: dict[str, str] = {}

    def enter(self, kind: str, label: str) -> None:
        depth = self._ORDER.index(kind)
        for deeper in self._ORDER[depth:]:
            self.levels.pop(deeper, None)
        self.levels[kind] = label

    def leave(self, kind: str) -> None:
        depth = self._ORDER.index(kind)
        for deeper in self._ORDER[depth:]:
            self.levels.pop(deeper, None)

    def render(self) -> str | None:
        parts = [self.levels[k] for k in self._ORDER if k in self.levels]
        return " > ".join(parts) if parts else None


def _roman_to_int(roman: str) -> int:
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
    total = 0
    for i, ch in enumerate(roman):
        v = values[ch]
        total += -v if i + 1 < len(roman) and values[roman[i + 1]] > v else v
    return total


def _pasal_candidates(token: str) -> list[tuple[int, str]]:
    base = fix_ocr_number(token.replace("S", "5") if token[:1] != "S" else "8" + token[1:])
    out: list[tuple[int, str]] = []
    digits = re.match(r"\d+", base)
    if digits:
        out.append((int(digits.group()), base))
    if len(base) > 1 and base.endswith("8") and base[:-1].isdigit():
        out.append((int(base[:-1]), base[:-1] + "B"))  # "168" is often a misread "16B"
    return out


def looks_like_statute(text: str) -> bool:
    return len(re.findall(r"(?m)^\s*Pasal\s*[0-9OIl]{1,4}[A-Z]?\s*$", text)) >= 2


def parse_statute_pages(
    pages: Sequence[Sequence[str]], *, first_page: int | None = 1
) -> list[TextBlock]:
    """Cleaned lines per page → text blocks under their section path.

    ``first_page`` is the page number of ``pages[0]``; ``None`` when the source has no pages.
    """
    all_lines = [ln for lines in pages for ln in lines]
    amending = any(_ROMAN_PASAL_RE.match(ln) and ln.split()[-1] != "I" for ln in all_lines)
    path = _SectionPath()
    blocks: list[TextBlock] = []
    current: list[Paragraph] = []
    para_lines: list[str] = []
    para_page: int | None = None
    last_pasal: int | None = None
    in_explanation = False
    expect_title = 0  # lines of a heading's title still to skip

    def flush_paragraph() -> None:
        nonlocal para_lines
        if para_lines:
            current.append(Paragraph(join_lines(para_lines), para_page))
            para_lines = []

    def flush_block() -> None:
        nonlocal current
        flush_paragraph()
        if current:
            blocks.append(TextBlock(path.render(), tuple(current)))
            current = []

    def heading(kind: str, label: str) -> None:
        flush_block()
        path.enter(kind, label)

    previous = ""
    for index, lines in enumerate(pages):
        page_no = None if first_page is None else first_page + index
        previous = ""  # a heading may open a page; the last page's tail says nothing about it
        for line in lines:
            letters = _letters(line)
            if (
                not in_explanation
                and len(letters) <= 12
                and _similar(letters, "PENJELASAN") >= 0.8
                and line.upper() == line
            ):
                in_explanation = True
                last_pasal = None
                heading("root", "Penjelasan")
                previous = line
                continue
            if expect_title and line.upper() == line and not _PASAL_RE.match(line):
                expect_title -= 1
                previous = line
                continue
            expect_title = 0
            bab = _BAB_RE.match(line)
            if bab:
                heading("bab", "BAB " + bab.group(1).upper().replace("1", "I"))
                expect_title = 2
                previous = line
                continue
            bagian = _BAGIAN_RE.match(line) or _PARAGRAF_RE.match(line)
            if bagian:
                kind = "bagian" if line.startswith("Bagian") else "paragraf"
                heading(kind, line)
                previous = line
                continue
            if in_explanation:
                numbered = _NUMBERED_HEAD_RE.match(line)
                head = indonesian_head(numbered.group(1) if numbered else line)
                if (numbered or head == "Umum") and line.upper() == line and len(line) <= 40:
                    flush_block()
                    path.leave("bab")
                    if head != "Pasal Demi Pasal":  # its articles read "Penjelasan > Pasal 3"
                        path.enter("bab", head)
                    last_pasal = None
                    previous = line
                    continue
            if amending:
                roman = _ROMAN_PASAL_RE.match(line)
                if roman:
                    heading("pasal_roman", line)
                    last_pasal = None
                    previous = line
                    continue
            pasal = _PASAL_RE.match(line)
            if pasal and _opens_article(previous):
                # After a full stop a heading may skip articles the OCR lost; after a wrapped
                # line it must be the next one.
                reach = 15 if re.search(r"[.;:]$", previous) or not previous else 3
                label = _accept_pasal(pasal.group(1), last_pasal, loose=amending, reach=reach)
                if label is not None:
                    heading("pasal", "Pasal " + label)
                    last_pasal = int(re.match(r"\d+", label).group())  # type: ignore[union-attr]
                    previous = line
                    continue
            if re.match(r"^Disahkan di ", line) and not in_explanation:
                heading("root", "Penutup")
            if _PARAGRAPH_START_RE.match(line) or re.search(r"[.;:]$", previous):
                flush_paragraph()
            if not para_lines:
                para_page = page_no
            if page_no != para_page:
                # A paragraph never spans pages: a chunk's page number is where its text is.
                flush_paragraph()
                para_page = page_no
            para_lines.append(line)
            previous = line
    flush_block()
    return blocks


def indonesian_head(text: str) -> str:
    words = re.sub(r"\s+", " ", text.replace(".", " ")).strip()
    if re.sub(r"\s", "", words).upper() == "PASALDEMIPASAL":
        return "Pasal Demi Pasal"
    return " ".join(w.capitalize() for w in words.split())


def _opens_article(previous: str) -> bool:
    return (
        len(previous) <= 2
        or bool(re.search(r"[.;:,]$", previous))
        or previous.upper() == previous
        or bool(_PASAL_RE.match(previous))
        or previous.startswith(("Bagian", "Paragraf"))
        or (previous[:1].isupper() and len(previous) < 60)
    )


def _accept_pasal(token: str, last: int | None, *, loose: bool, reach: int) -> str | None:
    candidates = _pasal_candidates(token)
    if not candidates:
        return None
    if last is None:
        # The first article of a body (or of the Penjelasan) is Pasal 1; amendments start anywhere.
        for number, label in candidates:
            if number == 1 or loose:
                return label
        return None
    for number, label in candidates:
        if label[-1].isalpha() and number == last:
            return label  # an inserted article: Pasal 13 → Pasal 13A
        if last < number <= last + (1000 if loose else reach):
            return label
    return None


def ayat_of(paragraph: str) -> str | None:
    """``(2) Setiap Orang …`` → ``ayat (2)``."""
    match = _AYAT_RE.match(paragraph)
    return f"ayat ({fix_ocr_number(match.group(1))})" if match else None
