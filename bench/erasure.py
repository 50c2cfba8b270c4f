"""What erasing a document costs on the embedded index (issue 26), and what turning on SQLite's
``secure_delete`` costs the writes that replace documents.

Run: ``.venv/bin/python bench/erasure.py`` → prints a table, writes ``bench/results/erasure.json``.
For tenants of N small documents (two chunks each, ~1 KB of text) on each lexical engine: the
median wall time of ``delete_document`` (tantivy rebuilds the tenant's lexical index from its
live chunks, so it grows with the tenant; FTS5 merges the tenant's segments), and the wall time
of replacing every document (a new version of each) with ``secure_delete`` OFF and ON.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import tanda.adapters.sqlite_index as sqlite_index
from tanda.records.documents import Chunk, Document

SIZES = (200, 2000)
ERASED = 10


def document(tenant: str, n: int, words: str) -> tuple[Document, list[Chunk]]:
    document_id = f"doc-{n}"
    text = f"Gudang {n} {words} kertas tinta faktur pembayaran " * 12
    doc = Document(
        document_id=document_id,
        tenant_id=tenant,
        title=f"Faktur {n}",
        source=f"faktur-{n}.md",
        content_hash=f"{n}-{words}",
        lang="id",
    )
    chunks = [
        Chunk(
            chunk_id=f"{document_id}#{i}",
            document_id=document_id,
            tenant_id=tenant,
            ordinal=i,
            title=doc.title,
            text=text,
            lang="id",
        )
        for i in range(2)
    ]
    return doc, chunks


def run(engine: sqlite_index.LexicalEngine, size: int, secure: str) -> dict[str, float]:
    original = sqlite_index.SqliteSearchIndex._connect

    def connect(self: sqlite_index.SqliteSearchIndex) -> object:
        conn = original(self)
        conn.execute(f"PRAGMA secure_delete = {secure}")
        return conn

    sqlite_index.SqliteSearchIndex._connect = connect  # type: ignore[method-assign,assignment]
    try:
        with tempfile.TemporaryDirectory() as home:
            index = sqlite_index.SqliteSearchIndex(
                Path(home) / "index.sqlite", lexical=engine, progress=False
            )
            for n in range(size):
                index.upsert_document(*document("t1", n, "menerima"))
            index.flush()
            started = time.perf_counter()
            for n in range(size):
                index.upsert_document(*document("t1", n, "mengirim"))
            index.flush()
            replace_s = time.perf_counter() - started
            erase = []
            for n in range(ERASED):
                started = time.perf_counter()
                index.delete_document("t1", f"doc-{n}")
                erase.append(time.perf_counter() - started)
            index.close()
    finally:
        sqlite_index.SqliteSearchIndex._connect = original  # type: ignore[method-assign]
    return {"replace_all_s": replace_s, "erase_median_ms": statistics.median(erase) * 1e3}


def main() -> int:
    rows = []
    for engine in sqlite_index.LEXICAL_ENGINES:
        for size in SIZES:
            off, on = run(engine, size, "OFF"), run(engine, size, "ON")
            rows.append(
                {
                    "engine": engine,
                    "documents": size,
                    "erase_median_ms": round(on["erase_median_ms"], 1),
                    "replace_all_s_secure_delete_off": round(off["replace_all_s"], 3),
                    "replace_all_s_secure_delete_on": round(on["replace_all_s"], 3),
                }
            )
            print(
                f"{engine:8} {size:6} docs  erase {on['erase_median_ms']:8.1f} ms  "
                f"replace all: secure_delete OFF {off['replace_all_s']:6.2f} s, "
                f"ON {on['replace_all_s']:6.2f} s"
            )
    out = Path(__file__).parent / "results" / "erasure.json"
    out.write_text(
        json.dumps(
            {"machine": platform.machine(), "python": sys.version.split()[0], "rows": rows},
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
