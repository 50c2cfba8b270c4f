"""KB-05: a verbatim quote must equal the complete normalised text at its stated span.

Normalised means Unicode NFC with every run of whitespace read as one space, and none at either
end — how a host may have re-flowed the text, never what it says. A quote that is only part of
the text at its span (shortened while keeping the wider offsets) fails; so does a quote found
elsewhere. Either way the check offers the span where the quote does stand, when there is one,
so the host can cite that verified narrower span instead.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

QuoteReason = Literal["exact", "quote_shortened", "quote_mismatch", "span_out_of_range"]

_WHITESPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


@dataclass(frozen=True, slots=True)
class QuoteCheck:
    verified: bool
    reason: QuoteReason
    text_at_span: str | None
    verified_span: tuple[int, int] | None

    @property
    def message(self) -> str:
        return _MESSAGES[self.reason]


_MESSAGES: dict[QuoteReason, str] = {
    "exact": "The quote is the complete normalised text at its span.",
    "quote_shortened": "The quote is only part of the text at its span: cite the verified "
    "narrower span with this quote, or quote the whole span.",
    "quote_mismatch": "The quote is not the text at its span.",
    "span_out_of_range": "The span is not inside the node's text.",
}


def check_quote(text: str, start: int, end: int, quote: str) -> QuoteCheck:
    """Whether ``quote`` is the complete normalised ``text[start:end]`` (code points)."""
    wanted = normalize(quote)
    if not 0 <= start <= end <= len(text):
        return QuoteCheck(False, "span_out_of_range", None, locate(text, wanted, 0, len(text)))
    at_span = text[start:end]
    if wanted and normalize(at_span) == wanted:
        return QuoteCheck(True, "exact", at_span, (start, end))
    inside = locate(text, wanted, start, end)
    if inside is not None:
        return QuoteCheck(False, "quote_shortened", at_span, inside)
    return QuoteCheck(False, "quote_mismatch", at_span, locate(text, wanted, 0, len(text)))


def locate(text: str, wanted: str, start: int, end: int) -> tuple[int, int] | None:
    """The first span inside ``text[start:end]`` whose normalised text is ``wanted``."""
    if not wanted:
        return None
    folded, origin = _collapse(text[start:end])
    at = folded.find(wanted)
    if at < 0:
        return None
    first, last = origin[at], origin[at + len(wanted) - 1]
    return start + first, start + last + 1


def _collapse(text: str) -> tuple[str, list[int]]:
    """``text`` with whitespace runs as one space (none at the ends) and, per character of the
    result, the index of the character of ``text`` it stands for. NFC is applied per character
    where it keeps one character (composed input stays addressable)."""
    chars: list[str] = []
    origin: list[int] = []
    pending_space: int | None = None
    for index, char in enumerate(text):
        if char.isspace():
            if chars and pending_space is None:
                pending_space = index
            continue
        if pending_space is not None:
            chars.append(" ")
            origin.append(pending_space)
            pending_space = None
        composed = unicodedata.normalize("NFC", char)
        chars.append(composed if len(composed) == 1 else char)
        origin.append(index)
    return "".join(chars), origin
