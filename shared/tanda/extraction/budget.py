"""The account layout of Indonesian regional budget realisation tables (APBD, ASK-14).

The DJPK portal's tables (``akun, anggaran, realisasi, persentase``) list accounts as a tree
without marking it: ``Pendapatan Daerah`` is the sum of ``PAD``, ``TKDD`` and ``Pendapatan
Lainnya``; ``PAD`` the sum of the four rows under it; a group whose one child has its own name
repeats it (``Belanja Pegawai`` twice); ``Pembiayaan Daerah`` is net: ``Penerimaan`` minus
``Pengeluaran``; ``Surplus/(Defisit)`` is ``Pendapatan`` minus ``Belanja``. The layout is data:
which names head a group at which level, which child counts negative, which row is derived.
Every other name is an item under the nearest head above it.

Names are matched folded, and tolerantly (similarity ≥ 0.9 with spaces removed): the 2021 files
lost every capital ``M`` (``Belanjaodal`` is ``Belanja Modal``), and a misread head would turn a
correct table into a false finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Final

from tanda.extraction.text import folded_name

LEVEL_1: Final = frozenset({"pendapatan daerah", "belanja daerah", "pembiayaan daerah"})
LEVEL_2: Final = frozenset(
    {
        "pad",
        "tkdd",
        "pendapatan lainnya",
        "belanja pegawai",
        "belanja barang jasa",
        "belanja modal",
        "belanja lainnya",
        "penerimaan pembiayaan daerah",
        "pengeluaran pembiayaan daerah",
    }
)
ALIASES: Final[dict[str, str]] = {
    "belanja barang dan jasa": "belanja barang jasa",
    "pendapatan asli daerah": "pad",
    "pendapatan transfer": "tkdd",
    "transfer ke daerah dan dana desa": "tkdd",
    "lain-lain pendapatan daerah yang sah": "pendapatan lainnya",
}
NEGATIVE_IN_PARENT: Final = frozenset({"pengeluaran pembiayaan daerah"})
"""Children subtracted in their parent: ``Pembiayaan Daerah`` = Penerimaan − Pengeluaran."""
DERIVED: Final[dict[str, tuple[str, str]]] = {
    "surplus/(defisit)": ("pendapatan daerah", "belanja daerah"),
    "surplus (defisit)": ("pendapatan daerah", "belanja daerah"),
    "surplus/defisit": ("pendapatan daerah", "belanja daerah"),
}
"""A derived row = first − second of two level-1 rows."""
_HEADS: Final = tuple(sorted(LEVEL_1 | LEVEL_2 | set(DERIVED)))
_SIMILAR: Final = 0.9


@dataclass(frozen=True, slots=True)
class BudgetRow:
    """Where one row sits in the tree: its level (1 = account), the row it sums into, its sign
    there, and — for a derived row — the two rows it is the difference of."""

    key: str | None
    level: int
    parent: int | None
    sign: int
    derived_from: tuple[int, int] | None = None


@lru_cache(maxsize=512)
def account_key(name: str) -> str | None:
    """The layout's name for an account head, or ``None`` for an item."""
    folded = folded_name(name)
    folded = ALIASES.get(folded, folded)
    if folded in LEVEL_1 or folded in LEVEL_2 or folded in DERIVED:
        return folded
    squeezed = folded.replace(" ", "")
    for head in _HEADS:
        target = head.replace(" ", "")
        if abs(len(target) - len(squeezed)) > 3:
            continue
        if SequenceMatcher(None, squeezed, target).ratio() >= _SIMILAR:
            return head
    return None


def is_budget_table(description_header: str, names: Sequence[str]) -> bool:
    """An APBD account table: its description column is ``akun``, or it lists two level-1
    accounts."""
    if folded_name(description_header) == "akun":
        return True
    return sum(1 for name in names if account_key(name) in LEVEL_1) >= 2


def budget_layout(names: Sequence[str]) -> list[BudgetRow]:
    """The tree of an APBD table's rows, in order (see the module docstring)."""
    keys = [account_key(name) for name in names]
    levels: list[int] = []
    for index, key in enumerate(keys):
        if key in DERIVED or key in LEVEL_1:
            level = 1
        elif key in LEVEL_2:
            level = 2
        else:
            level = 3
        if index and key is not None and key == keys[index - 1] and levels[-1] < 3:
            level = levels[-1] + 1  # a group whose one item repeats its name
        levels.append(level)
    rows: list[BudgetRow] = []
    for index, (key, level) in enumerate(zip(keys, levels, strict=True)):
        if key in DERIVED:
            first, second = DERIVED[key]
            sources = (_last(keys, levels, index, first), _last(keys, levels, index, second))
            pair = (sources[0], sources[1]) if None not in sources else None
            rows.append(BudgetRow(key, 1, None, 1, pair))  # type: ignore[arg-type]
            continue
        parent = None
        for before in range(index - 1, -1, -1):
            if keys[before] in DERIVED:
                break
            if levels[before] < level:
                parent = before  # the nearest shallower row: a missing level skips, never orphans
                break
        sign = -1 if key in NEGATIVE_IN_PARENT and parent is not None else 1
        rows.append(BudgetRow(key, level, parent, sign))
    return rows


def _last(keys: Sequence[str | None], levels: Sequence[int], before: int, key: str) -> int | None:
    for index in range(before - 1, -1, -1):
        if keys[index] == key and levels[index] == 1:
            return index
    return None
