"""Nearest claims of other documents by embedding, without comparing all pairs (XC-4, XC-6).

Locality-sensitive hashing for the cosine: each claim's vector gets :data:`TABLES` signatures of
:data:`BITS` sign bits, each bit the sign of its dot product with a sparse random direction
(:data:`SPARSE` coordinates of ±1, drawn from a fixed seed, so the same vectors always hash the
same way). Claims whose signatures agree in a table share a bucket; each claim is compared — exact
cosine — only with the claims of other documents in its buckets, at most :data:`BUCKET_CAP` per
bucket, and keeps its ``k`` nearest above :data:`MIN_COSINE`. Work grows with the claims times the
bucket sizes, never with the square of the claims.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from functools import cache
from operator import mul
from typing import Final

from tanda.crosscheck.inputs import XcClaim

Vector = Sequence[float]

TABLES: Final = 8
BITS: Final = 8
SPARSE: Final = 24
BUCKET_CAP: Final = 64
MIN_COSINE: Final = 0.5
_SEED: Final = "tanda-xc-lsh-1"


@cache
def _directions(dimensions: int) -> tuple[tuple[tuple[tuple[int, int], ...], ...], ...]:
    """``TABLES × BITS`` sparse directions: (coordinate, ±1) pairs, the same for every run."""
    draw = random.Random(f"{_SEED}:{dimensions}")  # noqa: S311 - hashing, not secrecy
    return tuple(
        tuple(
            tuple(
                (coordinate, draw.choice((-1, 1)))
                for coordinate in sorted(draw.sample(range(dimensions), min(SPARSE, dimensions)))
            )
            for _ in range(BITS)
        )
        for _ in range(TABLES)
    )


def _unit(vector: Vector) -> tuple[float, ...]:
    length = math.sqrt(sum(x * x for x in vector)) or 1.0
    return tuple(x / length for x in vector)


def embedding_neighbours(
    claims: Sequence[XcClaim], vectors: Mapping[str, Vector], k: int
) -> list[tuple[XcClaim, XcClaim, float]]:
    """Each claim's ``k`` nearest claims of other documents by cosine, found through buckets."""
    indexed = [(i, _unit(vectors[c.node_id])) for i, c in enumerate(claims) if c.node_id in vectors]
    if not indexed:
        return []
    directions = _directions(len(indexed[0][1]))
    buckets: dict[tuple[int, int], list[int]] = defaultdict(list)
    keys: dict[int, list[tuple[int, int]]] = {}
    for i, vector in indexed:
        own = []
        for table, bits in enumerate(directions):
            signature = 0
            for direction in bits:
                side = sum(vector[c] * sign for c, sign in direction)
                signature = (signature << 1) | (side >= 0)
            own.append((table, signature))
            if len(buckets[(table, signature)]) < BUCKET_CAP:
                buckets[(table, signature)].append(i)
        keys[i] = own
    unit = dict(indexed)
    found: list[tuple[XcClaim, XcClaim, float]] = []
    for i, vector in indexed:
        claim = claims[i]
        near = {
            j for key in keys[i] for j in buckets[key] if claims[j].document_id != claim.document_id
        }
        scored = sorted(
            ((sum(map(mul, vector, unit[j])), j) for j in near), key=lambda row: (-row[0], row[1])
        )
        found.extend((claim, claims[j], cosine) for cosine, j in scored[:k] if cosine >= MIN_COSINE)
    return found
