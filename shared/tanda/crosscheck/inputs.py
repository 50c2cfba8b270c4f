"""What a cross-check reads of each document: its claims, entities and rules, in the few fields
the candidate channels and the findings use (XC-3, XC-4).

They are read from the server's structure records, built at ingest (``SearchIndex.records``); the
pipeline's reader makes them. Positions are code points in the text of the chunk a record was read
from, so an entity or a rule lies inside a claim when both come from the same chunk and its span
lies inside the claim's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True, slots=True)
class XcDocument:
    document_id: str
    label: str
    position: int
    """Its place in the job's ``documents``: the order findings and candidates follow."""


@dataclass(frozen=True, slots=True)
class XcClaim:
    """A claim record: a statement and the verbatim quote at its span (ASK-14)."""

    node_id: str
    document_id: str
    ordinal: int
    statement: str
    quote: str
    page_no: int | None
    chunk_id: str
    start: int
    end: int

    def holds(self, chunk_id: str, start: int, end: int) -> bool:
        """Whether the text at ``[start, end)`` of ``chunk_id`` lies inside this claim's quote."""
        return chunk_id == self.chunk_id and self.start <= start and end <= self.end


@dataclass(frozen=True, slots=True)
class XcValue:
    """A number in normal form: the kind (``amount``, ``percent``, ``count``, ``date`` …), the
    value and its unit (``IDR``, ``%``, ``d`` …; ``None`` when unstated)."""

    kind: str
    value: Decimal
    unit: str | None = None


@dataclass(frozen=True, slots=True)
class XcEntity:
    node_id: str
    document_id: str
    chunk_id: str
    start: int
    end: int
    entity_type: str
    canonical: str
    """The name folded for matching: same type and same canonical name across documents pair."""
    value: str
    normal: XcValue | None = None


@dataclass(frozen=True, slots=True)
class XcRule:
    """A condition the document imposes (a cap, a floor, a deadline) with its limit and the
    rule layer's own deterministic evaluation against the document's facts."""

    node_id: str
    document_id: str
    chunk_id: str
    start: int
    end: int
    rule_type: str
    subject: str
    limit: XcValue | None
    evaluation: str


@dataclass(frozen=True, slots=True)
class XcCorpus:
    """Everything of the job's documents a cross-check reads, in document order."""

    documents: tuple[XcDocument, ...]
    claims: tuple[XcClaim, ...]
    entities: tuple[XcEntity, ...] = ()
    rules: tuple[XcRule, ...] = ()
    by_node: dict[str, XcClaim] = field(default_factory=dict, compare=False, repr=False)
    positions: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.by_node.update({claim.node_id: claim for claim in self.claims})
        self.positions.update({d.document_id: d.position for d in self.documents})

    def order_key(self, claim: XcClaim) -> tuple[int, int, str]:
        """Document order: the document's place in the job, then the claim's in the document."""
        return (self.positions[claim.document_id], claim.ordinal, claim.node_id)
