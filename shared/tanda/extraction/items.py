"""Tables, line items and the KALEM ÖZETİ of every item table (ASK-14, ASK-08).

An *item table* has a description column and an amount or quantity column: invoice, declaration
and waybill lines, budget ``akun`` rows with ``anggaran`` / ``realisasi``. Each row becomes a line
item read cell by cell — ``KALEM: kalem no=…, tanim=…, miktar=…, tutar=…`` — and the table gets
one summary, computed here once: the true item count, the stated totals, the sums of their items
and whether they agree within the rounding their surfaces allow (half a last digit each).

Which rows state totals of which others:

- an APBD account table: the account layout (:mod:`tanda.extraction.budget`);
- item numbers that nest (``1``, ``1.1``, ``1.2``): a row sums the rows numbered under it;
- otherwise a row whose description starts with a total word (``Jumlah``, ``Total``, ``Toplam``,
  ``Subtotal``, ``Ara toplam``…): a subtotal sums the items since the previous subtotal, a total
  every item above it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Final

from tanda.extraction.budget import budget_layout, is_budget_table
from tanda.extraction.drafts import DocumentContext, Draft, Fact, Numbering
from tanda.extraction.tables import (
    ColumnProfile,
    RowView,
    TableView,
    TypedCell,
    markdown_table,
    profile_columns,
    row_quantities,
    type_cell,
)
from tanda.extraction.text import content_terms, folded_name
from tanda.numbers import QuantityKind
from tanda.numbers.normal import NormalForm, plain_decimal
from tanda.records.structure import (
    EntityRecord,
    EntityType,
    ItemRole,
    LineItemRecord,
    LineItemSummaryRecord,
    TableRecord,
    TotalCheck,
)

_TOTAL_RE: Final = re.compile(
    r"^(?:grand\s+total|total|jumlah|toplam|genel\s+toplam|sum|totaal|gesamt)\b", re.IGNORECASE
)
_SUBTOTAL_RE: Final = re.compile(
    r"^(?:sub\s*-?\s*total|ara\s+toplam|jumlah\s+sub|subjumlah|sub\s+jumlah)\b", re.IGNORECASE
)
_NESTED_NUMBER_RE: Final = re.compile(r"^\d+(?:\.\d+)*\.?$")
_CELL_ENTITY_TYPES: Final[dict[str, EntityType]] = {
    "amount": "AMOUNT",
    "percent": "PERCENT",
    "date": "DATE",
    "year": "PERIOD",
}


@dataclass(frozen=True, slots=True)
class TableLayerResult:
    drafts: list[Draft]
    facts: list[Fact]
    summaries: list[SummaryOutcome]


@dataclass(frozen=True, slots=True)
class SummaryOutcome:
    """What the rule layer needs of one KALEM ÖZETİ: its table, checks, and the rows stated."""

    table: TableView
    table_id: str
    caption: str
    checks: tuple[TotalCheck, ...]
    row_spans: dict[str, tuple[str, tuple[int, int]]]  # row's node id → its chunk id and span


@dataclass(frozen=True, slots=True)
class _Row:
    level: int
    parent: int | None
    sign: int
    role: ItemRole
    derived_from: tuple[int, int] | None = None


def table_layers(
    ctx: DocumentContext, tables: Sequence[TableView], numbering: Numbering
) -> TableLayerResult:
    drafts: list[Draft] = []
    facts: list[Fact] = []
    summaries: list[SummaryOutcome] = []
    for table in tables:
        _one_table(ctx, table, numbering, drafts, facts, summaries)
    return TableLayerResult(drafts, facts, summaries)


def _one_table(
    ctx: DocumentContext,
    table: TableView,
    numbering: Numbering,
    drafts: list[Draft],
    facts: list[Fact],
    summaries: list[SummaryOutcome],
) -> None:
    table_local = numbering.next("t")
    table_id = ctx.node_id(table_local)
    width = len(table.header)
    raw = [
        list(zip(row.cells[:width], row_quantities(row, width, ctx.lang), strict=False))
        for row in table.rows
    ]
    profiles = profile_columns(table.header, raw)
    typed = [
        [type_cell(text, q, profiles[i], ctx.period) for i, (text, q) in enumerate(cells)]
        for cells in raw
    ]
    caption = table.caption or ctx.document.title
    first = table.first_chunk
    in_first = [row for row in table.rows if row.chunk.chunk_id == first.chunk_id]
    end = in_first[-1].span[1] if in_first else table.header_span[1]
    drafts.append(
        ctx.draft(
            TableRecord,
            table_local,
            first,
            (table.header_span[0], end),
            text=_markdown_with_caption(caption, table, width),
            caption=caption,
            header=table.header,
            columns=tuple(p.column for p in profiles),
            rows=tuple(tuple(cell.text for cell in cells) for cells in typed),
            cell_types=tuple(tuple(cell.type for cell in cells) for cells in typed),
            values=tuple(tuple(cell.value for cell in cells) for cells in typed),
            chunk_ids=tuple(chunk.chunk_id for chunk in table.chunks),
        )
    )
    roles = [p.column.role for p in profiles]
    description = roles.index("description") if "description" in roles else None
    item_table = description is not None and ("amount" in roles or "quantity" in roles)
    item_ids = [f"{table_local}-i{row.row_no}" for row in table.rows]
    for row, cells in zip(table.rows, typed, strict=True):
        name_cell = (
            row.cells[description]
            if description is not None and description < len(row.cells)
            else row.cells[0]
        )
        item_id = ctx.node_id(item_ids[row.row_no - table.rows[0].row_no])
        for index, cell in enumerate(cells):
            profile = profiles[index]
            if item_table:
                # The cells of an item table are its line items' values, not entities of their
                # own (a reader asking for an amount matches line items by description); they
                # are still facts a rule of the document is evaluated against.
                if profile.column.role in ("amount", "unit_price"):
                    fact = _cell_fact(ctx, row, index, cell, profile, name_cell, item_id)
                    if fact is not None:
                        facts.append(fact)
                continue
            fact = _cell_entity(
                ctx, numbering, drafts, row, index, cell, profile, name_cell,
                ctx.node_id(table_local),
            )  # fmt: skip
            if fact is not None:
                facts.append(fact)
    if not item_table or description is None:
        return
    layout = _layout(table, profiles, description)
    _line_items(ctx, table, table_local, profiles, typed, description, layout, drafts)
    checks = _checks(ctx, table, table_local, profiles, typed, description, layout)
    item_count = sum(1 for row in layout if row.role == "item")
    grand = _grand_total(ctx, checks, layout, table, table_local)
    agrees = all(check.agrees for check in checks) if checks else None
    summary_text = _summary_text(item_count, len(table.rows), checks)
    drafts.append(
        ctx.draft(
            LineItemSummaryRecord,
            f"{table_local}-s",
            first,
            table.header_span,
            text=summary_text,
            parent_id=table_id,
            item_count=item_count,
            row_count=len(table.rows),
            stated_total=grand.stated if grand is not None else None,
            items_sum=grand.items_sum if grand is not None else None,
            checks=tuple(checks),
            agrees=agrees,
        )
    )
    rows_by_id = {
        ctx.node_id(f"{table_local}-i{row.row_no}"): (row.chunk.chunk_id, row.span)
        for row in table.rows
    }
    summaries.append(SummaryOutcome(table, table_id, caption, tuple(checks), rows_by_id))


def _markdown_with_caption(caption: str, table: TableView, width: int) -> str:
    return f"{caption}\n\n{markdown_table(table.header, [row.cells[:width] for row in table.rows])}"


def _cell_fact(
    ctx: DocumentContext,
    row: RowView,
    index: int,
    cell: TypedCell,
    profile: ColumnProfile,
    name_cell: str,
    node_id: str,
) -> Fact | None:
    """A typed cell as a fact named ``<row> (<column>)``, held by the record ``node_id``."""
    entity_type = _CELL_ENTITY_TYPES.get(cell.type)
    if (
        entity_type is None
        or cell.normal is None
        or profile.column.role in ("description", "number", "quantity")
    ):
        return None
    name = f"{name_cell.strip()} ({profile.column.name.strip()})"
    surface = cell.text.strip()
    start = row.cell_spans[index][0] + (len(cell.text) - len(cell.text.lstrip()))
    return Fact(
        node_id=node_id,
        entity_type=entity_type,
        name=name,
        name_terms=content_terms(name, ctx.lang),
        form=cell.normal,
        surface=surface,
        chunk_id=row.chunk.chunk_id,
        span=(start, start + len(surface)),
    )


def _cell_entity(
    ctx: DocumentContext,
    numbering: Numbering,
    drafts: list[Draft],
    row: RowView,
    index: int,
    cell: TypedCell,
    profile: ColumnProfile,
    name_cell: str,
    parent_id: str,
) -> Fact | None:
    """A typed cell of a table that lists no items: an entity ``TYPE: <row> (<column>) = …``."""
    fact = _cell_fact(ctx, row, index, cell, profile, name_cell, "")
    if fact is None:
        return None
    local = numbering.next("e")
    fact = replace(fact, node_id=ctx.node_id(local))
    entity_type, name, surface, span = fact.entity_type, fact.name, fact.surface, fact.span
    drafts.append(
        ctx.draft(
            EntityRecord,
            local,
            row.chunk,
            span,
            text=f"{entity_type}: {name} = {surface}",
            sequence=index,
            parent_id=parent_id,
            entity_type=entity_type,
            name=name,
            canonical=folded_name(name),
            value=surface,
            normal=cell.stored,
        )
    )
    return fact


# --- which rows are totals of which ------------------------------------------------------------


def _layout(table: TableView, profiles: Sequence[ColumnProfile], description: int) -> list[_Row]:
    names = [row.cells[description] if description < len(row.cells) else "" for row in table.rows]
    if is_budget_table(table.header[description], names):
        budget = budget_layout(names)
        parents = {row.parent for row in budget if row.parent is not None}
        for row in budget:
            if row.derived_from is not None:
                parents.update(row.derived_from)
        out: list[_Row] = []
        for index, row in enumerate(budget):
            has_children = index in {r.parent for r in budget}
            if row.derived_from is not None:
                role: ItemRole = "total"
            elif has_children:
                role = "total" if row.level == 1 else "subtotal"
            else:
                role = "item"
            out.append(_Row(row.level, row.parent, row.sign, role, row.derived_from))
        return out
    number = next((i for i, p in enumerate(profiles) if p.column.role == "number"), None)
    if number is not None:
        codes = [row.cells[number].strip() if number < len(row.cells) else "" for row in table.rows]
        if sum(1 for code in codes if "." in code.strip(".")) and all(
            _NESTED_NUMBER_RE.match(code) for code in codes if code
        ):
            return _nested_layout(codes)
    return _total_word_layout(names)


def _nested_layout(codes: Sequence[str]) -> list[_Row]:
    parts = [tuple(code.strip(".").split(".")) if code else () for code in codes]
    parents: list[int | None] = []
    for index, part in enumerate(parts):
        parent = None
        for before in range(index - 1, -1, -1):
            if part and len(parts[before]) == len(part) - 1 and part[:-1] == parts[before]:
                parent = before
                break
        parents.append(parent)
    with_children = {p for p in parents if p is not None}
    return [
        _Row(
            max(len(part), 1),
            parent,
            1,
            ("total" if parent is None else "subtotal") if index in with_children else "item",
        )
        for index, (part, parent) in enumerate(zip(parts, parents, strict=True))
    ]


def _total_word_layout(names: Sequence[str]) -> list[_Row]:
    rows: list[_Row] = []
    for name in names:
        stripped = name.strip()
        if _SUBTOTAL_RE.match(stripped):
            rows.append(_Row(1, None, 1, "subtotal"))
        elif _TOTAL_RE.match(stripped):
            rows.append(_Row(1, None, 1, "total"))
        else:
            rows.append(_Row(2, None, 1, "item"))
    return rows


def _members(layout: Sequence[_Row], index: int) -> list[tuple[int, int]]:
    """The rows (with their sign) that row ``index`` states the total of."""
    row = layout[index]
    if row.derived_from is not None:
        first, second = row.derived_from
        return [(first, 1), (second, -1)]
    children = [(i, r.sign) for i, r in enumerate(layout) if r.parent == index]
    if children or any(r.parent is not None for r in layout):
        return children
    # Flat tables with total words: a subtotal sums the items since the previous subtotal, a
    # total every item above it.
    if row.role == "subtotal":
        start = max((i for i in range(index) if layout[i].role != "item"), default=-1) + 1
        return [(i, 1) for i in range(start, index) if layout[i].role == "item"]
    if row.role == "total":
        return [(i, 1) for i in range(index) if layout[i].role == "item"]
    return []


# --- line items and checks ---------------------------------------------------------------------


def _item_value(profile: ColumnProfile, cell: TypedCell) -> dict[str, Any] | None:
    """An :class:`ItemValue`'s fields (validated with its line item)."""
    if cell.quantity is None:
        return None
    return {"column": profile.column.name, "surface": cell.text.strip(), "normal": cell.stored}


def _line_items(
    ctx: DocumentContext,
    table: TableView,
    table_local: str,
    profiles: Sequence[ColumnProfile],
    typed: Sequence[Sequence[TypedCell]],
    description: int,
    layout: Sequence[_Row],
    drafts: list[Draft],
) -> None:
    number = next((i for i, p in enumerate(profiles) if p.column.role == "number"), None)
    amount_columns = [i for i, p in enumerate(profiles) if p.column.role == "amount"]
    quantity = next((i for i, p in enumerate(profiles) if p.column.role == "quantity"), None)
    others = [
        i
        for i, p in enumerate(profiles)
        if i not in amount_columns and i not in (description, number, quantity)
    ]
    first_row = table.rows[0].row_no
    for index, (row, cells) in enumerate(zip(table.rows, typed, strict=True)):
        shape = layout[index]
        item_no = (
            row.cells[number].strip()
            if number is not None and number < len(row.cells) and row.cells[number].strip()
            else str(row.row_no)
        )
        desc = row.cells[description].strip() if description < len(row.cells) else ""
        amounts = tuple(
            v
            for i in amount_columns
            if i < len(cells) and (v := _item_value(profiles[i], cells[i]))
        )
        miktar = (
            _item_value(profiles[quantity], cells[quantity])
            if quantity is not None and quantity < len(cells)
            else None
        )
        extra = tuple(
            v for i in others if i < len(cells) and (v := _item_value(profiles[i], cells[i]))
        )
        members = _members(layout, index) if shape.role != "item" else []
        total_of = tuple(ctx.node_id(f"{table_local}-i{first_row + m}") for m, _ in members)
        drafts.append(
            ctx.draft(
                LineItemRecord,
                f"{table_local}-i{row.row_no}",
                row.chunk,
                row.span,
                text=_item_text(item_no, desc, miktar, amounts, extra, shape.role),
                parent_id=ctx.node_id(table_local),
                row_no=row.row_no,
                item_no=item_no,
                description=desc,
                quantity=miktar,
                amounts=amounts,
                others=extra,
                role=shape.role,
                level=shape.level,
                total_of=total_of,
            )
        )


_ROLE_LABEL: Final[dict[str, str]] = {"subtotal": "ara toplam", "total": "toplam"}


def _item_text(
    item_no: str,
    description: str,
    quantity: dict[str, Any] | None,
    amounts: Sequence[dict[str, Any]],
    others: Sequence[dict[str, Any]],
    role: str,
) -> str:
    """``KALEM: kalem no=…, tanim=…, miktar=…, tutar=…`` (ASK-08): one ``tutar`` per amount column,
    named when there are several (``tutar (anggaran)=…``); other typed cells after them."""
    parts = [f"kalem no={item_no}", f"tanim={description}"]
    if quantity is not None:
        parts.append(f"miktar={quantity['surface']}")
    if len(amounts) == 1:
        parts.append(f"tutar={amounts[0]['surface']}")
    else:
        parts.extend(f"tutar ({a['column']})={a['surface']}" for a in amounts)
    parts.extend(f"{o['column']}={o['surface']}" for o in others)
    if role in _ROLE_LABEL:
        parts.append(f"tür={_ROLE_LABEL[role]}")
    return "KALEM: " + ", ".join(parts)


def _checks(
    ctx: DocumentContext,
    table: TableView,
    table_local: str,
    profiles: Sequence[ColumnProfile],
    typed: Sequence[Sequence[TypedCell]],
    description: int,
    layout: Sequence[_Row],
) -> list[TotalCheck]:
    amount_columns = [i for i, p in enumerate(profiles) if p.column.role == "amount"]
    names = [
        row.cells[description].strip() if description < len(row.cells) else "" for row in table.rows
    ]
    first_row = table.rows[0].row_no
    checks: list[TotalCheck] = []
    for index, shape in enumerate(layout):
        if shape.role == "item":
            continue
        members = _members(layout, index)
        if not members:
            continue
        formula = names[index] + " = " + _formula(names, members)
        for column in amount_columns:
            stated = _form(typed, index, column)
            parts = [(_form(typed, m, column), sign) for m, sign in members]
            known = [(form, sign) for form, sign in parts if form is not None]
            if stated is None or not known:
                continue
            total = sum((sign * form.value for form, sign in known), Decimal(0))
            tolerance = _rounding(stated) + sum((_rounding(form) for form, _ in known), Decimal(0))
            checks.append(
                TotalCheck(
                    items_sum_surface=written_like(total, stated, typed[index][column].text),
                    total_id=ctx.node_id(f"{table_local}-i{first_row + index}"),
                    label=names[index],
                    column=profiles[column].column.name,
                    stated=typed[index][column].text.strip(),
                    stated_value=stated.value,
                    items_sum=total,
                    items=len(members),
                    formula=formula,
                    tolerance=tolerance,
                    agrees=abs(total - stated.value) <= tolerance,
                )
            )
    return checks


def _rounding(form: NormalForm) -> Decimal:
    """How far a surface may be from the value it shows: half its last digit when it shows a
    rounding (decimals, or a scale such as ``M``); nothing for a whole number of units — the
    lines of an invoice add up exactly."""
    whole_units = form.scale is None and form.factor == 1 and form.tolerance == _HALF
    return Decimal(0) if whole_units else form.tolerance


_HALF: Final = Decimal("0.5")


def _form(typed: Sequence[Sequence[TypedCell]], row: int, column: int) -> NormalForm | None:
    cells = typed[row]
    if column >= len(cells):
        return None
    form = cells[column].normal
    if form is None or form.kind not in (QuantityKind.amount, QuantityKind.count):
        return None
    return form


def _formula(names: Sequence[str], members: Sequence[tuple[int, int]]) -> str:
    if len(members) > 6:
        first, last = members[0][0], members[-1][0]
        return f"{len(members)} kalem ({names[first]} … {names[last]})"
    out = ""
    for position, (member, sign) in enumerate(members):
        if position == 0:
            out = names[member] if sign > 0 else f"− {names[member]}"
        else:
            out += f" {'+' if sign > 0 else '−'} {names[member]}"
    return out


@dataclass(frozen=True, slots=True)
class _Grand:
    stated: str
    items_sum: Decimal


def _grand_total(
    ctx: DocumentContext,
    checks: Sequence[TotalCheck],
    layout: Sequence[_Row],
    table: TableView,
    table_local: str,
) -> _Grand | None:
    """The table's one grand total: the last ``total`` row that sums items directly (an invoice's
    ``Total``); a budget with several accounts has none."""
    totals = [i for i, row in enumerate(layout) if row.role == "total" and row.derived_from is None]
    if len(totals) != 1:
        return None
    total_id = ctx.node_id(f"{table_local}-i{table.rows[0].row_no + totals[0]}")
    for check in checks:
        if check.total_id == total_id:
            return _Grand(check.stated, check.items_sum)
    return None


def _summary_text(item_count: int, row_count: int, checks: Sequence[TotalCheck]) -> str:
    """KALEM ÖZETİ as one line: the true count, then the totals that disagree (or that all
    agree)."""
    head = f"KALEM ÖZETİ: {item_count} kalem ({row_count} satır)"
    if not checks:
        return f"{head}; belgede kalemlerin toplamı belirtilmemiş"
    failing = [c for c in checks if not c.agrees]
    if len(checks) == 1:
        check = checks[0]
        verdict = "uyuşuyor" if check.agrees else "UYUŞMUYOR"
        return (
            f"{head}; belge toplamı ({check.column})={check.stated}; "
            f"kalemlerin toplamı={check.items_sum_surface}; {verdict}"
        )
    if not failing:
        return f"{head}; {len(checks)} toplam kontrolünün hepsi uyuşuyor"
    body = f"{len(checks)} toplam kontrolünden {len(checks) - len(failing)} tanesi uyuşuyor"
    shown = "; ".join(
        f"{c.label} ({c.column}): belge {c.stated}, kalemlerin toplamı {c.items_sum_surface}"
        for c in failing[:4]
    )
    more = f"; … {len(failing) - 4} daha" if len(failing) > 4 else ""
    return f"{head}; {body}; UYUŞMUYOR: {shown}{more}"


_NUMBER_IN_SURFACE: Final = re.compile(r"\d(?:[\d.,\u00a0\u202f]*\d)?")


def written_like(value: Decimal, form: NormalForm, surface: str) -> str:
    """``value`` written as ``surface`` writes its number: same scale word, separators and
    decimals (a sum of ``54,72 M`` cells reads ``460,23 M``, not ``460230000000``)."""
    match = _NUMBER_IN_SURFACE.search(surface)
    if match is None or not form.factor:
        return plain_decimal(value)
    digits = match.group()
    unit_tolerance = form.tolerance / form.factor
    decimals = max(0, -(unit_tolerance / 5).adjusted() - 1) if unit_tolerance else 0
    if decimals and len(digits) > decimals:
        decimal_mark = digits[-decimals - 1]
    else:
        decimal_mark = "," if "." in digits else "."
    thousands = "." if decimal_mark == "," else ","
    number = value / form.factor
    grouped = (
        f"{abs(number):,.{decimals}f}" if thousands in digits else f"{abs(number):.{decimals}f}"
    )
    written = grouped.translate(str.maketrans(",.", thousands + decimal_mark))
    prefix = surface[: match.start()].rstrip("-−")
    if prefix.endswith(("-", "−")):
        prefix = prefix[:-1]
    sign = "-" if number < 0 else ""
    return f"{prefix}{sign}{written}{surface[match.end() :]}"
