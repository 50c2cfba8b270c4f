"""Uploads on the embedded default (issue 26): how long from starting an upload to finding the
document in ``/v1/search``, and how many small documents per second go in through the API
against ``tanda ingest`` of the same files in the same run.

Run from the repository root: ``.venv/bin/python bench/documents.py`` → prints a table, writes
``bench/results/documents.json``.

The app runs under uvicorn on loopback (real SQLite Store and index, tantivy, no embedder, no
structure layers — the embedded default's fast path is what is compared; both sides ingest the
same way). (1) upload → searchable: ``POST /v1/documents`` (JSON), the bytes ``PUT`` to the URL it
gave, then ``/v1/search`` polled every 20 ms until it finds a word only that document holds; p50
(and max) over ``RUNS`` uploads of a 20-page PDF and of a 500-row CSV. (2) ``SMALL`` small
Markdown documents sent in one multipart ``POST`` each by ``CLIENTS`` client threads, until
``GET /v1/batches/{id}`` counts them all ``indexed`` (the pool of ``tanda serve``:
``TANDA_XC_WORKERS`` workers) — against ``ingest_paths`` (what ``tanda ingest`` runs) of the same
files into another tenant of the same index.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ed25519  # noqa: E402
from tests.integration.credentials import settings_for  # noqa: E402
from tests.servers import serving  # noqa: E402

from tanda.api.app import create_app  # noqa: E402
from tanda.auth.api_keys import hash_api_key  # noqa: E402
from tanda.service.ingest import ingest_paths  # noqa: E402
from tanda.wiring import Runtime  # noqa: E402

KEY = "dip_live_bench-documents"
RUNS = 7
SMALL = 1000
CLIENTS = 4
WORKERS = 2
POLL_S = 0.02

PARAGRAPH = (
    "Setiap orang yang memproses data pribadi wajib menjaga kerahasiaan data pribadi dan "
    "memastikan keamanan pemrosesan sesuai dengan ketentuan peraturan perundang-undangan."
)


def _pdf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(pages: list[list[str]]) -> bytes:
    """A PDF with a text layer: each page its lines in Helvetica (a real reader reads them)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, lines in enumerate(pages):
        body = "BT /F1 10 Tf 50 780 Td 12 TL " + " ".join(
            f"({_pdf_text(line)}) Tj T*" for line in lines
        )
        stream = (body + " ET").encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * i} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body_ in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body_ + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer << /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


WORDS = PARAGRAPH.rstrip(".").split()


def page_lines(page: int, lines: int = 16) -> list[str]:
    """A page of a statute: ``Pasal`` then lines that differ from page to page (a line repeated
    on every page is a running header, which the reader drops)."""
    out = [f"Pasal {page}"]
    for line in range(1, lines + 1):
        start = (page * 7 + line * 3) % len(WORDS)
        words = (WORDS[start:] + WORDS[:start])[:12]
        out.append(f"({line}) Pada pasal {page} ayat {line}: {' '.join(words)}.")
    return out


def statute_pdf(marker: str, pages: int = 20) -> bytes:
    content = [page_lines(page) for page in range(1, pages + 1)]
    content[0].append(f"Kode dokumen {marker}.")
    return text_pdf(content)


def rows_csv(marker: str) -> bytes:
    lines = ["kode,barang,gudang,jumlah,harga"]
    lines += [f"B{n:04d},kertas {n % 17},gudang {n % 5},{n * 3},{n * 1250}" for n in range(1, 500)]
    lines.append(f"{marker},tinta khusus,gudang 9,1,990000")
    return ("\n".join(lines) + "\n").encode()


class Client:
    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {KEY}"}, timeout=60
        )

    def found(self, word: str) -> bool:
        response = self.http.post("/v1/search", json={"query": word})
        response.raise_for_status()
        return bool(response.json()["results"])

    def upload_until_searchable(
        self, filename: str, content_type: str, data: bytes, word: str
    ) -> float:
        started = time.perf_counter()
        body = {"filename": filename, "content_type": content_type, "size_bytes": len(data)}
        created = self.http.post("/v1/documents", json=body)
        created.raise_for_status()
        upload = created.json()["upload"]
        sent = httpx.put(upload["url"], content=data, headers=upload["headers"], timeout=60)
        sent.raise_for_status()
        document_id = created.json()["document_id"]
        while not self.found(word):
            status = self.http.get(f"/v1/documents/{document_id}").json()
            if status["status"] in ("failed", "skipped"):
                raise RuntimeError(f"{filename}: {status}")
            time.sleep(POLL_S)
        seconds = time.perf_counter() - started
        return seconds, self.http.get(f"/v1/documents/{document_id}").json()


def small_note(n: int) -> bytes:
    return (
        f"# Catatan {n}\n\nGudang {n % 13} menyimpan kertas dan tinta. Nomor catatan {n}. "
        f"{PARAGRAPH}\n"
    ).encode()


def main() -> int:
    results: dict[str, Any] = {
        "machine": platform.machine(),
        "python": sys.version.split()[0],
        "workers": WORKERS,
    }
    with tempfile.TemporaryDirectory() as home, ExitStack() as stack:
        settings = settings_for(
            Path(home) / "home",
            ed25519.Ed25519PrivateKey.generate(),
            v1_api_key_hashes={hash_api_key(KEY): "acme"},
            v1_rate_per_minute=1_000_000,
            embedder="none",
            structure_layers=False,
            xc_workers=WORKERS,
        )
        runtime = Runtime(settings=settings)
        runtime.cross_check_jobs  # noqa: B018  # the pool starts with `tanda serve`
        base = stack.enter_context(serving(create_app(runtime)))
        client = Client(base)

        for label, filename, content_type, make in (
            ("pdf_20_pages", "uu.pdf", "application/pdf", statute_pdf),
            ("csv_500_rows", "stok.csv", "text/csv", rows_csv),
        ):
            times = []
            for run in range(RUNS + 1):  # the first warms up
                word = f"kodeunik{label.split('_')[0]}{run}x"
                data = make(word)
                seconds, shown = client.upload_until_searchable(
                    f"{run}-{filename}", content_type, data, word
                )
                if run:
                    times.append(seconds)
            row = {
                "bytes": len(data),
                "pages": shown["pages"],
                "chunks": shown["chunks"],
                "runs": RUNS,
                "p50_ms": round(statistics.median(times) * 1000, 1),
                "max_ms": round(max(times) * 1000, 1),
            }
            results[f"upload_to_searchable_{label}"] = row
            print(
                f"upload → searchable, {label} ({row['chunks']} chunks): p50 {row['p50_ms']} ms, "
                f"max {row['max_ms']} ms"
            )

        files = Path(home) / "small"
        files.mkdir()
        notes = [small_note(n) for n in range(SMALL)]
        for n, data in enumerate(notes):
            (files / f"catatan-{n:04d}.md").write_bytes(data)

        def post(n: int) -> None:
            response = client.http.post(
                "/v1/documents",
                files={"file": (f"catatan-{n:04d}.md", notes[n], "text/markdown")},
                data={"batch_id": "small"},
            )
            if response.status_code != 201:
                raise RuntimeError(response.text)

        started = time.perf_counter()
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(post, range(SMALL)))
        accepted = time.perf_counter() - started
        while True:
            batch = client.http.get("/v1/batches/small").json()
            if batch["done"] == SMALL:
                break
            time.sleep(0.05)
        api_s = time.perf_counter() - started
        assert batch["counts"] == {"indexed": SMALL}, batch

        started = time.perf_counter()
        report = ingest_paths(runtime.search_index, None, [files], tenant="peer", batch="small")
        ingest_s = time.perf_counter() - started
        assert report.added == SMALL, report.summary_lines()

        results["small_documents"] = {
            "documents": SMALL,
            "clients": CLIENTS,
            "api_all_accepted_s": round(accepted, 2),
            "api_all_indexed_s": round(api_s, 2),
            "api_docs_per_s": round(SMALL / api_s, 1),
            "tanda_ingest_s": round(ingest_s, 2),
            "tanda_ingest_docs_per_s": round(SMALL / ingest_s, 1),
            "api_over_ingest_time": round(api_s / ingest_s, 2),
        }
        row = results["small_documents"]
        print(
            f"{SMALL} small documents: API {row['api_docs_per_s']} docs/s "
            f"(accepted in {row['api_all_accepted_s']} s, indexed in {row['api_all_indexed_s']} s)"
            f"; tanda ingest {row['tanda_ingest_docs_per_s']} docs/s "
            f"({row['tanda_ingest_s']} s); API/ingest time ×{row['api_over_ingest_time']}"
        )
        runtime.cross_check_jobs.stop()  # type: ignore[attr-defined]
    out = ROOT / "bench" / "results" / "documents.json"
    # The AWS figures beside these (`aws`, bench/documents_aws.py) stay as they are.
    kept = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    out.write_text(json.dumps({**kept, **results}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
