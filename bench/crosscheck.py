"""Candidate generation of cross-check jobs at scale (issue 15, XC-4, XC-6): time and pairs
generated against the all-pairs count.

Run: ``.venv/bin/python bench/crosscheck.py [--rounds N] [--sizes 2x200,50x100,100x100]`` →
prints a table, writes ``bench/results/crosscheck.json``.

The documents are synthetic, seeded, statute-like Indonesian claims — ``Pasal n ayat (m)``
references, amounts in rupiah, durations, dates, words drawn from a Zipf vocabulary so that some
terms are common to every document and most are rare — with an entity in some claims and a cap
rule in a few, so that all four channels work. Documents come in families of three (a law and two
amendments, like UU 11/2008, 19/2016 and 1/2024) that share their provisions, amounts and
organisations; different families share words and dates only. So a larger corpus brings new
references and names, as real ones do; were every document to share one pool, the token and
entity channels would approach their bound (``TOKEN_CAP`` holders per token: at most 120 pairs
per token, linear in the claims; docs/cross-check.md).

Every claim takes part (the budget is the number of claims: what is measured is candidate
generation, not the selection that would trim it), and the judging cap is lifted so
``candidates`` counts every distinct pair the channels found. Timed: the whole plan (claim
features, selection, the four channels, merging and ranking), once lexical and once with
embeddings (a seeded hashed bag-of-words standing in for an embedder: what is measured is the
bucketing, not the model). Medians of ``--rounds`` runs in this process.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import random
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from tanda.crosscheck import plan_cross_check
from tanda.crosscheck.inputs import XcClaim, XcCorpus, XcDocument, XcEntity, XcRule, XcValue

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "crosscheck.json"
SEED = "tanda-xc-bench-1"
NEIGHBOURS = 3
FAMILY = 3
DIMENSIONS = 64

_SUBJECTS = (
    "Setiap Orang",
    "Penyelenggara Sistem Elektronik",
    "Pemerintah Daerah",
    "Badan Usaha",
    "Pejabat yang berwenang",
    "Pelaku Usaha",
)
_VERBS = ("wajib", "dilarang", "berhak", "dapat", "harus")
_SYLLABLES = ("ka", "ra", "ta", "ma", "na", "si", "lu", "pe", "be", "ga", "do", "in", "an", "ur")


def _vocabulary(size: int, draw: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(draw.choice(_SYLLABLES) for _ in range(draw.randint(3, 5))))
    return sorted(words)


def _zipf_weights(size: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(size)]


def synthetic_corpus(documents: int, claims_per_document: int) -> XcCorpus:
    """``documents`` statute-like documents of ``claims_per_document`` claims each; the same
    arguments always make the same corpus."""
    draw = random.Random(f"{SEED}:{documents}x{claims_per_document}")
    vocabulary = _vocabulary(4000, draw)
    weights = _zipf_weights(len(vocabulary))
    families = (documents + FAMILY - 1) // FAMILY
    organisations = [
        [f"Badan {w.title()}" for w in draw.sample(vocabulary, 10)] for _ in range(families)
    ]
    claims: list[XcClaim] = []
    entities: list[XcEntity] = []
    rules: list[XcRule] = []
    docs = []
    for d in range(documents):
        document_id = f"doc{d:03d}"
        family = d // FAMILY
        docs.append(XcDocument(document_id, f"Peraturan {d}", d))
        for n in range(claims_per_document):
            words = " ".join(draw.choices(vocabulary, weights, k=draw.randint(6, 14)))
            article = family * 80 + draw.randint(1, 80)
            years = draw.choice((1, 2, 4, 5, 6, 10, 12))
            amount = draw.choice((50, 100, 250, 500, 750, 1000, 2000)) * 1_000_000 + family * 1000
            kind = n % 4
            if kind == 0:
                statement = (
                    f"{draw.choice(_SUBJECTS)} yang melanggar ketentuan sebagaimana dimaksud "
                    f"dalam Pasal {article} ayat ({draw.randint(1, 4)}) {words} dipidana dengan "
                    f"pidana penjara paling lama {years} tahun."
                )
            elif kind == 1:
                statement = (
                    f"{draw.choice(_SUBJECTS)} {draw.choice(_VERBS)} membayar denda paling "
                    f"banyak Rp{amount:,}".replace(",", ".")
                    + f",00 atas {words}."
                )
            elif kind == 2:
                statement = (
                    f"Ketentuan {words} mulai berlaku pada tanggal {draw.randint(1, 28)} "
                    f"{draw.choice(('Januari', 'Maret', 'Juli', 'Oktober'))} "
                    f"{draw.randint(2008, 2025)}."
                )
            else:
                statement = f"{draw.choice(_SUBJECTS)} {draw.choice(_VERBS)} {words}."
            claim = XcClaim(
                node_id=f"{document_id}:c{n}",
                document_id=document_id,
                ordinal=n,
                statement=statement,
                quote=statement,
                page_no=n // 20 + 1,
                chunk_id=f"{document_id}-k{n}",
                start=0,
                end=len(statement),
            )
            claims.append(claim)
            if draw.random() < 0.2:
                entities.append(
                    XcEntity(
                        node_id=f"{document_id}:e{n}",
                        document_id=document_id,
                        chunk_id=claim.chunk_id,
                        start=0,
                        end=min(10, claim.end),
                        entity_type="ORG",
                        canonical=draw.choice(organisations[family]).casefold(),
                        value=f"Rp{amount}",
                        normal=XcValue("amount", Decimal(amount), "IDR"),
                    )
                )
            if kind == 0 and draw.random() < 0.05:
                rules.append(
                    XcRule(
                        node_id=f"{document_id}:r{n}",
                        document_id=document_id,
                        chunk_id=claim.chunk_id,
                        start=0,
                        end=claim.end,
                        rule_type="cap",
                        subject=f"pidana penjara {words}",
                        limit=XcValue("count", Decimal(years), "yr"),
                        evaluation="DEĞERLENDİRİLEMEDİ",
                    )
                )
    return XcCorpus(
        documents=tuple(docs), claims=tuple(claims), entities=tuple(entities), rules=tuple(rules)
    )


class HashedEmbedder:
    """A seeded bag-of-words projection: similar statements get near vectors, with no model."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors = []
        for text in texts:
            vector = [0.0] * DIMENSIONS
            for word in text.casefold().split():
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                slot = int.from_bytes(digest[:4], "big") % DIMENSIONS
                vector[slot] += 1.0 if digest[4] % 2 else -1.0
            vectors.append(vector)
        return vectors


def measure(documents: int, per_document: int, rounds: int) -> dict[str, Any]:
    corpus = synthetic_corpus(documents, per_document)
    total = len(corpus.claims)
    row: dict[str, Any] = {
        "documents": documents,
        "claims_per_document": per_document,
        "claims": total,
        "entities": len(corpus.entities),
        "rules": len(corpus.rules),
    }
    for method, embedder in (("lexical", None), ("embeddings", HashedEmbedder())):
        runs = []
        plan = None
        for _ in range(rounds):
            started = time.perf_counter()
            plan = plan_cross_check(
                corpus,
                budget=total,
                neighbours=NEIGHBOURS,
                cap=total * total,
                embedder=embedder,  # type: ignore[arg-type]  # a duck-typed stand-in
            )
            runs.append(time.perf_counter() - started)
        assert plan is not None
        found = plan.candidates
        row[method] = {
            "seconds_median": round(statistics.median(runs), 3),
            "seconds_runs": [round(r, 3) for r in runs],
            "all_pairs": found.all_pairs,
            "candidates": found.total,
            "share_of_all_pairs": round(found.total / found.all_pairs, 5),
            "candidates_per_claim": round(found.total / total, 2),
            "channels": dict(found.proposed),
        }
    return row


def channel(documents: int, per_document: int, rounds: int) -> dict[str, Any]:
    """The embedding channel alone (issue 28): the numpy ``embedding_neighbours`` against the
    pure-Python channel it replaced (kept in ``tests/unit/crosscheck/test_similarity.py``), the
    same claims and vectors, timed in alternation, and how many pairs they share."""
    sys.path.insert(0, str(ROOT))
    from tests.unit.crosscheck.test_similarity import _pure_python_neighbours

    from tanda.crosscheck.similarity import embedding_neighbours

    claims = synthetic_corpus(documents, per_document).claims
    vectors = dict(
        zip(
            (c.node_id for c in claims),
            HashedEmbedder().embed([c.statement for c in claims]),
            strict=True,
        )
    )
    seconds: dict[str, list[float]] = {"numpy": [], "pure_python": []}
    found: dict[str, list[tuple[str, str]]] = {}
    for _ in range(rounds):
        for name, run in (
            ("numpy", embedding_neighbours),
            ("pure_python", _pure_python_neighbours),
        ):
            started = time.perf_counter()
            pairs = run(claims, vectors, NEIGHBOURS)
            seconds[name].append(time.perf_counter() - started)
            found[name] = [(x.node_id, y.node_id) for x, y, _ in pairs]
    shared = len(set(found["numpy"]) & set(found["pure_python"]))
    return {
        "claims": len(claims),
        **{f"{name}_seconds_median": round(statistics.median(v), 3) for name, v in seconds.items()},
        "speedup": round(
            statistics.median(seconds["pure_python"]) / statistics.median(seconds["numpy"]), 1
        ),
        "pairs_numpy": len(found["numpy"]),
        "pairs_pure_python": len(found["pure_python"]),
        "pairs_shared": shared,
        "note": "signatures bit-identical (summed in the same order); cosines by BLAS may "
        "differ in the last bit, which moves pairs tied at the 0.5 floor or with each other",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", default="2x200,50x100,100x100")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--channel",
        action="store_true",
        help="only the embedding channel, numpy against pure Python, merged into --out",
    )
    args = parser.parse_args()
    if args.channel:
        committed = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
        committed["embedding_channel"] = {
            f"{d}x{c}": channel(d, c, args.rounds) for d, c in ((50, 100), (100, 100))
        }
        print(json.dumps(committed["embedding_channel"], indent=1))
        args.out.write_text(json.dumps(committed, indent=2) + "\n", encoding="utf-8")
        return 0
    sizes = [tuple(int(n) for n in size.split("x")) for size in args.sizes.split(",")]
    rows = [measure(d, c, args.rounds) for d, c in sizes]
    print(
        f"{'documents × claims':>20} {'all pairs':>12} {'method':>11} {'pairs':>8} "
        f"{'share':>8} {'s':>7}"
    )
    for row in rows:
        for method in ("lexical", "embeddings"):
            m = row[method]
            print(
                f"{row['documents']:>10} × {row['claims_per_document']:<7} {m['all_pairs']:>12} "
                f"{method:>11} {m['candidates']:>8} {m['share_of_all_pairs']:>8.4f} "
                f"{m['seconds_median']:>7.3f}"
            )
    growth = {}
    if len(rows) >= 2 and rows[-1]["claims"] > rows[-2]["claims"]:
        small, large = rows[-2], rows[-1]
        growth = {
            "from_claims": small["claims"],
            "to_claims": large["claims"],
            "claims_ratio": round(large["claims"] / small["claims"], 2),
            "all_pairs_ratio": round(
                large["lexical"]["all_pairs"] / small["lexical"]["all_pairs"], 2
            ),
            **{
                f"{method}_seconds_ratio": round(
                    large[method]["seconds_median"] / small[method]["seconds_median"], 2
                )
                for method in ("lexical", "embeddings")
            },
            **{
                f"{method}_candidates_ratio": round(
                    large[method]["candidates"] / small[method]["candidates"], 2
                )
                for method in ("lexical", "embeddings")
            },
        }
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "rounds": args.rounds,
        "neighbours": NEIGHBOURS,
        "note": "synthetic seeded statute-like claims; every claim takes part and nothing is "
        "capped; seconds: the whole plan (features, selection, four channels, merge, rank), "
        "median, one process; 2 shared vCPUs, so wall time carries other processes' noise",
        "sizes": rows,
        "growth": growth,
    }
    if args.out.is_file():  # the channel comparison has its own run (--channel)
        kept = json.loads(args.out.read_text(encoding="utf-8")).get("embedding_channel")
        if kept is not None:
            result["embedding_channel"] = kept
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if growth:
        print(
            f"claims ×{growth['claims_ratio']}: all pairs ×{growth['all_pairs_ratio']}, lexical "
            f"time ×{growth['lexical_seconds_ratio']}, embeddings time "
            f"×{growth['embeddings_seconds_ratio']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
