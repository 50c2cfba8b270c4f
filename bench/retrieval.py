"""Retrieval quality and speed: tanda's embedded index against tantivy, rank_bm25 and its own
engine before (issues 3, 11, 28).

Run from the repository root: ``.venv/bin/python bench/retrieval.py [--quick] [--data DIR]`` →
prints a table, writes ``bench/results/retrieval.json`` (``--data``: the shared data folder, by
default ``../shared/data``); ``--million`` (the scale section at 100k and 1M) and ``--ask``
(section e) run alone and merge into the committed JSON.

(a) Quality on the dev sets in ``../shared/data/eval/retrieval/`` (tydiqa_id, xquad_tr): tanda
    on tantivy (language detected per query and per document, as a partner would run it; and
    with the language given), tanda on FTS5 (the engine before issue 28), and the peer
    ``rank_bm25.BM25Okapi`` over ``\\w+`` lowercase tokens with Snowball stems (PyStemmer), all
    measured in this run; compared with the figures committed before (must not fall).
(b) Scale: corpora of 10k and 100k chunks (``--million``: 100k and 1M) built from the shared
    text (see ``scale_corpus``): ingest rate, query p50/p95 (every query timed on each system in
    alternation), disk and memory for tanda on tantivy (its default), tanda on FTS5 (≤ 100k),
    bare tantivy (simple tokenizer, lowercase, ASCII folding; it has no Indonesian stemmer) and
    rank_bm25 (≤ 100k; its query is O(corpus): fewer queries), against issue 28's targets.
    The corpus's chunks lengthen with its size (its windows widen pass by pass);
    ``--equal-length`` runs ``--million``'s sizes on windows that keep 100k's widths at 1M
    (``scale_million_equal_length``), to tell the growth the length brings from the rest.
(c) Tenants (issue 11): one tenant of 1k chunks alone in its file vs the same tenant beside 3
    tenants × 100k chunks, the same queries timed in alternation: the p50 ratio must stay
    ≤ 1.5 and the top-10 lists identical (its statistics are its own).
(d) The reranker floor (ASK-06) with the embedded lexical reranker: its cost per query (top 5
    and top 20, beside the search itself), nDCG@10 of the fused order against the order of the
    lexical score, and what each floor does when the answer is in the documents and when it was
    taken out (``--floor``: this section alone, merged into the committed JSON).
(e) ``/v1/ask`` end to end on the demo corpus with the offline model, FTS5 before and tantivy
    after (``--ask``).
(f) Ingest before / after (``--before REF``): tanda's ingest at 100k chunks with their structure
    records, git REF's ``shared/`` against this tree, one process per side, alternated, each with
    bare tantivy's rate beside.
"""

from __future__ import annotations

import argparse
import csv
import gc
import json
import os
import pickle
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice, pairwise
from pathlib import Path
from typing import Any

import Stemmer
import tantivy
from pypdf import PdfReader
from rank_bm25 import BM25Okapi

from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.extraction import build_structure
from tanda.records.documents import Chunk, Document, SearchQuery, SearchScope
from tanda.records.structure import StructureRecord
from tanda.retrieval.rerank import LexicalReranker, rerank_floor
from tanda.service.retrieval_eval import (
    EVAL_TENANT,
    BeirSet,
    beir_documents,
    evaluate_index,
    load_beir,
    ndcg_at,
    percentile,
    score_runs,
)
from tanda.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "bench" / "results" / "retrieval.json"
DATASETS = {"tydiqa_id": ("id", "indonesian"), "xquad_tr": ("tr", "turkish")}
PEER_NDCG_STATED = {"tydiqa_id": 0.880, "xquad_tr": 0.947}
SIZES = (10_000, 100_000)
MILLION = 1_000_000
ASK_REPEAT = 5
SHARE_ROUNDS = 3
QUERIES_PER_SIZE = 300
RANK_BM25_QUERIES = {10_000: 300, 100_000: 30}
CHUNKS_PER_DOCUMENT = 100
TENANT = "bench"
TENANT_CHUNKS = 1_000
NEIGHBOURS = 3
NEIGHBOUR_CHUNKS = {"full": 100_000, "quick": 10_000}
TENANT_P50_RATIO_MAX = 1.5
NDCG_TOLERANCE = 0.002
NDCG_FLOOR = {"tydiqa_id": 0.888, "xquad_tr": 0.955}
"""Issue 28: nDCG@10 with the language detected may not fall under the figures before it."""
FTS5_MAX_SIZE = 100_000
"""tanda on FTS5 and rank_bm25 run up to this size (FTS5 ingests ~2 000 chunks/s here)."""
RECORDS_MAX_SIZE = 100_000
"""Structure records are built (~1 300 chunks/s) and written with the chunks up to this size."""
LATENCY_X_MAX = 3.0
INGEST_X_MIN = 0.5
GROWTH_P50_MAX = 3.0
FLOORS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.34, 0.4, 0.5, 0.6, 0.7)
DEFAULT_FLOOR: float = Settings.model_fields["rerank_min_score"].default
FLOOR_TOP_K = 5
HELD_OUT_SEED = 7

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


# -- (a) quality --------------------------------------------------------------------------------


def peer_rank_bm25(beir: BeirSet, snowball: str) -> dict[str, Any]:
    """The plain peer: ``\\w+`` lowercase tokens, Snowball stems, BM25Okapi defaults."""
    stemmer = Stemmer.Stemmer(snowball)

    def analyze(text: str) -> list[str]:
        words: list[str] = stemmer.stemWords(_WORD.findall(text.lower()))
        return words

    ids = [doc_id for doc_id, _, _ in beir.corpus]
    bm25 = BM25Okapi([analyze(f"{title} {text}".strip()) for _, title, text in beir.corpus])
    runs: dict[str, list[str]] = {}
    latencies: list[float] = []
    for query_id in beir.qrels:
        started = time.perf_counter()
        scores = bm25.get_scores(analyze(beir.queries[query_id]))
        top = sorted(range(len(ids)), key=lambda i: (-scores[i], i))[:10]
        latencies.append((time.perf_counter() - started) * 1000)
        runs[query_id] = [ids[i] for i in top]
    return score_runs(runs, beir.qrels, latencies).as_json()


def tanda_quality(beir: BeirSet, lang: str | None, engine: str = "tantivy") -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tanda-bench-") as tmp:
        index = SqliteSearchIndex(Path(tmp) / "index.sqlite", lexical=engine)  # type: ignore[arg-type]
        try:
            for document, chunks in beir_documents(beir, lang=lang):
                index.upsert_document(document, chunks)
            return evaluate_index(index, beir, lang=lang).as_json()
        finally:
            index.close()


def quality(data: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (lang, snowball) in DATASETS.items():
        beir = load_beir(data / "eval" / "retrieval" / name)
        out[name] = {
            "tanda": tanda_quality(beir, None),
            "tanda_lang_given": tanda_quality(beir, lang),
            "tanda_fts5": tanda_quality(beir, None, "sqlite"),
            "tanda_fts5_lang_given": tanda_quality(beir, lang, "sqlite"),
            "ndcg@10_floor_lang_detected": NDCG_FLOOR[name],
            "rank_bm25_snowball": peer_rank_bm25(beir, snowball),
            "rank_bm25_stated_ndcg@10": PEER_NDCG_STATED[name],
        }
        out[name]["ndcg@10_floor_met"] = out[name]["tanda"]["ndcg@10"] >= NDCG_FLOOR[name]
    return out


def quality_against(committed: dict[str, Any], measured: dict[str, Any]) -> dict[str, Any]:
    """nDCG@10 of this run against the figures committed before it (``{}`` when none)."""
    out: dict[str, Any] = {}
    for name, row in measured.items():
        for system in ("tanda", "tanda_lang_given"):
            before = committed.get(name, {}).get(system, {}).get("ndcg@10")
            if before is None:
                continue
            delta = round(row[system]["ndcg@10"] - before, 4)
            out[f"{name}/{system}"] = {
                "committed_ndcg@10": before,
                "ndcg@10": row[system]["ndcg@10"],
                "delta": delta,
                "not_under_committed": delta >= -NDCG_TOLERANCE,
            }
    return out


# -- (d) the reranker floor ---------------------------------------------------------------------


def judged(beir: BeirSet) -> list[str]:
    return [q for q in beir.qrels if any(grade > 0 for grade in beir.qrels[q].values())]


def relevant(beir: BeirSet, query_id: str) -> set[str]:
    return {doc_id for doc_id, grade in beir.qrels[query_id].items() if grade > 0}


def search_eval(index: SqliteSearchIndex, text: str, top_k: int) -> list[Any]:
    return index.search(
        SearchQuery(text=text, scope=SearchScope(tenant_id=EVAL_TENANT), top_k=top_k)
    )


def floor_cost_and_order(beir: BeirSet) -> dict[str, Any]:
    """Over the whole corpus: the time the floor adds per query (the search's hits in hand),
    and nDCG@10 in the fused order against the order of the lexical score."""
    reranker = LexicalReranker()
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="tanda-bench-") as tmp:
        index = SqliteSearchIndex(Path(tmp) / "index.sqlite")
        try:
            for document, chunks in beir_documents(beir, lang=None):
                index.upsert_document(document, chunks)
            queries = judged(beir)
            for top_k in (FLOOR_TOP_K, 20):
                search_ms: list[float] = []
                floor_ms: list[float] = []
                for query_id in queries:
                    text = beir.queries[query_id]
                    started = time.perf_counter()
                    hits = search_eval(index, text, top_k)
                    search_ms.append((time.perf_counter() - started) * 1000)
                    started = time.perf_counter()
                    rerank_floor(reranker, text, hits, min_score=DEFAULT_FLOOR)
                    floor_ms.append((time.perf_counter() - started) * 1000)
                out[f"top{top_k}"] = {"search": latency(search_ms), "floor": latency(floor_ms)}
            fused = ordered = 0.0
            for query_id in queries:
                hits = search_eval(index, beir.queries[query_id], 10)
                scored = rerank_floor(reranker, beir.queries[query_id], hits, min_score=0.0)
                by_score = sorted(scored, key=lambda h: -(h.rerank_score or 0.0))  # stable
                fused += ndcg_at([h.chunk.document_id for h in hits], beir.qrels[query_id])
                ordered += ndcg_at([h.chunk.document_id for h in by_score], beir.qrels[query_id])
            out["ndcg@10"] = {
                "fused_order": round(fused / len(queries), 4),
                "lexical_score_order": round(ordered / len(queries), 4),
            }
        finally:
            index.close()
    return out


def floor_with_answers_taken_out(beir: BeirSet) -> dict[str, Any]:
    """The relevant passages of a random half of the questions are taken out of the corpus:
    those questions have no answer in it any more (``unanswerable``); the others keep theirs
    (``answerable``). Per floor, top 5: how many answerable questions still get their relevant
    passage, how many unanswerable ones get nothing at all, and the hits each keeps on average."""
    rng = random.Random(HELD_OUT_SEED)
    queries = judged(beir)
    unanswerable = sorted(rng.sample(queries, len(queries) // 2))
    taken_out = set().union(*(relevant(beir, q) for q in unanswerable))
    answerable = [q for q in queries if q not in unanswerable and not relevant(beir, q) & taken_out]
    kept = BeirSet([c for c in beir.corpus if c[0] not in taken_out], beir.queries, beir.qrels)
    reranker = LexicalReranker()
    with tempfile.TemporaryDirectory(prefix="tanda-bench-") as tmp:
        index = SqliteSearchIndex(Path(tmp) / "index.sqlite")
        try:
            for document, chunks in beir_documents(kept, lang=None):
                index.upsert_document(document, chunks)
            scored = {
                q: rerank_floor(
                    reranker,
                    beir.queries[q],
                    search_eval(index, beir.queries[q], FLOOR_TOP_K),
                    min_score=0.0,
                )
                for q in answerable + unanswerable
            }
        finally:
            index.close()
    found = [
        q for q in answerable if any(h.chunk.document_id in relevant(beir, q) for h in scored[q])
    ]
    rows: dict[str, Any] = {}
    for floor in (0.0, *FLOORS):
        over = {q: [h for h in scored[q] if (h.rerank_score or 0.0) >= floor] for q in scored}
        keeps = sum(any(h.chunk.document_id in relevant(beir, q) for h in over[q]) for q in found)
        empty = sum(not over[q] for q in unanswerable)
        rows[f"{floor:g}"] = {
            "answerable_keep_their_passage": round(keeps / len(found), 3),
            "unanswerable_get_nothing": round(empty / len(unanswerable), 3),
            "mean_hits_answerable": round(sum(len(over[q]) for q in found) / len(found), 2),
            "mean_hits_unanswerable": round(
                sum(len(over[q]) for q in unanswerable) / len(unanswerable), 2
            ),
        }
    return {
        "answerable_with_their_passage_in_top5": len(found),
        "unanswerable": len(unanswerable),
        "floors": rows,
    }


def rerank_floor_bench(data: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"reranker": "lexical", "default_floor": DEFAULT_FLOOR}
    for name in DATASETS:
        beir = load_beir(data / "eval" / "retrieval" / name)
        out[name] = floor_cost_and_order(beir) | {
            "answers_taken_out": floor_with_answers_taken_out(beir)
        }
    return out


def print_floor(floor: dict[str, Any]) -> None:
    print(f"reranker floor ({floor['reranker']}, default {floor['default_floor']}):")
    for name in DATASETS:
        row = floor[name]
        for top in ("top5", "top20"):
            print(
                f"  {name} {top}: search p50 {row[top]['search']['p50_ms']:.3f} ms, floor p50 "
                f"{row[top]['floor']['p50_ms']:.3f} / p95 {row[top]['floor']['p95_ms']:.3f} ms"
            )
        print(f"  {name} nDCG@10 fused vs lexical-score order: {json.dumps(row['ndcg@10'])}")
        taken = row["answers_taken_out"]
        print(
            f"  {name} answers taken out ({taken['answerable_with_their_passage_in_top5']} "
            f"answerable, {taken['unanswerable']} unanswerable):"
        )
        for floor_value, m in taken["floors"].items():
            keep, nothing = m["answerable_keep_their_passage"], m["unanswerable_get_nothing"]
            print(
                f"    floor {floor_value:>5}: answerable keep {keep:.3f}, "
                f"unanswerable get nothing {nothing:.3f}"
            )


# -- (b) scale ----------------------------------------------------------------------------------


def source_units(data: Path) -> tuple[list[str], dict[str, int]]:
    """Sentences of the shared text, in a fixed order: eval paragraphs, statute PDF pages (pypdf
    text layer), and budget CSV rows rendered as ``region year: account | budget | actual | %``."""
    units: list[str] = []
    counts: dict[str, int] = {}

    def add(source: str, texts: Iterator[str]) -> None:
        before = len(units)
        for text in texts:
            units.extend(s.strip() for s in _SENTENCE_END.split(text) if len(s.strip()) > 20)
        counts[source] = len(units) - before

    for name in DATASETS:
        beir = load_beir(data / "eval" / "retrieval" / name)
        add(f"eval/{name}", (text for _, _, text in beir.corpus))

    def pdf_pages() -> Iterator[str]:
        for pdf in sorted((data / "corpus" / "id_laws").glob("*.pdf")):
            for page in PdfReader(pdf).pages:
                yield page.extract_text() or ""

    add("corpus/id_laws (pypdf pages)", pdf_pages())

    def csv_rows() -> Iterator[str]:
        for path in sorted((data / "corpus" / "apbd_jatim").glob("*/*.csv")):
            with path.open(encoding="utf-8", errors="replace") as handle:
                for row in csv.DictReader(handle):
                    cells = " | ".join(str(v).strip() for v in row.values())
                    yield f"APBD {path.stem} {path.parent.name}: {cells}\n"

    add("corpus/apbd_jatim (CSV rows)", csv_rows())
    return units, counts


WIDTHS = (3, 4, 5, 2, 6, 7, 8, 9, 10, 11, 12, 13)


def scale_corpus(units: Sequence[str], size: int, widths: Sequence[int] = WIDTHS) -> list[str]:
    """``size`` distinct chunks: windows over the sentence stream, one pass per start offset with
    a width that changes every pass (3, 4, 5, 2, 6, 7, …), so no two chunks are the same text.
    The passes widen, so the chunks grow longer with ``size`` (39 words at 10k, 67 at 100k, 98
    at 1M); ``--equal-length`` cycles ``widths`` of the passes 100k holds instead."""
    chunks: list[str] = []
    n = len(units)
    for j in range(size):
        passes, start = divmod(j, n)
        width = widths[passes % len(widths)]
        chunks.append(" ".join(units[(start + i) % n] for i in range(width)))
    return chunks


def bench_queries(data: Path) -> list[str]:
    per_set = QUERIES_PER_SIZE // len(DATASETS)
    texts: list[str] = []
    for name in DATASETS:
        beir = load_beir(data / "eval" / "retrieval" / name)
        texts.extend(islice((beir.queries[q] for q in beir.qrels), per_set))
    return texts


def timed(fn: Callable[[str], object], queries: Sequence[str]) -> dict[str, float]:
    latencies = []
    for text in queries:
        started = time.perf_counter()
        fn(text)
        latencies.append((time.perf_counter() - started) * 1000)
    return {
        "queries": len(latencies),
        "p50_ms": round(percentile(latencies, 50), 3),
        "p95_ms": round(percentile(latencies, 95), 3),
    }


def scale_row(
    chunks: Sequence[str],
    queries: Sequence[str],
    tmp: Path,
    *,
    fts5: bool,
    built: BuiltRecords | None,
) -> dict[str, Any]:
    """One corpus size: tanda on tantivy (the default engine since issue 28), tanda on FTS5
    (the engine before, MaxScore-pruned; with ``fts5``) and bare tantivy (its own simple
    tokenizer, no tanda), each ingesting the same chunks; then every query timed on each system
    in alternation (so a change in machine load hits all of them), and how many top-10 chunks
    tanda's two engines share. With ``built``, every tanda document comes with its structure
    records (built before the clock starts: extraction is the ingest pipeline's, its rate is
    stated beside), so tanda's ingest figure includes writing them."""
    out: dict[str, Any] = {}
    engines = {"tanda": "tantivy", "tanda_fts5": "sqlite"} if fts5 else {"tanda": "tantivy"}
    indexes: dict[str, SqliteSearchIndex] = {}
    searches: dict[str, Callable[[str], list[str]]] = {}
    try:
        for system, engine in engines.items():
            print(f"  {system}: ingest …", file=sys.stderr)
            index = SqliteSearchIndex(tmp / f"{system}-{len(chunks)}.sqlite", lexical=engine)
            indexes[system] = index
            seconds = ingest_chunks(index, TENANT, chunks, built)
            out[system] = {
                "ingest_s": round(seconds, 2),
                "ingest_chunks_per_s": round(len(chunks) / seconds),
                "disk": disk(index.path),
            }
            searches[system] = partial(top10, index, TENANT)
        print("  tantivy bare: ingest …", file=sys.stderr)
        out["tantivy"], searches["tantivy"] = tantivy_bare(chunks, tmp)
        for text in queries[:20]:  # warm the page cache, the stemmers, the readers
            for search in searches.values():
                search(text)
        sinks: dict[str, list[float]] = {system: [] for system in searches}
        tops: dict[str, list[list[str]]] = {system: [] for system in searches}
        for text in queries:
            for system, search in searches.items():
                started = time.perf_counter()
                tops[system].append(search(text))
                sinks[system].append((time.perf_counter() - started) * 1000)
        out["rss_mb_while_searching"] = rss_mb()
        for system in searches:
            out[system] |= latency(sinks[system])
        if fts5:
            shared = sum(
                len(set(a) & set(b)) for a, b in zip(tops["tanda"], tops["tanda_fts5"], strict=True)
            )
            out["tanda"]["top10_shared_with_fts5"] = round(shared / (10 * len(queries)), 3)
    finally:
        for index in indexes.values():
            index.close()
    if built is not None:
        out["records"] = {
            "records": built.count,
            "records_per_chunk": round(built.count / len(chunks), 3),
            "extraction_chunks_per_s": round(len(chunks) / built.seconds),
            "how": "build_structure per document before the clock; tanda's ingest writes them",
        }
    return out


@dataclass
class BuiltRecords:
    by_document: dict[str, list[StructureRecord]]
    count: int
    seconds: float


def structure_records(chunks: Sequence[str]) -> BuiltRecords:
    """Each bench document's structure records, as ``tanda ingest`` builds them (no model)."""
    started = time.perf_counter()
    by_document: dict[str, list[StructureRecord]] = {}
    for document, parts in bench_documents(TENANT, chunks):
        by_document[document.document_id] = build_structure(document, parts).records
    return BuiltRecords(
        by_document, sum(map(len, by_document.values())), time.perf_counter() - started
    )


def records_share(chunks: Sequence[str], tmp: Path, built: BuiltRecords, rounds: int) -> float:
    """The share of tanda's ingest time that writing the structure records takes: the same
    chunks ingested into two fresh files, with and without their records, ``rounds`` times."""
    seconds: dict[str, list[float]] = {"with": [], "without": []}
    for attempt in range(rounds):  # alternated: the machine's load hits both alike
        for name, records in (("with", built), ("without", None)):
            index = SqliteSearchIndex(tmp / f"share-{name}-{attempt}.sqlite")
            try:
                seconds[name].append(ingest_chunks(index, TENANT, chunks, records))
            finally:
                index.close()
    return round(1 - min(seconds["without"]) / min(seconds["with"]), 3)


def bench_documents(tenant: str, chunks: Sequence[str]) -> Iterator[tuple[Document, list[Chunk]]]:
    for first in range(0, len(chunks), CHUNKS_PER_DOCUMENT):
        doc_id = f"doc{first // CHUNKS_PER_DOCUMENT:05d}"
        part = chunks[first : first + CHUNKS_PER_DOCUMENT]
        document = Document(
            document_id=doc_id,
            tenant_id=tenant,
            title=doc_id,
            source="bench",
            content_hash=f"{doc_id}:{len(part)}",
        )
        yield (
            document,
            [
                Chunk(
                    chunk_id=f"{doc_id}#{i}",
                    document_id=doc_id,
                    tenant_id=tenant,
                    ordinal=i,
                    title="",
                    text=text,
                )
                for i, text in enumerate(part)
            ],
        )


def ingest_chunks(
    index: SqliteSearchIndex,
    tenant: str,
    chunks: Sequence[str],
    records: BuiltRecords | None = None,
) -> float:
    """``chunks`` into ``tenant``, 100 per document (with their structure records when given),
    until every one is searchable (tantivy committed); the seconds it took."""
    return ingest_chunks_timed(index, tenant, chunks, records)[0]


def ingest_chunks_timed(
    index: SqliteSearchIndex,
    tenant: str,
    chunks: Sequence[str],
    records: BuiltRecords | None = None,
) -> tuple[float, float]:
    """:func:`ingest_chunks`: its wall-clock seconds and the process's CPU seconds (every
    thread) over the same span. The documents and chunks are built before the clock starts, as
    bare tantivy's strings are (the ingest pipeline builds them, not the index), and the
    garbage collector runs once before it too (as before bare tantivy's): a full collection of
    the bench's own corpus (~1.7M objects at 100k with records, ~1.3 s here) otherwise falls
    inside the timed span, whichever allocation happens to trigger it (issue 28)."""
    documents = list(bench_documents(tenant, chunks))
    gc.collect()
    cpu = time.process_time()
    started = time.perf_counter()
    for document, parts in documents:
        index.upsert_document(
            document, parts, records.by_document[document.document_id] if records else ()
        )
    index.flush()
    return time.perf_counter() - started, time.process_time() - cpu


def rss_mb() -> float:
    """This process's resident memory now (everything in it: the corpus strings too)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def folder_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def disk(path: Path) -> dict[str, int]:
    """The SQLite file (and its WAL) and the tantivy folder beside it, in bytes."""
    sqlite = sum(folder_bytes(f) for f in (path, path.with_name(path.name + "-wal")) if f.exists())
    lexical = path.with_name(path.name + ".tantivy")
    lexical_bytes = folder_bytes(lexical) if lexical.exists() else 0
    return {"sqlite_bytes": sqlite, "tantivy_bytes": lexical_bytes}


def top10(index: SqliteSearchIndex, tenant: str, text: str) -> list[str]:
    hits = index.search(SearchQuery(text=text, scope=SearchScope(tenant_id=tenant), top_k=10))
    return [hit.chunk.chunk_id for hit in hits]


def latency(ms: Sequence[float]) -> dict[str, float]:
    return {
        "queries": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
    }


def rank_bm25_scale(chunks: Sequence[str], queries: Sequence[str]) -> dict[str, Any]:
    stemmer = Stemmer.Stemmer("indonesian")  # most of the shared text is Indonesian

    def analyze(text: str) -> list[str]:
        words: list[str] = stemmer.stemWords(_WORD.findall(text.lower()))
        return words

    started = time.perf_counter()
    bm25 = BM25Okapi([analyze(text) for text in chunks])
    seconds = time.perf_counter() - started

    def search(text: str) -> list[int]:
        scores = bm25.get_scores(analyze(text))
        return sorted(range(len(chunks)), key=lambda i: -scores[i])[:10]

    speed = timed(search, queries[: RANK_BM25_QUERIES[len(chunks)]])
    return {
        "ingest_s": round(seconds, 2),
        "ingest_chunks_per_s": round(len(chunks) / seconds),
    } | speed


def tantivy_bare(
    chunks: Sequence[str], tmp: Path
) -> tuple[dict[str, Any], Callable[[str], list[str]]]:
    """tantivy alone: simple tokenizer, lowercase, ASCII folding (it has no Indonesian stemmer),
    one commit, the query parser over the query's words; a search returns its top-10 ids."""
    folder = tmp / f"tantivy-{len(chunks)}"
    folder.mkdir()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False, tokenizer_name="bench_simple")
    builder.add_integer_field("id", stored=False, fast=True)
    schema = builder.build()
    index = tantivy.Index(schema, path=str(folder))
    analyzer = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build()
    )
    index.register_tokenizer("bench_simple", analyzer)
    gc.collect()  # as before tanda's ingest (ingest_chunks_timed)
    cpu = time.process_time()
    started = time.perf_counter()
    writer = index.writer(heap_size=128_000_000, num_threads=2)
    for i, text in enumerate(chunks):
        writer.add_document(tantivy.Document(id=i, body=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    searcher = index.searcher()

    def search(text: str) -> list[str]:
        words = " ".join(_WORD.findall(text))
        hits = searcher.search(index.parse_query(words, ["body"]), 10, count=False).hits
        ids = searcher.fast_field_values("id", [address for _, address in hits])
        return [str(i) for i in ids]

    return {
        "ingest_s": round(seconds, 2),
        "ingest_chunks_per_s": round(len(chunks) / seconds),
        "ingest_cpu_s": round(cpu, 3),
        "disk": {"tantivy_bytes": folder_bytes(folder)},
    }, search


def scale(
    sizes: Sequence[int],
    units: Sequence[str],
    counts: dict[str, int],
    queries: Sequence[str],
    *,
    rank_bm25: bool = True,
    fts5_max: int = FTS5_MAX_SIZE,
    records_max: int = RECORDS_MAX_SIZE,
    widths: Sequence[int] = WIDTHS,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "corpus": {
            "how": (
                "sentences of the eval corpora (tydiqa_id, xquad_tr paragraphs), the statute "
                "PDFs (pypdf text layer) and the APBD CSV rows; chunk j is a window over that "
                "sentence stream starting at j mod n, its width changing every pass "
                "(3,4,5,2,6,…) so chunks are distinct; 100 chunks per document"
            ),
            "sentences_by_source": counts,
            "sentences": len(units),
            "window_widths": list(widths),
        },
        "queries": (
            f"{len(queries)} eval queries (half tydiqa_id, half xquad_tr), top 10, one thread, "
            "each timed on every system in alternation; tanda's time is the whole "
            "SearchIndex.search (analysis, engine, the hits' chunks read from SQLite); "
            f"rank_bm25 at 100k on the first {RANK_BM25_QUERIES[100_000]} only (O(corpus) each); "
            f"tanda on FTS5 and rank_bm25 up to {fts5_max} chunks; structure records "
            f"written with the chunks up to {records_max}"
        ),
    }
    with tempfile.TemporaryDirectory(prefix="tanda-bench-scale-") as tmp_name:
        tmp = Path(tmp_name)
        for size in sizes:
            chunks = scale_corpus(units, size, widths)
            words = sum(len(_WORD.findall(c)) for c in chunks)
            print(f"scale {size} …", file=sys.stderr)
            row: dict[str, Any] = {"mean_words_per_chunk": round(words / size, 1)}
            built = structure_records(chunks) if size <= records_max else None
            row |= scale_row(chunks, queries, tmp, fts5=size <= fts5_max, built=built)
            row["corpus_strings_mb"] = round(sum(sys.getsizeof(c) for c in chunks) / 1e6, 1)
            if rank_bm25 and size <= fts5_max:
                print(f"scale {size}: rank_bm25 …", file=sys.stderr)
                row["rank_bm25"] = rank_bm25_scale(chunks, queries)
            row["targets"] = targets(row, size)
            if built is not None:  # three rounds at the first size, one above (issue 28)
                rounds = SHARE_ROUNDS if size == sizes[0] else 1
                row["records"]["share_of_ingest"] = records_share(chunks, tmp, built, rounds)
                row["records"]["share_rounds"] = rounds
            out[str(size)] = row
            for system in ("tanda", "tanda_fts5", "tantivy"):
                shutil.rmtree(tmp / f"{system}-{size}.sqlite.tantivy", ignore_errors=True)
            for leftover in tmp.glob(f"*-{size}*"):
                if leftover.is_file():
                    leftover.unlink()
            shutil.rmtree(tmp / f"tantivy-{size}", ignore_errors=True)
    for small_size, large_size in pairwise(sizes):
        small, large = out[str(small_size)], out[str(large_size)]
        out[f"growth_{small_size}_to_{large_size}"] = {
            "corpus_x": large_size / small_size,
            **{
                f"{system}_p50_x": round(large[system]["p50_ms"] / small[system]["p50_ms"], 2)
                for system in ("tanda", "tanda_fts5", "tantivy", "rank_bm25")
                if system in small and system in large
            },
            "tanda_p50_x_max": GROWTH_P50_MAX,
        }
    return out


def targets(row: dict[str, Any], size: int) -> dict[str, Any]:
    """Issue 28's targets at one size: tanda (tantivy engine) against bare tantivy."""
    tanda, bare = row["tanda"], row["tantivy"]
    tanda_bytes = tanda["disk"]["sqlite_bytes"] + tanda["disk"]["tantivy_bytes"]
    return {
        "p50_over_tantivy": round(tanda["p50_ms"] / bare["p50_ms"], 2),
        "p95_over_tantivy": round(tanda["p95_ms"] / bare["p95_ms"], 2),
        "latency_x_max": LATENCY_X_MAX,
        "ingest_over_tantivy": round(tanda["ingest_chunks_per_s"] / bare["ingest_chunks_per_s"], 3),
        "ingest_x_min": INGEST_X_MIN,
        "disk_over_tantivy": round(tanda_bytes / bare["disk"]["tantivy_bytes"], 2),
        "lexical_disk_over_tantivy": round(
            tanda["disk"]["tantivy_bytes"] / bare["disk"]["tantivy_bytes"], 2
        ),
        "bytes_per_chunk": {
            "tanda_sqlite_file": round(tanda["disk"]["sqlite_bytes"] / size),
            "tanda_tantivy_folder": round(tanda["disk"]["tantivy_bytes"] / size),
            "tantivy_bare": round(bare["disk"]["tantivy_bytes"] / size),
        },
    }


# -- (c) tenants --------------------------------------------------------------------------------


def tenants(units: Sequence[str], queries: Sequence[str], neighbour_chunks: int) -> dict[str, Any]:
    """One tenant of ``TENANT_CHUNKS`` chunks alone in its file, and the same tenant in a file
    that also holds ``NEIGHBOURS`` tenants × ``neighbour_chunks`` (windows over the sentence
    stream, each neighbour starting elsewhere in it); every query timed on both in alternation
    (so a change in machine load hits both), and the top-10 lists compared."""
    own = scale_corpus(units, TENANT_CHUNKS)
    with tempfile.TemporaryDirectory(prefix="tanda-bench-tenants-") as tmp_name:
        tmp = Path(tmp_name)
        alone = SqliteSearchIndex(tmp / "alone.sqlite")
        beside = SqliteSearchIndex(tmp / "beside.sqlite")
        try:
            ingest_chunks(alone, "own", own)
            ingest_chunks(beside, "own", own)
            neighbours_s = 0.0
            for k in range(NEIGHBOURS):
                print(f"tenants: neighbour {k + 1}/{NEIGHBOURS} …", file=sys.stderr)
                shift = k * len(units) // NEIGHBOURS + 1
                texts = scale_corpus([*units[shift:], *units[:shift]], neighbour_chunks)
                neighbours_s += ingest_chunks(beside, f"neighbour-{k + 1}", texts)
            for text in queries[:20]:  # warm the page cache and the stemmers
                top10(alone, "own", text)
                top10(beside, "own", text)
            identical = sum(top10(alone, "own", t) == top10(beside, "own", t) for t in queries)
            alone_ms: list[float] = []
            beside_ms: list[float] = []
            for text in queries:
                for index, sink in ((alone, alone_ms), (beside, beside_ms)):
                    started = time.perf_counter()
                    top10(index, "own", text)
                    sink.append((time.perf_counter() - started) * 1000)
            file_mb = round(beside.path.stat().st_size / 1e6, 1)
        finally:
            alone.close()
            beside.close()
    ratio = percentile(beside_ms, 50) / percentile(alone_ms, 50)
    return {
        "how": (
            f"tenant 'own' ({TENANT_CHUNKS} chunks, the first windows of the scale corpus) "
            f"alone in a file vs beside {NEIGHBOURS} tenants × {neighbour_chunks} chunks; "
            "each query timed on both in alternation, top 10, tenant-wide scope, one thread"
        ),
        "tenant_chunks": TENANT_CHUNKS,
        "neighbour_chunks": [neighbour_chunks] * NEIGHBOURS,
        "neighbours_ingest_s": round(neighbours_s, 1),
        "beside_file_mb": file_mb,
        "alone": latency(alone_ms),
        "beside": latency(beside_ms),
        "p50_ratio": round(ratio, 3),
        "p95_ratio": round(percentile(beside_ms, 95) / percentile(alone_ms, 95), 3),
        "p50_ratio_max": TENANT_P50_RATIO_MAX,
        "p50_ratio_within_max": ratio <= TENANT_P50_RATIO_MAX,
        "top10_identical_alone_and_beside": identical,
    }


# -- (f) ingest before / after ----------------------------------------------------------------


AB_SIZE = 100_000
AB_ROUNDS = 3


def ingest_before_after(data: Path, before: str) -> dict[str, Any]:
    """tanda's ingest at ``AB_SIZE`` chunks with their structure records, the code of git ref
    ``before`` against this tree, each side in its own process (``--ingest-side``), alternated
    ``AB_ROUNDS`` times so the machine's load hits both alike (medians); each process also
    times bare tantivy on the same chunks right after, so every row carries its own ratio, and
    the CPU time of both (steadier than the wall clock on a shared machine). The records are
    built once (by this tree) and handed to both sides pickled."""
    units, _ = source_units(data)
    chunks = scale_corpus(units, AB_SIZE)
    print(f"before/after: structure records for {AB_SIZE} …", file=sys.stderr)
    built = structure_records(chunks)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="tanda-bench-ab-") as tmp_name:
        tmp = Path(tmp_name)
        records = tmp / "records.pickle"
        records.write_bytes(pickle.dumps(built.by_document))
        archive = subprocess.run(
            ["git", "archive", before, "shared"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        sides = {"before": tmp / "shared", "after": ROOT / "shared"}
        for attempt in range(AB_ROUNDS):
            for side, shared in sides.items():
                print(f"before/after: {side} (round {attempt + 1}) …", file=sys.stderr)
                env = {**os.environ, "PYTHONPATH": str(shared)}
                done = subprocess.run(
                    [sys.executable, __file__, "--data", str(data), "--ingest-side", str(records)],
                    check=True,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                rows.append({"side": side} | json.loads(done.stdout.splitlines()[-1]))
    out: dict[str, Any] = {
        "how": (
            f"{AB_SIZE} chunks with their {built.count} structure records, git ref {before!r} "
            f"(before) vs this tree (after), one process per side, alternated {AB_ROUNDS} "
            "times; bare tantivy timed in each process right after tanda; the garbage collector "
            "run before each clock starts, CPU over the timed span only"
        ),
        "before_ref": before,
        "rows": rows,
    }
    for side in sides:
        mine = [r for r in rows if r["side"] == side]
        out[side] = {
            key: round(statistics.median(r[key] for r in mine), 3)
            for key in (
                "tanda_chunks_per_s",
                "ingest_over_tantivy",
                "tanda_cpu_us_per_chunk",
                "tantivy_cpu_us_per_chunk",
            )
        }
    out["after_over_before"] = {
        "tanda_chunks_per_s": round(
            out["after"]["tanda_chunks_per_s"] / out["before"]["tanda_chunks_per_s"], 2
        ),
        "tanda_cpu_per_chunk": round(
            out["after"]["tanda_cpu_us_per_chunk"] / out["before"]["tanda_cpu_us_per_chunk"], 2
        ),
    }
    print(f"ingest before/after: {json.dumps(out)}")
    return out


def ingest_side(data: Path, records: Path) -> None:
    """One side of :func:`ingest_before_after`, run with that side's ``shared`` on the path:
    a JSON line with tanda's and bare tantivy's ingest rates."""
    units, _ = source_units(data)
    chunks = scale_corpus(units, AB_SIZE)
    by_document = pickle.loads(records.read_bytes())  # written by the parent
    built = BuiltRecords(by_document, sum(map(len, by_document.values())), 0.0)
    with tempfile.TemporaryDirectory(prefix="tanda-bench-side-") as tmp_name:
        tmp = Path(tmp_name)
        index = SqliteSearchIndex(tmp / "side.sqlite")
        try:
            seconds, tanda_cpu = ingest_chunks_timed(index, TENANT, chunks, built)
        finally:
            index.close()
        bare, _ = tantivy_bare(chunks, tmp)
        bare_cpu = bare["ingest_cpu_s"]
    rate = round(AB_SIZE / seconds)
    print(
        json.dumps(
            {
                "tanda_chunks_per_s": rate,
                "tantivy_chunks_per_s": bare["ingest_chunks_per_s"],
                "ingest_over_tantivy": round(rate / bare["ingest_chunks_per_s"], 3),
                # CPU of every thread of the process: steadier than the wall clock on a
                # shared machine (tantivy's indexing threads count for both)
                "tanda_cpu_us_per_chunk": round(tanda_cpu / AB_SIZE * 1e6, 1),
                "tantivy_cpu_us_per_chunk": round(bare_cpu / AB_SIZE * 1e6, 1),
                "load_average": round(os.getloadavg()[0], 1),
            }
        )
    )


# -- (e) /v1/ask end to end -------------------------------------------------------------------


def ask_demo(data: Path) -> dict[str, Any]:
    """``/v1/ask`` end to end on the demo corpus (``DATA/corpus``) with the offline model, before
    (FTS5) and after (tantivy): ``bench/answers_driver.py`` ingests the corpus with its
    structure layers into a fresh home and asks the demo questions ``ASK_REPEAT`` times each,
    in-process; the same tree, ``TANDA_LEXICAL_ENGINE`` says the engine."""
    from answers import DEMO_QUESTIONS  # bench/answers.py: the demo questions

    out: dict[str, Any] = {"questions": len(DEMO_QUESTIONS), "repeat": ASK_REPEAT}
    with tempfile.TemporaryDirectory(prefix="tanda-bench-ask-") as tmp_name:
        tmp = Path(tmp_name)
        questions = tmp / "questions.jsonl"
        questions.write_text(
            "".join(
                json.dumps({"id": str(n), "text": q}) + "\n" for n, q in enumerate(DEMO_QUESTIONS)
            ),
            encoding="utf-8",
        )
        for side, engine in (("before_fts5", "sqlite"), ("after_tantivy", "tantivy")):
            print(f"ask demo: {engine} …", file=sys.stderr)
            result = tmp / f"{engine}.jsonl"
            env = {**os.environ, "TANDA_LEXICAL_ENGINE": engine}
            env.pop("TANDA_HOME", None)
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "bench" / "answers_driver.py"),
                    str(data / "corpus"),
                    str(questions),
                    str(result),
                    "--route",
                    "v1",
                    "--docs-are-paths",
                    "--repeat",
                    str(ASK_REPEAT),
                ],
                check=True,
                env=env,
            )
            lines = result.read_text(encoding="utf-8").splitlines()
            rows = [json.loads(line) for line in lines[1:]]
            latencies = [float(r["latency_ms"]) for r in rows]
            out[side] = {
                "ingest_s": round(json.loads(lines[0])["ingest_s"], 2),
                "asks": len(latencies),
                "errors": sum("error" in r for r in rows),
            } | {k: v for k, v in latency(latencies).items() if k != "queries"}
    out["p50_after_over_before"] = round(
        out["after_tantivy"]["p50_ms"] / out["before_fts5"]["p50_ms"], 3
    )
    print(f"/v1/ask on the demo corpus: {json.dumps(out)}")
    return out


def print_scale(scale_results: dict[str, Any]) -> None:
    for size, row in scale_results.items():
        if not size.isdigit():
            continue
        for system in ("tanda", "tanda_fts5", "tantivy", "rank_bm25"):
            if system not in row:
                continue
            m = row[system]
            print(
                f"{size:>8} {system:<16} {m['ingest_chunks_per_s']:>9} {m['p50_ms']:>8.2f} "
                f"{m['p95_ms']:>8.2f} {m['queries']:>8}"
            )
        print(f"{size:>8} targets {json.dumps(row['targets'])}")
        if "records" in row:
            print(f"{size:>8} records {json.dumps(row['records'])}")
        print(f"{size:>8} rss_mb_while_searching {row['rss_mb_while_searching']}")
    for key, value in scale_results.items():
        if key.startswith("growth"):
            print(key, json.dumps(value))


def print_table(results: dict[str, Any]) -> None:
    print(f"{'quality':<12} {'system':<22} {'nDCG@10':>8} {'R@5':>7} {'MRR@10':>7} {'p50 ms':>8}")
    for name, row in results["quality"].items():
        for system in (
            "tanda",
            "tanda_lang_given",
            "tanda_fts5",
            "tanda_fts5_lang_given",
            "rank_bm25_snowball",
        ):
            m = row[system]
            print(
                f"{name:<12} {system:<22} {m['ndcg@10']:>8.4f} {m['recall@5']:>7.4f} "
                f"{m['mrr@10']:>7.4f} {m['p50_ms']:>8.3f}"
            )
    print()
    print(
        f"{'chunks':>8} {'system':<16} {'ingest/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'queries':>8}"
    )
    for scale_key in ("scale", "scale_million"):
        print_scale(results.get(scale_key, {}))
    print()
    t = results["tenants"]
    print(
        f"tenant of {t['tenant_chunks']} chunks, p50/p95 ms: alone {t['alone']['p50_ms']:.3f}/"
        f"{t['alone']['p95_ms']:.3f}, beside {' + '.join(map(str, t['neighbour_chunks']))}: "
        f"{t['beside']['p50_ms']:.3f}/{t['beside']['p95_ms']:.3f} → p50 ×{t['p50_ratio']} "
        f"(max ×{t['p50_ratio_max']}: {'ok' if t['p50_ratio_within_max'] else 'OVER'}), "
        f"top-10 identical {t['top10_identical_alone_and_beside']}/{t['alone']['queries']}"
    )
    for key, row in results["quality_against_committed"].items():
        verdict = "ok" if row["not_under_committed"] else "FELL"
        print(
            f"nDCG@10 {key}: {row['ndcg@10']:.4f} (committed {row['committed_ndcg@10']:.4f}, "
            f"Δ {row['delta']:+.4f}: {verdict})"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="quality, 10k, tenants beside 3 × 10k; no JSON"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument(
        "--floor", action="store_true", help="only (d), merged into the committed JSON"
    )
    parser.add_argument(
        "--million",
        action="store_true",
        help="only the scale section at 100k and 1M (tanda, bare tantivy), merged into the "
        "committed JSON as scale_million",
    )
    parser.add_argument(
        "--equal-length",
        action="store_true",
        help="--million's sizes on a corpus whose chunks keep 100k's length at 1M (the window "
        "widths of the passes 100k holds, cycled), merged as scale_million_equal_length",
    )
    parser.add_argument(
        "--ask", action="store_true", help="only (e), merged into the committed JSON"
    )
    parser.add_argument(
        "--before",
        metavar="REF",
        help="only (f): tanda's ingest at 100k with records, git REF's code against this tree, "
        "merged into the committed JSON as ingest_before_after",
    )
    parser.add_argument("--ingest-side", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--results", type=Path, default=RESULTS, help="the JSON to read and write")
    args = parser.parse_args()
    if args.ingest_side:
        ingest_side(args.data, args.ingest_side)
        return 0
    results_path: Path = args.results
    committed = json.loads(results_path.read_text()) if results_path.is_file() else {}
    started = time.perf_counter()
    if args.before:
        committed["ingest_before_after"] = ingest_before_after(args.data, args.before)
        results_path.write_text(json.dumps(committed, indent=2, ensure_ascii=False) + "\n")
        print(f"merged into {results_path} in {time.perf_counter() - started:.0f} s")
        return 0
    if args.million or args.ask or args.equal_length:
        units, counts = source_units(args.data)
        runs = (
            # issue 28: is the growth 100k -> 1M the chunks' length? The passes 100k holds only.
            ("scale_million_equal_length", args.equal_length, WIDTHS[: SIZES[-1] // len(units)]),
            ("scale_million", args.million, WIDTHS),
        )
        for key, wanted, widths in runs:
            if wanted:
                committed[key] = scale(
                    (SIZES[-1], MILLION),
                    units,
                    counts,
                    bench_queries(args.data),
                    rank_bm25=False,
                    fts5_max=0,
                    records_max=0,
                    widths=widths,
                )
                print_scale(committed[key])
        if args.ask:
            committed["ask_demo"] = ask_demo(args.data)
        results_path.write_text(json.dumps(committed, indent=2, ensure_ascii=False) + "\n")
        print(f"merged into {results_path} in {time.perf_counter() - started:.0f} s")
        return 0
    if args.floor:
        committed["rerank_floor"] = rerank_floor_bench(args.data)
        print_floor(committed["rerank_floor"])
        results_path.write_text(json.dumps(committed, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote rerank_floor into {results_path}")
        return 0
    units, counts = source_units(args.data)
    queries = bench_queries(args.data)
    measured = quality(args.data)
    results: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": __import__("os").cpu_count(),
        },
        "quality": measured,
        "quality_against_committed": quality_against(committed.get("quality", {}), measured),
        "scale": scale(SIZES[:1] if args.quick else SIZES, units, counts, queries),
        "tenants": tenants(units, queries, NEIGHBOUR_CHUNKS["quick" if args.quick else "full"]),
        "rerank_floor": rerank_floor_bench(args.data),
    }
    for kept in (  # their own runs
        "scale_million",
        "scale_million_equal_length",
        "ask_demo",
        "ingest_before_after",
    ):
        if kept in committed:
            results[kept] = committed[kept]
    results["runtime_s"] = round(time.perf_counter() - started, 1)
    print_table(results)
    print_floor(results["rerank_floor"])
    if not args.quick:
        results_path.parent.mkdir(parents=True, exist_ok=True)
        results_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {results_path} in {results['runtime_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
