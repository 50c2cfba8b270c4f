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
    fused = [Fused(doc_id, score, ranks[doc_id]) for doc_id, score in scores.items()]
    if len(rankings) == 1 and all(config.weight(arm) > 0 for arm in rankings):
        # One arm of positive weight: its scores fall with the rank, so the order the ids were
        # first seen in is the fused order — no sort (every search of the embedded index
        # without vectors: issue 28).
        return fused
    return sorted(fused, key=lambda f: (-f.score, min(f.ranks.values()), f.id))
