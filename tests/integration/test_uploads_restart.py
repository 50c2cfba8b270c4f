"""An upload whose ingestion a crash interrupts ends indexed, never half-indexed (issue 26):
``tanda serve`` as a real process, killed (SIGKILL) while its worker pool ingests an uploaded
600-page PDF, then started again on the same files — the upload is taken again once the dead
worker's lease ran out and ends ``indexed``, searchable, on its second attempt."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from .test_cross_check_restart import Server, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def long_pdf() -> bytes:
    sys.path.insert(0, str(ROOT))
    from bench.documents import statute_pdf

    return statute_pdf("kodeunikrestart", pages=600)


def test_a_server_killed_mid_ingest_indexes_the_upload_after_its_restart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = long_pdf()
    server = Server(home).start()
    try:
        started = server.request(
            "POST",
            "/v1/documents",
            json={"filename": "uu.pdf", "content_type": "application/pdf", "size_bytes": len(data)},
        )
        assert started.status_code == 201, started.text
        document_id, upload = started.json()["document_id"], started.json()["upload"]
        sent = httpx.put(upload["url"], content=data, headers=upload["headers"], timeout=30)
        assert sent.status_code == 200, sent.text

        def status() -> str:
            shown = server.request("GET", f"/v1/documents/{document_id}")
            assert shown.status_code == 200, shown.text
            return str(shown.json()["status"])

        wait_until(lambda: status() == "processing", "the pool never took the upload")
        server.kill()  # mid-ingest: a 600-page PDF takes seconds to read
    finally:
        server.kill()

    restarted = Server(home).start()
    try:
        wait_until(
            lambda: (
                restarted.request("GET", f"/v1/documents/{document_id}").json()["status"]
                not in ("queued", "processing")
            ),
            "the upload was never taken again",
            timeout_s=120,
        )
        shown = restarted.request("GET", f"/v1/documents/{document_id}").json()
        assert shown["status"] == "indexed", shown
        assert shown["pages"] == 600 and shown["chunks"] >= 300
        found = restarted.request("POST", "/v1/search", json={"query": "kodeunikrestart"})
        assert [r["document_id"] for r in found.json()["results"]] == [document_id]
    finally:
        restarted.kill()
