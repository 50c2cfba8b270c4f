"""Cross-check: contradictions and support between documents (XC-3, XC-4, XC-6).

See docs/cross-check.md.

A stage (DESIGN §2): ports come in as arguments. What it reads of each document are its claim,
entity and rule records (:mod:`tanda.crosscheck.reader` turns them into
:mod:`tanda.crosscheck.inputs`); :func:`plan_cross_check` selects the claims that take part
(:mod:`~tanda.crosscheck.selection`) and generates the candidate pairs
(:mod:`~tanda.crosscheck.candidates`), deterministically; :class:`~tanda.crosscheck.judge.
CrossCheckJudge` judges each pair alone; :func:`~tanda.crosscheck.findings.assemble_findings`
fills the findings from the records, in their one order. The job around it — states, steps,
runners — is :mod:`tanda.pipeline.cross_check`.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tanda.crosscheck.candidates import CandidateSet, generate_candidates
from tanda.crosscheck.features import ClaimFeatures, claim_features
from tanda.crosscheck.inputs import XcClaim, XcCorpus
from tanda.crosscheck.selection import claim_importance, select_claims

if TYPE_CHECKING:
    from tanda.crosscheck.similarity import Vector
    from tanda.ports import Embedder

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CrossCheckPlan:
    claims: tuple[XcClaim, ...]
    """The claims that take part, in document order (XC-6)."""
    candidates: CandidateSet


def plan_cross_check(
    corpus: XcCorpus,
    *,
    budget: int,
    neighbours: int,
    cap: int,
    embedder: Embedder | None = None,
) -> CrossCheckPlan:
    """The claims that take part and the candidate pairs to judge. With an ``embedder`` the
    similarity channel compares embeddings of the claims taking part; if it fails, the job goes
    on lexically and ``stats.similarity`` says so."""
    features = {claim.node_id: claim_features(claim) for claim in corpus.claims}
    placed: dict[str, list[tuple[int, int, bool]]] = defaultdict(list)  # chunk → (span, rule?)
    for entity in corpus.entities:
        placed[entity.chunk_id].append((entity.start, entity.end, False))
    for rule in corpus.rules:
        placed[rule.chunk_id].append((rule.start, rule.end, True))
    importance = {}
    for claim in corpus.claims:
        inside = [
            is_rule for s, e, is_rule in placed[claim.chunk_id] if claim.holds(claim.chunk_id, s, e)
        ]
        importance[claim.node_id] = claim_importance(
            features[claim.node_id],
            entities=sum(1 for is_rule in inside if not is_rule),
            holds_rule=any(inside),
        )
    claims = select_claims(corpus, importance, budget)
    vectors = _vectors(embedder, claims) if embedder is not None and claims else None
    candidates = generate_candidates(
        corpus, claims, features, neighbours=neighbours, cap=cap, vectors=vectors
    )
    return CrossCheckPlan(claims=claims, candidates=candidates)


def _vectors(embedder: Embedder, claims: tuple[XcClaim, ...]) -> dict[str, Vector] | None:
    try:
        vectors = embedder.embed([claim.statement for claim in claims])
    except Exception:  # any embedder failure: the lexical channel still works
        log.warning("claim embeddings failed; the similarity channel is lexical", exc_info=True)
        return None
    return {claim.node_id: vector for claim, vector in zip(claims, vectors, strict=True)}


__all__ = [
    "CandidateSet",
    "ClaimFeatures",
    "CrossCheckPlan",
    "XcClaim",
    "XcCorpus",
    "claim_features",
    "generate_candidates",
    "plan_cross_check",
]
