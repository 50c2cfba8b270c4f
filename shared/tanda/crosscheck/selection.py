"""Which claims take part (XC-6): with many documents, each is represented by its most important
claims within one shared budget, so a long document cannot crowd out the others.

The budget is shared out by water-filling: every document gets an equal share; a document with
fewer claims than its share gives the rest to the others. Within a document, claims are ranked by
:func:`claim_importance` — what a cross-check can compare: numbers stated, distinctive tokens,
the entities named, a rule held — ties to the earlier claim; the kept claims keep their document
order. Deterministic: the same documents select the same claims.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from tanda.crosscheck.features import ClaimFeatures
from tanda.crosscheck.inputs import XcClaim, XcCorpus

_SHORT_WORDS: Final = 6
"""A statement of fewer words says too little to disagree with anything."""


def claim_importance(features: ClaimFeatures, *, entities: int, holds_rule: bool) -> int:
    score = 3 * min(len(features.values), 2) + 2 * min(len(features.tokens), 3)
    score += min(entities, 3) + (3 if holds_rule else 0)
    return score + (1 if len(features.terms) >= _SHORT_WORDS else 0)


def fair_shares(sizes: Sequence[int], budget: int) -> list[int]:
    """How many claims each document (by index) takes of ``budget``: equal shares, the unused
    part of a small document's share going to the larger ones; what an equal split leaves over
    goes one each to the earliest documents that can use it."""
    shares = [0] * len(sizes)
    left = max(0, budget)
    pending = sorted(range(len(sizes)), key=lambda i: (sizes[i], i))
    while pending:
        share = left // len(pending)
        small = [i for i in pending if sizes[i] <= share]
        if not small:
            break
        for i in small:
            shares[i] = sizes[i]
            left -= sizes[i]
        pending = [i for i in pending if i not in small]
    if pending:
        share, extra = divmod(left, len(pending))
        for i in sorted(pending):
            shares[i] = share + (1 if extra > 0 else 0)
            extra -= 1
    return shares


def select_claims(
    corpus: XcCorpus, importance: Mapping[str, int], budget: int
) -> tuple[XcClaim, ...]:
    """The claims that take part, in document order."""
    by_document: dict[str, list[XcClaim]] = {d.document_id: [] for d in corpus.documents}
    for claim in corpus.claims:
        by_document[claim.document_id].append(claim)
    groups = list(by_document.values())
    shares = fair_shares([len(g) for g in groups], budget)
    kept: list[XcClaim] = []
    for group, share in zip(groups, shares, strict=True):
        ranked = sorted(group, key=lambda c: (-importance.get(c.node_id, 0), c.ordinal))
        kept.extend(ranked[:share])
    return tuple(sorted(kept, key=corpus.order_key))
