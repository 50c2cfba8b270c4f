"""Reciprocal rank fusion (ASK-02): ``score(d) = Σ_arm weight_arm / (k + rank_arm(d))``.

Pure and deterministic: ties break by the best rank any arm gave, then by id, so the same inputs
always give the same order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FusionConfig:
    k: int = 60
    weights: Mapping[str, float] = field(default_factory=lambda: {"lexical": 1.0, "vector": 1.0})

    def weight(self, arm: str) -> float:
        return float(self.weights.get(arm, 1.0))


@dataclass(frozen=True, slots=True)
class Fused:
    id: str
    score: float
    ranks: dict[str, int]
    """1-based rank of ``id`` in each arm that returned it."""


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]], config: FusionConfig = FusionConfig()
) -> list[Fused]:
    """Fuse ranked id lists, one per arm (e.g. ``{"lexical": [...], "vector": [...]}``)."""
    if len(rankings) == 1:
        ((arm, ids),) = rankings.items()
        if config.weight(arm) > 0:
            return _one_arm(arm, ids, config)
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for arm, ids in rankings.items():
        weight = config.weight(arm)
        seen: set[str] = set()
        for position, doc_id in enumerate(ids, start=1):
            if doc_id in seen:
                continue  # an arm that repeats an id counts it once, at its best rank
            seen.add(doc_id)
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (config.k + position)
            ranks.setdefault(doc_id, {})[arm] = position
    return sorted(
        (Fused(doc_id, score, ranks[doc_id]) for doc_id, score in scores.items()),
        key=lambda f: (-f.score, min(f.ranks.values()), f.id),
    )


def _one_arm(arm: str, ids: Sequence[str], config: FusionConfig) -> list[Fused]:
    """:func:`reciprocal_rank_fusion` of one arm of positive weight: its scores fall with the
    rank, so the fused order is the arm's own (each id at its first rank) and needs no sort —
    every search of the embedded index without vectors fuses this way (issue 28)."""
    weight = config.weight(arm)
    seen: set[str] = set()
    fused: list[Fused] = []
    for position, doc_id in enumerate(ids, start=1):
        if doc_id not in seen:
            seen.add(doc_id)
            fused.append(Fused(doc_id, weight / (config.k + position), {arm: position}))
    return fused
