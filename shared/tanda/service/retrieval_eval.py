"""Retrieval quality on a BEIR folder, the use case behind ``tanda eval retrieval DIR`` (issue 3).

The metrics are pure functions over a ranked id list and graded relevance judgments (qrels);
:func:`evaluate_index` runs queries against any ``SearchIndex``; the command
(``tanda.cli.evaluate``) ingests a BEIR corpus into a fresh temporary embedded index and prints
one JSON object.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tanda.ports import SearchIndex
from tanda.records.documents import Chunk, Document, SearchQuery, SearchScope

Qrels = Mapping[str, Mapping[str, int]]
"""query id → {corpus id → relevance grade (> 0 is relevant)}."""

EVAL_TENANT = "eval"


# -- metrics (pure) ---------------------------------------------------------------------------


def ndcg_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """Normalized discounted cumulative gain with linear gains (the BEIR / trec_eval form)."""
    dcg = sum(
        relevant.get(doc_id, 0) / math.log2(position + 2)
        for position, doc_id in enumerate(ranked[:k])
    )
    ideal = sorted((grade for grade in relevant.values() if grade > 0), reverse=True)[:k]
    idcg = sum(grade / math.log2(position + 2) for position, grade in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 5) -> float:
    """Share of the relevant documents found in the first ``k``."""
    wanted = {doc_id for doc_id, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def mrr_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """Reciprocal rank of the first relevant document within ``k`` (0 when none)."""
    for position, doc_id in enumerate(ranked[:k], start=1):
        if relevant.get(doc_id, 0) > 0:
            return 1.0 / position
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100) by linear interpolation between closest ranks."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class RetrievalScores:
    ndcg_at_10: float
    recall_at_5: float
    mrr_at_10: float
    queries: int
    p50_ms: float
    p95_ms: float

    def as_json(self) -> dict[str, float | int]:
        return {
            "ndcg@10": round(self.ndcg_at_10, 4),
            "recall@5": round(self.recall_at_5, 4),
            "mrr@10": round(self.mrr_at_10, 4),
            "queries": self.queries,
            "p50_ms": round(self.p50_ms, 3),
            "p95_ms": round(self.p95_ms, 3),
        }


def score_runs(
    runs: Mapping[str, Sequence[str]], qrels: Qrels, latencies_ms: Sequence[float]
) -> RetrievalScores:
    """Mean metrics over the queries that have judgments (a query without any counts as 0)."""
    judged = [qid for qid in qrels if any(g > 0 for g in qrels[qid].values())]
    n = len(judged)

    def mean(values: Iterable[float]) -> float:
        return sum(values) / n if n else 0.0

    return RetrievalScores(
        ndcg_at_10=mean(ndcg_at(runs.get(q, ()), qrels[q], 10) for q in judged),
        recall_at_5=mean(recall_at(runs.get(q, ()), qrels[q], 5) for q in judged),
        mrr_at_10=mean(mrr_at(runs.get(q, ()), qrels[q], 10) for q in judged),
        queries=n,
        p50_ms=percentile(latencies_ms, 50),
        p95_ms=percentile(latencies_ms, 95),
    )


# -- BEIR folder ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BeirSet:
    corpus: list[tuple[str, str, str]]
    """(id, title, text) per corpus line, in file order."""
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def load_beir(folder: Path, split: str = "test") -> BeirSet:
    """A BEIR folder: ``corpus.jsonl`` {_id,title,text}, ``queries.jsonl`` {_id,text},
    ``qrels/<split>.tsv`` with a ``query-id corpus-id score`` header."""
    corpus: list[tuple[str, str, str]] = []
    with (folder / "corpus.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                corpus.append((str(row["_id"]), row.get("title") or "", row.get("text") or ""))
    queries: dict[str, str] = {}
    with (folder / "queries.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                queries[str(row["_id"])] = row["text"]
    qrels: dict[str, dict[str, int]] = {}
    with (folder / "qrels" / f"{split}.tsv").open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            fields = line.rstrip("\n").split("\t")
            if (number == 0 and fields[0] == "query-id") or len(fields) < 3:
                continue
            qrels.setdefault(fields[0], {})[fields[1]] = int(fields[2])
    return BeirSet(corpus=corpus, queries=queries, qrels=qrels)


def beir_documents(
    beir: BeirSet, tenant_id: str = EVAL_TENANT, lang: str | None = None
) -> Iterable[tuple[Document, list[Chunk]]]:
    """One ``Document`` and one ``Chunk`` per corpus line; ``document_id`` = the line's ``_id``."""
    for doc_id, title, text in beir.corpus:
        digest = hashlib.sha256(f"{title}\n{text}".encode()).hexdigest()
        document = Document(
            document_id=doc_id,
            tenant_id=tenant_id,
            title=title,
            source=f"beir:{doc_id}",
            content_hash=digest,
            lang=lang,
        )
        chunk = Chunk(
            chunk_id=f"{doc_id}#0",
            document_id=doc_id,
            tenant_id=tenant_id,
            ordinal=0,
            title=title,
            text=text,
            lang=lang,
        )
        yield document, [chunk]


def evaluate_index(
    index: SearchIndex,
    beir: BeirSet,
    *,
    tenant_id: str = EVAL_TENANT,
    lang: str | None = None,
    top_k: int = 10,
) -> RetrievalScores:
    """Run every judged query (``top_k`` hits) and score the document ids it returns."""
    scope = SearchScope(tenant_id=tenant_id)
    runs: dict[str, list[str]] = {}
    latencies: list[float] = []
    for query_id in beir.qrels:
        text = beir.queries.get(query_id, "").strip()
        if not text:
            continue
        query = SearchQuery(text=text, scope=scope, top_k=top_k, lang=lang)
        started = time.perf_counter()
        hits = index.search(query)
        latencies.append((time.perf_counter() - started) * 1000)
        runs[query_id] = list(dict.fromkeys(hit.chunk.document_id for hit in hits))
    return score_runs(runs, beir.qrels, latencies)
