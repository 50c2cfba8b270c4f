"""The embedded ``SearchIndex``: one SQLite file, FTS5 (BM25) over analyzed text plus sqlite-vec.

Why apsw: Python's own ``sqlite3`` here is built without ``enable_load_extension``, so it cannot
load sqlite-vec; apsw bundles a current SQLite (FTS5, ``contentless_delete``) and loads extensions.

Layout (see docs/retrieval.md):

- ``documents`` — one row per (tenant, document): the ``Document`` as JSON plus the columns scopes
  filter on (``content_hash``, ``batch_id``, ``selections``).
- ``chunks`` — every ``Chunk`` field as a column (identity and selections as JSON, the embedding
  as a float32 blob); ``stale`` marks the previous version during a replace.
- ``tenant_fts`` — one row per tenant: the number ``N`` of its FTS5 table ``chunk_fts_N`` and
  a ``generation`` every write to that tenant bumps (term statistics are cached per generation).
- ``chunk_fts_N`` — the tenant's contentless FTS5 table over the *analyzed* token stream (stemmed
  for the chunk's language, then folded: see ``tanda.retrieval.analysis``); its rowid is
  ``chunks.id``. One table per tenant, so a query walks only its tenant's postings and BM25's
  statistics (row count, document frequency, average length) are its tenant's (issue 11).
- ``chunk_vec`` — sqlite-vec ``vec0`` (cosine) partitioned by tenant, created with the first
  embedding; its rowid is ``chunks.id``.
- ``records`` — the document's structure records (ASK-14): one row per (tenant, node), the columns
  reads filter on (kind, chunk, parent, scope, order; a definition's ``term_keys``, issue 22) and
  the rest of the record as JSON (the columns are not repeated in it: a rescope updates them
  alone). Written, replaced and rescoped in the same transaction as the document's chunks.
  ``term_keys`` is the JSON list of a definition's keys (its term's and its aliases'), ``NULL``
  for every other record; a lookup by term reads only the tenant's definitions, in document
  order, through a partial index over them (``records_terms``), and matches their keys. A file
  written before the column has it added when opened (``_migrate_record_terms``).

SQL text is assembled only from constant fragments and ``?`` placeholders (hence the
``noqa: S608``); every value is bound. Every read goes through :func:`scope_filter`, which puts
the tenant, the scope and ``stale = 0`` into the SQL itself (ASK-02): no caller can forget the
tenant; the lexical arm also reads only the tenant's own FTS5 table. It prunes with MaxScore when
the query's terms have many postings and still returns exactly the plain query's ranking (see
``SqliteSearchIndex._lexical``). A file written before issue 11 (one ``chunk_fts`` for every
tenant) is migrated when opened: see ``SqliteSearchIndex._migrate_shared_fts``.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import math
import secrets
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import apsw
import sqlite_vec

from tanda.adapters.connection_pool import ConnectionPool, PooledConnections, leased_per_call
from tanda.adapters.private_files import private_database
from tanda.lang import DEFAULT_TEXT_LANG as DEFAULT_LANG
from tanda.lang import Lang, guess_lang, normalize_lang
from tanda.records.documents import (
    Chunk,
    Document,
    DocumentErasure,
    IngestOutcome,
    LegalIdentity,
    SearchHit,
    SearchQuery,
    SearchScope,
    keeps_version,
    scope_key,
)
from tanda.records.structure import STRUCTURE_RECORD, RecordQuery, StructureRecord
from tanda.retrieval import analysis
from tanda.retrieval.analysis import query_terms
from tanda.retrieval.equivalents import search_text
from tanda.retrieval.fusion import FusionConfig, reciprocal_rank_fusion
from tanda.retrieval.spelling import corrected, walked_neighbours

if TYPE_CHECKING:
    from tanda.adapters.tantivy_lexicon import LexicalEntry, TantivyLexicon

CANDIDATE_POOL: Final = 100
"""Candidates each arm hands to fusion when more than one arm runs."""

PRUNE_MIN_POSTINGS: Final = 2_000
"""Below this many postings (summed document frequency of the query's terms) the plain FTS5
query is cheap enough; above it the lexical arm scores the rare terms' documents first."""

_BM25_K1: Final = 1.2
"""FTS5's ``bm25()`` k1: a term adds at most ``idf × (k1 + 1)`` to a document's score."""
_STATS_CACHE_TERMS: Final = 50_000
_STATS_CACHE_TENANTS: Final = 256

LexicalEngine = Literal["tantivy", "sqlite"]
LEXICAL_ENGINES: Final[tuple[LexicalEngine, ...]] = ("tantivy", "sqlite")
"""Which engine holds the lexical arm (``TANDA_LEXICAL_ENGINE``): tantivy (one index per tenant
beside the file, issue 28) or FTS5 (one table per tenant inside it)."""
_TANTIVY_LAYOUT: Final = "tantivy/identity"
"""The ``lexical_engine`` setting of a file on tantivy whose indexes hold a chunk's title in a
field of its own (issue 22); a file marked ``tantivy`` (the layout before) is indexed again
when opened."""

FLUSH_CHUNKS: Final = 20_000
FLUSH_SECONDS: Final = 1.0
"""With tantivy, committed chunks wait in the journal (``lexical_pending``, ``lexical_runs``)
until this many are pending or the first of them waited this long (checked at the next upsert), a
search needs them, or the index is closed: one tantivy commit (an fsync, ~30 ms) per batch of
documents instead of one per document."""
READER_FLUSH_MAX: Final = 2_000
"""A search flushes its tenant's pending chunks itself when at most this many wait (a write of
another index object or process is then seen at once); more — a bulk ingest in flight — are left
to the writer's next batch, so a search never stalls on another's ingest."""

TIE_SLACK: Final = 8
"""tantivy's top k is cut at a score; a few more hits let ties at the cut break by chunk id."""

_READ_BACK: Final = 2_000
"""Journal rows read back per statement when a flush analyzes chunks itself."""

_PURGE: Final = -1
"""A ``lexical_pending`` row with this rowid (no chunk has it) asks the next flush to rebuild the
tenant's tantivy index from its live chunks (an erasure, issue 26): tantivy only marks a deleted
document, its terms stay in the segment until a merge, so the segments go and the live chunks
are indexed again. Journaled with the erasure's transaction, so a crash before the rebuild is
repaired by the next flush."""

PROGRESS_MIN_CHUNKS: Final = 10_000
"""A (re)index of at least this many chunks shows a progress bar (on a terminal)."""

_DEFAULT_FUSION: Final = FusionConfig()
_BUSY_TIMEOUT_MS: Final = 10_000
_FTS_TOKENIZER: Final = "unicode61 remove_diacritics 0 tokenchars '.,/:-'"
"""The token stream is analyzed in Python; FTS5 only splits on spaces. ``tokenchars`` keeps
numbers such as ``10.723,82`` and ``27/2022`` whole, as the analyzer emits them."""

_SCHEMA: Final = """
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
CREATE TABLE IF NOT EXISTS tenant_fts (
    id INTEGER PRIMARY KEY,
    tenant_id TEXT NOT NULL UNIQUE,
    generation INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lexical_pending (
    tenant_id TEXT NOT NULL,
    chunk_rowid INTEGER NOT NULL,
    nonce INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, chunk_rowid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lexical_runs (
    tenant_id TEXT NOT NULL,
    first_rowid INTEGER NOT NULL,
    last_rowid INTEGER NOT NULL,
    nonce INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, first_rowid, nonce)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    node_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    chunk_id TEXT NOT NULL,
    parent_id TEXT,
    batch_id TEXT,
    selections TEXT NOT NULL,
    body TEXT NOT NULL,
    term_keys TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS records_node ON records (tenant_id, node_id);
CREATE INDEX IF NOT EXISTS records_document ON records (tenant_id, document_id, ordinal);
CREATE INDEX IF NOT EXISTS records_chunk ON records (chunk_id);
CREATE INDEX IF NOT EXISTS records_parent ON records (parent_id) WHERE parent_id IS NOT NULL;
"""
_RECORD_TERMS_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS records_terms ON records (tenant_id, document_id, ordinal) "
    "WHERE term_keys IS NOT NULL"
)
"""The tenant's definitions in document order (issue 22): a lookup by term walks these rows only,
not every record of the tenant. Created after ``_migrate_record_terms``, since a file written
before it has no ``term_keys`` column to index yet."""
_SHARED_FTS: Final = "chunk_fts"
"""The one FTS5 table of every tenant in files written before issue 11 (migrated away)."""

_CHUNK_COLUMNS: Final = (
    "c.chunk_id, c.document_id, c.tenant_id, c.ordinal, c.title, c.identity, c.page_no, "
    "c.section, c.kind, c.text, c.batch_id, c.selections, c.lang, c.embedding"
)
"""The one column list a chunk row is read by (:func:`_chunk` reads it into a ``Chunk``)."""
_CHUNK_COLUMNS_UNEMBEDDED: Final = _CHUNK_COLUMNS.replace("c.embedding", "NULL")
"""The same list with the embedding left unread, for the re-indexes: analysis never needs it and
a large file's embeddings are most of its bytes."""


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


def record_filter(query: RecordQuery, alias: str = "r") -> SqlFilter:
    """The record filter for ``query``: tenant and scope as for documents, then each narrowing
    the query names (an empty tuple matches nothing)."""
    clauses = [f"{alias}.tenant_id = ?"]
    params: list[Any] = [query.scope.tenant_id]
    clauses.extend(_narrowing(query.scope, alias, params))
    for values, column in (
        (query.kinds, "kind"),
        (query.node_ids, "node_id"),
        (query.chunk_ids, "chunk_id"),
        (query.parent_ids, "parent_id"),
    ):
        if values is None:
            continue
        if not values:
            clauses.append("0")
            continue
        clauses.append(f"{alias}.{column} IN ({', '.join('?' for _ in values)})")
        params.extend(values)
    if query.terms is not None:
        if not query.terms:
            clauses.append("0")
        else:
            # `term_keys IS NOT NULL` lets the planner take the partial index over the tenant's
            # definitions (`records_terms`); one of the record's keys must be one asked for.
            marks = _marks(len(query.terms))
            keys = f"SELECT 1 FROM json_each({alias}.term_keys) WHERE value IN ({marks})"  # noqa: S608
            clauses.append(f"{alias}.term_keys IS NOT NULL AND EXISTS ({keys})")
            params.extend(query.terms)
    return SqlFilter(" AND ".join(clauses), tuple(params))


def _narrowing(scope: SearchScope, alias: str, params: list[Any]) -> list[str]:
    clauses: list[str] = []
    if scope.document_ids is not None:
        if scope.document_ids:
            marks = _marks(len(scope.document_ids))
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


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def fts_match(terms: Sequence[str]) -> str:
    """An FTS5 query: any of the terms (BM25 ranks documents with more and rarer terms higher)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


@functools.lru_cache(maxsize=1024)
def _json_list(values: tuple[str, ...]) -> str:
    """``json.dumps(list(values))``, memoised: every chunk and record of a document carries the
    same selections, and an ingest writes thousands of them (issue 28)."""
    return json.dumps(list(values))


def _identities(chunks: Sequence[Chunk]) -> list[str]:
    """Each chunk's identity as stored (JSON, ``None`` fields left out), serialised once per run
    of chunks sharing one identity object (an ingested document's chunks share its identity:
    issue 28), by pydantic's serializer itself (``model_dump_json``'s Python wrapper costs as
    much again)."""
    stored: list[str] = []
    last: LegalIdentity | None = None
    text = ""
    for chunk in chunks:
        identity = chunk.identity
        if identity is not last:
            text = identity.__pydantic_serializer__.to_json(identity, exclude_none=True).decode()
            last = identity
        stored.append(text)
    return stored


def _f32(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


@leased_per_call("_connections")
class SqliteSearchIndex(PooledConnections[apsw.Connection]):
    """``SearchIndex`` over one SQLite file (WAL). Safe to share between threads: each public
    call leases a pooled connection; writers take one lock so transactions never interleave."""

    def __init__(
        self,
        path: Path,
        *,
        fusion: FusionConfig = _DEFAULT_FUSION,
        candidate_pool: int = CANDIDATE_POOL,
        prune: bool = True,
        clock: Callable[[], str] = utc_now_iso,
        lexical: LexicalEngine = "tantivy",
        flush_chunks: int = FLUSH_CHUNKS,
        progress: bool = True,
    ) -> None:
        if lexical not in LEXICAL_ENGINES:
            raise ValueError(f"unknown lexical engine {lexical!r} ({' | '.join(LEXICAL_ENGINES)})")
        self.path = Path(path)
        self._clock = clock
        self.fusion = fusion
        self.candidate_pool = candidate_pool
        self.prune = prune
        self.lexical: LexicalEngine = lexical
        self.flush_chunks = flush_chunks
        self._progress = progress
        self._stats: dict[int, _TermStats] = {}  # by tenant_fts.id
        self._write_lock = threading.Lock()
        # What tantivy is to hold of chunks this process wrote and tantivy does not hold yet,
        # by (first rowid, nonce) of their `lexical_runs` row: a flush by this process need
        # neither read them back nor analyze them again.
        self._pending_runs: dict[tuple[int, int], list[LexicalEntry]] = {}
        self._pending_count = 0  # the entries in _pending_runs
        self._oldest_pending = 0.0  # time.monotonic() of the first write not flushed yet
        self._connections = ConnectionPool(self._connect, apsw.Connection.close)
        private_database(self.path)  # every document's text: owner only, side files too
        self._tantivy: TantivyLexicon | None = None
        if lexical == "tantivy":
            # Imported here: a process on FTS5 (or on OpenSearch) never loads the engine.
            from tanda.adapters.tantivy_lexicon import TantivyLexicon

            self._tantivy = TantivyLexicon(self.path.with_name(self.path.name + ".tantivy"))
        with self._write_lock, self._connections.lease() as conn:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(_SCHEMA)
        self._migrate_record_terms()
        self._migrate_lexical_generation()
        if self._tantivy is None:
            self._migrate_shared_fts()
            self._migrate_engine_to_fts()
        else:
            self._migrate_engine_to_tantivy()
            self.flush()  # what a killed process committed to SQLite and not to tantivy

    # -- connections -----------------------------------------------------------------------

    def _connect(self) -> apsw.Connection:
        conn = apsw.Connection(str(self.path))
        conn.set_busy_timeout(_BUSY_TIMEOUT_MS)
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # A deleted row's bytes are overwritten, not left in a free page (issue 26: an erased
        # document, or a replaced version, leaves no text in the file).
        conn.execute("PRAGMA secure_delete = ON")
        return conn

    @contextmanager
    def _transaction(self) -> Iterator[apsw.Connection]:
        # Leases (or reuses this call's lease), so __init__'s migration runs here too.
        with self._write_lock, self._connections.lease() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        """Flush what this process wrote and tantivy does not hold yet, then close every
        connection (a later call reopens)."""
        if self._pending_runs:
            self.flush()
        super().close()

    # -- writes ----------------------------------------------------------------------------

    def upsert_document(
        self,
        document: Document,
        chunks: Sequence[Chunk],
        records: Sequence[StructureRecord] = (),
    ) -> IngestOutcome:
        """One transaction: same version (:func:`keeps_version`) → unchanged, or rescoped when the
        batch or selections differ (the chunks and records given are not used); else old chunks
        stale → new ones in → stale ones out → the document's records replaced → commit. Any
        failure rolls back, so the previous version stays searchable and its records stay."""
        _check_records(document, records)
        for chunk in chunks:
            if (chunk.tenant_id, chunk.document_id) != (document.tenant_id, document.document_id):
                raise ValueError(
                    f"chunk {chunk.chunk_id!r} belongs to {chunk.tenant_id}/{chunk.document_id}, "
                    f"not {document.tenant_id}/{document.document_id}"
                )
        key = (document.tenant_id, document.document_id)
        pending = 0
        with self._transaction() as conn:
            stored = _stored_document(conn, document)
            if stored is not None and keeps_version(
                stored.content_hash, stored.structure_version, document
            ):
                return self._keep_content(conn, document, stored)
            fts = _tenant_fts_table(conn, document.tenant_id, create=self._tantivy is None)
            conn.execute("UPDATE chunks SET stale = 1 WHERE tenant_id = ? AND document_id = ?", key)
            stale = "SELECT id FROM chunks WHERE tenant_id = ? AND document_id = ? AND stale = 1"
            document_lang = _document_lang(document, chunks)
            analyzed = [_analyzed(chunk, document, document_lang) for chunk in chunks]
            if self._tantivy is None:
                self._insert_chunks(conn, chunks, [_joined(a) for a in analyzed], fts)
                conn.execute(f"DELETE FROM {fts} WHERE rowid IN ({stale})", key)  # noqa: S608
            else:
                # The old rows leave tantivy and the new ones enter it at the next flush; their
                # journal rows commit with them, so a crash before the flush loses nothing.
                nonce = _nonce()
                conn.execute(
                    "INSERT OR REPLACE INTO lexical_pending (tenant_id, chunk_rowid, nonce) "  # noqa: S608
                    f"SELECT tenant_id, id, ? FROM chunks WHERE id IN ({stale})",
                    (nonce, *key),
                )
                rowids = self._insert_chunks(conn, chunks, (), None)
                if rowids:
                    # The new rowids are consecutive (this transaction's): one journal row for
                    # the run of them, not one per chunk (issue 28).
                    conn.execute(
                        "INSERT INTO lexical_runs (tenant_id, first_rowid, last_rowid, nonce) "
                        "VALUES (?, ?, ?, ?)",
                        (document.tenant_id, rowids[0], rowids[-1], nonce),
                    )
                    # Kept by (first rowid, nonce): were this transaction to roll back, no later
                    # journal row (another nonce) could pick these terms up.
                    self._pending_runs[(rowids[0], nonce)] = [
                        _entry(rowid, chunk, a)
                        for rowid, chunk, a in zip(rowids, chunks, analyzed, strict=True)
                    ]
                    self._pending_count += len(rowids)
                pending = len(rowids)
            if self._vector_dimensions(conn) is not None:
                conn.execute(f"DELETE FROM chunk_vec WHERE rowid IN ({stale})", key)  # noqa: S608
            conn.execute(
                "DELETE FROM chunks WHERE tenant_id = ? AND document_id = ? AND stale = 1", key
            )
            conn.execute("DELETE FROM records WHERE tenant_id = ? AND document_id = ?", key)
            conn.executemany(
                "INSERT INTO records (tenant_id, node_id, document_id, kind, ordinal, chunk_id, "
                "parent_id, batch_id, selections, body, term_keys) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                map(_record_row, records),
            )
            conn.execute(  # a new generation: the tenant's cached term statistics are out of date
                "UPDATE tenant_fts SET generation = generation + 1 WHERE tenant_id = ?",
                (document.tenant_id,),
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
                    _json_list(document.selections),
                    document.model_copy(update={"indexed_at": self._clock()}).model_dump_json(),
                ),
            )
        if pending:
            now = time.monotonic()
            self._oldest_pending = self._oldest_pending or now
            if (
                self._pending_count >= self.flush_chunks
                or now - self._oldest_pending >= FLUSH_SECONDS
            ):
                self.flush()
        return IngestOutcome(
            document_id=document.document_id,
            status="added" if stored is None else "replaced",
            chunks=len(chunks),
        )

    def delete_document(self, tenant_id: str, document_id: str) -> DocumentErasure | None:
        """Erase a document (issue 26) in one transaction: its chunks, vectors, records, FTS5
        rows (with FTS5's ``secure-delete``) or tantivy journal rows, and its record; then
        tantivy rebuilds the tenant's index (a deleted document's terms would otherwise stay
        in its segment) and the WAL is checkpointed and truncated, so no file under the index
        holds the document's text or terms. ``None`` when the tenant holds no such document."""
        key = (tenant_id, document_id)
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT body FROM documents WHERE tenant_id = ? AND document_id = ?", key
            ).fetchone()
            if row is None:
                return None
            document = Document.model_validate_json(row[0])
            of_document = "SELECT id FROM chunks WHERE tenant_id = ? AND document_id = ?"
            chunks = _as_int(
                conn.execute(f"SELECT count(*) FROM ({of_document})", key).fetchall()[0][0]  # noqa: S608
            )
            records = _as_int(
                conn.execute(
                    "SELECT count(*) FROM records WHERE tenant_id = ? AND document_id = ?", key
                ).fetchall()[0][0]
            )
            known = _tenant_fts(conn, tenant_id)
            if self._tantivy is None:
                if known is not None and _table_exists(conn, known.table):
                    table = known.table
                    conn.execute(
                        f"INSERT INTO {table} ({table}, rank) VALUES ('secure-delete', 1)"  # noqa: S608
                    )
                    conn.execute(f"DELETE FROM {table} WHERE rowid IN ({of_document})", key)  # noqa: S608
                    # secure-delete takes the rows out of the segments; a term no other row
                    # holds stays in a segment's keys until the segments are merged into one.
                    conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")  # noqa: S608
            else:
                nonce = _nonce()
                conn.execute(
                    "INSERT OR REPLACE INTO lexical_pending (tenant_id, chunk_rowid, nonce) "  # noqa: S608
                    f"SELECT tenant_id, id, ? FROM chunks WHERE id IN ({of_document})",
                    (nonce, *key),
                )
                conn.execute(
                    "INSERT OR REPLACE INTO lexical_pending (tenant_id, chunk_rowid, nonce) "
                    "VALUES (?, ?, ?)",
                    (tenant_id, _PURGE, nonce),
                )
            if self._vector_dimensions(conn) is not None:
                conn.execute(f"DELETE FROM chunk_vec WHERE rowid IN ({of_document})", key)  # noqa: S608
            conn.execute("DELETE FROM chunks WHERE tenant_id = ? AND document_id = ?", key)
            conn.execute("DELETE FROM records WHERE tenant_id = ? AND document_id = ?", key)
            conn.execute("DELETE FROM documents WHERE tenant_id = ? AND document_id = ?", key)
            conn.execute(
                "UPDATE tenant_fts SET generation = generation + 1 WHERE tenant_id = ?",
                (tenant_id,),
            )
        self.flush(tenant_id)
        with self._write_lock, self._connections.lease() as conn:
            # The WAL still holds the pages as they were before the erasure: copied back into
            # the file (now overwritten there) and truncated.
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        return DocumentErasure(document=document, chunks=chunks, records=records)

    def rescope_document(self, document: Document) -> IngestOutcome | None:
        """Give the indexed version of ``document`` (same tenant, id and ``content_hash``) the
        batch and selections ``document`` names, in one transaction: ``rescoped`` (or
        ``unchanged`` when it already has them); ``None`` when that version is not indexed."""
        with self._transaction() as conn:
            stored = _stored_document(conn, document)
            if stored is None or not keeps_version(
                stored.content_hash, stored.structure_version, document
            ):
                return None
            return self._keep_content(conn, document, stored)

    def _keep_content(
        self, conn: apsw.Connection, document: Document, stored: _StoredDocument
    ) -> IngestOutcome:
        outcome = _keep_content(conn, document, stored)
        if outcome.status == "rescoped" and self._tantivy is not None:
            # tantivy filters on batch and selections: the chunks go in again with the new ones
            # (analyzed again at the flush: a rescope is rare, its text did not change).
            conn.execute(
                "INSERT OR REPLACE INTO lexical_pending (tenant_id, chunk_rowid, nonce) "
                "SELECT tenant_id, id, ? FROM chunks "
                "WHERE tenant_id = ? AND document_id = ? AND stale = 0",
                (_nonce(), document.tenant_id, document.document_id),
            )
        return outcome

    def _insert_chunks(
        self, conn: apsw.Connection, chunks: Sequence[Chunk], terms: Sequence[str], fts: str | None
    ) -> list[int]:
        """The chunks' rows (and FTS5 rows when ``fts``, vector rows when embedded), in one
        statement each; their rowids, in order. The caller holds the write transaction, so the
        rowids after the largest are this call's."""
        first = _as_int(
            conn.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchall()[0][0]
        )
        rowids = list(range(first, first + len(chunks)))
        identities = _identities(chunks)
        conn.executemany(
            "INSERT INTO chunks (id, tenant_id, document_id, chunk_id, ordinal, title, identity, "
            "page_no, section, kind, text, batch_id, selections, lang, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (  # a generator: rows go to SQLite one by one, none outlives its statement
                (
                    rowid,
                    chunk.tenant_id,
                    chunk.document_id,
                    chunk.chunk_id,
                    chunk.ordinal,
                    chunk.title,
                    identity,
                    chunk.page_no,
                    chunk.section,
                    chunk.kind,
                    chunk.text,
                    chunk.batch_id,
                    _json_list(chunk.selections),
                    chunk.lang,
                    _f32(chunk.embedding) if chunk.embedding is not None else None,
                )
                for rowid, chunk, identity in zip(rowids, chunks, identities, strict=True)
            ),
        )
        if fts is not None:
            conn.executemany(
                f"INSERT INTO {fts} (rowid, terms) VALUES (?, ?)",  # noqa: S608
                list(zip(rowids, terms, strict=True)),
            )
        for rowid, chunk in zip(rowids, chunks, strict=True):
            if chunk.embedding is not None:
                self._ensure_vector_table(conn, len(chunk.embedding))
                conn.execute(
                    "INSERT INTO chunk_vec (rowid, tenant_id, embedding) VALUES (?, ?, ?)",
                    (rowid, chunk.tenant_id, _f32(chunk.embedding)),
                )
        return rowids

    def _migrate_record_terms(self) -> None:
        """A file written before issue 22 has no ``records.term_keys``: add the column (``NULL``
        for every stored record — none of them is a definition, which only ``extraction/2`` and
        later build) and its index, in one transaction. Such a file's documents carry an older
        ``structure_version``, so the next ingest rebuilds their records with definitions."""
        with self._transaction() as conn:
            columns = {str(row[1]) for row in conn.execute("PRAGMA table_info(records)")}
            if "term_keys" not in columns:
                conn.execute("ALTER TABLE records ADD COLUMN term_keys TEXT")
            conn.execute(_RECORD_TERMS_INDEX)

    def _migrate_shared_fts(self) -> None:
        """A file written before issue 11 holds one FTS5 table (``chunk_fts``) for every tenant:
        build each tenant's own table from its stored chunks (analyzed exactly as an upsert
        does) and drop the shared one — in one transaction, so a failure leaves the file as it
        was, and a process that opens it later finds nothing left to do. Streams document by
        document, reading only what analysis needs (never the embeddings)."""
        with self._transaction() as conn:
            if not _table_exists(conn, _SHARED_FTS):
                return
            tables = {
                str(tenant): _tenant_fts_table(conn, str(tenant))
                for (tenant,) in conn.execute("SELECT DISTINCT tenant_id FROM chunks").fetchall()
            }
            self._fill_fts(conn, tables)
            conn.execute(f"DROP TABLE {_SHARED_FTS}")
            conn.execute("DELETE FROM settings WHERE name = 'generation'")  # now per tenant

    # -- the tantivy journal (issue 28) ----------------------------------------------------

    def flush(self, tenant_id: str | None = None) -> int:
        """Bring tantivy up to the SQLite file: every ``lexical_pending`` row (of ``tenant_id``,
        or of every tenant) is applied — its rowid out of the tenant's tantivy index, and in
        again when the chunk is live — in one tantivy commit per tenant, inside one SQLite write
        transaction that then clears the rows and bumps the tenant's ``lexical_generation``.

        Idempotent, so a crash anywhere in it is repaired by the next flush (the journal rows
        stay until the commit they describe is done). Terms this process analyzed at upsert are
        reused; any other pending chunk — written by another process, rescoped, or read from
        an older file — is analyzed here. The number of rows applied; ``0`` on FTS5."""
        if self._tantivy is None:
            return 0
        where, params = ("WHERE tenant_id = ?", (tenant_id,) * 2) if tenant_id else ("", ())
        waiting = (
            f"SELECT tenant_id FROM lexical_pending {where} "  # noqa: S608
            f"UNION SELECT tenant_id FROM lexical_runs {where}"
        )
        if not self._leased().execute(waiting, params).fetchall():
            return 0  # nothing waits: no write transaction
        applied = 0
        with self._transaction() as conn:
            for (tenant,) in conn.execute(waiting, params).fetchall():
                applied += self._flush_tenant(conn, self._tantivy, str(tenant))
        if tenant_id is None:
            self._pending_runs.clear()
            self._pending_count = 0
            self._oldest_pending = 0.0
        return applied

    def _flush_tenant(self, conn: apsw.Connection, lexicon: TantivyLexicon, tenant: str) -> int:
        tenant_no = _tenant_number(conn, tenant)
        # The journal's two forms: a row per rowid (a replaced, rescoped or erased chunk, a
        # re-index, and every entry of a file written before `lexical_runs`) and a row per run
        # of an upsert's new rowids.
        singles = sorted(
            _as_int(rowid)
            for (rowid,) in conn.execute(
                "SELECT chunk_rowid FROM lexical_pending WHERE tenant_id = ?", (tenant,)
            ).fetchall()
        )
        runs = sorted(
            (_as_int(first), _as_int(last), _as_int(nonce))
            for first, last, nonce in conn.execute(
                "SELECT first_rowid, last_rowid, nonce FROM lexical_runs WHERE tenant_id = ?",
                (tenant,),
            ).fetchall()
        )
        purge = _PURGE in singles
        if purge:
            singles.remove(_PURGE)
        known: list[LexicalEntry] = []
        unknown: list[int] = list(singles)
        shared = _shared_runs(singles, runs)
        for number, (first, last, nonce) in enumerate(runs):
            kept = self._pending_runs.pop((first, nonce), None)
            if kept is not None:
                self._pending_count -= len(kept)
            if kept is None or purge or number in shared:
                unknown.extend(range(first, last + 1))
            else:
                known.extend(kept)
        unknown = sorted(set(unknown))  # a rowid in two entries is read back once
        pending = len(singles) + sum(last - first + 1 for first, last, _ in runs)
        if purge:  # an erasure: every live chunk of the tenant goes into a new index
            unknown = [
                _as_int(rowid)
                for (rowid,) in conn.execute(
                    "SELECT id FROM chunks WHERE tenant_id = ? AND stale = 0 ORDER BY id",
                    (tenant,),
                ).fetchall()
            ]
        bar = _bar(pending, f"tantivy: indexing tenant {tenant_no}", self._progress)

        def entries() -> Iterator[LexicalEntry]:
            yield from known
            if bar is not None:
                bar.update(len(known))
            # Written by another process, rescoped, removed, or from an older file: the live
            # ones read back and analyzed here, streamed (a re-index of a large file included).
            for first in range(0, len(unknown), _READ_BACK):
                part = unknown[first : first + _READ_BACK]
                marks = _marks(len(part))
                rows = conn.execute(
                    f"SELECT c.id, {_CHUNK_COLUMNS_UNEMBEDDED} FROM chunks c NOT INDEXED "  # noqa: S608
                    f"WHERE c.id IN ({marks}) AND c.tenant_id = ? AND c.stale = 0 "
                    "ORDER BY c.document_id, c.ordinal, c.id",
                    (*part, tenant),
                ).fetchall()
                read = [(_as_int(row[0]), _chunk(row[1:])) for row in rows]
                for _, group in itertools.groupby(read, key=lambda member: member[1].document_id):
                    yield from _read_back(conn, tenant, list(group))
                if bar is not None:
                    bar.update(len(part))

        removed = [(rowid, rowid) for rowid in singles] + [(f, last) for f, last, _ in runs]
        lexicon.apply(tenant_no, removed, entries(), rebuild=purge)
        if bar is not None:
            bar.close()
        conn.execute("DELETE FROM lexical_pending WHERE tenant_id = ?", (tenant,))
        conn.execute("DELETE FROM lexical_runs WHERE tenant_id = ?", (tenant,))
        conn.execute(
            "UPDATE tenant_fts SET lexical_generation = lexical_generation + 1 WHERE tenant_id = ?",
            (tenant,),
        )
        return pending + purge

    def _migrate_lexical_generation(self) -> None:
        """A file written before issue 28 has no ``tenant_fts.lexical_generation``: add it."""
        with self._transaction() as conn:
            columns = {str(row[1]) for row in conn.execute("PRAGMA table_info(tenant_fts)")}
            if "lexical_generation" not in columns:
                conn.execute(
                    "ALTER TABLE tenant_fts ADD COLUMN lexical_generation INTEGER NOT NULL "
                    "DEFAULT 0"
                )

    def _migrate_engine_to_tantivy(self) -> None:
        """A file whose lexical arm is FTS5 (every file written before issue 28, or one last
        opened with ``lexical="sqlite"``) moves to tantivy: in one transaction, every live chunk
        is put in the journal, the FTS5 tables (the shared one of files before issue 11 too)
        are dropped and the file is marked ``tantivy``; the flush that follows indexes the
        journal (with a progress bar on a terminal). A crash during that flush leaves the
        journal as it was: the next open finishes the work."""
        assert self._tantivy is not None
        with self._transaction() as conn:
            if _engine(conn) == _TANTIVY_LAYOUT:
                self._rebuild_missing(conn, self._tantivy)
                return
            # A folder left by an earlier tantivy spell is out of date, and so is one of the
            # layout before the identity field (issue 22): both are built again.
            self._tantivy.drop_all()
            conn.execute("DELETE FROM lexical_pending")
            conn.execute("DELETE FROM lexical_runs")
            for (tenant,) in conn.execute("SELECT DISTINCT tenant_id FROM chunks").fetchall():
                _tenant_fts_table(conn, str(tenant), create=False)
            conn.execute(
                "INSERT INTO lexical_pending (tenant_id, chunk_rowid, nonce) "
                "SELECT tenant_id, id, 0 FROM chunks WHERE stale = 0"
            )
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND (name = 'chunk_fts' OR name GLOB 'chunk_fts_[0-9]*') "
                "AND sql LIKE 'CREATE VIRTUAL TABLE%'"
            ).fetchall():
                conn.execute(f'DROP TABLE "{name}"')
            conn.execute("DELETE FROM settings WHERE name = 'generation'")
            _set_engine(conn, _TANTIVY_LAYOUT)

    def _rebuild_missing(self, conn: apsw.Connection, lexicon: TantivyLexicon) -> None:
        """A tenant whose tantivy index is gone (the file copied or restored without the folder
        beside it) is indexed again from its chunks: its live chunks go into the journal, which
        the flush after opening applies."""
        for number, tenant in conn.execute(
            "SELECT t.id, t.tenant_id FROM tenant_fts t WHERE EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.tenant_id = t.tenant_id AND c.stale = 0)"
        ).fetchall():
            if lexicon.exists(_as_int(number)):
                continue
            conn.execute(
                "INSERT OR REPLACE INTO lexical_pending (tenant_id, chunk_rowid, nonce) "
                "SELECT tenant_id, id, 0 FROM chunks WHERE tenant_id = ? AND stale = 0",
                (tenant,),
            )

    def _migrate_engine_to_fts(self) -> None:
        """A file last opened with tantivy goes back to FTS5: each tenant's FTS5 table is built
        from its live chunks (analyzed as an upsert does), the journal cleared and the tantivy
        folder removed — in one transaction for the file."""
        with self._transaction() as conn:
            if _engine(conn) not in ("tantivy", _TANTIVY_LAYOUT):
                if _engine(conn) is None:
                    _set_engine(conn, "sqlite")
                return
            tables = {
                str(tenant): _tenant_fts_table(conn, str(tenant))
                for (tenant,) in conn.execute(
                    "SELECT tenant_id FROM tenant_fts UNION SELECT tenant_id FROM chunks"
                ).fetchall()
            }
            self._fill_fts(conn, tables)
            conn.execute("DELETE FROM lexical_pending")
            conn.execute("DELETE FROM lexical_runs")
            _set_engine(conn, "sqlite")
        from tanda.adapters.tantivy_lexicon import TantivyLexicon

        TantivyLexicon(self.path.with_name(self.path.name + ".tantivy")).drop_all()

    def _fill_fts(self, conn: apsw.Connection, tables: dict[str, str]) -> None:
        """Each tenant's live chunks into its (empty) FTS5 table, analyzed exactly as an upsert
        does. Streams document by document, each row read as every chunk row is (never the
        embeddings)."""
        rows = conn.execute(
            f"SELECT c.id, {_CHUNK_COLUMNS_UNEMBEDDED} FROM chunks c "  # noqa: S608
            "WHERE c.stale = 0 ORDER BY c.tenant_id, c.document_id, c.ordinal, c.id"
        )
        read = ((_as_int(row[0]), _chunk(row[1:])) for row in rows)
        for (tenant, _), group in itertools.groupby(
            read, key=lambda member: (member[1].tenant_id, member[1].document_id)
        ):
            members = list(group)
            document = _document_row(conn, members[0][1])
            document_lang = _document_lang(document, [chunk for _, chunk in members])
            conn.executemany(
                f"INSERT INTO {tables[tenant]} (rowid, terms) VALUES (?, ?)",  # noqa: S608
                [
                    (rowid, _joined(_analyzed(chunk, document, document_lang)))
                    for rowid, chunk in members
                ],
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
        conn = self._leased()
        lang = normalize_lang(query.lang) or guess_lang(query.text) or DEFAULT_LANG
        rankings: dict[str, list[str]] = {}
        ids: dict[str, int] = {}
        vector_on = query.vector is not None and self._vector_dimensions(conn) is not None
        pool = self.candidate_pool if vector_on else query.top_k
        # One arm: its hits are the answer, so the lexical arm reads their rows as it checks them.
        read: dict[int, Sequence[Any]] | None = None if vector_on else {}
        terms = query_terms(search_text(query.text, lang), lang)
        if terms:
            rankings["lexical"] = self._lexical(conn, terms, query.scope, pool, ids, read)
        if vector_on and query.vector is not None:
            rankings["vector"] = self._vector(conn, query.vector, query.scope, pool, ids)
        fused = reciprocal_rank_fusion(rankings, self.fusion)[: query.top_k]
        if not fused:
            return []
        by_id = self._load_chunks(conn, [ids[f.id] for f in fused], read)
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
        read: dict[int, Sequence[Any]] | None = None,
    ) -> list[str]:
        """The ``limit`` best chunks by FTS5 ``bm25()`` over all ``terms`` — exactly — read from
        the scope's tenant's own FTS5 table, so the work and the statistics are that tenant's.

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
        if self._tantivy is not None:
            return self._lexical_tantivy(conn, self._tantivy, terms, scope, limit, ids, read)
        where = scope_filter(scope)
        with conn:  # one read snapshot for the statistics and the queries
            tenant = _tenant_fts(conn, scope.tenant_id)
            if tenant is None:
                return []  # the tenant never indexed anything
            # A term the tenant holds nowhere is searched as its nearest term (issue 22, V2-19).
            terms = corrected(
                terms,
                lambda asked: self._term_stats(conn, tenant, asked)[1],
                lambda term: self._fts5_neighbours(conn, tenant, term),
            )
            rows = self._fts5_best(conn, tenant, terms, where, limit)
        return _ranked(rows, ids)

    def _fts5_neighbours(
        self, conn: apsw.Connection, tenant: _TenantFts, term: str
    ) -> dict[str, int]:
        """The tenant's document frequencies of the terms one edit from ``term`` it holds
        (:func:`~tanda.retrieval.spelling.walked_neighbours`): a range scan of its FTS5
        vocabulary for those beginning as ``term`` does, :meth:`_term_stats` for the rest."""
        vocab = self._vocab(conn, tenant)

        def walk(head: str) -> list[tuple[str, int]]:
            return [
                (str(held), _as_int(count))
                for held, count in conn.execute(
                    f"SELECT term, doc FROM {vocab} WHERE term >= ? AND term < ?",  # noqa: S608
                    (head, head + "\U0010ffff"),
                ).fetchall()
            ]

        return walked_neighbours(term, walk, lambda asked: self._term_stats(conn, tenant, asked)[1])

    @staticmethod
    def _vocab(conn: apsw.Connection, tenant: _TenantFts) -> str:
        """The tenant's FTS5 vocabulary (``fts5vocab``, row form) as a table of this connection's
        temp schema, so the file's schema does not change."""
        vocab = f"temp.chunk_vocab_{tenant.id}"
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab(main, {tenant.table}, row)"
        )
        return vocab

    def _fts5_best(
        self,
        conn: apsw.Connection,
        tenant: _TenantFts,
        terms: Sequence[str],
        where: SqlFilter,
        limit: int,
    ) -> list[tuple[Any, ...]]:
        """The ``limit`` best (rowid, chunk_id) rows of the tenant's FTS5 table for ``terms``
        inside ``where`` (MaxScore when :attr:`prune`, as :meth:`_lexical` explains)."""
        fts = tenant.table
        plan = self._pruning_plan(conn, tenant, terms) if self.prune else None
        essential, kth = 1, 0.0
        while plan is not None and (essential := plan.split(essential, kth, limit)):
            best, kth = self._pool(conn, fts, plan.order, essential, where, limit)
            if len(best) >= limit and kth > plan.rest_bound(essential):
                return best
            essential += 1
        rows: list[tuple[Any, ...]] = conn.execute(
            f"SELECT c.id, c.chunk_id FROM {fts} "  # noqa: S608
            f"JOIN chunks c ON c.id = {fts}.rowid "
            f"WHERE {fts} MATCH ? AND {where.sql} "
            f"ORDER BY bm25({fts}), c.chunk_id LIMIT ?",
            (fts_match(terms), *where.params, limit),
        ).fetchall()
        return rows

    def _lexical_tantivy(
        self,
        conn: apsw.Connection,
        lexicon: TantivyLexicon,
        terms: Sequence[str],
        scope: SearchScope,
        limit: int,
        ids: dict[str, int],
        read: dict[int, Sequence[Any]] | None = None,
    ) -> list[str]:
        """The ``limit`` best chunks by tantivy's BM25 over ``terms``, from the tenant's own
        tantivy index, with the scope's document, batch and selection filters inside the query.
        Chunks committed to the file and not yet to tantivy are flushed first when this object
        wrote them (read your writes) or when a few wait (``READER_FLUSH_MAX``), whoever wrote
        them; more from elsewhere — a bulk ingest in flight — are left to their writer's next
        batch. The hits are joined
        back to their live rows under :func:`scope_filter` (tenant and scope checked again);
        ties break by ``chunk_id``. With ``read``, that one statement reads the hits' whole rows
        into it (by rowid), so the search need not read them again."""
        state = _lexical_state(conn, scope.tenant_id)
        if state is None:
            return []  # the tenant never indexed anything
        number, generation, few_pending = state
        if few_pending or self._pending_runs:  # a few, or this object's own writes
            self.flush(scope.tenant_id)
            state = _lexical_state(conn, scope.tenant_id)
            assert state is not None
            number, generation, _ = state
        # A term the tenant holds nowhere is searched as its nearest term (issue 22, V2-19).
        terms = corrected(
            terms,
            lambda asked: lexicon.doc_freqs(number, generation, asked),
            lambda term: lexicon.neighbours(number, generation, term),
        )
        hits = lexicon.search(number, generation, terms, scope, limit + TIE_SLACK)
        if not hits:
            return []
        hits.sort(key=lambda hit: -hit[0])  # best first (tantivy's order; ties keep theirs)
        where = scope_filter(scope)
        columns = "c.chunk_id" if read is None else _CHUNK_COLUMNS  # chunk_id first in both
        live: dict[int, str] = {}
        # The rows of the best `limit` hits and of those tied with the last of them; more only
        # when some of these are not live (stale, or outside the scope) — each round the same
        # statement over the next hits. The top `limit` of the live hits read is then that of
        # every live hit: any hit not read scores below `limit` of those read.
        read_to = 0
        while read_to < len(hits):
            start, read_to = read_to, _cut(hits, read_to + limit - len(live))
            batch = hits[start:read_to]
            rows: list[tuple[Any, ...]] = conn.execute(
                # NOT INDEXED: look the rowids up, never walk the tenant's rows by an index
                f"SELECT c.id, {columns} FROM chunks c NOT INDEXED "  # noqa: S608
                f"WHERE c.id IN ({_marks(len(batch))}) AND {where.sql}",
                [rowid for _, rowid in batch] + list(where.params),
            ).fetchall()
            for row in rows:
                live[row[0]] = row[1]
            if read is not None:
                for row in rows:
                    read[row[0]] = row[1:]
            if len(live) >= limit:
                break
        ranked = sorted(
            (-score, live[rowid], rowid) for score, rowid in hits[:read_to] if rowid in live
        )[:limit]
        return _ranked([(rowid, chunk_id) for _, chunk_id, rowid in ranked], ids)

    def _pruning_plan(
        self, conn: apsw.Connection, tenant: _TenantFts, terms: Sequence[str]
    ) -> _Plan | None:
        """The query's indexed terms, rarest first, with their score bounds; ``None`` when the
        plain query is cheap (few postings) or there is nothing to split."""
        rows, df = self._term_stats(conn, tenant, terms)
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
        fts: str,
        order: Sequence[str],
        essential: int,
        where: SqlFilter,
        limit: int,
    ) -> tuple[list[tuple[int, str]], float]:
        """Top ``limit`` (rowid, chunk_id) among in-scope chunks holding an essential term,
        by full BM25, and the ``limit``-th score (``0`` when fewer)."""
        head = fts_match(order[:essential])
        pool: list[tuple[int, str, float]] = conn.execute(  # type: ignore[assignment]
            f"SELECT c.id, c.chunk_id, bm25({fts}) FROM {fts} "  # noqa: S608
            f"JOIN chunks c ON c.id = {fts}.rowid "
            f"WHERE {fts} MATCH ? AND {where.sql}",
            (head, *where.params),
        ).fetchall()
        if not pool:
            return [], 0.0
        full: dict[int, float] = dict(
            conn.execute(  # type: ignore[arg-type]
                f"SELECT rowid, bm25({fts}) FROM {fts} WHERE {fts} MATCH ?",  # noqa: S608
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
        self, conn: apsw.Connection, tenant: _TenantFts, terms: Sequence[str]
    ) -> tuple[int, dict[str, int]]:
        """The tenant's row count and document frequencies, cached until its next write (its
        ``generation``, bumped by every upsert that changes its chunks — in any process)."""
        stats = self._stats.get(tenant.id)
        if (
            stats is None
            or stats.generation != tenant.generation
            or len(stats.df) > _STATS_CACHE_TERMS
        ):
            rows = _as_int(
                conn.execute(
                    "SELECT count(*) FROM chunks WHERE tenant_id = ?", (tenant.tenant_id,)
                ).fetchall()[0][0]
            )
            if len(self._stats) >= _STATS_CACHE_TENANTS:
                self._stats.clear()
            stats = self._stats[tenant.id] = _TermStats(tenant.generation, rows, {})
        missing = [t for t in dict.fromkeys(terms) if t not in stats.df]
        if missing:
            # Document frequency per term, straight from the tenant's FTS5 index (deleted rows
            # excluded).
            vocab = self._vocab(conn, tenant)
            marks = _marks(len(missing))
            found: dict[str, int] = dict(
                conn.execute(  # type: ignore[arg-type]
                    f"SELECT term, doc FROM {vocab} WHERE term IN ({marks})",  # noqa: S608
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

    def _load_chunks(
        self,
        conn: apsw.Connection,
        rowids: Sequence[int],
        read: dict[int, Sequence[Any]] | None = None,
    ) -> dict[int, Chunk]:
        """The chunks of ``rowids``: from the rows an arm ``read`` already, the rest from the
        file."""
        known = read or {}
        missing = [rowid for rowid in rowids if rowid not in known]
        rows: dict[int, Sequence[Any]] = {rowid: known[rowid] for rowid in rowids if rowid in known}
        if missing:
            found = conn.execute(
                f"SELECT c.id, {_CHUNK_COLUMNS} FROM chunks c "  # noqa: S608
                f"WHERE c.id IN ({_marks(len(missing))})",
                tuple(missing),
            )
            rows.update((_as_int(row[0]), row[1:]) for row in found)
        return {rowid: _chunk(row) for rowid, row in rows.items()}

    def chunks(self, scope: SearchScope, chunk_ids: Sequence[str]) -> list[Chunk]:
        if not chunk_ids:
            return []
        where = scope_filter(scope)
        marks = _marks(len(chunk_ids))
        rows = self._leased().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c "  # noqa: S608
            f"WHERE c.chunk_id IN ({marks}) AND {where.sql} "
            "ORDER BY c.document_id, c.ordinal, c.chunk_id",
            (*chunk_ids, *where.params),
        )
        by_id = {chunk.chunk_id: chunk for chunk in map(_chunk, rows)}
        return [by_id[cid] for cid in dict.fromkeys(chunk_ids) if cid in by_id]

    def document_chunks(self, scope: SearchScope, document_id: str) -> list[Chunk]:
        where = scope_filter(scope)
        rows = self._leased().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c "  # noqa: S608
            f"WHERE c.document_id = ? AND {where.sql} "
            "ORDER BY c.ordinal, c.chunk_id",
            (document_id, *where.params),
        )
        return [_chunk(row) for row in rows]

    def records(self, query: RecordQuery) -> list[StructureRecord]:
        """The structure records ``query`` asks for, in document order (ASK-14)."""
        where = record_filter(query)
        limit = " LIMIT ?" if query.limit is not None else ""
        params = (*where.params, query.limit) if query.limit is not None else where.params
        rows = self._leased().execute(
            f"SELECT {_RECORD_COLUMNS}, r.body FROM records r WHERE {where.sql} "  # noqa: S608
            f"ORDER BY r.document_id, r.ordinal{limit}",
            params,
        )
        return [_record(row) for row in rows]

    def documents(self, scope: SearchScope) -> list[Document]:
        where = document_filter(scope)
        rows = self._leased().execute(
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


@dataclass(frozen=True, slots=True)
class _TenantFts:
    """A tenant's row in ``tenant_fts``: its FTS5 table and its write generation."""

    id: int
    tenant_id: str
    generation: int

    @property
    def table(self) -> str:
        return _fts_table(self.id)


def _fts_table(table_id: int) -> str:
    # The name holds nothing but the row's integer id: no tenant text ever reaches the SQL.
    return f"chunk_fts_{int(table_id)}"


def _marks(count: int) -> str:
    """``count`` bound parameters for an ``IN (…)`` list."""
    return ", ".join("?" * count)


def _cut(hits: Sequence[tuple[float, int]], count: int) -> int:
    """How many of ``hits`` (best first) the first ``count`` are with every later hit tied with
    the last of them (a tie breaks by ``chunk_id``, read with the row)."""
    end = min(count, len(hits))
    while 0 < end < len(hits) and hits[end][0] == hits[end - 1][0]:
        end += 1
    return end


def _tenant_fts(conn: apsw.Connection, tenant_id: str) -> _TenantFts | None:
    row = conn.execute(
        "SELECT id, generation FROM tenant_fts WHERE tenant_id = ?", (tenant_id,)
    ).fetchone()
    return None if row is None else _TenantFts(_as_int(row[0]), tenant_id, _as_int(row[1]))


def _lexical_state(conn: apsw.Connection, tenant_id: str) -> tuple[int, int, bool] | None:
    """The tenant's number, ``lexical_generation`` and whether a few chunks wait in the journal
    (at least one, at most ``READER_FLUSH_MAX``: what a search flushes itself). Every search
    asks: an empty journal (the usual case) is one cheap statement, the count only when not."""
    row = conn.execute(
        "SELECT id, lexical_generation, EXISTS (SELECT 1 FROM lexical_pending p "
        "WHERE p.tenant_id = t.tenant_id) OR EXISTS (SELECT 1 FROM lexical_runs r "
        "WHERE r.tenant_id = t.tenant_id) FROM tenant_fts t WHERE tenant_id = ?",
        (tenant_id,),
    ).fetchone()
    if row is None:
        return None
    few = False
    if row[2]:
        # Each run holds at least one rowid: more than the limit of runs is more than the limit.
        waiting = conn.execute(
            "SELECT (SELECT count(*) FROM "
            "(SELECT 1 FROM lexical_pending WHERE tenant_id = ?1 LIMIT ?2)) + "
            "(SELECT coalesce(sum(n), 0) FROM (SELECT last_rowid - first_rowid + 1 AS n "
            "FROM lexical_runs WHERE tenant_id = ?1 LIMIT ?2))",
            (tenant_id, READER_FLUSH_MAX + 1),
        ).fetchone()
        few = waiting is not None and _as_int(waiting[0]) <= READER_FLUSH_MAX
    return _as_int(row[0]), _as_int(row[1]), few


def _tenant_fts_table(conn: apsw.Connection, tenant_id: str, *, create: bool = True) -> str:
    """The tenant's FTS5 table, registered in ``tenant_fts`` (its number also names its tantivy
    index) and — with ``create`` — created (inside the caller's write transaction) if missing."""
    known = _tenant_fts(conn, tenant_id)
    if known is not None:
        table = known.table
    else:
        conn.execute("INSERT INTO tenant_fts (tenant_id) VALUES (?)", (tenant_id,))
        table = _fts_table(conn.last_insert_rowid())
    if create and not _table_exists(conn, table):
        conn.execute(
            f"CREATE VIRTUAL TABLE {table} USING fts5("
            f"terms, content='', contentless_delete=1, tokenize=\"{_FTS_TOKENIZER}\")"
        )
    return table


def _table_exists(conn: apsw.Connection, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


@dataclass(frozen=True, slots=True)
class _StoredDocument:
    content_hash: str
    batch_id: str | None
    selections: tuple[str, ...]
    structure_version: str | None
    indexed_at: str | None


def _stored_document(conn: apsw.Connection, document: Document) -> _StoredDocument | None:
    row = conn.execute(
        "SELECT content_hash, batch_id, selections, json_extract(body, '$.structure_version'), "
        "json_extract(body, '$.indexed_at') "
        "FROM documents WHERE tenant_id = ? AND document_id = ?",
        (document.tenant_id, document.document_id),
    ).fetchone()
    if row is None:
        return None
    content_hash, batch_id, selections, structure_version, indexed_at = row
    return _StoredDocument(
        str(content_hash), batch_id, tuple(json.loads(selections)), structure_version, indexed_at
    )


def _check_records(document: Document, records: Sequence[StructureRecord]) -> None:
    for record in records:
        if (record.tenant_id, record.document_id) != (document.tenant_id, document.document_id):
            raise ValueError(
                f"record {record.node_id!r} belongs to {record.tenant_id}/{record.document_id}, "
                f"not {document.tenant_id}/{document.document_id}"
            )


_RECORD_FIELDS: Final = (
    "tenant_id",
    "node_id",
    "document_id",
    "ordinal",
    "chunk_id",
    "parent_id",
    "batch_id",
    "selections",
)
_RECORD_COLUMNS: Final = ", ".join(f"r.{field}" for field in _RECORD_FIELDS)
_IN_COLUMNS: Final = set(_RECORD_FIELDS)


def _record_row(record: StructureRecord) -> tuple[Any, ...]:
    return (
        record.tenant_id,
        record.node_id,
        record.document_id,
        record.kind,
        record.ordinal,
        record.chunk_id,
        record.parent_id,
        record.batch_id,
        _json_list(record.selections),
        # the serializer itself: model_dump_json's Python wrapper was ~15 % of this row (issue 28)
        record.__pydantic_serializer__.to_json(
            record, exclude=_IN_COLUMNS, exclude_none=True
        ).decode(),
        json.dumps(list(record.keys)) if record.kind == "definition" else None,
    )


def _record(row: Sequence[Any]) -> StructureRecord:
    """A stored row back into its record: the body, and the fields kept in columns."""
    *columns, body = row
    fields: dict[str, Any] = json.loads(body)
    fields.update(zip(_RECORD_FIELDS, columns, strict=True))
    fields["selections"] = json.loads(fields["selections"])
    return STRUCTURE_RECORD.validate_python(fields)


def _keep_content(
    conn: apsw.Connection, document: Document, stored: _StoredDocument
) -> IngestOutcome:
    """Same content: ``unchanged`` when the scope is too; else the scope of the document row and
    of every live chunk becomes ``document``'s — text, terms and vectors stay (issue 11)."""
    key = (document.tenant_id, document.document_id)
    live = _as_int(
        conn.execute(
            "SELECT count(*) FROM chunks WHERE tenant_id = ? AND document_id = ? AND stale = 0",
            key,
        ).fetchall()[0][0]
    )
    if scope_key(stored.batch_id, stored.selections) == scope_key(
        document.batch_id, document.selections
    ):
        return IngestOutcome(document_id=document.document_id, status="unchanged", chunks=live)
    selections = _json_list(document.selections)
    conn.execute(
        "UPDATE chunks SET batch_id = ?, selections = ? "
        "WHERE tenant_id = ? AND document_id = ? AND stale = 0",
        (document.batch_id, selections, *key),
    )
    conn.execute(
        "UPDATE records SET batch_id = ?, selections = ? WHERE tenant_id = ? AND document_id = ?",
        (document.batch_id, selections, *key),
    )
    # The text and records are the indexed version's: so are their version and index time
    # (KB-02 freshness).
    stored_body = document.model_copy(
        update={"structure_version": stored.structure_version, "indexed_at": stored.indexed_at}
    )
    conn.execute(
        "UPDATE documents SET batch_id = ?, selections = ?, body = ? "
        "WHERE tenant_id = ? AND document_id = ?",
        (document.batch_id, selections, stored_body.model_dump_json(), *key),
    )
    return IngestOutcome(document_id=document.document_id, status="rescoped", chunks=live)


def _document_lang(document: Document, chunks: Sequence[Chunk]) -> Callable[[], Lang]:
    """The document's guessed language: computed once, and only if a chunk needs it."""
    guessed: list[Lang] = []

    def document_lang() -> Lang:
        if not guessed:
            sample = " ".join(c.text for c in chunks[:8])[:4000]
            guessed.append(guess_lang(f"{document.title} {sample}") or DEFAULT_LANG)
        return guessed[0]

    return document_lang


def _analyzed(
    chunk: Chunk, document: Document, document_lang: Callable[[], Lang]
) -> tuple[str, str]:
    """The token streams of ``chunk``, analyzed for its language (else the document's, else the
    guessed one): its document's title, and its section path with its text. tantivy holds them
    in two fields, each weighed by BM25 against its own lengths (issue 22): a chunk whose text says
    next to nothing ("Cukup jelas.", "-") no longer outranks one that says what is asked only
    because its document's title is all it holds. FTS5 indexes them as one stream
    (:func:`_joined`)."""
    lang = normalize_lang(chunk.lang) or normalize_lang(document.lang) or document_lang()
    text = " \n".join(filter(None, (chunk.section, chunk.text)))
    return analysis.index_text(chunk.title, lang), analysis.index_text(text, lang)


def _joined(analyzed: tuple[str, str]) -> str:
    """The one stream FTS5 indexes: the title's terms, then the section's and the text's."""
    return " ".join(filter(None, analyzed))


def _standin_document(chunk: Chunk) -> Document:
    """For a chunk whose document row is missing (never written so by this adapter): what its
    analysis needs — a title and no language, so the language is guessed from its text."""
    return Document(
        document_id=chunk.document_id,
        tenant_id=chunk.tenant_id,
        title=chunk.title,
        source="",
        content_hash="",
    )


def _entry(rowid: int, chunk: Chunk, analyzed: tuple[str, str]) -> LexicalEntry:
    identity, terms = analyzed
    return _lexical_entry()(
        rowid, terms, identity, chunk.document_id, chunk.batch_id, chunk.selections
    )


@functools.cache
def _lexical_entry() -> type[LexicalEntry]:
    """The entry type, imported once and only by a process on tantivy."""
    from tanda.adapters.tantivy_lexicon import LexicalEntry

    return LexicalEntry


def _read_back(
    conn: apsw.Connection, tenant: str, members: Sequence[tuple[int, Chunk]]
) -> list[LexicalEntry]:
    """One document's live chunks (with their row ids) as tantivy is to hold them, analyzed as an
    upsert does."""
    chunks = [chunk for _, chunk in members]
    document = _document_row(conn, chunks[0])

    def document_lang() -> Lang:
        # The guess an upsert made: from the document's first chunks, whichever of its chunks
        # are read back here.
        first = conn.execute(
            "SELECT text FROM chunks WHERE tenant_id = ? AND document_id = ? AND stale = 0 "
            "ORDER BY ordinal, id LIMIT 8",
            (tenant, document.document_id),
        ).fetchall()
        sample = [chunks[0].model_copy(update={"text": str(text)}) for (text,) in first]
        return _document_lang(document, sample)()

    once = _once(document_lang)
    return [_entry(rowid, chunk, _analyzed(chunk, document, once)) for rowid, chunk in members]


def _once(compute: Callable[[], Lang]) -> Callable[[], Lang]:
    done: list[Lang] = []

    def value() -> Lang:
        if not done:
            done.append(compute())
        return done[0]

    return value


def _document_row(conn: apsw.Connection, chunk: Chunk) -> Document:
    """The stored document of ``chunk`` (what its analysis needs), else a stand-in."""
    body = conn.execute(
        "SELECT body FROM documents WHERE tenant_id = ? AND document_id = ?",
        (chunk.tenant_id, chunk.document_id),
    ).fetchone()
    return Document.model_validate_json(body[0]) if body is not None else _standin_document(chunk)


def _engine(conn: apsw.Connection) -> str | None:
    """The engine that holds this file's lexical arm (``None``: a new file, or one written
    before issue 28 — FTS5 if it holds chunks)."""
    row = conn.execute("SELECT value FROM settings WHERE name = 'lexical_engine'").fetchone()
    if row is not None:
        return str(row[0])
    has_chunks = conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None
    return "sqlite" if has_chunks else None


def _set_engine(conn: apsw.Connection, engine: str) -> None:
    conn.execute(
        "INSERT INTO settings (name, value) VALUES ('lexical_engine', ?) "
        "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        (engine,),
    )


def _tenant_number(conn: apsw.Connection, tenant_id: str) -> int:
    """The tenant's number (its ``tenant_fts`` row, registered if missing)."""
    _tenant_fts_table(conn, tenant_id, create=False)
    known = _tenant_fts(conn, tenant_id)
    assert known is not None
    return known.id


def _nonce() -> int:
    """Tells one journal entry of a rowid from a later one (a rowid can be reused)."""
    return secrets.randbits(62)


def _bar(total: int, label: str, enabled: bool) -> Any:
    """A progress bar on stderr for a long (re)index — only on a terminal, and only when
    there is enough to wait for."""
    if not enabled or total < PROGRESS_MIN_CHUNKS:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="chunk", disable=None, file=sys.stderr)


def _idf(rows: int, df: int) -> float:
    """FTS5 ``bm25()``'s IDF: ``log((N - n + 0.5) / (n + 0.5))``, floored at 1e-6."""
    return max(math.log((rows - df + 0.5) / (df + 0.5)), 1e-6)


def _shared_runs(singles: Sequence[int], runs: Sequence[tuple[int, int, int]]) -> set[int]:
    """Which of ``runs`` (``(first, last, nonce)``, sorted) share a rowid with another journal
    entry — a row of ``singles`` (sorted) or another run. Such a rowid was written again after
    the run (its chunk replaced, rescoped or erased, or the rowid reused), so the terms kept for
    the run may be out of date: the flush reads it back instead."""
    shared: set[int] = set()
    reach = -1  # the largest last rowid of the runs before (rowids are positive)
    for number, (first, last, _) in enumerate(runs):
        after = runs[number + 1][0] if number + 1 < len(runs) else None
        at = bisect.bisect_left(singles, first)
        if (
            first <= reach
            or (after is not None and after <= last)
            or (at < len(singles) and singles[at] <= last)
        ):
            shared.add(number)
        reach = max(reach, last)
    return shared


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
        identity=_identity(identity),
        page_no=page_no,
        section=section,
        kind=kind,
        text=text,
        batch_id=batch_id,
        selections=_selections(selections),
        lang=lang,
        embedding=None if embedding is None else tuple(array("f", embedding)),
    )


@functools.lru_cache(maxsize=1024)
def _identity(stored: str) -> LegalIdentity:
    """A chunk's stored identity, parsed once per distinct JSON text: every chunk of a document
    carries the same one, and a search builds a chunk for each hit (the parse took half of
    :func:`_chunk`'s time: issue 28). A ``LegalIdentity`` is frozen, so hits can share it."""
    return LegalIdentity.model_validate_json(stored)


@functools.lru_cache(maxsize=1024)
def _selections(stored: str) -> tuple[str, ...]:
    """A chunk's stored selections (a JSON list), parsed once per distinct text."""
    return tuple(json.loads(stored))
