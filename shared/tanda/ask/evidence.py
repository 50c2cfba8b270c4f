"""ASK-08: the evidence items ``/v1/ask`` shows beside its passages, picked without a model.

The documents the retrieved passages come from (the *target documents*, in the passages' rank
order), then the documents the request names (``document_id``) — its subject even when none of
their passages shares the question's words, as a Turkish question about an English invoice —
may have structure records built at ingest (ASK-14, docs/evidence.md). From them a small
set is picked for the question, deterministically — the same question, scope and index always
give the same items in the same order — and numbered into the same ``[S#]`` list after the
passages:

- **entity** (≤ 6): an entity whose name (and, for parties, places and references, value) the
  question says at least half of, by the analyzed terms retrieval uses (stemmed, folded, function
  words out);
- **table** (≤ 2): only for a table-shaped question (:func:`asks_for_a_table`), a table whose
  caption, header and cells hold at least half of the question's terms;
- **claim** (≤ 4): a claim read from a retrieved passage whose statement holds at least half of
  the question's terms;
- **rule** (≤ 4): every violated rule (``IHLAL``) of a target document, asked or not — the answer
  reports it (:mod:`tanda.ask.run`) — then the rules whose subject and quote hold at least half of
  the question's terms;
- at most 14 of these four kinds together; when more qualify, they are taken in the order violated
  rules, tables, entities, claims, other rules (a violation must be reported; a table was asked
  for by the question's shape);
- **line items** on top of the quota, when the question asks for items, amounts or a breakdown
  (:func:`asks_for_items`): the item tables of the target documents whose caption, header or
  rows the rest of the question names (a question asking for items and nothing else takes every
  one; of a document the request names, words it holds nowhere — not in the passages shown, not
  in its records — name nothing and are left out), at most two, each with its KALEM ÖZETİ (the
  true item count and whether the items sum to the stated totals, computed at ingest — so "how
  many items" is answered right however few are shown) and its rows, at most 40 rows in all
  (rows whose description the question names first).

Shown in this order: entities, tables, claims, rules (violated first), then each item table's
KALEM ÖZETİ followed by its rows. Within a kind the best match comes first, then what was read
from a better-ranked passage, then the better-ranked document, then the position in it. Under a
page scope (ASK-09) only records of the named pages are shown. Nothing qualifies → nothing is
shown, and ``/v1/ask`` answers exactly as it did without the layers.

The records are read through the :class:`~tanda.ports.SearchIndex` port, tenant-filtered inside
the adapter like the passages.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeVar

from tanda.contract.proof import SourceLayer
from tanda.lang import Lang
from tanda.ports import SearchIndex
from tanda.records.documents import Chunk, SearchScope
from tanda.records.structure import (
    ClaimRecord,
    EntityRecord,
    LineItemRecord,
    LineItemSummaryRecord,
    NodeKind,
    RecordQuery,
    RuleRecord,
    StructureRecord,
    TableRecord,
)
from tanda.retrieval.analysis import query_terms
from tanda.retrieval.question import (
    QuestionAnalysis,
    as_question,
    asks_for_a_table,
    asks_for_items,
    without_item_words,
)

__all__ = ["asks_for_a_table", "asks_for_items", "pick_evidence"]

EvidenceKind = Literal["entity", "table", "claim"]
"""A citation's ``kind`` for an evidence item (ASK-05): line items and their summary are rows of
a table, a rule and a definition are claims the document makes about itself."""

CITATION_KIND: Final[dict[NodeKind, EvidenceKind]] = {
    "entity": "entity",
    "table": "table",
    "line_item": "table",
    "line_item_summary": "table",
    "claim": "claim",
    "rule": "claim",
    "definition": "claim",  # the document's own statement of what a term means
}

PROOF_LAYER: Final[dict[NodeKind, SourceLayer]] = {
    "entity": "entity",
    "table": "table",
    "line_item": "line_item",
    "line_item_summary": "table",  # the KALEM ÖZETİ speaks for its table's totals
    "claim": "claim",
    "rule": "rule",
    "definition": "claim",
}
"""What an evidence item is as a source of the proof chain (ASK-11)."""

MAX_ENTITIES: Final = 6
MAX_TABLES: Final = 2
MAX_CLAIMS: Final = 4
MAX_RULES: Final = 4
MAX_EVIDENCE: Final = 14
"""ASK-08: entities, tables, claims and rules together; line items come on top."""
MAX_ITEM_TABLES: Final = 2
MAX_LINE_ITEMS: Final = 40
"""Rows shown in all; the KALEM ÖZETİ always counts every item of its table."""
MATCH_SHARE: Final = 0.5
"""A record matches when it holds at least this share of the terms it is compared on."""
VIOLATED: Final = "IHLAL"

_R = TypeVar("_R", bound=StructureRecord)

_ENTITY_VALUE_WORDS: Final = frozenset({"PARTY", "PLACE", "REFERENCE"})
"""Entities whose value is a name: the question may name the value (``Badan Usaha``)."""


@dataclass(frozen=True)
class EvidenceItem:
    """A structure record shown as a source, with the stored chunk it was read from (whose
    document names the source's header)."""

    record: StructureRecord
    chunk: Chunk


class _Terms:
    """The question's terms, and records' terms analyzed the same way (one language: the
    question's, as the lexical reranker reads both sides)."""

    def __init__(self, terms: frozenset[str], lang: Lang) -> None:
        self.lang = lang
        self.question = terms
        self._analyzed: dict[str, frozenset[str]] = {}

    @classmethod
    def of_question(cls, question: QuestionAnalysis) -> _Terms:
        return cls(frozenset(question.terms), question.lang)

    @classmethod
    def of_text(cls, text: str, lang: Lang) -> _Terms:
        return cls(frozenset(query_terms(text, lang)), lang)

    def of(self, *texts: str | None) -> frozenset[str]:
        # Analysis is most of picking's cost, and an entity's name is compared twice.
        text = " ".join(t for t in texts if t)
        if text not in self._analyzed:
            self._analyzed[text] = frozenset(query_terms(text, self.lang))
        return self._analyzed[text]

    def question_share(self, *texts: str | None) -> float:
        """The share of the question's terms that ``texts`` hold."""
        if not self.question:
            return 0.0
        return len(self.question & self.of(*texts)) / len(self.question)

    def covered_share(self, *texts: str | None) -> float:
        """The share of ``texts``' terms that the question holds (a short name, covered)."""
        terms = self.of(*texts)
        if not terms or not self.question & terms:
            return 0.0
        return len(self.question & terms) / len(terms)


def pick_evidence(
    index: SearchIndex,
    scope: SearchScope,
    question: str | QuestionAnalysis,
    passages: Sequence[Chunk],
    *,
    pages: Collection[int] | None = None,
) -> list[EvidenceItem]:
    """The evidence items for ``question`` (read once: its terms, language and shape) from the
    documents of ``passages`` inside ``scope`` (only of ``pages`` when the question named them,
    ASK-09), in the order they are shown."""
    question = as_question(question)
    # ASK-08: the documents the request names are the question's subject even when none of their
    # passages shares its words (a Turkish question about an English invoice).
    documents = tuple(
        dict.fromkeys([*(chunk.document_id for chunk in passages), *(scope.document_ids or ())])
    )
    if not documents:
        return []
    rank = {document_id: position for position, document_id in enumerate(documents)}
    passage_rank = {chunk.chunk_id: position for position, chunk in enumerate(passages)}
    in_scope = scope.model_copy(update={"document_ids": documents})
    wanted_pages = frozenset(pages) if pages is not None else None

    def read(query: RecordQuery) -> list[StructureRecord]:
        found = index.records(query)
        if wanted_pages is None:
            return found
        return [r for r in found if r.page_no is not None and r.page_no in wanted_pages]

    terms = _Terms.of_question(question)
    items_asked = question.asks_items
    table_asked = question.asks_table
    kinds: list[NodeKind] = ["entity", "rule"]
    if table_asked or items_asked:
        kinds.append("table")
    if items_asked:
        kinds.append("line_item_summary")
    records = read(RecordQuery(scope=in_scope, kinds=tuple(kinds)))
    claims = read(RecordQuery(scope=in_scope, kinds=("claim",), chunk_ids=tuple(passage_rank)))

    def ranked(
        candidates: Sequence[_R], match: Callable[[_R], tuple[float, ...]], limit: int
    ) -> list[_R]:
        """The candidates whose ``match`` starts with a share of :data:`MATCH_SHARE` or more, at
        most ``limit``: best match first (its shares in order), then those read from a
        better-ranked passage (a value stated where the question was found), then by the
        document's rank and position in it."""
        scored = [(match(r), r) for r in candidates]
        matching = [(m, r) for m, r in scored if m[0] > 0 and m[0] >= MATCH_SHARE]
        matching.sort(
            key=lambda pair: (
                tuple(-share for share in pair[0]),
                passage_rank.get(pair[1].chunk_id, len(passage_rank)),
                rank[pair[1].document_id],
                pair[1].ordinal,
            )
        )
        return [r for _, r in matching[:limit]]

    def entity_match(entity: EntityRecord) -> tuple[float, float]:
        # The seed: an entity is found by its name; how much of its name the question says
        # first, then how much of the question it answers.
        named = (entity.name, entity.value if entity.entity_type in _ENTITY_VALUE_WORDS else None)
        return terms.covered_share(*named), terms.question_share(*named)

    entities = ranked(
        [r for r in records if isinstance(r, EntityRecord)], entity_match, MAX_ENTITIES
    )
    tables = ranked(
        [r for r in records if isinstance(r, TableRecord) and table_asked],
        lambda t: (terms.question_share(t.caption, " ".join(t.header), t.quote),),
        MAX_TABLES,
    )
    chosen_claims = ranked(
        [r for r in claims if isinstance(r, ClaimRecord)],
        lambda c: (terms.question_share(c.statement),),
        MAX_CLAIMS,
    )
    rules = [r for r in records if isinstance(r, RuleRecord)]
    violated = sorted(
        (r for r in rules if r.evaluation == VIOLATED),
        key=lambda r: (rank[r.document_id], r.ordinal),
    )[:MAX_RULES]
    asked_rules = ranked(
        [r for r in rules if r.evaluation != VIOLATED],
        lambda r: (terms.question_share(r.subject, r.quote),),
        MAX_RULES - len(violated),
    )

    # ASK-08: at most 14 in all, filled in the order of what must be shown first.
    room = MAX_EVIDENCE
    kept: dict[str, list[StructureRecord]] = {}
    for name, group in (
        ("violated", violated),
        ("tables", tables),
        ("entities", entities),
        ("claims", chosen_claims),
        ("asked_rules", asked_rules),
    ):
        kept[name] = list(group[:room])
        room -= len(kept[name])
    shown: list[StructureRecord] = [
        *kept["entities"],
        *kept["tables"],
        *kept["claims"],
        *kept["violated"],
        *kept["asked_rules"],
    ]
    if items_asked:
        # ASK-08: an item table is shown when the question names something of it (its caption,
        # header, rows) or asks for items and nothing else ("list every item").
        of_what = _Terms.of_text(without_item_words(question.text), terms.lang)
        subject = of_what.question
        if scope.document_ids:
            # Of the documents the request names, words they hold nowhere (in the passages shown
            # or the records read) cannot tell their tables apart: "Faturadaki kalemleri
            # listele" asked of an English invoice asks for its items and nothing else.
            subject &= _held_terms(of_what, passages, records)
        item_tables = {
            t.node_id
            for t in records
            if isinstance(t, TableRecord)
            and (not subject or subject & of_what.of(t.caption, *t.header, t.quote))
        }
        summaries = sorted(
            (
                r
                for r in records
                if isinstance(r, LineItemSummaryRecord) and r.parent_id in item_tables
            ),
            key=lambda r: (rank[r.document_id], r.ordinal),
        )[:MAX_ITEM_TABLES]
        shown += _item_tables(summaries, read, in_scope, terms)
    if not shown:
        return []
    chunks = {
        chunk.chunk_id: chunk
        for chunk in index.chunks(in_scope, list(dict.fromkeys(r.chunk_id for r in shown)))
    }
    return [EvidenceItem(r, chunks[r.chunk_id]) for r in shown if r.chunk_id in chunks]


def _held_terms(
    terms: _Terms, passages: Sequence[Chunk], records: Sequence[StructureRecord]
) -> frozenset[str]:
    """The terms of what the target documents were seen to hold: the passages retrieved and the
    records read (an entity's name and value, a table's caption, header and cells, a rule's
    subject and quote, a KALEM ÖZETİ)."""
    held: set[str] = set()
    for chunk in passages:
        held |= terms.of(chunk.text)
    for record in records:
        if isinstance(record, EntityRecord):
            held |= terms.of(record.name, record.value)
        elif isinstance(record, TableRecord):
            held |= terms.of(record.caption, *record.header, record.quote)
        elif isinstance(record, RuleRecord):
            held |= terms.of(record.subject, record.quote)
        else:
            held |= terms.of(record.text)
    return frozenset(held)


def _item_tables(
    summaries: Sequence[LineItemSummaryRecord],
    read: Callable[[RecordQuery], list[StructureRecord]],
    scope: SearchScope,
    terms: _Terms,
) -> list[StructureRecord]:
    """Each item table's KALEM ÖZETİ, then its rows: at most :data:`MAX_LINE_ITEMS` rows in all,
    those whose description the question names first, shown in the table's order."""
    if not summaries:
        return []
    tables = [s.parent_id for s in summaries if s.parent_id is not None]
    rows = [
        r
        for r in read(RecordQuery(scope=scope, kinds=("line_item",), parent_ids=tuple(tables)))
        if isinstance(r, LineItemRecord)
    ]
    table_order = {table: position for position, table in enumerate(tables)}
    rows.sort(key=lambda r: (table_order.get(r.parent_id or "", len(tables)), r.row_no))
    if len(rows) > MAX_LINE_ITEMS:
        named = [r for r in rows if terms.question & terms.of(r.description)]
        rest = [r for r in rows if not terms.question & terms.of(r.description)]
        picked = {r.node_id for r in [*named, *rest][:MAX_LINE_ITEMS]}
        rows = [r for r in rows if r.node_id in picked]
    shown: list[StructureRecord] = []
    for summary in summaries:
        shown.append(summary)
        shown += [r for r in rows if r.parent_id == summary.parent_id]
    return shown


def evidence_text(record: StructureRecord) -> str:
    """What the model is shown of an evidence item, and what its citation keeps: the record's
    evidence line (a table: its Markdown); a claim's statement with its verbatim quote when they
    differ; a rule's evaluation with the document's verbatim condition."""
    if isinstance(record, ClaimRecord):
        if " ".join(record.statement.split()) == " ".join(record.quote.split()):
            return record.statement
        return f"{record.statement}\n“{record.quote}”"
    if isinstance(record, RuleRecord):
        return f"{record.text}\n“{record.quote}”"
    return record.text
