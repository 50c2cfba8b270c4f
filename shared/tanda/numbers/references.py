"""The provisions a text names (``Pasal 28 ayat (1) atau ayat (2)``), as paths from the largest
unit down: what two statements must share to be about the same provision (XC-4).

A reference number's label places it in the hierarchy ``chapter > part > section > article >
paragraph > item``; a lower one belongs to the nearest higher one before it, so ``Pasal 28 ayat
(1) atau ayat (2)`` names ``article 28 / paragraph 1`` and ``article 28 / paragraph 2``. Labels
outside the hierarchy — a list item's ``(3)``, a law's ``Nomor 11``, a page — name no provision.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from tanda.numbers.model import Quantity, QuantityKind

PROVISION_LEVELS: Final = ("chapter", "part", "section", "article", "paragraph", "item")

Provision = tuple[tuple[str, str], ...]
"""``(("article", "28"), ("paragraph", "1"))``."""


def provisions(quantities: Iterable[Quantity]) -> list[Provision]:
    """The provisions ``quantities`` (of one text, in order) name; a provision that only leads
    to a finer one named with it (``Pasal 28`` of ``Pasal 28 ayat (1)``) is left out."""
    named: list[Provision] = []
    path: list[tuple[str, str]] = []
    for quantity in quantities:
        if quantity.kind != QuantityKind.ordinal or quantity.label not in PROVISION_LEVELS:
            continue
        level = PROVISION_LEVELS.index(quantity.label)
        path = [step for step in path if PROVISION_LEVELS.index(step[0]) < level]
        path.append((quantity.label, f"{quantity.value}{quantity.suffix or ''}"))
        named.append(tuple(path))
    leading = {p[:n] for p in named for n in range(1, len(p))}
    return list(dict.fromkeys(p for p in named if p not in leading))


def same_provision(a: Sequence[Provision], b: Sequence[Provision]) -> bool:
    """Whether two texts name a provision in common: the same path, or one within the other
    (``Pasal 27`` and ``Pasal 27 ayat (3)``)."""
    return any(x[: len(y)] == y or y[: len(x)] == x for x in a for y in b)
