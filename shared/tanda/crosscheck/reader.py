"""What a cross-check reads of the server's structure records (ASK-14, XC-3): claims, entities and
rules of the job's documents, through ``SearchIndex.records`` — tenant-scoped like every read —
turned into :mod:`tanda.crosscheck.inputs`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from tanda.crosscheck.inputs import XcClaim, XcCorpus, XcDocument, XcEntity, XcRule, XcValue
from tanda.records.documents import SearchScope
from tanda.records.structure import (
    ClaimRecord,
    EntityRecord,
    NormalValue,
    RecordQuery,
    RuleRecord,
)

if TYPE_CHECKING:
    from tanda.contract.v1_cross_check import CrossCheckDocument
    from tanda.ports import SearchIndex


def read_corpus(
    index: SearchIndex, tenant_id: str, documents: Sequence[CrossCheckDocument]
) -> XcCorpus | None:
    """The claims, entities and rules of ``documents`` (in their order), or ``None`` when one of
    them is no longer the tenant's."""
    ids = tuple(d.document_id for d in documents)
    scope = SearchScope(tenant_id=tenant_id, document_ids=ids)
    present = {d.document_id for d in index.documents(scope)}
    if any(document_id not in present for document_id in ids):
        return None
    records = index.records(RecordQuery(scope=scope, kinds=("claim", "entity", "rule")))
    return XcCorpus(
        documents=tuple(
            XcDocument(d.document_id, d.label, position) for position, d in enumerate(documents)
        ),
        claims=tuple(_claim(r) for r in records if isinstance(r, ClaimRecord)),
        entities=tuple(_entity(r) for r in records if isinstance(r, EntityRecord)),
        rules=tuple(_rule(r) for r in records if isinstance(r, RuleRecord)),
    )


def read_claims(index: SearchIndex, tenant_id: str, node_ids: Iterable[str]) -> dict[str, XcClaim]:
    """The tenant's claims of ``node_ids`` by node id (others are absent)."""
    wanted = tuple(dict.fromkeys(node_ids))
    if not wanted:
        return {}
    query = RecordQuery(scope=SearchScope(tenant_id=tenant_id), kinds=("claim",), node_ids=wanted)
    return {r.node_id: _claim(r) for r in index.records(query) if isinstance(r, ClaimRecord)}


def _claim(record: ClaimRecord) -> XcClaim:
    return XcClaim(
        node_id=record.node_id,
        document_id=record.document_id,
        ordinal=record.ordinal,
        statement=record.statement,
        quote=record.quote,
        page_no=record.page_no,
        chunk_id=record.chunk_id,
        start=record.span.start,
        end=record.span.end,
    )


def _value(normal: NormalValue | None) -> XcValue | None:
    if normal is None:
        return None
    return XcValue(kind=normal.kind, value=normal.value, unit=normal.unit)


def _entity(record: EntityRecord) -> XcEntity:
    return XcEntity(
        node_id=record.node_id,
        document_id=record.document_id,
        chunk_id=record.chunk_id,
        start=record.span.start,
        end=record.span.end,
        entity_type=record.entity_type,
        canonical=record.canonical,
        value=record.value,
        normal=_value(record.normal),
    )


def _rule(record: RuleRecord) -> XcRule:
    return XcRule(
        node_id=record.node_id,
        document_id=record.document_id,
        chunk_id=record.chunk_id,
        start=record.span.start,
        end=record.span.end,
        rule_type=record.rule_type,
        subject=record.subject,
        limit=_value(record.limit),
        evaluation=record.evaluation,
    )
