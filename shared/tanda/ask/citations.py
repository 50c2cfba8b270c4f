"""ASK-05: the ``[S#]`` markers of an answer, resolved against the sources shown.

A marker names a source by its number: ``[S2]``; models also write groups (``[S1, S3]``,
``[S1; S2]``), lower case or spaces (``[s 2]``). Every group is rewritten as single markers of
the sources it names that were shown (``[S1][S3]``), so a client finds each citation as
``[S<n>]``. A number naming no shown source is removed from the text and counted
(``usage.invalid_citations``); it never becomes a citation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_GROUP = re.compile(r"\[\s*S\s*\d+(?:\s*[,;]\s*(?:S\s*)?\d+)*\s*\]", re.IGNORECASE)
_NUMBER = re.compile(r"\d+")
# What an answer cut at its output limit may end with: the start of a marker.
_CUT_MARKER = re.compile(r"\s*\[\s*(?:S\s*\d*(?:\s*[,;]\s*(?:S\s*)?\d*)*)?$", re.IGNORECASE)
_CLOSES = frozenset(".,;:!?)]}»”’\n")


@dataclass(frozen=True)
class ResolvedAnswer:
    text: str
    cited: tuple[int, ...]
    """Source numbers cited, ascending, each once."""
    invalid: int
    """Markers that named no shown source (removed from ``text``)."""


def drop_cut_marker(text: str) -> str:
    """``text`` without a marker left unfinished at its very end (``… [S`` ← the output limit)."""
    return _CUT_MARKER.sub("", text)


def resolve_markers(answer: str, shown: int) -> ResolvedAnswer:
    """Keep the markers naming sources ``1..shown``; remove the others and count them."""
    cited: set[int] = set()
    invalid = 0
    pieces: list[str] = []
    position = 0
    for group in _GROUP.finditer(answer):
        numbers = [int(n) for n in _NUMBER.findall(group.group())]
        valid = [n for n in dict.fromkeys(numbers) if 1 <= n <= shown]
        invalid += sum(1 for n in numbers if not 1 <= n <= shown)
        cited.update(valid)
        before = answer[position : group.start()]
        if not valid:
            # A removed marker takes one space before it along when what follows closes the
            # sentence or is a space: "text [S9]." → "text.".
            after = answer[group.end() : group.end() + 1]
            if before.endswith(" ") and (after == "" or after == " " or after in _CLOSES):
                before = before[:-1]
        pieces.append(before)
        pieces.append("".join(f"[S{n}]" for n in valid))
        position = group.end()
    pieces.append(answer[position:])
    return ResolvedAnswer("".join(pieces), tuple(sorted(cited)), invalid)
