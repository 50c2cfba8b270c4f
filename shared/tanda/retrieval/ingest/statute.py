"""Page text → paragraphs under a section path, with the structure of Indonesian statutes.

Published statutes repeat a running head on every page (``PRESIDEN / REPUBLIK INDONESIA``, a page
number like ``- 3 -``), end each page with a registry line (``SK No 155205 A``) and a catchword (the
first words of the next page, ``5. Prosesor . . .``). Those are dropped. The structure — ``BAB``,
``Bagian``, ``Paragraf``, ``Pasal``, the ``Penjelasan`` — becomes the section path of what follows,
e.g. ``BAB II > Pasal 5`` or ``Penjelasan > Pasal 3``. Scanned statutes are full of OCR slips
(``Pasal I`` for ``Pasal 1``, ``BAB Ix``, ``Pasal 4O``); headings are matched with that in mind and
a ``Pasal`` heading of a PDF must continue the numbering, so a reference wrapped onto its own line
(``… dimaksud dalam`` / ``Pasal 13``) is not taken for a heading.

Headings are the section identity of the text under them, never its words (issue 22): the title
block in capitals, the preamble's labels (``Menimbang``, ``Mengingat``, ``Menetapkan`` …) and the
titles of ``BAB``, ``Bagian`` and ``Paragraf`` are no passage text (docs/ingest.md).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Final

from tanda.retrieval.ingest.identity import fix_ocr_number
from tanda.retrieval.ingest.parsed import Paragraph, TextBlock

_PAGE_NUMBER_RE = re.compile(r"^[-–—\s]*\d{1,4}\s*[-–—]*\s*$")
_REGISTRY_RE = re.compile(r"^SK\s*No\.?\s*[0-9lIO]{3}", re.IGNORECASE)
_CATCHWORD_RE = re.compile(r"(\.\s?\.\s?\.|…)\s*$")
_URL_FOOTER_RE = re.compile(r"^(www\.)?[\w-]+(\.[\w-]+)+\.(go\.id|id|com|org)\s*$", re.IGNORECASE)
_RUNNING_HEADS = ("PRESIDEN", "REPUBLIKINDONESIA", "SALINAN")

_BAB_RE = re.compile(r"^B(?:AB|ab)\s*([IVXLCivxlc1]+[A-Z]?)(?:\s+[A-Z][A-Z ,]+)?$")
_BAGIAN_RE = re.compile(r"^Bagian\s+(Ke[a-z]+)$")
_PARAGRAF_RE = re.compile(r"^Paragraf\s+(\d+|[IVX]+|Ke[a-z]+)$")
_PASAL_RE = re.compile(r"^P ?asal\s*([0-9OIlTS]{1,4}[A-Z]?)$")  # "P asal 5": OCR
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


class _SectionPath:
    """The current position in the statute's outline."""

    _ORDER = ("part", "root", "bab", "bagian", "paragraf", "pasal_roman", "pasal")

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
    if len(base) > 1 and base.endswith("8") and base[:-1].isdecimal():
        out.append((int(base[:-1]), base[:-1] + "B"))  # "168" is often a misread "16B"
    if len(token) > 2 and token.endswith("I") and token[:-1].isdecimal():
        # An inserted article lettered I (UUD 1945's Pasal 28I), which the OCR fix reads as
        # 281: after it every later article (28J, 30, 36A …) went back and was no heading.
        out.append((int(token[:-1]), token))
    return out


def looks_like_statute(text: str) -> bool:
    return len(re.findall(r"(?m)^\s*Pasal\s*[0-9OIl]{1,4}[A-Z]?\s*$", text)) >= 2


@dataclass(frozen=True)
class SourceLine:
    """One line of a statute as its source gives it: its text (blanks collapsed), its page, and
    what a text or Markdown source says about it that a PDF's text layer cannot."""

    text: str
    page_no: int | None = None
    heading: bool = False
    """The source marks the line as a heading (Markdown ``## Pasal 5``)."""
    opens_paragraph: bool = False
    """A blank line, or the start of the text, comes before it."""


@dataclass(frozen=True)
class StatuteText:
    """A statute's text blocks under their section paths, and the title its title block prints
    (``None`` when it has none): the title is the document's identity, never a passage's text."""

    blocks: tuple[TextBlock, ...]
    title: str | None = None


def parse_statute_pages(
    pages: Sequence[Sequence[str]], *, first_page: int | None = 1
) -> StatuteText:
    """Cleaned lines per page → text blocks under their section path.

    ``first_page`` is the page number of ``pages[0]``; ``None`` when the source has no pages.
    """
    return parse_statute_lines(
        [
            SourceLine(line, None if first_page is None else first_page + index)
            for index, lines in enumerate(pages)
            for line in lines
        ]
    )


# The preamble's labels, printed in a column left of their text: a label is the section of the
# text under it, never a word of it. pypdf often reads the column apart from its text — all of
# UU 27/2022's labels come before its title — so a label without text of its own waits for the
# text it heads (``_Preamble``).
_PREAMBLE_LABELS: Final = (
    "Menimbang",
    "Mengingat",
    "Memperhatikan",
    "Memutuskan",
    "Menetapkan",
    "Pembukaan",
)
_LABEL_RE = re.compile(r"^([^\W\d_][^\s:]*)\s*(:?)\s*(.*)$")
_BAHWA_RE = re.compile(r"^(?:[a-z][.,)]\s*)?bahwa\b", re.IGNORECASE)
_ENACTING_RE = re.compile(r"^Dengan\s+Persetujuan\s+Bersama\b", re.IGNORECASE)
_ENACTING_FORMULA_RE = re.compile(r"^(?:DENGAN\s+RAHMAT\b|BISMILLAH)")
_GLOSS_RE = re.compile(r"^\([^()\d]*[^\W\d_][^()\d]*\)$")  # "( P r e a m b u l e )"
_ENUMERATED_RE = re.compile(r"^(?:\(\s*\w{1,3}\s*\)|\w{1,3}[.,)])\s")
# In the Penjelasan, "Ayat (1)", "Huruf a", "Angka 3" on a line of their own name the part of
# the article explained: printed numbering, kept as a line of its own, never glued to a sentence.
_EXPLAINED_PART_RE = re.compile(
    r"^(?:Ayat\s*\(?\s*[0-9lI]{1,3}[a-z]?\s*[)l1]?|Huruf\s*[a-z]|Angka\s*[0-9lIO]{1,3}[a-z]?)$"
)
# A Markdown heading naming a structure and its title on one line: "## BAB I Ketentuan Umum".
_TITLED_HEADING_RE = re.compile(
    r"^(BAB\s*[IVXLC1]+[A-Z]?|Bagian\s+Ke[a-z]+|Paragraf\s+(?:\d+|[IVX]+|Ke[a-z]+)"
    r"|Pasal\s*[0-9OIlTS]{1,4}[A-Z]?)(?:\s*[-–—:.]\s*|\s+)\S.*$"
)


def _is_capitals(line: str) -> bool:
    return line.upper() == line and any(ch.isalpha() for ch in line)


def _preamble_label(line: str) -> tuple[str, str] | None:
    """``Menimbang : a. bahwa …`` → ``("Menimbang", "a. bahwa …")``; ``MEMUTUSKAN:`` →
    ``("Memutuskan", "")``; OCR slips tolerated (``ivlenimbang``, ``MEMUTUSI(AN``). ``None``
    for any other line — ``mengingat pentingnya …`` is a word of a sentence, not a label."""
    match = _LABEL_RE.match(line)
    if match is None:
        return None
    token, colon, rest = match.groups()
    letters = _letters(token)
    score, label = max((_similar(letters, name.upper()), name) for name in _PREAMBLE_LABELS)
    if score < 0.8 or abs(len(letters) - len(label)) > 2:
        return None
    if letters == label.upper() and not token[:1].isupper():
        return None  # an exact label word in lower case is prose
    if rest and not (
        colon or _ENUMERATED_RE.match(rest) or _BAHWA_RE.match(rest) or _is_capitals(rest)
    ):
        return None
    return label, rest


class _Preamble:
    """Which preamble label the text read now belongs to. A label printed beside its text heads it
    at once; labels read apart from their text (a column pypdf reads first or last) wait in order
    and head the next text that begins — ``Menimbang`` considerations (``bahwa …``) until a text
    that is not one, which is what ``Mengingat`` heads even when its label is read after it. The
    enacting formula (``Dengan Persetujuan Bersama …``) is under none of them."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.waiting: list[str] = []
        self.used: set[str] = set()

    def labelled(self, label: str, *, with_text: bool) -> str | None:
        """A label was read; the label its text is under from now, or ``None`` to keep the
        section as it is (the label waits for its text, or its text was already placed)."""
        if with_text:
            if label in self.waiting:
                self.waiting.remove(label)
            return self._take(label)
        if label not in self.used and label not in self.waiting:
            self.waiting.append(label)
        return None

    def begins(self, line: str) -> str | None:
        """A text of the preamble begins with ``line``: the label it is under when that changes
        (``""``: under none), ``None`` when it stays."""
        if _ENACTING_RE.match(line):
            self.current = None
            return ""
        if self.current is None and self.waiting:
            return self._take(self.waiting.pop(0))
        if self.current == "Menimbang" and not _BAHWA_RE.match(line):
            if self.waiting:
                return self._take(self.waiting.pop(0))
            if "Mengingat" not in self.used:
                return self._take("Mengingat")
        return None

    def _take(self, label: str) -> str:
        self.current = label
        self.used.add(label)
        return label


def _title_lines(lines: Sequence[SourceLine], start: int) -> int:
    """How many lines from ``start`` are the title of the ``Bagian`` or ``Paragraf`` heading
    before them (``Bagian Kesatu`` / ``Pembentukan dan Kedudukan``): one or two lines without
    closing punctuation that the next heading follows; 0 when what follows is text."""
    for count in (1, 2):
        title = lines[start : start + count]
        if len(title) < count or not all(_title_like(line.text) for line in title):
            return 0
        following = lines[start + count].text if start + count < len(lines) else ""
        if _PASAL_RE.match(following) or _BAGIAN_RE.match(following):
            return count
        if _PARAGRAF_RE.match(following) or _BAB_RE.match(following):
            return count
    return 0


def _title_like(line: str) -> bool:
    return (
        len(line) <= 120
        and line[:1].isupper()
        and not re.search(r"[.;:,]$", line)
        and not _PASAL_RE.match(line)
        and not _PARAGRAPH_START_RE.match(line)
    )


def parse_statute_lines(lines: Sequence[SourceLine]) -> StatuteText:
    """A statute's lines → text blocks under their section path.

    Headings are the section path of the text under them and never its words: ``BAB``,
    ``Bagian``, ``Paragraf``, ``Pasal`` with their titles, the preamble's labels (``Menimbang``,
    ``Mengingat``, ``Memutuskan``, ``Menetapkan``), and, before the body (and at the head of the
    Penjelasan), every paragraph printed wholly in capitals — the title block, whose first one is
    the title returned. A ``Pasal`` line the source marks as a heading (Markdown) or that opens a
    paragraph of a text source is an article whatever its number; a PDF's must continue the
    numbering (a reference wrapped onto its own line is not a heading).
    """
    amending = any(_ROMAN_PASAL_RE.match(ln.text) and ln.text.split()[-1] != "I" for ln in lines)
    path = _SectionPath()
    preamble = _Preamble()
    blocks: list[TextBlock] = []
    current: list[Paragraph] = []
    para_lines: list[str] = []
    para_page: int | None = None
    para_capitals = False  # every line of the open paragraph is in capitals
    last_pasal: int | None = None
    in_explanation = False
    front = True  # before the body (or, in the Penjelasan, before its first heading)
    in_preamble = True  # before the first heading of the body: the preamble's labels count
    expect_title = 0  # lines of a BAB's title still to skip
    skip = 0  # lines of a Bagian's or Paragraf's title still to skip
    title: str | None = None
    after_heading = False

    def flush_paragraph() -> None:
        nonlocal para_lines, title
        if para_lines:
            text = join_lines(para_lines)
            if front and para_capitals:
                # A paragraph in capitals before the body is the title block, not text.
                title = title or _title_of(text)
            else:
                current.append(Paragraph(text, para_page))
            para_lines = []

    def flush_block() -> None:
        nonlocal current
        flush_paragraph()
        if current:
            blocks.append(TextBlock(path.render(), tuple(current)))
            current = []

    def heading(kind: str, label: str) -> None:
        nonlocal front, in_preamble, para_lines
        if para_capitals and not front:
            para_lines = []  # a title in capitals above the heading ("ATURAN PERALIHAN")
        flush_block()
        front = False
        if in_preamble and not in_explanation:
            in_preamble = False
            if preamble.current is not None:
                path.leave("root")
        path.enter(kind, label)

    def under_label(label: str | None) -> None:
        if label is None:
            return
        flush_block()
        if label:
            path.enter("root", label)
        else:
            path.leave("root")

    previous = ""
    page: object = object()
    for index, source in enumerate(lines):
        line, page_no = source.text, source.page_no
        if page_no != page:
            page = page_no
            previous = ""  # a heading may open a page; the last page's tail says nothing about it
        if source.opens_paragraph:
            flush_paragraph()
        if skip:
            skip -= 1
            previous = line
            continue
        if source.heading:
            titled = _TITLED_HEADING_RE.match(line)
            line = titled.group(1) if titled else line
        letters = _letters(line)
        if (
            not in_explanation
            and len(letters) <= 12
            and _similar(letters, "PENJELASAN") >= 0.8
            and (line.upper() == line or source.heading)
        ):
            heading("root", "Penjelasan")
            in_explanation = True
            front = True  # the Penjelasan repeats the title block
            last_pasal = None
            previous = line
            after_heading = True
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
            after_heading = True
            continue
        bagian = _BAGIAN_RE.match(line) or _PARAGRAF_RE.match(line)
        if bagian:
            kind = "bagian" if line.startswith("Bagian") else "paragraf"
            heading(kind, line)
            skip = _title_lines(lines, index + 1)
            previous = line
            after_heading = True
            continue
        if in_explanation:
            numbered = _NUMBERED_HEAD_RE.match(line)
            head = indonesian_head(numbered.group(1) if numbered else line)
            if (numbered or head == "Umum") and line.upper() == line and len(line) <= 40:
                flush_block()
                front = False
                path.leave("bab")
                if head != "Pasal Demi Pasal":  # its articles read "Penjelasan > Pasal 3"
                    path.enter("bab", head)
                last_pasal = None
                previous = line
                after_heading = True
                continue
        if amending:
            roman = _ROMAN_PASAL_RE.match(line)
            if roman:
                heading("pasal_roman", line)
                last_pasal = None
                previous = line
                after_heading = True
                continue
        pasal = _PASAL_RE.match(line)
        if pasal:
            label = _pasal_label(
                pasal.group(1), last_pasal, source, previous=previous, loose=amending
            )
            if label is not None:
                heading("pasal", "Pasal " + label)
                last_pasal = int(re.match(r"\d+", label).group())  # type: ignore[union-attr]
                previous = line
                after_heading = True
                continue
        if in_preamble and not in_explanation:
            labelled = _preamble_label(line)
            if labelled is not None:
                label, rest = labelled
                flush_paragraph()
                under_label(preamble.labelled(label, with_text=bool(rest)))
                previous = line
                after_heading = True
                if not rest:
                    continue
                line = rest  # the label's text begins on its line
        if source.heading:
            # Any other Markdown heading of a statute is a title (the document's, a BAB's).
            flush_paragraph()
            if front:
                title = title or _title_of(line)
            previous = line
            after_heading = True
            continue
        if front and after_heading and _GLOSS_RE.match(line):
            previous = line  # "PEMBUKAAN" / "( P r e a m b u l e )": the heading's gloss
            continue
        after_heading = False
        if in_explanation and _EXPLAINED_PART_RE.match(line):
            flush_paragraph()
            current.append(Paragraph(line, page_no))
            previous = line
            continue
        if re.match(r"^Disahkan di ", line) and not in_explanation:
            heading("root", "Penutup")
        if not front and _ENACTING_FORMULA_RE.match(line):
            # Another statute's title block (the UUD 1945 and its four amendments are one PDF):
            # the capitals before the formula name the part that begins.
            split = len(para_lines)
            while split and _is_capitals(para_lines[split - 1]):
                split -= 1
            part = _title_of(join_lines(para_lines[split:]))
            del para_lines[split:]
            flush_block()
            path.levels.clear()
            if part:
                path.enter("part", part)
            preamble = _Preamble()
            front = in_preamble = True
            in_explanation = False
            last_pasal = None
            previous = line
            after_heading = True
            continue
        capitals = _is_capitals(line)
        ended = para_lines and re.search(r"[.;:]$", para_lines[-1])  # across a page break too
        if _PARAGRAPH_START_RE.match(line) or re.search(r"[.;:]$", previous) or ended:
            flush_paragraph()
        elif front and para_lines and para_capitals and not capitals:
            flush_paragraph()  # the title block ends where text begins
        if not para_lines:
            para_page = page_no
            para_capitals = capitals
            if in_preamble and not in_explanation and not capitals:
                under_label(preamble.begins(line))
        if page_no != para_page:
            # A paragraph never spans pages: a chunk's page number is where its text is.
            flush_paragraph()
            para_page = page_no
            para_capitals = capitals
        para_lines.append(line)
        para_capitals = para_capitals and capitals
        previous = line
    flush_block()
    return StatuteText(tuple(blocks), title)


def _title_of(text: str) -> str | None:
    """The title a title block prints, without the enacting formula after it."""
    head = re.split(r"\s+DENGAN\s+RAHMAT\b|\s+BISMILLAH", text, maxsplit=1)[0]
    head = head.strip().rstrip(",.:;").strip()
    return head or None


def _pasal_label(
    token: str, last: int | None, source: SourceLine, *, previous: str, loose: bool
) -> str | None:
    """The article a ``Pasal`` line opens, or ``None`` when the line is not a heading.

    A Markdown heading is one whatever its number, and so is a line opening a paragraph of a text
    source, as long as it does not go back (an excerpt may start at any article). In a PDF, a
    heading must continue the numbering: after a full stop it may skip articles the OCR lost,
    after a wrapped line it must be the next one.
    """
    if source.heading:
        candidates = _pasal_candidates(token)
        return candidates[0][1] if candidates else None
    if source.opens_paragraph:
        return _accept_pasal(token, last, loose=True, reach=0)
    if not _opens_article(previous):
        return None
    reach = 15 if re.search(r"[.;:]$", previous) or not previous else 3
    return _accept_pasal(token, last, loose=loose, reach=reach)


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
    # The nearest continuation wins: after Pasal 27A, "Pasal 278" is a misread 27B, not 278.
    for number, label in sorted(candidates):
        if label[-1].isalpha() and number == last:
            return label  # an inserted article: Pasal 13 → Pasal 13A
        if last < number <= last + (1000 if loose else reach):
            return label
    return None


def ayat_of(paragraph: str) -> str | None:
    """``(2) Setiap Orang …`` → ``ayat (2)``."""
    match = _AYAT_RE.match(paragraph)
    return f"ayat ({fix_ocr_number(match.group(1))})" if match else None
