"""A document's structure records, built at ingest next to its chunks (ASK-14, DESIGN §6).

Six kinds of record, each read from one stored chunk and anchored in it: ``chunk_id`` and a
``span`` of code points in that chunk's text, so ``quote == chunk.text[span.start:span.end]``
and any reader can check a record against the stored text again (KB-05):

- **entity** — ``TYPE: name = value``: amounts, percentages, dates, periods, durations, reference
  numbers, parties, places; the value verbatim and in normal form (``tanda.numbers``).
- **table** — every table as Markdown with its caption, header, page and typed cells.
- **line_item** — one row of an item table read cell by cell (``KALEM: kalem no=…, tanim=…,
  miktar=…, tutar=…``), and **line_item_summary** — one ``KALEM ÖZETİ`` per item table: the true
  item count, the stated totals, the sums of their items and whether they agree.
- **claim** — a statement and the verbatim quote that supports it, kept only when the quote is the
  stored text at its span (whitespace normalised).
- **rule** — a condition the document imposes, its quote, and a deterministic evaluation against the
  document's own facts: ``IHLAL`` / ``sağlandı`` / ``DEĞERLENDİRİLEMEDİ``.
- **definition** — a term the document defines (``Data Pribadi``, ``asas kepastian hukum``,
  ``Açık rıza``, ``personal data``), its matching key, the names it is also given (``yang
  selanjutnya disebut …``) and the definition text; the quote is the definition item verbatim
  (issue 22, :mod:`tanda.extraction.definitions`).

Records are tenant-scoped like chunks (``tenant_id``, ``batch_id``, ``selections``: a scope change
of the document moves them too), replaced with their document, and read through
``SearchIndex.records`` with a :class:`RecordQuery`. ``node_id`` is unique within a tenant:
``<document_id>:<local id>`` (``e3`` entity, ``t1`` table, ``t1-i4`` its fourth line item, ``t1-s``
its summary, ``c2`` claim, ``r1`` rule, ``d4`` definition).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from tanda.records.documents import SearchScope
from tanda.records.kinds import NODE_KINDS as NODE_KINDS  # one list of kinds (re-exported)
from tanda.records.kinds import NodeKind as NodeKind

EntityType = Literal[
    "AMOUNT", "PERCENT", "DATE", "PERIOD", "DURATION", "REFERENCE", "PARTY", "PLACE"
]
ValueKind = Literal["amount", "percent", "count", "year", "date", "time", "ordinal"]
CellType = Literal["text", "amount", "percent", "count", "year", "date", "empty"]
ItemRole = Literal["item", "subtotal", "total"]
ColumnRole = Literal["number", "description", "quantity", "amount", "unit_price", "other"]
RuleType = Literal[
    "deadline", "cap", "floor", "items_sum_to_total", "invoice_total", "date_order", "tax_rate"
]
"""``invoice_total``, ``date_order``, ``tax_rate``: an invoice's own arithmetic (EN 16931 BR-CO
rules, the due date, each tax subtotal; issue 18, docs/invoices.md)."""
Evaluation = Literal["IHLAL", "sağlandı", "DEĞERLENDİRİLEMEDİ", "UYARI"]
"""``UYARI`` (a warning, issue 23): a rule of tanda's own, not the document's or the standard's,
does not hold — DUE-DATE of an invoice. Its facts are in ``violations``; it is never reported as a
violation."""

STRUCTURE_VERSION: Final = "extraction/6"
"""What ``Document.structure_version`` says when the records of a document were built by this
version of ``tanda.extraction``; a re-ingest rebuilds a document built by another (or by none),
its chunks with its records. ``extraction/2`` (issue 22): definition records; no heading in a
passage's text, claims and rule quotes start after their list or ayat number. ``extraction/3``
(issue 23): an invoice's DUE-DATE that does not hold is ``UYARI``, not ``IHLAL``.
``extraction/4`` (issue 22): a long paragraph's chunks are cut where
:mod:`tanda.retrieval.sentences` ends a sentence (not after ``No.`` or an initial; after a stop
with reference marks), so chunks built before are rebuilt with their records. ``extraction/5``
(issue 22): a currency written before an amount without a space (``Rp5.000.000,00``) is a word
of its own in the index, the amount a number; chunks indexed as ``rp5`` are re-analysed.
``extraction/6`` (issue 22): a document's language needs three distinct function words, and an
invoice whose notes say none of tanda's languages is English (its labels' language): Dutch and
German invoices had been stemmed as Turkish; a statute's inserted article ``Pasal 28I`` is no
longer read as 281 (UUD 1945's later amended articles were no headings)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class SourceSpan(_Model):
    """``[start, end)`` in code points of the stored text a record was read from."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> SourceSpan:
        if self.end < self.start:
            raise ValueError("span end before its start")
        return self


class NormalValue(_Model):
    """A numeric surface in normal form (``tanda.numbers.normal_form``): ``value`` is the number
    times its scale, sign applied (dates ``YYYYMMDD``), equal to another surface's within the
    larger ``tolerance`` of the two."""

    kind: ValueKind
    value: Decimal
    tolerance: Decimal
    scale: str | None = Field(default=None, description="The scale word as written: `M`, `miliar`.")
    unit: str | None = Field(default=None, description="`IDR`, `%`, `d` …; `None`: unstated.")
    currency: str | None = None
    period: int | None = Field(default=None, description="The year it is stated for.")
    date: tuple[int | None, int, int | None] | None = None
    label: str | None = Field(default=None, description="References: `number`, `article` …")


class _Node(_Model):
    node_id: str = Field(description="`<document_id>:<local id>`, unique within the tenant.")
    document_id: str
    tenant_id: str
    batch_id: str | None = None
    selections: tuple[str, ...] = ()
    ordinal: int = Field(ge=0, description="Position among the document's records.")
    page_no: int | None = None
    section: str | None = None
    chunk_id: str = Field(description="The stored chunk it was read from.")
    span: SourceSpan = Field(description="Where `quote` is in that chunk's text (code points).")
    quote: str = Field(description="The stored text at `span`, verbatim.")
    text: str = Field(
        description="The record as evidence: one line (`AMOUNT: Pajak Daerah (anggaran) = 54,72 M`,"
        " `KALEM: …`), a table as GitHub Markdown with its caption."
    )
    parent_id: str | None = Field(
        default=None,
        description="The table of a line item, summary or table rule; the row of a cell entity.",
    )


class EntityRecord(_Node):
    kind: Literal["entity"] = "entity"
    entity_type: EntityType
    name: str = Field(description="What the value is of, as the document says it.")
    canonical: str = Field(description="`name` folded for matching (case, accents, spacing).")
    value: str = Field(description="The surface, verbatim (never translated, ASK-07).")
    normal: NormalValue | None = Field(default=None, description="Numbers and dates only.")


class TableColumn(_Model):
    name: str
    type: CellType = Field(description="What most of its cells are.")
    role: ColumnRole = "other"


class TableRecord(_Node):
    kind: Literal["table"] = "table"
    caption: str | None = None
    header: tuple[str, ...]
    columns: tuple[TableColumn, ...]
    rows: tuple[tuple[str, ...], ...] = Field(description="The cells as stored, row by row.")
    cell_types: tuple[tuple[CellType, ...], ...] = Field(description="What each cell is.")
    values: tuple[tuple[Decimal | None, ...], ...] = Field(
        description="Each numeric cell's normal value (`None` for text and empty cells)."
    )
    chunk_ids: tuple[str, ...] = Field(description="Every chunk holding rows of the table.")


class ItemValue(_Model):
    """One typed cell of a line item: its column, the surface and its normal form."""

    column: str
    surface: str
    normal: NormalValue | None = None


class LineItemRecord(_Node):
    kind: Literal["line_item"] = "line_item"
    row_no: int = Field(ge=1, description="1-based row of the table (header excluded).")
    item_no: str = Field(description="The item's own number when the table has one, else row_no.")
    description: str = Field(description="tanim: what the line is.")
    quantity: ItemValue | None = Field(default=None, description="miktar, when a column says it.")
    amounts: tuple[ItemValue, ...] = Field(default=(), description="tutar: every amount column.")
    others: tuple[ItemValue, ...] = Field(default=(), description="Other typed cells (%, price).")
    role: ItemRole = Field(description="An item, or a row stating the total of others.")
    level: int = Field(default=1, ge=1, description="Depth in a hierarchical table (1 = top).")
    total_of: tuple[str, ...] = Field(
        default=(), description="For a subtotal/total: the node ids of the rows it sums."
    )


class TotalCheck(_Model):
    """One stated total against the sum of its items, in one amount column."""

    total_id: str = Field(description="The line item stating the total.")
    label: str
    column: str
    stated: str = Field(description="The total as the document writes it.")
    stated_value: Decimal
    items_sum: Decimal
    items_sum_surface: str = Field(description="The sum written as the total is: `460,23 M`.")
    items: int = Field(ge=0, description="How many rows it sums.")
    formula: str = Field(description="E.g. `Pembiayaan Daerah = Penerimaan … − Pengeluaran …`.")
    tolerance: Decimal = Field(description="Rounding the surfaces allow: half a last digit each.")
    agrees: bool


class LineItemSummaryRecord(_Node):
    """KALEM ÖZETİ: computed once at ingest, independent of how many items a caller is shown."""

    kind: Literal["line_item_summary"] = "line_item_summary"
    item_count: int = Field(ge=0, description="The true number of items (totals excluded).")
    row_count: int = Field(ge=0)
    stated_total: str | None = Field(default=None, description="The table's grand total, if any.")
    items_sum: Decimal | None = Field(default=None, description="The sum of its items.")
    checks: tuple[TotalCheck, ...] = ()
    agrees: bool | None = Field(
        default=None, description="Every check agrees; `None`: no stated total."
    )


class ClaimRecord(_Node):
    kind: Literal["claim"] = "claim"
    statement: str
    proposed_by: str = Field(description="The model that proposed it (`offline`, …).")


class RuleFact(_Model):
    """A fact of the document a rule was evaluated against."""

    node_id: str
    text: str
    value: str


class RuleRecord(_Node):
    kind: Literal["rule"] = "rule"
    rule_type: RuleType
    rule_id: str | None = Field(
        default=None, description="A named rule's id: `BR-CO-10`, `DUE-DATE` (invoices)."
    )
    subject: str = Field(description="What the condition is about.")
    condition: str = Field(description="The condition in short: `≤ 14 d`, `items = total`.")
    limit: NormalValue | None = None
    evaluation: Evaluation
    violations: tuple[RuleFact, ...] = Field(
        default=(), description="IHLAL (and UYARI): the facts that break it."
    )
    satisfied_by: tuple[RuleFact, ...] = Field(
        default=(), description="sağlandı: facts meeting it."
    )
    reason: str | None = Field(default=None, description="DEĞERLENDİRİLEMEDİ: why not.")


class DefinitionRecord(_Node):
    """A term the document defines (issue 22): ``quote`` is the definition item verbatim (``1. Data
    Pribadi adalah …``; of an item that runs on into the next chunk, what this chunk holds)."""

    kind: Literal["definition"] = "definition"
    term: str = Field(description="The term as the document writes it (without its quotes).")
    term_key: str = Field(
        description="The term's matching form (`tanda.retrieval.analysis.term_key`): "
        "`data pribadi`."
    )
    aliases: tuple[str, ...] = Field(
        default=(),
        description="Other names the document gives it: `yang selanjutnya disebut Pemerintah`, "
        "`(BPK)`.",
    )
    alias_keys: tuple[str, ...] = Field(
        default=(), description="Each alias's matching form, in the order of `aliases`."
    )
    definition: str = Field(description="What the term means, as the document says it.")

    @property
    def keys(self) -> tuple[str, ...]:
        """What a lookup by term matches (``RecordQuery.terms``): the term's and aliases' keys."""
        return tuple(dict.fromkeys((self.term_key, *self.alias_keys)))


StructureRecord = Annotated[
    EntityRecord
    | TableRecord
    | LineItemRecord
    | LineItemSummaryRecord
    | ClaimRecord
    | RuleRecord
    | DefinitionRecord,
    Field(discriminator="kind"),
]
STRUCTURE_RECORD: Final[TypeAdapter[StructureRecord]] = TypeAdapter(StructureRecord)
"""Parses a stored record body (JSON) back into its model."""


def node_id_for(document_id: str, local_id: str) -> str:
    return f"{document_id}:{local_id}"


class RecordQuery(_Model):
    """Which records a reader wants (``SearchIndex.records``). ``scope`` always (the tenant filter
    and its narrowing, as for chunks); every other field narrows further, ``None`` meaning "any".
    Results come in document order: by ``document_id``, then ``ordinal``.

    - ``kinds`` — e.g. ``("claim",)`` for a cross-check, ``("entity", "rule")`` for evidence;
    - ``node_ids`` — a lookup by id (a finding, a citation, a KB node);
    - ``chunk_ids`` — the records read from these chunks: the evidence beside retrieved passages;
    - ``parent_ids`` — e.g. a table's line items and summary;
    - ``terms`` — definition records whose ``term_key`` or an alias's key is one of these (keys
      as :func:`tanda.retrieval.analysis.term_key` makes them): "what does X mean" (issue 22);
    - ``limit`` — at most this many (in that order).
    """

    scope: SearchScope
    kinds: tuple[NodeKind, ...] | None = None
    node_ids: tuple[str, ...] | None = None
    chunk_ids: tuple[str, ...] | None = None
    parent_ids: tuple[str, ...] | None = None
    terms: tuple[str, ...] | None = None
    limit: int | None = Field(default=None, ge=1)
