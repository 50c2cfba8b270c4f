"""The embedded ``SearchIndex``: one SQLite file, FTS5 (BM25) over analyzed text plus sqlite-vec.

Why apsw: Python's own ``sqlite3`` here is built without ``enable_load_extension``, so it cannot
load sqlite-vec; apsw bundles a current SQLite (FTS5, ``contentless_delete``) and loads extensions.

Layout (see docs/retrieval.md):

- ``documents`` — one row per (tenant, document): the ``Document`` as JSON plus the columns scopes
  filter on (``content_hash``, ``batch_id``, ``selections``).
- ``chunks`` — every ``Chunk`` field as a column (identity and selections as JSON, the embedding
  as a float32 blob); ``stale`` marks the previous version during a replace.
- ``chunk_fts`` — contentless FTS5 over the *analyzed* token stream (stemmed for the chunk's
  language, then folded: see ``tanda.retrieval.analysis``); its rowid is ``chunks.id``.
- ``chunk_vec`` — sqlite-vec ``vec0`` (cosine) partitioned by tenant, created with the first
  embedding; its rowid is ``chunks.id``.

SQL text is assembled only from constant fragments and ``?`` placeholders (hence the
``noqa: S608``); every value is bound. Every read goes through :func:`scope_filter`, which puts
the tenant, the scope and ``stale = 0`` into the SQL itself (ASK-02): no caller can forget the
tenant. The lexical arm prunes with MaxScore when the query's terms have many postings and still
returns exactly the plain query's ranking (see ``SqliteSearchIndex._lexical``).
"""

from __future__ import annotations

import json
import math
import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import apsw
import sqlite_vec

from tanda.adapters.connection_pool import ConnectionPool, leased_per_call
from tanda.retrieval import analysis
from tanda.retrieval.analysis import Lang, guess_lang, normalize_lang, query_terms
from tanda.retrieval.fusion import FusionConfig, reciprocal_rank_fusion
from tanda.retrieval.model import (
    Chunk,
    Document,
    IngestOutcome,
    LegalIdentity,
    SearchHit,
    SearchQuery,
    SearchScope,
)

CANDIDATE_POOL: Final = 100
"""Candidates each arm hands to fusion when more than one arm runs."""

PRUNE_MIN_POSTINGS: Final = 2_000
"""Below this many postings (summed document frequency of the query's terms) the plain FTS5
query is cheap enough; above it the lexical arm scores the rare terms' documents first."""

_BM25_K1: Final = 1.2
"""FTS5's ``bm25()`` k1: a term adds at most ``idf × (k1 + 1)`` to a document's score."""
_STATS_CACHE_TERMS: Final = 50_000

_DEFAULT_FUSION: Final = FusionConfig()
_BUSY_TIMEOUT_MS: Final = 10_000
_FTS_TOKENIZER: Final = "unicode61 remove_diacritics 0 tokenchars '.,/:-'"
"""The token stream is analyzed in Python; FTS5 only splits on spaces. ``tokenchars`` keeps
numbers such as ``10.723,82`` and ``27/2022`` whole, as the analyzer emits them."""

_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS documents (
    tenant_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    batch_id TEXT,
    selections TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, document_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS documents_batch ON documents (tenant_id, batch_id);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    title TEXT NOT NULL,
    identity TEXT NOT NULL,
    page_no INTEGER,
    section TEXT,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    batch_id TEXT,
    selections TEXT NOT NULL,
    lang TEXT,
    embedding BLOB,
    stale INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS chunks_live_id ON chunks (tenant_id, chunk_id) WHERE stale = 0;
CREATE INDEX IF NOT EXISTS chunks_document ON chunks (tenant_id, document_id, ordinal);
CREATE INDEX IF NOT EXISTS chunks_batch ON chunks (tenant_id, batch_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(
    terms, content='', contentless_delete=1, tokenize="{_FTS_TOKENIZER}"
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_VOCAB: Final = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_vocab USING fts5vocab(main, chunk_fts, row)"
)
"""Per connection (temp schema): document frequency per term, straight from the FTS5 index
(deleted rows excluded), so the file's schema does not change."""

_CHUNK_COLUMNS: Final = (
    "c.chunk_id, c.document_id, c.tenant_id, c.ordinal, c.title, c.identity, c.page_no, "
    "c.section, c.kind, c.text, c.batch_id, c.selections, c.lang, c.embedding"
)


@dataclass(frozen=True, slots=True)
class SqlFilter:
    """A WHERE fragment and its positional parameters."""

    sql: str
    params: tuple[Any, ...]


def scope_filter(scope: SearchScope, alias: str = "c") -> SqlFilter:
    """The chunk filter for ``scope``: tenant always, live rows only, then the narrowing parts.

    An empty ``document_ids`` tuple is a scope with nothing in it, not "everything".
    """
    clauses = [f"{alias}.tenant_id = ?", f"{alias}.stale = 0"]
    params: list[Any] = [scope.tenant_id]
    clauses.extend(_narrowing(scope, alias, params))
    return SqlFilter(" AND ".join(clauses), tuple(params))


def document_filter(scope: SearchScope, alias: str = "d") -> SqlFilter:
    """The document filter for ``scope`` (same rules as :func:`scope_filter`)."""
    clauses = [f"{alias}.tenant_id = ?"]
    params: list[Any] = [scope.tenant_id]
    clauses.extend(_narrowing(scope, alias, params))
    return SqlFilter(" AND ".join(clauses), tuple(params))


def _narrowing(scope: SearchScope, alias: str, params: list[Any]) -> list[str]:
    clauses: list[str] = []
    if scope.document_ids is not None:
        if scope.document_ids:
            marks = ", ".join("?" for _ in scope.document_ids)
            clauses.append(f"{alias}.document_id IN ({marks})")
            params.extend(scope.document_ids)
        else:
            clauses.append("0")
    if scope.batch_id is not None:
        clauses.append(f"{alias}.batch_id = ?")
        params.append(scope.batch_id)
    if scope.selection is not None:
        selections = f"SELECT 1 FROM json_each({alias}.selections) WHERE value = ?"  # noqa: S608
        clauses.append(f"EXISTS ({selections})")
        params.append(scope.selection)
    return clauses


def fts_match(terms: Sequence[str]) -> str:
    """An FTS5 query: any of the terms (BM25 ranks documents with more and rarer terms higher)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def _f32(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


@leased_per_call("_connections")
class SqliteSearchIndex:
    """``SearchIndex`` over one SQLite file (WAL). Safe to share between threads: each public
    call leases a pooled connection; writers take one lock so transactions never interleave."""

    def __init__(
        self,
        path: Path,
        *,
        fusion: FusionConfig = _DEFAULT_FUSION,
        candidate_pool: int = CANDIDATE_POOL,
        prune: bool = True,
    ) -> None:
        self.path = Path(path)
        self.fusion = fusion
        self.candidate_pool = candidate_pool
        self.prune = prune
        self._stats: _TermStats | None = None
        self._write_lock = threading.Lock()
        self._connections = ConnectionPool(self._connect, apsw.Connection.close)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._write_lock, self._connections.lease() as conn:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(_SCHEMA)

    # -- connections -----------------------------------------------------------------------

    def _connect(self) -> apsw.Connection:
        conn = apsw.Connection(str(self.path))
        conn.set_busy_timeout(_BUSY_TIMEOUT_MS)
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(_VOCAB)
        return conn

    def _conn(self) -> apsw.Connection:
        """The connection the running public call leased (issue 11: see ``leased_per_call``)."""
        return self._connections.current()

    @property
    def idle_connections(self) -> int:
        return self._connections.idle

    @property
    def max_idle_connections(self) -> int:
        return self._connections.max_idle

    def close(self) -> None:
        """Close every connection this index opened (in any thread); a later call reopens."""
        self._connections.close()

    @contextmanager
    def _transaction(self) -> Iterator[apsw.Connection]:
        with self._write_lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # -- writes ----------------------------------------------------------------------------

    def upsert_document(self, document: Document, chunks: Sequence[Chunk]) -> IngestOutcome:
        """One transaction: same hash → unchanged; else old chunks stale → new ones in → stale
        ones out → commit. Any failure rolls back, so the previous version stays searchable."""
        for chunk in chunks:
            if (chunk.tenant_id, chunk.document_id) != (document.tenant_id, document.document_id):
                raise ValueError(
                    f"chunk {chunk.chunk_id!r} belongs to {chunk.tenant_id}/{chunk.document_id}, "
                    f"not {document.tenant_id}/{document.document_id}"
                )
        key = (document.tenant_id, document.document_id)
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT content_hash FROM documents WHERE tenant_id = ? AND document_id = ?", key
            ).fetchone()
            if row is not None and row[0] == document.content_hash:
                live = conn.execute(
                    "SELECT count(*) FROM chunks WHERE tenant_id = ? AND document_id = ? "
                    "AND stale = 0",
                    key,
                ).fetchall()
                return IngestOutcome(
                    document_id=document.document_id, status="unchanged", chunks=_as_int(live[0][0])
                )
            conn.execute("UPDATE chunks SET stale = 1 WHERE tenant_id = ? AND document_id = ?", key)
            guessed: list[Lang] = []

            def document_lang() -> Lang:  # guessed once per document, only if needed
                if not guessed:
                    sample = " ".join(c.text for c in chunks[:8])[:4000]
                    guessed.append(guess_lang(f"{document.title} {sample}"))
                return guessed[0]

            for chunk in chunks:
                self._insert_chunk(conn, chunk, document, document_lang)
            stale = "SELECT id FROM chunks WHERE tenant_id = ? AND document_id = ? AND stale = 1"
            conn.execute(f"DELETE FROM chunk_fts WHERE rowid IN ({stale})", key)  # noqa: S608
            if self._vector_dimensions(conn) is not None:
                conn.execute(f"DELETE FROM chunk_vec WHERE rowid IN ({stale})", key)  # noqa: S608
            conn.execute(
                "DELETE FROM chunks WHERE tenant_id = ? AND document_id = ? AND stale = 1", key
            )
            conn.execute(  # a new generation: cached term statistics are out of date
                "INSERT INTO settings (name, value) VALUES ('generation', 1) ON CONFLICT (name) "
                "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
            )
            conn.execute(
                "INSERT INTO documents (tenant_id, document_id, content_hash, batch_id, "
                "selections, body) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (tenant_id, document_id) DO UPDATE SET "
                "content_hash = excluded.content_hash, batch_id = excluded.batch_id, "
                "selections = excluded.selections, body = excluded.body",
                (
                    *key,
                    document.content_hash,
                    document.batch_id,
                    json.dumps(list(document.selections)),
                    document.model_dump_json(),
                ),
            )
        return IngestOutcome(
            document_id=document.document_id,
            status="added" if row is None else "replaced",
            chunks=len(chunks),
        )

    def _insert_chunk(
        self,
        conn: apsw.Connection,
        chunk: Chunk,
        document: Document,
        document_lang: Callable[[], Lang],
    ) -> None:
        lang = normalize_lang(chunk.lang) or normalize_lang(document.lang) or document_lang()
        embedding = _f32(chunk.embedding) if chunk.embedding is not None else None
        conn.execute(
            "INSERT INTO chunks (tenant_id, document_id, chunk_id, ordinal, title, identity, "
            "page_no, section, kind, text, batch_id, selections, lang, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chunk.tenant_id,
                chunk.document_id,
                chunk.chunk_id,
                chunk.ordinal,
                chunk.title,
                chunk.identity.model_dump_json(exclude_none=True),
                chunk.page_no,
                chunk.section,
                chunk.kind,
                chunk.text,
                chunk.batch_id,
                json.dumps(list(chunk.selections)),
                chunk.lang,
                embedding,
            ),
        )
        rowid = conn.last_insert_rowid()
        analyzed = " ".join(
            analysis.index_terms(
                " \n".join(filter(None, (chunk.title, chunk.section, chunk.text))), lang
            )
        )
        conn.execute("INSERT INTO chunk_fts (rowid, terms) VALUES (?, ?)", (rowid, analyzed))
        if chunk.embedding is not None:
            self._ensure_vector_table(conn, len(chunk.embedding))
            conn.execute(
                "INSERT INTO chunk_vec (rowid, tenant_id, embedding) VALUES (?, ?, ?)",
                (rowid, chunk.tenant_id, embedding),
            )

    def _vector_dimensions(self, conn: apsw.Connection) -> int | None:
        row = conn.execute("SELECT value FROM settings WHERE name = 'vector_dimensions'").fetchone()
        return None if row is None else int(row[0])

    def _ensure_vector_table(self, conn: apsw.Connection, dimensions: int) -> None:
        known = self._vector_dimensions(conn)
        if known == dimensions:
            return
        if known is not None:
            raise ValueError(
                f"embedding has {dimensions} dimensions; this index holds {known}-dimension "
                "vectors (one embedder per index)"
            )
        conn.execute(
            "CREATE VIRTUAL TABLE chunk_vec USING vec0("
            f"tenant_id TEXT PARTITION KEY, embedding float[{dimensions}] distance_metric=cosine)"
        )
        conn.execute(
            "INSERT INTO settings (name, value) VALUES ('vector_dimensions', ?)", (dimensions,)
        )

    # -- reads -----------------------------------------------------------------------------

    def search(self, query: SearchQuery) -> list[SearchHit]:
        conn = self._conn()
        lang = normalize_lang(query.lang) or guess_lang(query.text)
        rankings: dict[str, list[str]] = {}
        ids: dict[str, int] = {}
        vector_on = query.vector is not None and self._vector_dimensions(conn) is not None
        pool = self.candidate_pool if vector_on else query.top_k
        terms = query_terms(query.text, lang)
        if terms:
            rankings["lexical"] = self._lexical(conn, terms, query.scope, pool, ids)
        if vector_on and query.vector is not None:
            rankings["vector"] = self._vector(conn, query.vector, query.scope, pool, ids)
        fused = reciprocal_rank_fusion(rankings, self.fusion)[: query.top_k]
        if not fused:
            return []
        by_id = self._load_chunks(conn, [ids[f.id] for f in fused])
        return [
            SearchHit(
                chunk=by_id[ids[f.id]],
                score=f.score,
                lexical_rank=f.ranks.get("lexical"),
                vector_rank=f.ranks.get("vector"),
            )
            for f in fused
        ]

    def _lexical(
        self,
        conn: apsw.Connection,
        terms: Sequence[str],
        scope: SearchScope,
        limit: int,
        ids: dict[str, int],
    ) -> list[str]:
        """The ``limit`` best chunks by FTS5 ``bm25()`` over all ``terms`` — exactly.

        FTS5 scores every row that holds any query term, so a common term's long posting list
        sets the cost. With many postings this runs MaxScore instead (same results):

        1. order the terms by document frequency (rarest first) and split them into *essential*
           (the rarest prefix) and *rest*; a document holding only rest terms scores at most
           ``Σ idf(t) × (k1 + 1)`` over the rest (BM25's saturation bound);
        2. score only the in-scope documents holding an essential term — with the full BM25:
           ``essential OR …`` for all of them, ``(essential) AND (rest)`` for those also holding
           a rest term (each phrase once, so each sum is the full-query score);
        3. if the ``limit``-th score beats the rest's bound, no other document can enter: done.
           Otherwise move more terms into the essential set (up to all: the plain query).
        """
        where = scope_filter(scope)
        with conn:  # one read snapshot for the statistics and the queries
            plan = self._pruning_plan(conn, terms) if self.prune else None
            essential, kth = 1, 0.0
            while plan is not None and (essential := plan.split(essential, kth, limit)):
                best, kth = self._pool(conn, plan.order, essential, where, limit)
                if len(best) >= limit and kth > plan.rest_bound(essential):
                    return _ranked(best, ids)
                essential += 1
            rows = conn.execute(
                "SELECT c.id, c.chunk_id FROM chunk_fts "  # noqa: S608
                "JOIN chunks c ON c.id = chunk_fts.rowid "
                f"WHERE chunk_fts MATCH ? AND {where.sql} "
                "ORDER BY bm25(chunk_fts), c.chunk_id LIMIT ?",
                (fts_match(terms), *where.params, limit),
            ).fetchall()
        return _ranked(rows, ids)

    def _pruning_plan(self, conn: apsw.Connection, terms: Sequence[str]) -> _Plan | None:
        """The query's indexed terms, rarest first, with their score bounds; ``None`` when the
        plain query is cheap (few postings) or there is nothing to split."""
        rows, df = self._term_stats(conn, terms)
        present = [t for t in dict.fromkeys(terms) if df.get(t, 0) > 0]
        order = sorted(present, key=lambda t: (df[t], t))
        postings = [df[t] for t in order]
        if len(order) < 2 or sum(postings) < PRUNE_MIN_POSTINGS:
            return None
        bounds = [(_BM25_K1 + 1) * _idf(rows, n) for n in postings]
        return _Plan(order, postings, bounds)

    def _pool(
        self,
        conn: apsw.Connection,
        order: Sequence[str],
        essential: int,
        where: SqlFilter,
        limit: int,
    ) -> tuple[list[tuple[int, str]], float]:
        """Top ``limit`` (rowid, chunk_id) among in-scope chunks holding an essential term,
        by full BM25, and the ``limit``-th score (``0`` when fewer)."""
        head = fts_match(order[:essential])
        pool: list[tuple[int, str, float]] = conn.execute(  # type: ignore[assignment]
            "SELECT c.id, c.chunk_id, bm25(chunk_fts) FROM chunk_fts "  # noqa: S608
            "JOIN chunks c ON c.id = chunk_fts.rowid "
            f"WHERE chunk_fts MATCH ? AND {where.sql}",
            (head, *where.params),
        ).fetchall()
        if not pool:
            return [], 0.0
        full: dict[int, float] = dict(
            conn.execute(  # type: ignore[arg-type]
                "SELECT rowid, bm25(chunk_fts) FROM chunk_fts WHERE chunk_fts MATCH ?",
                (f"({head}) AND ({fts_match(order[essential:])})",),
            ).fetchall()
        )
        scored = sorted(
            (full.get(rowid, score), chunk_id, rowid) for rowid, chunk_id, score in pool
        )
        best = [(rowid, chunk_id) for _, chunk_id, rowid in scored[:limit]]
        kth = -scored[limit - 1][0] if len(scored) >= limit else 0.0  # bm25() is negated
        return best, kth

    def _term_stats(
        self, conn: apsw.Connection, terms: Sequence[str]
    ) -> tuple[int, dict[str, int]]:
        """Row count and document frequencies, cached until the next write (the ``generation``
        setting, bumped by every upsert that changes the index — in any process)."""
        row = conn.execute("SELECT value FROM settings WHERE name = 'generation'").fetchone()
        generation = 0 if row is None else int(row[0])
        stats = self._stats
        if stats is None or stats.generation != generation or len(stats.df) > _STATS_CACHE_TERMS:
            rows = _as_int(conn.execute("SELECT count(*) FROM chunks").fetchall()[0][0])
            stats = self._stats = _TermStats(generation, rows, {})
        missing = [t for t in dict.fromkeys(terms) if t not in stats.df]
        if missing:
            marks = ", ".join("?" for _ in missing)
            found: dict[str, int] = dict(
                conn.execute(  # type: ignore[arg-type]
                    f"SELECT term, doc FROM temp.chunk_vocab WHERE term IN ({marks})",  # noqa: S608
                    tuple(missing),
                ).fetchall()
            )
            stats.df.update({t: _as_int(found.get(t, 0)) for t in missing})
        return stats.rows, stats.df

    def _vector(
        self,
        conn: apsw.Connection,
        vector: Sequence[float],
        scope: SearchScope,
        limit: int,
        ids: dict[str, int],
    ) -> list[str]:
        dimensions = self._vector_dimensions(conn)
        if dimensions != len(vector):
            raise ValueError(
                f"query vector has {len(vector)} dimensions; the index holds {dimensions}"
            )
        where = scope_filter(scope)
        blob = _f32(vector)
        narrowed = scope.document_ids is not None or scope.batch_id or scope.selection
        if narrowed:
            # A narrow scope is small: exact distances over just its rows (a tenant-wide k-NN
            # followed by a filter could miss a small scope entirely).
            sql = (
                "SELECT c.id, c.chunk_id FROM chunks c "  # noqa: S608
                f"WHERE c.embedding IS NOT NULL AND {where.sql} "
                "ORDER BY vec_distance_cosine(c.embedding, ?), c.chunk_id LIMIT ?"
            )
            params: tuple[Any, ...] = (*where.params, blob, limit)
        else:
            sql = (
                "SELECT c.id, c.chunk_id FROM ("  # noqa: S608
                "  SELECT rowid, distance FROM chunk_vec"
                "  WHERE embedding MATCH ? AND k = ? AND tenant_id = ?"
                f") v JOIN chunks c ON c.id = v.rowid WHERE {where.sql} "
                "ORDER BY v.distance, c.chunk_id"
            )
            params = (blob, limit, scope.tenant_id, *where.params)
        return _ranked(conn.execute(sql, params).fetchall(), ids)

    def _load_chunks(self, conn: apsw.Connection, rowids: Sequence[int]) -> dict[int, Chunk]:
        marks = ", ".join("?" for _ in rowids)
        rows = conn.execute(
            f"SELECT c.id, {_CHUNK_COLUMNS} FROM chunks c WHERE c.id IN ({marks})",  # noqa: S608
            tuple(rowids),
        ).fetchall()
        return {_as_int(row[0]): _chunk(row[1:]) for row in rows}

    def chunks(self, scope: SearchScope, chunk_ids: Sequence[str]) -> list[Chunk]:
        if not chunk_ids:
            return []
        where = scope_filter(scope)
        marks = ", ".join("?" for _ in chunk_ids)
        rows = self._conn().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c "  # noqa: S608
            f"WHERE c.chunk_id IN ({marks}) AND {where.sql} "
            "ORDER BY c.document_id, c.ordinal, c.chunk_id",
            (*chunk_ids, *where.params),
        )
        by_id = {chunk.chunk_id: chunk for chunk in map(_chunk, rows)}
        return [by_id[cid] for cid in dict.fromkeys(chunk_ids) if cid in by_id]

    def document_chunks(self, scope: SearchScope, document_id: str) -> list[Chunk]:
        where = scope_filter(scope)
        rows = self._conn().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c "  # noqa: S608
            f"WHERE c.document_id = ? AND {where.sql} "
            "ORDER BY c.ordinal, c.chunk_id",
            (document_id, *where.params),
        )
        return [_chunk(row) for row in rows]

    def documents(self, scope: SearchScope) -> list[Document]:
        where = document_filter(scope)
        rows = self._conn().execute(
            f"SELECT d.body FROM documents d WHERE {where.sql} "  # noqa: S608
            "ORDER BY d.document_id",
            where.params,
        )
        return [Document.model_validate_json(body) for (body,) in rows]


@dataclass(frozen=True, slots=True)
class _Plan:
    """A MaxScore plan: terms rarest first, their document frequencies and score bounds."""

    order: list[str]
    postings: list[int]
    bounds: list[float]

    def rest_bound(self, essential: int) -> float:
        """The most a chunk holding none of the first ``essential`` terms can score."""
        return sum(self.bounds[essential:])

    def split(self, essential: int, kth: float, limit: int) -> int:
        """The next number of essential terms worth trying from ``essential`` on, or ``0``
        for "run the plain query". Skipped: splits whose pool holds fewer than ``limit``
        chunks (at most the summed frequencies) or whose rest bound the current ``limit``-th
        score cannot beat (that score only grows with the pool); abandoned: pools holding
        more than half the postings (the plain query then costs about the same)."""
        n = len(self.order)
        while essential < n and (
            sum(self.postings[:essential]) < limit or self.rest_bound(essential) >= kth > 0
        ):
            essential += 1
        if essential >= n or 2 * sum(self.postings[:essential]) > sum(self.postings):
            return 0
        return essential


@dataclass(slots=True)
class _TermStats:
    generation: int
    rows: int
    df: dict[str, int]


def _idf(rows: int, df: int) -> float:
    """FTS5 ``bm25()``'s IDF: ``log((N - n + 0.5) / (n + 0.5))``, floored at 1e-6."""
    return max(math.log((rows - df + 0.5) / (df + 0.5)), 1e-6)


def _as_int(value: Any) -> int:
    return int(value)


def _ranked(rows: Sequence[Sequence[Any]], ids: dict[str, int]) -> list[str]:
    ranked: list[str] = []
    for rowid, chunk_id in rows:
        ids[chunk_id] = int(rowid)
        ranked.append(chunk_id)
    return ranked


def _chunk(row: Sequence[Any]) -> Chunk:
    (
        chunk_id,
        document_id,
        tenant_id,
        ordinal,
        title,
        identity,
        page_no,
        section,
        kind,
        text,
        batch_id,
        selections,
        lang,
        embedding,
    ) = row
    return Chunk(
        chunk_id=chunk_id,
        document_id=document_id,
        tenant_id=tenant_id,
        ordinal=ordinal,
        title=title,
        identity=LegalIdentity.model_validate_json(identity),
        page_no=page_no,
        section=section,
        kind=kind,
        text=text,
        batch_id=batch_id,
        selections=tuple(json.loads(selections)),
        lang=lang,
        embedding=None if embedding is None else tuple(array("f", embedding)),
    )
