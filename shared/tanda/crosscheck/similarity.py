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

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from functools import cache
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


def _dense_directions(dimensions: int) -> list[list[int]]:
    """:func:`_directions` as a ``dimensions × (TABLES·BITS)`` matrix of 0 and ±1 (bit ``b`` of
    table ``t`` in column ``t·BITS + b``)."""
    columns = [direction for bits in _directions(dimensions) for direction in bits]
    matrix = [[0] * len(columns) for _ in range(dimensions)]
    for column, direction in enumerate(columns):
        for coordinate, sign in direction:
            matrix[coordinate][column] = sign
    return matrix


def embedding_neighbours(
    claims: Sequence[XcClaim], vectors: Mapping[str, Vector], k: int
) -> list[tuple[XcClaim, XcClaim, float]]:
    """Each claim's ``k`` nearest claims of other documents by cosine, found through buckets.

    Vectorised with numpy (issue 28: 12 s → well under one at 50 × 100 claims): the signatures
    are one matrix product, each claim's cosines one product with its bucket mates. numpy is
    imported here, on the first job with embeddings — never at a function's cold start."""
    import numpy as np

    indexed = [i for i, c in enumerate(claims) if c.node_id in vectors]
    if not indexed:
        return []
    matrix = np.asarray([vectors[claims[i].node_id] for i in indexed], dtype=np.float64)
    lengths = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    lengths[lengths == 0] = 1.0
    unit = matrix / lengths[:, None]
    directions = np.asarray(_dense_directions(unit.shape[1]), dtype=np.float64)
    sides = (unit @ directions >= 0).reshape(len(indexed), TABLES, BITS)
    signatures = (sides * (1 << np.arange(BITS - 1, -1, -1))).sum(axis=2).tolist()
    buckets: dict[tuple[int, int], list[int]] = defaultdict(list)
    for row, own in enumerate(signatures):
        for table, signature in enumerate(own):
            bucket = buckets[(table, signature)]
            if len(bucket) < BUCKET_CAP:
                bucket.append(row)
    documents = [claims[i].document_id for i in indexed]
    found: list[tuple[XcClaim, XcClaim, float]] = []
    for row, own in enumerate(signatures):
        document = documents[row]
        near = sorted(
            {
                mate
                for table, signature in enumerate(own)
                for mate in buckets[(table, signature)]
                if documents[mate] != document
            }
        )
        if not near:
            continue
        cosines = (unit[near] @ unit[row]).tolist()
        scored = sorted(zip(cosines, near, strict=True), key=lambda pair: (-pair[0], pair[1]))
        claim = claims[indexed[row]]
        found.extend(
            (claim, claims[indexed[mate]], cosine)
            for cosine, mate in scored[:k]
            if cosine >= MIN_COSINE
        )
    return found
