"""Small builders of cross-check inputs for the unit tests."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from tanda.crosscheck.inputs import XcClaim, XcCorpus, XcDocument, XcEntity, XcRule, XcValue


def claim(document_id: str, n: int, statement: str, *, chunk: str | None = None) -> XcClaim:
    """Claim ``c<n>`` of ``document_id``; its chunk holds only it (``<doc>-k<n>``), span 0…len."""
    return XcClaim(
        node_id=f"{document_id}:c{n}",
        document_id=document_id,
        ordinal=n,
        statement=statement,
        quote=statement,
        page_no=n + 1,
        chunk_id=chunk or f"{document_id}-k{n}",
        start=0,
        end=len(statement),
    )


def entity(
    held_by: XcClaim,
    canonical: str,
    value: str,
    *,
    entity_type: str = "AMOUNT",
    normal: XcValue | None = None,
    n: int = 0,
) -> XcEntity:
    return XcEntity(
        node_id=f"{held_by.document_id}:e{n}",
        document_id=held_by.document_id,
        chunk_id=held_by.chunk_id,
        start=0,
        end=min(5, held_by.end),
        entity_type=entity_type,
        canonical=canonical,
        value=value,
        normal=normal,
    )


def rule(
    held_by: XcClaim, subject: str, limit: XcValue, *, rule_type: str = "cap", n: int = 0
) -> XcRule:
    return XcRule(
        node_id=f"{held_by.document_id}:r{n}",
        document_id=held_by.document_id,
        chunk_id=held_by.chunk_id,
        start=0,
        end=held_by.end,
        rule_type=rule_type,
        subject=subject,
        limit=limit,
        evaluation="DEĞERLENDİRİLEMEDİ",
    )


def years(value: int) -> XcValue:
    return XcValue(kind="count", value=Decimal(value), unit="yr")


def corpus(
    claims: Sequence[XcClaim],
    *,
    entities: Sequence[XcEntity] = (),
    rules: Sequence[XcRule] = (),
    order: Sequence[str] | None = None,
) -> XcCorpus:
    ids = list(order or dict.fromkeys(c.document_id for c in claims))
    return XcCorpus(
        documents=tuple(XcDocument(i, f"Document {i}", p) for p, i in enumerate(ids)),
        claims=tuple(claims),
        entities=tuple(entities),
        rules=tuple(rules),
    )
