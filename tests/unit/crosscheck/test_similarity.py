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
