"""A query term no document of the tenant holds, searched as the tenant's nearest term (issue 22,
V2-19): a one-letter typo (``stalakmit`` for ``stalagmit``, ``homeostatis`` for
``homeostasis``) finds what the user meant instead of nothing.

The rule, the same on every engine behind the ``SearchIndex`` port:

- every query is checked, whether or not its other words find something (issue 28: a typo
  beside words that match — ``Apa yang dimaksud dengan homeostatis?`` — was searched as
  written, and found the passages saying "yang dimaksud");
- only a term the tenant does not hold (document frequency 0 in the tenant's own index) is
  touched — a word some document says is searched as written, however rare;
- only a word of :data:`MIN_LETTERS` letters or more, letters only: a shorter word has too
  many real neighbours one letter away (``pajak`` / ``pajang`` / ``jajak``), and a number or a
  code (``27/2022``, ``5g``, ``b12``) one letter off is another number or code, not a typo; a
  question word (``kapankah``) is never corrected — the documents need not say it;
- its candidates are the terms one edit away (Damerau: a letter dropped, added, changed, or two
  neighbours swapped) after the first letter (:func:`tanda.retrieval.edits.one_edit`), looked
  up in the same tenant's index — never another tenant's;
- it is searched as the candidate the tenant's documents hold most often (a typo is far more
  likely to be of a common word than of a rare one: Norvig's noisy channel with the document
  frequency as the prior); candidates tied at that frequency are all searched (up to
  :data:`MAX_CORRECTIONS`), and the query's other words pick among them. No candidate: the term
  stays and matches nothing, as before.

Pure: the engine hands in how to read its document frequencies (:data:`DocFreqs`), and may
hand in how to read a term's neighbours at once (:data:`Neighbours`). The terms
are the index's analyzed terms (:mod:`tanda.retrieval.analysis`: stemmed, folded), so the edit
is made where the index compares. The letters tried for a change or an addition are the Latin
letters (every folded Indonesian, Turkish or English term is written in them) and the word's
own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

from tanda.retrieval.edits import one_edit, one_edit_apart, one_edit_before
from tanda.retrieval.frames import frames_a_question

MIN_LETTERS: Final = 5
"""The shortest term corrected (an Indonesian, Turkish or English content word of 5 letters or
more rarely sits one letter from another real word)."""
MAX_CORRECTIONS: Final = 3
"""At most this many candidates, tied at the highest document frequency, replace one term."""

WALKED_PREFIX: Final = 3
"""How many first letters of a term an engine that can walk its term dictionary by prefix walks
it by for the term's one-edit neighbours (:data:`Neighbours`): an edit after them keeps them, so
one walk reads most neighbours (a few dozen terms of a tenant share three letters: ~0.05 ms at
100 000 chunks on tantivy); an edit of the second or third letter is looked up one by one."""

DocFreqs = Callable[[Sequence[str]], Mapping[str, int]]
"""The tenant's document frequency of each of the given terms (a term absent: 0)."""
Neighbours = Callable[[str], Mapping[str, int]]
"""The tenant's document frequency of each term one edit from the given term
(:func:`~tanda.retrieval.edits.one_edit`) that it holds: an engine that can walk its term
dictionary by prefix reads most of them in one walk instead of one lookup each
(:func:`walked_neighbours`)."""


def walked_neighbours(
    term: str,
    walk: Callable[[str], Iterable[tuple[str, int]]],
    look_up: DocFreqs,
    letters: int = WALKED_PREFIX,
) -> dict[str, int]:
    """:data:`Neighbours` of ``term`` for an engine that can ``walk`` its terms beginning with a
    prefix (each with its document frequency): the walked terms of ``term``'s first ``letters``
    letters that are one edit from it, and the candidates an edit of those letters makes,
    ``look_up`` one by one — together exactly :func:`~tanda.retrieval.edits.one_edit`'s terms
    the tenant holds."""
    walked = walk(term[:letters])
    found = {held: n for held, n in walked if n > 0 and one_edit_apart(term, held)}
    rest = one_edit_before(term, letters)
    counts = look_up(rest)
    found.update((c, counts[c]) for c in rest if counts.get(c, 0) > 0)
    return found


def correctable(term: str) -> bool:
    """A term long enough to be corrected, made of letters only (no number, no code), and not a
    question word (``kapankah``: what frames a question is not what it asks about; the
    documents need not say it)."""
    return len(term) >= MIN_LETTERS and term.isalpha() and not frames_a_question(term)


def corrections(
    terms: Iterable[str], doc_freqs: DocFreqs, neighbours: Neighbours | None = None
) -> dict[str, tuple[str, ...]]:
    """Each of ``terms`` that is :func:`correctable` and that the tenant does not hold, with what
    to search for in its place: the candidates one edit away the tenant holds most often (ties
    kept, at most :data:`MAX_CORRECTIONS`, alphabetical among them). A term without such a
    candidate is left out. Two reads of ``doc_freqs`` at most: the terms, then every
    candidate of the unknown ones."""
    asked = [term for term in dict.fromkeys(terms) if correctable(term)]
    if not asked:
        return {}
    held = doc_freqs(asked)
    unknown = [term for term in asked if held.get(term, 0) <= 0]
    if not unknown:
        return {}
    held_near: dict[str, Mapping[str, int]]
    if neighbours is None:
        candidates = {term: one_edit(term) for term in unknown}
        everyone = list(dict.fromkeys(c for found in candidates.values() for c in found))
        frequencies = doc_freqs(everyone)
        held_near = {
            term: {c: frequencies.get(c, 0) for c in found} for term, found in candidates.items()
        }
    else:
        held_near = {term: neighbours(term) for term in unknown}
    chosen: dict[str, tuple[str, ...]] = {}
    for term, counts in held_near.items():
        present = sorted(
            ((n, c) for c, n in counts.items() if n > 0), key=lambda pair: (-pair[0], pair[1])
        )
        if present:
            top = present[0][0]
            chosen[term] = tuple(c for n, c in present if n == top)[:MAX_CORRECTIONS]
    return chosen


def corrected(
    terms: Sequence[str], doc_freqs: DocFreqs, neighbours: Neighbours | None = None
) -> list[str]:
    """``terms`` with each term the tenant does not hold replaced by its :func:`corrections`
    (in its place; every other term as it was), without repeats."""
    replaced = corrections(terms, doc_freqs, neighbours)
    if not replaced:
        return list(terms)
    return list(dict.fromkeys(c for term in terms for c in replaced.get(term, (term,))))


def near_term_keys(key: str) -> tuple[str, ...]:
    """The keys a defined term's key (:func:`tanda.retrieval.analysis.term_key`) may be when one
    of its :func:`correctable` words is mistyped by one letter (``data pribadii`` for ``data
    pribadi``): that word one edit away (:func:`~tanda.retrieval.edits.one_edit`), one word at
    a time — never a letter added or dropped at its end unless it doubles the last one, which
    would make it another form of the word (``pengendali`` is not ``pengendalian``)."""
    words = key.split()
    found: dict[str, None] = {}
    for i, word in enumerate(words):
        if not correctable(word):
            continue
        for candidate in one_edit(word):
            shorter, longer = sorted((word, candidate), key=len)
            if longer.startswith(shorter) and longer[-1] != shorter[-1]:
                continue  # a letter added or dropped at the end, not a doubled one
            found[" ".join((*words[:i], candidate, *words[i + 1 :]))] = None
    return tuple(found)
