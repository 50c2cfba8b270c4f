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
    letters = _LATIN + "".join(sorted(set(term) - set(_LATIN)))
    splits = [(term[:i], term[i:]) for i in range(KEPT_LETTERS, len(term) + 1)]
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
