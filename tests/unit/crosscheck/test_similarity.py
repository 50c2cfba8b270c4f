"""The similarity channel with embeddings: nearest claims of other documents through hash
buckets, never all pairs (XC-4, XC-6)."""

from __future__ import annotations

import math
import random

from tanda.crosscheck.similarity import BUCKET_CAP, embedding_neighbours
from tests.unit.crosscheck.builders import claim


def _unit(draw: random.Random, dimensions: int) -> list[float]:
    vector = [draw.gauss(0, 1) for _ in range(dimensions)]
    length = math.sqrt(sum(x * x for x in vector))
    return [x / length for x in vector]


def _near(vector: list[float], draw: random.Random, noise: float) -> list[float]:
    return [x + draw.gauss(0, noise) for x in vector]


def test_each_claim_finds_its_paraphrase_in_another_document_and_never_its_own() -> None:
    # Given 40 claims in document a, each with a near copy (a paraphrase) in document b, and a
    # near copy in a itself,
    draw = random.Random(11)
    claims, vectors = [], {}
    for n in range(40):
        base = _unit(draw, 256)
        for document, noise in (("a", 0.0), ("b", 0.01), ("a", 0.005)):
            c = claim(document, len(claims), f"klaim {n}")
            claims.append(c)
            vectors[c.node_id] = _near(base, draw, noise)

    # when each claim's nearest claim of another document is found,
    found = embedding_neighbours(claims, vectors, 1)

    # then every claim of a finds its paraphrase in b, and no pair is of one document.
    best = {x.node_id: y.node_id for x, y, _ in found}
    for n in range(40):
        assert best[f"a:c{3 * n}"] == f"b:c{3 * n + 1}"
    assert all(x.document_id != y.document_id for x, y, _ in found)


def test_the_same_vectors_give_the_same_neighbours() -> None:
    draw = random.Random(5)
    claims = [claim("ab"[n % 2], n, "x") for n in range(60)]
    vectors = {c.node_id: _unit(draw, 64) for c in claims}
    assert embedding_neighbours(claims, vectors, 3) == embedding_neighbours(claims, vectors, 3)


def test_comparisons_are_bounded_by_the_buckets_not_the_claims() -> None:
    # Given 2 000 claims whose vectors are all alike (one bucket would hold them all),
    claims = [claim("ab"[n % 2], n, "x") for n in range(2000)]
    vectors = {c.node_id: [1.0, 0.0, 0.0, 0.0] for c in claims}

    # then each claim is compared with at most its buckets' capped members: the neighbours found
    # are the first claims of the other document, never one beyond the bucket cap.
    found = embedding_neighbours(claims, vectors, 2)
    assert all(int(y.node_id.split(":c")[1]) < BUCKET_CAP for _, y, _ in found)
    assert len(found) == 2000 * 2


def _pure_python_neighbours(claims, vectors, k):  # type: ignore[no-untyped-def]
    """The channel as it was before issue 28 vectorised it (pure Python), kept as the reference
    the numpy version must agree with."""
    from collections import defaultdict
    from operator import mul

    from tanda.crosscheck.similarity import MIN_COSINE, _directions

    def unit(vector):  # type: ignore[no-untyped-def]
        length = math.sqrt(sum(x * x for x in vector)) or 1.0
        return tuple(x / length for x in vector)

    indexed = [(i, unit(vectors[c.node_id])) for i, c in enumerate(claims) if c.node_id in vectors]
    directions = _directions(len(indexed[0][1]))
    buckets: dict = defaultdict(list)
    keys = {}
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
    units = dict(indexed)
    found = []
    for i, vector in indexed:
        near = {
            j
            for key in keys[i]
            for j in buckets[key]
            if claims[j].document_id != claims[i].document_id
        }
        scored = sorted(
            ((sum(map(mul, vector, units[j])), j) for j in near), key=lambda r: (-r[0], r[1])
        )
        found.extend((claims[i], claims[j], c) for c, j in scored[:k] if c >= MIN_COSINE)
    return found


def test_the_vectorised_channel_finds_exactly_what_the_pure_python_one_found() -> None:
    # Given 600 claims in 12 documents, clustered so that buckets fill and cosines pass the floor,
    # some claims without a vector
    draw = random.Random(28)
    centres = [_unit(draw, 48) for _ in range(20)]
    claims, vectors = [], {}
    for n in range(600):
        c = claim(f"d{n % 12}", n, "x")
        claims.append(c)
        if n % 17:
            vectors[c.node_id] = _near(centres[n % 20], draw, 0.05)
    # then both give the same pairs in the same order, with the same cosines
    fast = embedding_neighbours(claims, vectors, 3)
    slow = _pure_python_neighbours(claims, vectors, 3)
    assert len(fast) > 600
    assert [(x.node_id, y.node_id) for x, y, _ in fast] == [
        (x.node_id, y.node_id) for x, y, _ in slow
    ]
    assert all(
        math.isclose(a, b, abs_tol=1e-12) for (_, _, a), (_, _, b) in zip(fast, slow, strict=True)
    )
