"""Numbers in Indonesian, Turkish and English text: parse them, compare them (V2-08, ASK-11).

Pure functions: no I/O, no clock, no environment; standard library only (fast to import on the
Lambda hot path). See ``docs/numbers.md`` for what is parsed and the equality rule.
"""

from tanda.numbers.compare import compare, find_in, period_conflict, same_quantity
from tanda.numbers.extract import extract_quantities, parse_number
from tanda.numbers.model import (
    Match,
    MatchReason,
    Quantity,
    QuantityKind,
    Unmatched,
    UnmatchedReason,
)

__all__ = [
    "Match",
    "MatchReason",
    "Quantity",
    "QuantityKind",
    "Unmatched",
    "UnmatchedReason",
    "compare",
    "extract_quantities",
    "find_in",
    "parse_number",
    "period_conflict",
    "same_quantity",
]
