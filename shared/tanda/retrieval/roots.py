"""The roots an Indonesian word may have (issue 22): its affixes taken off as the language puts
them on, a nasal prefix standing for the root's first letter it replaced. Snowball's Indonesian
stemmer (the index's analysis, :mod:`tanda.retrieval.analysis`) cuts one root's forms
differently — ``mengesahkan`` → ``esah``, ``disahkan`` → ``sahkan``, ``pengesahan`` → ``esah`` —
so "Siapa yang mengesahkan …?" never met "Disahkan di Jakarta …". The reader
(:mod:`tanda.retrieval.reading`) lets a question's word meet a text's word when their roots meet;
the index keeps Snowball's stems (a change there is a re-index of every tenant).

Pure, no I/O: a small rule set of the language (its prefixes and endings), nothing about any
partner's documents. Over-generation is the price of having no dictionary (``berdiri`` also
gives ``berdir``): a root counts only when a word of the text gives it too.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from tanda.lang import fold

_ID_PREFIXES: Final = (
    ("menge", ("",), ("meng",)),
    ("penge", ("",), ("peng",)),
    ("meng", ("", "k"), ()),
    ("peng", ("", "k"), ()),
    ("meny", ("s",), ()),
    ("peny", ("s",), ()),
    ("mem", ("p", ""), ()),
    ("pem", ("p", ""), ()),
    ("men", ("t", ""), ()),
    ("pen", ("t", ""), ()),
    ("me", ("",), ()),
    ("pe", ("",), ()),
    ("di", ("",), ()),
    ("ter", ("",), ()),
    ("ber", ("",), ()),
    ("ke", ("",), ()),
)
"""Indonesian prefixes, longest first: the letters a nasal prefix may stand for (``meng`` + ``k``:
``mengenal`` — ``kenal``), and the shorter prefix the same letters may also be (``menge`` before
a one-syllable root — ``mengesahkan``; ``meng`` before a vowel — ``mengenal``)."""
_ID_ENDINGS: Final = (("lah", "kah", "pun"), ("nya", "ku", "mu"), ("kan", "an", "i"))
"""Indonesian endings, outermost first: a particle, a possessive, a derivational suffix."""
_VOWELS: Final = frozenset("aeiou")


def _root_like(root: str) -> bool:
    """At least three letters, beginning as an Indonesian word may (a vowel, or a consonant and
    a vowel, or ``ng``, ``ny``, ``kh``, ``sy``)."""
    return len(root) >= 3 and (
        root[0] in _VOWELS or root[1] in _VOWELS or root[:2] in ("ng", "ny", "kh", "sy")
    )


@lru_cache(maxsize=65536)
def id_roots(word: str) -> frozenset[str]:
    """The roots an Indonesian word may have, folded, the word itself included: its affixes
    taken off as the language puts them on (``mengesahkan``, ``disahkan``, ``pengesahan`` —
    ``sah``); a nasal prefix may stand for the root's first letter (``mengenal`` — ``kenal``,
    ``menulis`` — ``tulis``)."""
    word = fold(word.lower())
    bodies = [word]
    for endings in _ID_ENDINGS:
        for body in list(bodies):
            ending = next((e for e in endings if body.endswith(e)), None)
            if ending is not None and _root_like(body[: -len(ending)]):
                bodies.append(body[: -len(ending)])
    roots = set(bodies)
    for body in bodies:
        for prefix, firsts, also in _ID_PREFIXES:
            if not body.startswith(prefix):
                continue
            for taken, letters in ((prefix, firsts), *((a, ("", "k")) for a in also)):
                rest = body[len(taken) :]
                for first in letters:
                    if (not first or rest[:1] in _VOWELS) and _root_like(first + rest):
                        roots.add(first + rest)
            break
    return frozenset(roots)
