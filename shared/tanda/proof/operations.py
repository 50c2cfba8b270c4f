"""The operations an answer shows, and what they really give (ASK-11).

An operation is *shown* when the answer writes its operands, its operators and its result:
``40.470,00 + 2.100,00 = 42.570,00``, ``(44.1 - 56.7) / 56.7 = -22.22%``, ``Rp 5 miliar × 12 =
Rp 60 miliar``, ``42.570,00 = 40.470,00 + 2.100,00``. A result stated without its operation is
not one: nothing is guessed.

Operands and the result are the quantities :mod:`tanda.numbers` reads (any language, separator,
currency, scale word, percent); between them only operators (``+ - − – × x * · ÷ /``), brackets,
``=`` / ``≈``, spaces and ``[S#]`` markers may stand. The expression is recomputed with
``decimal``: brackets first, × and ÷ before + and −, each level left to right — so a chain
``a + b − c + d`` is applied left to right as written (the seed's rule).

Units of the result:

* a percent operand is its fraction (``15% × 200 = 30``); a percent result is compared as its
  fraction, or as percent points when the expression ends in ``× 100``;
* a scale word written on one side only applies to the whole chain: ``44.1 - 56.7 = -12.6
  million`` is computed in millions, as ``5 miliar + 2 miliar = 7`` is in *miliar*.

The stated result is right when it equals the recomputed value at the precision it states: half
a unit of its last digit (``1/3 = 0.33`` is right, ``= 0.34`` is not).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import (
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    localcontext,
)
from typing import Literal

from tanda.numbers import Quantity, QuantityKind, extract_quantities

Op = Literal["+", "-", "*", "/"]

_OPERATORS: dict[str, Op] = {
    "+": "+",
    "-": "-",
    "\u2212": "-",  # − minus sign
    "\u2013": "-",  # – en dash, as people type a minus
    "×": "*",
    "*": "*",
    "·": "*",
    "x": "*",
    "X": "*",
    "÷": "/",
    "/": "/",
}
_OPENERS = "([{"
_CLOSERS = ")]}"
_SIGNS = "-\u2212\u2013"
_OPERATOR_CHARS = frozenset("+-\u2212\u2013×*·÷/")
# What may stand between two operands of one shown operation.
_GAP_TOKEN = re.compile(
    r"(?P<space>\s+)|(?P<cite>\[\s*S\s*\d+\s*\])|(?P<eq>[=≈])|(?P<currency>[$€£₺](?=\s*\())"
    r"|(?P<op>[-+\u2212\u2013×*·÷/])|(?P<x>(?<=\s)[xX](?=\s))|(?P<open>[(\[{])|(?P<close>[)\]}])"
    r"|(?P<word>[^\W\d_]+(?:['’-][^\W\d_]+)*)"
)
_OPERAND_KINDS = frozenset(
    {QuantityKind.amount, QuantityKind.count, QuantityKind.percent, QuantityKind.year}
)
_PERCENT_DIVISOR = {"%": Decimal(100), "pp": Decimal(100), "bp": Decimal(10000)}
_ONE = Decimal(1)
_DIGITS = 34


# --- tokens and the expression tree ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Num:
    index: int  # position among the run's (then the expression's) quantities
    negate: bool = False  # its surface took a sign that is the binary minus before it


@dataclass(frozen=True, slots=True)
class _Sym:
    kind: Literal["op", "open", "close", "eq"]
    op: Op | None = None


_Token = _Num | _Sym


@dataclass(frozen=True, slots=True)
class Leaf:
    index: int


@dataclass(frozen=True, slots=True)
class Negate:
    operand: Node


@dataclass(frozen=True, slots=True)
class Binary:
    op: Op
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Group:
    """A bracketed sub-expression; ``terms`` counts its top-level ``+`` terms (a mean's n)."""

    inner: Node
    terms: int


Node = Leaf | Negate | Binary | Group


@dataclass(frozen=True, slots=True)
class Operand:
    quantity: Quantity
    constant: bool = False
    """A number the operation itself brings (0, the 1 of a growth rate, the 100 of a percent,
    the n of a mean of n terms): not an input to find in the documents."""


@dataclass(frozen=True, slots=True)
class ShownOperation:
    """One operation the answer shows, recomputed."""

    span: tuple[int, int]
    """From the first operand (or bracket) to the end of the result, in code points."""
    operands: tuple[Operand, ...]
    result: Quantity
    recomputed: Decimal
    """In the terms of the stated result (its scale word; percent points for a percent)."""
    arithmetic_ok: bool
    chain_factor: Decimal | None
    """The scale written on one side only that the whole chain is computed in, if any."""

    @property
    def inputs(self) -> tuple[Operand, ...]:
        return tuple(o for o in self.operands if not o.constant)


# --- finding operations -------------------------------------------------------------------


def shown_operations(text: str, quantities: Sequence[Quantity]) -> list[ShownOperation]:
    """Every operation ``text`` shows, given the quantities :mod:`tanda.numbers` read in it."""
    found: list[ShownOperation] = []
    quantities = [_own_reading(q) for q in quantities]
    for run in _runs(text, quantities):
        found.extend(_operations_in_run(run))
    return found


def _own_reading(q: Quantity) -> Quantity:
    """An end of a range read alone: in ``(1-15%)`` the ``1`` took the ``%`` of ``15%`` as a
    range would; in an operation it is a number of its own."""
    if q.range_part is None:
        return q
    alone = extract_quantities(q.surface, q.lang)
    if len(alone) != 1 or alone[0].surface != q.surface:
        return q
    return replace(alone[0], span=q.span, period=q.period)


@dataclass
class _Run:
    quantities: list[Quantity]
    tokens: list[tuple[_Token, int, int]]  # token, start, end in the text
    cut_before: bool = False
    cut_after: bool = False


def _runs(text: str, quantities: Sequence[Quantity]) -> list[_Run]:
    """Maximal stretches of operands joined only by operator-like text."""
    runs: list[_Run] = []
    current: _Run | None = None
    previous: Quantity | None = None
    for q in quantities:
        if q.kind not in _OPERAND_KINDS or q.label is not None:
            if current is not None:
                runs.append(current)
            current, previous = None, None
            continue
        gap = _gap_tokens(text, previous.end, q.start) if previous is not None else None
        joined = gap is not None and any(
            isinstance(t, _Sym) and t.kind in ("op", "eq") for t, _, _ in gap
        )
        # "5 -3": the sign the second surface took is the operator between them.
        signed = (
            q.surface[:1] in _SIGNS
            and gap is not None
            and all(isinstance(t, _Sym) and t.kind == "close" for t, _, _ in gap)
        )
        if current is not None and gap is not None and (joined or signed):
            current.tokens.extend(gap)
            if not joined:
                current.tokens.append((_Sym("op", "-"), q.start, q.start + 1))
            current.tokens.append((_Num(len(current.quantities), negate=not joined), *q.span))
            current.quantities.append(q)
        else:
            if current is not None:
                runs.append(current)
            leading = _leading(text, q.start)
            current = _Run(
                [q], [*leading, (_Num(0), *q.span)], cut_before=_cut_before(text, leading, q.start)
            )
        previous = q
    if current is not None:
        runs.append(current)
    for run in runs:
        trailing = _trailing(text, run.quantities[-1].end)
        run.tokens.extend(trailing)
        run.cut_after = _cut_after(text, trailing[-1][2] if trailing else run.quantities[-1].end)
    return [run for run in runs if len(run.quantities) >= 3]


def _gap_tokens(text: str, start: int, end: int) -> list[tuple[_Token, int, int]] | None:
    """The gap between two operands as tokens; ``None`` when it holds anything else.

    Words may label the terms (``PAD 6.592,42 M + TKDD 2.575,68 M``, ``5 M (PAD) + 3 M``) when
    the gap holds exactly one ``+``, ``−``, ``×`` or ``=``: a division next to words is a rate
    (``Rp 5.000/bulan``), and two operators among words are prose, not one operation."""
    tokens: list[tuple[_Token, int, int]] = []
    worded = False
    position = start
    while position < end:
        m = _GAP_TOKEN.match(text, position, end)
        if m is None:
            return None
        kind = m.lastgroup
        if kind == "op" or kind == "x":
            tokens.append((_Sym("op", _OPERATORS[m.group()]), m.start(), m.end()))
        elif kind == "eq":
            tokens.append((_Sym("eq"), m.start(), m.end()))
        elif kind == "open":
            tokens.append((_Sym("open"), m.start(), m.end()))
        elif kind == "close":
            tokens.append((_Sym("close"), m.start(), m.end()))
        elif kind == "word":
            worded = True
        position = m.end()
    tokens = _without_empty_brackets(tokens)
    if not worded:
        return tokens
    joins = [t for t in tokens if t[0].kind in ("op", "eq")]  # type: ignore[union-attr]
    if len(joins) != 1 or joins[0][0].op == "/":  # type: ignore[union-attr]
        return None
    return tokens


def _without_empty_brackets(
    tokens: list[tuple[_Token, int, int]],
) -> list[tuple[_Token, int, int]]:
    """Drop a bracket pair around no number: ``(PAD)`` is a name and ``([S1])`` a citation, not
    a group. (A gap's tokens are its operators and brackets: an opening bracket right before a
    closing one holds words, markers or spaces at most.)"""
    kept = list(tokens)
    for i in range(len(tokens) - 1):
        first, second = tokens[i][0], tokens[i + 1][0]
        if (
            isinstance(first, _Sym)
            and isinstance(second, _Sym)
            and (first.kind, second.kind) == ("open", "close")
        ):
            kept.remove(tokens[i])
            kept.remove(tokens[i + 1])
    return kept


def _leading(text: str, at: int) -> list[tuple[_Token, int, int]]:
    """Brackets (and a minus before a bracket) right before the first operand."""
    tokens: list[tuple[_Token, int, int]] = []
    position = at
    while position > 0:
        char = text[position - 1]
        if char.isspace() or (char in "$€£₺" and tokens):
            position -= 1
        elif char in _OPENERS:
            position -= 1
            tokens.append((_Sym("open"), position, position + 1))
        elif char in "-\u2212" and tokens and _starts_expression(text, position - 1):
            # "-(9 + 12) / 2" opening a line or after ":"; a dash of prose follows a word.
            position -= 1
            tokens.append((_Sym("op", "-"), position, position + 1))
            break
        else:
            break
    tokens.reverse()
    return tokens


def _starts_expression(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t")
    return not before or before[-1] in "\n:=(["


def _cut_before(text: str, tokens: list[tuple[_Token, int, int]], at: int) -> bool:
    """The operation goes on to the left with something that is not a number (``x + 5 = 7``)."""
    start = tokens[0][1] if tokens else at
    before = text[:start].rstrip()
    return bool(before) and before[-1] in _OPERATOR_CHARS


_GOES_ON = re.compile(r"[ \t]*[-+\u2212\u2013×*·÷/][ \t]*[\d(\[$€£₺]")


def _cut_after(text: str, at: int) -> bool:
    """The result goes on with an operation (``= 5 + 3x``): it is not a result. (A rate's
    ``/tahun`` is no operation.)"""
    return _GOES_ON.match(text, at) is not None


def _trailing(text: str, at: int) -> list[tuple[_Token, int, int]]:
    tokens: list[tuple[_Token, int, int]] = []
    position = at
    while position < len(text):
        char = text[position]
        if char in _CLOSERS:
            tokens.append((_Sym("close"), position, position + 1))
        elif not char.isspace() or char == "\n":
            break
        position += 1
    return tokens


def _balanced(part: list[tuple[_Token, int, int]]) -> list[tuple[_Token, int, int]]:
    """Drop brackets the prose opened or closed around the operation."""

    def count(kind: str) -> int:
        return sum(1 for t, _, _ in part if isinstance(t, _Sym) and t.kind == kind)

    part = list(part)
    while part and isinstance(part[0][0], _Sym) and count("open") > count("close"):
        if part[0][0].kind not in ("open", "op"):
            break
        part.pop(0)
    while part and isinstance(part[-1][0], _Sym) and count("close") > count("open"):
        if part[-1][0].kind != "close":
            break
        part.pop()
    return part


def _operations_in_run(run: _Run) -> list[ShownOperation]:
    parts: list[list[tuple[_Token, int, int]]] = [[]]
    for token in run.tokens:
        if isinstance(token[0], _Sym) and token[0].kind == "eq":
            parts.append([])
        else:
            parts[-1].append(token)
    parts = [_balanced(p) for p in parts]
    if run.cut_before:
        parts[0] = []  # a part that goes on to the left is not the whole operation
    if run.cut_after:
        parts[-1] = []
    out: list[ShownOperation] = []
    used: set[int] = set()
    for k in range(len(parts) - 1):
        left, right = parts[k], parts[k + 1]
        if _single_number(left) is None and _single_number(right) is not None:
            expression, result_part, result_at = left, right, k + 1
        elif _single_number(left) is not None and _single_number(right) is None:
            if k in used:
                continue
            expression, result_part, result_at = right, left, k
        else:
            continue
        operation = _recompute(run, expression, result_part)
        if operation is not None:
            out.append(operation)
            used.add(result_at)
    return out


def _single_number(part: list[tuple[_Token, int, int]]) -> _Num | None:
    numbers = [t for t, _, _ in part if isinstance(t, _Num)]
    ops = [t for t, _, _ in part if isinstance(t, _Sym) and t.kind == "op"]
    if len(numbers) == 1 and not ops:
        return numbers[0]
    return None


# --- parsing ------------------------------------------------------------------------------


class _Unparsable(Exception):
    pass


class _Parser:
    """expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
    unary := '-' unary | '+' unary | primary; primary := number | '(' expr ')'."""

    def __init__(self, tokens: Sequence[_Token]) -> None:
        self.tokens = tokens
        self.at = 0

    def parse(self) -> Node:
        node = self.expr()
        if self.at != len(self.tokens):
            raise _Unparsable
        return node

    def peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take_op(self, ops: str) -> Op | None:
        token = self.peek()
        if isinstance(token, _Sym) and token.op is not None and token.op in ops:
            self.at += 1
            return token.op
        return None

    def expr(self) -> Node:
        node = self.term()
        while (op := self.take_op("+-")) is not None:
            node = Binary(op, node, self.term())
        return node

    def term(self) -> Node:
        node = self.unary()
        while (op := self.take_op("*/")) is not None:
            node = Binary(op, node, self.unary())
        return node

    def unary(self) -> Node:
        op = self.take_op("+-")
        if op == "-":
            return Negate(self.unary())
        if op == "+":
            return self.unary()
        return self.primary()

    def primary(self) -> Node:
        token = self.peek()
        if isinstance(token, _Num):
            self.at += 1
            return Leaf(token.index)
        if isinstance(token, _Sym) and token.kind == "open":
            self.at += 1
            inner = self.expr()
            closing = self.peek()
            if not (isinstance(closing, _Sym) and closing.kind == "close"):
                raise _Unparsable
            self.at += 1
            return Group(inner, _sum_terms(inner))
        raise _Unparsable


def _sum_terms(node: Node) -> int:
    if isinstance(node, Binary) and node.op == "+":
        return _sum_terms(node.left) + _sum_terms(node.right)
    return 1


def _has_operator(node: Node) -> bool:
    if isinstance(node, Binary):
        return True
    if isinstance(node, Group):
        return _has_operator(node.inner)
    if isinstance(node, Negate):
        return _has_operator(node.operand)
    return False


# --- constants ----------------------------------------------------------------------------


def _whole_bare(q: Quantity, value: int) -> bool:
    return (
        q.kind is QuantityKind.count
        and q.unit is None
        and q.scale is None
        and q.decimals == 0
        and q.value == value
    )


def _constants(node: Node, quantities: Sequence[Quantity]) -> set[int]:
    """Operands the operation brings itself (see :class:`Operand`)."""
    found: set[int] = set()

    def leaf_index(n: Node) -> int | None:
        return n.index if isinstance(n, Leaf) else None

    def a_ratio(n: Node) -> bool:
        inner = n.inner if isinstance(n, Group) else n
        if isinstance(inner, Leaf):
            return _percent_divisor(quantities[inner.index]) is not None
        return isinstance(inner, Binary) and inner.op == "/"

    def visit(n: Node) -> None:
        if isinstance(n, Leaf):
            if _whole_bare(quantities[n.index], 0):
                found.add(n.index)
            return
        if isinstance(n, Negate):
            visit(n.operand)
            return
        if isinstance(n, Group):
            visit(n.inner)
            return
        visit(n.left)
        visit(n.right)
        left, right = leaf_index(n.left), leaf_index(n.right)
        if n.op in "+-":
            # a / b − 1 (growth), 1 + r, 1 − 15 %
            for index, other in ((right, n.left), (left, n.right)):
                if index is not None and _whole_bare(quantities[index], 1) and a_ratio(other):
                    found.add(index)
        elif n.op == "*":
            for index in (left, right):
                if index is not None and _whole_bare(quantities[index], 100):
                    found.add(index)
        elif left is not None and _whole_bare(quantities[left], 1):
            found.add(left)  # 1 / x, a reciprocal
        if n.op == "/" and _year_count(n.right, quantities):
            # (2019 - 2017 + 1): a count of years; its whole numbers are the operation's own.
            found.update(i for i in _leaves(n.right) if quantities[i].kind is not QuantityKind.year)
        if n.op == "/" and right is not None:
            q = quantities[right]
            if _whole_bare(q, 100):
                found.add(right)
            else:
                group = n.left.operand if isinstance(n.left, Negate) else n.left
                if isinstance(group, Group) and group.terms > 1 and _whole_bare(q, group.terms):
                    found.add(right)  # the mean of n terms

    visit(node)
    return found


def _leaves(node: Node) -> list[int]:
    if isinstance(node, Leaf):
        return [node.index]
    if isinstance(node, Negate):
        return _leaves(node.operand)
    if isinstance(node, Group):
        return _leaves(node.inner)
    return _leaves(node.left) + _leaves(node.right)


def _year_count(node: Node, quantities: Sequence[Quantity]) -> bool:
    """``(2019 - 2017 + 1)``: years and small whole numbers added and subtracted."""
    inner = node.inner if isinstance(node, Group) else node
    if not (isinstance(inner, Binary) and _additive(inner)):
        return False
    leaves = [quantities[i] for i in _leaves(inner)]
    return any(q.kind is QuantityKind.year for q in leaves) and all(
        q.kind is QuantityKind.year or _whole_bare(q, 1) or _whole_bare(q, 0) for q in leaves
    )


def _additive(node: Node) -> bool:
    if isinstance(node, Leaf):
        return True
    if isinstance(node, Binary):
        return node.op in "+-" and _additive(node.left) and _additive(node.right)
    return False


# --- recomputing --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Reading:
    """One way to read the units of an operation: operand values and the stated result."""

    operand_values: tuple[Decimal, ...]
    stated: Decimal
    tolerance: Decimal
    display: Decimal  # multiply the recomputed value by this to write it as the result is written


def _percent_divisor(q: Quantity) -> Decimal | None:
    return _PERCENT_DIVISOR.get(q.unit or "")


def _readings(
    quantities: Sequence[Quantity], result: Quantity, percent_points: bool, linear: bool
) -> list[tuple[_Reading, Decimal | None]]:
    """The values as written (scale words applied); when a scale word stands on one side only,
    the numbers as written, the chain computed in that scale; and when only the result is a
    percent of an expression that adds, subtracts or averages, the operands as percent points
    (``40.0 - 38.1 = 1.9%``)."""
    result_divisor = _percent_divisor(result)
    if percent_points:
        result_divisor = None  # `... × 100 = 22.22%`: the expression is in percent points

    def operand_value(q: Quantity, *, scaled: bool) -> Decimal:
        value = q.value if scaled else q.value / q.factor
        divisor = _percent_divisor(q)
        return value / divisor if divisor is not None else value

    def stated(value: Decimal, tolerance: Decimal) -> tuple[Decimal, Decimal]:
        if result_divisor is None:
            return value, tolerance
        return value / result_divisor, tolerance / result_divisor

    display = result_divisor if result_divisor is not None else Decimal(1)
    as_written = tuple(operand_value(q, scaled=True) for q in quantities)
    value, tolerance = stated(result.value, result.tolerance)
    readings: list[tuple[_Reading, Decimal | None]] = [
        (_Reading(as_written, value, tolerance, display / result.factor), None)
    ]
    scaled = [q for q in quantities if q.scale is not None]
    factors = {q.factor for q in scaled}
    one_side: Decimal | None = None
    if result.scale is not None and not scaled:
        one_side = result.factor
    elif result.scale is None and scaled and len(factors) == 1:
        one_side = factors.pop()
    if one_side is not None:
        numbers = tuple(operand_value(q, scaled=False) for q in quantities)
        value, tolerance = stated(result.value / result.factor, result.tolerance / result.factor)
        readings.append((_Reading(numbers, value, tolerance, display), one_side))
    if result_divisor is not None and linear and all(q.effective_unit is None for q in quantities):
        # Adding or averaging percents gives a percent: this reading speaks first.
        readings.insert(0, (_Reading(as_written, result.value, result.tolerance, _ONE), None))
    return readings


def _linear(node: Node, quantities: Sequence[Quantity], constants: set[int]) -> bool:
    """Sums and differences, multiplied or divided only by numbers that count (constants, or a
    count of years ``(2019-2017+1)``): what keeps the unit of its operands."""

    def counting(n: Node) -> bool:
        if isinstance(n, Leaf):
            return n.index in constants or quantities[n.index].kind is QuantityKind.year
        if isinstance(n, Negate):
            return counting(n.operand)
        if isinstance(n, Group):
            return counting(n.inner)
        return n.op in "+-" and counting(n.left) and counting(n.right)

    if isinstance(node, Leaf):
        return True
    if isinstance(node, Negate):
        return _linear(node.operand, quantities, constants)
    if isinstance(node, Group):
        return _linear(node.inner, quantities, constants)
    left = _linear(node.left, quantities, constants)
    right = _linear(node.right, quantities, constants)
    if node.op in "+-":
        return left and right
    if node.op == "*":
        return (left and counting(node.right)) or (right and counting(node.left))
    return left and counting(node.right)


def _evaluate(
    node: Node, values: Sequence[Decimal], percents: frozenset[int], context: Context
) -> Decimal:
    if isinstance(node, Leaf):
        return values[node.index]
    if isinstance(node, Negate):
        return context.minus(_evaluate(node.operand, values, percents, context))
    if isinstance(node, Group):
        return _evaluate(node.inner, values, percents, context)
    left = _evaluate(node.left, values, percents, context)
    right = _evaluate(node.right, values, percents, context)
    if (
        node.op in "+-"
        and isinstance(node.right, Leaf)
        and node.right.index in percents
        and not set(_leaves(node.left)) <= percents
    ):
        # "Rp 100 + 11% = Rp 111": a percent added to an amount is a percent of it.
        rate = context.add(1, right) if node.op == "+" else context.subtract(1, right)
        return context.multiply(left, rate)
    if node.op == "+":
        return context.add(left, right)
    if node.op == "-":
        return context.subtract(left, right)
    if node.op == "*":
        return context.multiply(left, right)
    return context.divide(left, right)


def _times_hundred(node: Node, operands: Sequence[Quantity], constants: set[int]) -> bool:
    """Whether the expression multiplies by the constant 100: its result is in percent points."""
    if isinstance(node, Leaf):
        return False
    if isinstance(node, Negate):
        return _times_hundred(node.operand, operands, constants)
    if isinstance(node, Group):
        return _times_hundred(node.inner, operands, constants)
    if node.op == "*":
        for side in (node.left, node.right):
            if (
                isinstance(side, Leaf)
                and side.index in constants
                and _whole_bare(operands[side.index], 100)
            ):
                return True
    return _times_hundred(node.left, operands, constants) or _times_hundred(
        node.right, operands, constants
    )


def _recompute(
    run: _Run,
    expression: list[tuple[_Token, int, int]],
    result_part: list[tuple[_Token, int, int]],
) -> ShownOperation | None:
    numbers = [t for t, _, _ in expression if isinstance(t, _Num)]
    result_token = _single_number(result_part)
    if len(numbers) < 2 or result_token is None:
        return None
    # Renumber the expression's operands 0..n-1; a sign that is the operator before its number
    # is not the number's ("5 -3": the operand is 3).
    local = {t.index: i for i, t in enumerate(numbers)}
    tokens: list[_Token] = [
        _Num(local[t.index]) if isinstance(t, _Num) else t for t, _, _ in expression
    ]
    try:
        tree = _Parser(tokens).parse()
    except _Unparsable:
        return None
    if not _has_operator(tree):
        return None
    operands = [
        _magnitude(run.quantities[t.index]) if t.negate else run.quantities[t.index]
        for t in numbers
    ]
    result = run.quantities[result_token.index]
    if result_token.negate:
        return None
    constants = _constants(tree, operands)
    percent_points = _percent_divisor(result) is not None and _times_hundred(
        tree, operands, constants
    )
    best: tuple[Decimal, Decimal, bool, Decimal | None] | None = None
    linear = _linear(tree, operands, constants)
    percents = frozenset(i for i, q in enumerate(operands) if _percent_divisor(q) is not None)
    own_rounding = _tax_rounding(tree, operands, result)
    for reading, chain in _readings(operands, result, percent_points, linear):
        computed = _compute(tree, reading.operand_values, percents)
        if computed is None:
            return None
        value, exact = computed
        tolerance = reading.tolerance
        if own_rounding is not None and chain is None:
            tolerance = max(tolerance, own_rounding)
        ok = abs(value - reading.stated) <= tolerance
        shown = _written(value * reading.display, exact, result.decimals)
        distance = _decades(value, reading.stated)
        if ok:
            best = (shown, Decimal(0), True, chain)
            break
        if best is None or distance < best[1]:
            best = (shown, distance, False, chain)
    assert best is not None
    recomputed, _, ok, chain = best
    spans = [(s, e) for _, s, e in (*expression, *result_part)]
    start = min(s for s, _ in spans)
    end = max(e for _, e in spans)
    return ShownOperation(
        span=(start, end),
        operands=tuple(
            Operand(
                replace(q, implied_factor=chain) if chain is not None and q.scale is None else q,
                i in constants,
            )
            for i, q in enumerate(operands)
        ),
        result=result,
        recomputed=recomputed,
        arithmetic_ok=ok,
        chain_factor=chain,
    )


def _tax_rounding(tree: Node, operands: Sequence[Quantity], result: Quantity) -> Decimal | None:
    """The tolerance of a tax amount rounded as its document rounds (BR-CO-17, issue 23): for
    ``base × rate % = tax`` whose base and tax are whole though written with decimals
    (``69180.00 × 27 % = 18679.00``, a forint invoice), half a unit of the precision they
    actually keep — as :func:`tanda.invoices.rules.document_places` reads the document. Any
    other operation, or a base or tax with a significant decimal, stays at the precision the
    result is written with (``None``)."""
    if not (isinstance(tree, Binary) and tree.op == "*"):
        return None
    if not (isinstance(tree.left, Leaf) and isinstance(tree.right, Leaf)):
        return None
    pair = (operands[tree.left.index], operands[tree.right.index])
    rates = [q for q in pair if _percent_divisor(q) is not None]
    if len(rates) != 1 or _percent_divisor(result) is not None:
        return None
    base = pair[1] if rates[0] is pair[0] else pair[0]
    if base.scale is not None or result.scale is not None or result.factor != _ONE:
        return None
    places = max(_significant_places(base.value), _significant_places(result.value))
    if places >= result.decimals:
        return None
    return Decimal(5).scaleb(-(places + 1))


def _significant_places(value: Decimal) -> int:
    exponent = value.normalize().as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _magnitude(q: Quantity) -> Quantity:
    """``-3`` of ``5 -3`` without the sign that is the operator before it."""
    body = q.surface[1:]
    skipped = 1 + len(body) - len(body.lstrip())
    return replace(
        q, span=(q.start + skipped, q.end), surface=body.lstrip(), value=-q.value, number=-q.number
    )


def _compute(
    tree: Node, values: Sequence[Decimal], percents: frozenset[int]
) -> tuple[Decimal, bool] | None:
    """The value and whether it is exact; ``None`` for a division by zero."""
    with localcontext(prec=_DIGITS, rounding=ROUND_HALF_EVEN) as context:
        context.clear_flags()
        context.traps[Inexact] = False
        try:
            value = _evaluate(tree, values, percents, context)
        except (DivisionByZero, InvalidOperation):
            return None
        return value, not context.flags[Inexact]


def _written(value: Decimal, exact: bool, decimals: int) -> Decimal:
    """The recomputed value as a plain decimal: when exact, with the decimals the result states
    or what it needs (``42570.00``, ``3`` for ``3 juta``); else two digits more than the
    result states (``-22.2222`` for ``-22.22%``)."""
    needed = -min(0, _exponent(value.normalize()))
    if exact and needed <= 12:
        return value.quantize(Decimal(1).scaleb(-max(decimals, needed)))
    return value.quantize(Decimal(1).scaleb(-(decimals + 2)))


def _exponent(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return exponent if isinstance(exponent, int) else 0


def _decades(a: Decimal, b: Decimal) -> Decimal:
    """How many powers of ten apart two values are (to pick the reading a wrong result meant)."""
    if a == 0 or b == 0:
        return Decimal(0) if a == b else Decimal(99)
    return round(Decimal(abs(math.log10(abs(float(a))) - math.log10(abs(float(b))))), 6)
