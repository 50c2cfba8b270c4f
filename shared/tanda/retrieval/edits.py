"""Words one edit from a word (issue 22): the candidates of a one-letter typo, for the query
terms retrieval corrects (:mod:`tanda.retrieval.spelling`) and the question word a question
misspells (:mod:`tanda.retrieval.question`). Pure; no vocabulary of its own."""

from __future__ import annotations

from functools import lru_cache
from typing import Final

KEPT_LETTERS: Final = 1
"""The first letter is never the one edited: a typo seldom falls there, and keeping it halves
the real words a candidate could otherwise be (``warna`` is not ``karna``) — as Lucene's
spelling suggesters assume (``DirectSpellChecker.minPrefix`` 1, OpenSearch's term suggester
``prefix_length`` 1)."""
_LATIN: Final = "abcdefghijklmnopqrstuvwxyz"


@lru_cache(maxsize=4096)
def one_edit(term: str) -> tuple[str, ...]:
    """Every term one Damerau edit from ``term`` (a letter dropped, added or changed, two
    neighbouring letters swapped) after its first letter, in a fixed order, without ``term``
    itself."""
    return _edits(term, len(term) + 1)


def one_edit_before(term: str, kept: int) -> tuple[str, ...]:
    """The terms of :func:`one_edit` that do not begin with ``term``'s first ``kept`` letters:
    those an edit of one of them makes (the others an engine may read by walking its terms
    that begin so, :func:`one_edit_apart` telling which are one edit away)."""
    head = term[:kept]
    return tuple(c for c in _edits(term, kept) if not c.startswith(head))


def one_edit_apart(term: str, other: str) -> bool:
    """Whether ``other`` is one of :func:`one_edit`'s terms of ``term``, for ``other`` beginning
    with ``term``'s first letter: one Damerau edit apart, ``other`` not ``term``."""
    if other == term or abs(len(other) - len(term)) > 1:
        return False
    same = 0
    for a, b in zip(term, other, strict=False):
        if a != b:
            break
        same += 1
    if same < KEPT_LETTERS:
        return False
    if len(other) == len(term):
        rest = same + 1
        if term[rest:] == other[rest:]:
            return _tried(other[same], term)  # changed
        return (
            rest < len(term)
            and term[same] == other[rest]
            and term[rest] == other[same]
            and term[rest + 1 :] == other[rest + 1 :]
        )  # swapped
    if len(other) < len(term):
        return term[same + 1 :] == other[same:]  # dropped
    return _tried(other[same], term) and term[same:] == other[same + 1 :]  # added


def _tried(letter: str, term: str) -> bool:
    """Whether :func:`one_edit` tries ``letter`` in a change or an addition to ``term``: a Latin
    letter or one of the term's own."""
    return letter in _LATIN or letter in term


def _edits(term: str, end: int) -> tuple[str, ...]:
    """:func:`one_edit`'s terms whose edit falls before position ``end`` (after the first
    letter)."""
    letters = _LATIN + "".join(sorted(set(term) - set(_LATIN)))
    splits = [(term[:i], term[i:]) for i in range(KEPT_LETTERS, min(end, len(term) + 1))]
    found: dict[str, None] = {}
    for head, tail in splits:
        if tail:
            found[head + tail[1:]] = None  # dropped
            if len(tail) > 1:
                found[head + tail[1] + tail[0] + tail[2:]] = None  # swapped
            for letter in letters:
                found[head + letter + tail[1:]] = None  # changed
        for letter in letters:
            found[head + letter + tail] = None  # added
    found.pop(term, None)
    return tuple(found)
