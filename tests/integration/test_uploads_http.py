"""Uploads over HTTP (issue 26) on uvicorn, real SQLite files and the embedded uploads folder: a
partner starts an upload, sends the bytes to the URL it got, and watches the document go
``awaiting_upload → queued → indexed`` through the worker pool that runs cross-check jobs — then
finds it, lists it, counts its batch and erases it. Each bad input the issue lists is refused
with its documented status, nothing kept; a lying type, a PDF bomb and a server that died mid
ingest end ``failed`` with a reason or ``indexed``, never half-indexed."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.contract.v1_documents import V1UploadRequest
from tanda.service.document_uploads import MULTIPART_MAX_BYTES, upload_file
from tanda.service.ingest import ingest_paths
from tanda.wiring import Runtime
from tests.integration.test_upload_processing import pdf_bomb

from .conftest import ServeApp
from .credentials import assert_error, settings_for

pytestmark = pytest.mark.integration

ACME = "dip_live_uploads-acme"
OTHER = "dip_live_uploads-other"
SECRET = "Zorblaxquintine verbobbled the marmaduketrix"
NOTE = f"# Catatan gudang\n\n{SECRET} pada tanggal 3 Maret 2024 di gudang utama.\n".encode()
MAX_UPLOAD = 1_000_000


class Clock:
    """Wall time, moved on by ``skip`` (an upload URL's expiry without waiting for it)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def skip(self, seconds: float) -> None:
        self.offset += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def runtime(
    tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey, clock: Clock
) -> Iterator[Runtime]:
    keys = {hash_api_key(ACME): "acme", hash_api_key(OTHER): "other"}
    settings = settings_for(
        tmp_path / "home",
        signing_key,
        v1_api_key_hashes=keys,
        v1_rate_per_minute=1000,
        max_upload_bytes=MAX_UPLOAD,
        xc_lease_s=3.0,
    )
    runtime = Runtime(settings=settings, clock=clock)
    yield runtime
    if "cross_check_jobs" in runtime.__dict__:
        runtime.cross_check_jobs.stop()  # type: ignore[attr-defined]


@pytest.fixture
def base(serve_app: ServeApp, runtime: Runtime) -> str:
    return serve_app(create_app(runtime))


def call(base: str, method: str, path: str, key: str = ACME, **options: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}", **options.pop("headers", {})}
    return httpx.request(method, f"{base}{path}", headers=headers, timeout=30, **options)


def start(base: str, data: bytes, key: str = ACME, **fields: Any) -> httpx.Response:
    body = {
        "filename": "catatan.md",
        "content_type": "text/markdown",
        "size_bytes": len(data),
        **fields,
    }
    return call(base, "POST", "/v1/documents", key, json=body)


def send(upload: dict[str, Any], data: bytes, **headers: str) -> httpx.Response:
    """The bytes to the upload URL, as a partner's HTTP client sends them: no API key."""
    assert upload["method"] == "PUT"
    return httpx.put(
        upload["url"], content=data, headers={**upload["headers"], **headers}, timeout=30
    )


def settled(base: str, document_id: str, key: str = ACME, timeout_s: float = 60) -> dict[str, Any]:
    """The document once it is no longer awaiting, queued or processing."""
    deadline = time.monotonic() + timeout_s
    while True:
        shown = call(base, "GET", f"/v1/documents/{document_id}", key)
        assert shown.status_code == 200, shown.text
        body: dict[str, Any] = shown.json()
        if body["status"] not in ("queued", "processing") or time.monotonic() > deadline:
            return body
        time.sleep(0.1)


def found(base: str, query: str, key: str = ACME) -> set[str]:
    response = call(base, "POST", "/v1/search", key, json={"query": query})
    assert response.status_code == 200, response.text
    return {r["document_id"] for r in response.json()["results"]}


def uploaded_files(runtime: Runtime) -> list[Path]:
    root = runtime.settings.home / "uploads"
    return sorted(p for p in root.rglob("doc_*")) if root.exists() else []


def traces(home: Path) -> list[str]:
    needles = (b"zorblaxquint", b"marmaduketrix", b"verbobbl")
    return [
        str(path.relative_to(home))
        for path in home.rglob("*")
        if path.is_file() and any(n in path.read_bytes().lower() for n in needles)
    ]


def test_an_upload_goes_from_its_url_to_searchable_to_erased(base: str, runtime: Runtime) -> None:
    digest = hashlib.sha256(NOTE).hexdigest()
    started = start(base, NOTE, sha256=digest, batch_id="gudang", label="Catatan")
    assert started.status_code == 201, started.text
    body = started.json()
    document_id, upload = body["document_id"], body["upload"]
    assert body["status"] == "awaiting_upload"
    assert upload["url"].startswith(f"{base}/v1/documents/{document_id}/content?")
    assert upload["headers"] == {"Content-Type": "text/markdown"} and upload["fields"] == {}
    assert upload["expires_at"].endswith("+00:00")
    waiting = call(base, "GET", f"/v1/documents/{document_id}").json()
    assert (waiting["status"], waiting["title"], waiting["size_bytes"]) == (
        "awaiting_upload",
        "Catatan",
        len(NOTE),
    )

    sent = send(upload, NOTE)

    assert sent.status_code == 200, sent.text
    assert sent.json() == {"document_id": document_id, "status": "queued"}
    done = settled(base, document_id)
    assert done["status"] == "indexed", done
    assert done["chunks"] >= 1 and done["sha256"] == digest and done["indexed_at"]
    assert (done["filename"], done["batch_id"], done["label"]) == (
        "catatan.md",
        "gudang",
        "Catatan",
    )
    assert found(base, "zorblaxquintine marmaduketrix") == {document_id}
    assert found(base, "zorblaxquintine marmaduketrix", OTHER) == set()
    listed = call(base, "GET", "/v1/documents?batch_id=gudang").json()["documents"]
    assert [(d["document_id"], d["status"]) for d in listed] == [(document_id, "indexed")]
    batch = call(base, "GET", "/v1/batches/gudang").json()
    assert batch == {
        "batch_id": "gudang",
        "total": 1,
        "counts": {"indexed": 1},
        "done": 1,
        "progress": 1.0,
    }
    [stored] = uploaded_files(runtime)
    assert stored.stat().st_mode & 0o777 == 0o600

    # the same bytes again — declared, or sent in one request — are the same document
    again = start(base, NOTE, sha256=digest, filename="salinan.md")
    assert again.status_code == 200, again.text
    assert again.json() == {
        "document_id": document_id,
        "status": "indexed",
        "duplicate_of": document_id,
    }
    files = {"file": ("salinan.md", NOTE, "text/markdown")}
    one_request = call(base, "POST", "/v1/documents", files=files)
    assert one_request.status_code == 200, one_request.text
    assert one_request.json()["duplicate_of"] == document_id
    assert len(uploaded_files(runtime)) == 1

    # another tenant sees none of it
    for method, path in (
        ("GET", f"/v1/documents/{document_id}"),
        ("DELETE", f"/v1/documents/{document_id}"),
    ):
        assert_error(call(base, method, path, OTHER), 404, "document_not_found")
    assert_error(call(base, "GET", "/v1/batches/gudang", OTHER), 404, "batch_not_found")
    assert call(base, "GET", "/v1/documents", OTHER).json()["documents"] == []

    erased = call(base, "DELETE", f"/v1/documents/{document_id}")

    assert erased.status_code == 200, erased.text
    assert erased.json()["removed"]["chunks"] == done["chunks"]
    assert_error(call(base, "GET", f"/v1/documents/{document_id}"), 404, "document_not_found")
    assert_error(call(base, "DELETE", f"/v1/documents/{document_id}"), 404, "document_not_found")
    assert found(base, "zorblaxquintine marmaduketrix") == set()
    assert uploaded_files(runtime) == []
    assert traces(runtime.settings.home) == []


def test_a_small_file_in_one_request_and_the_ingested_ones_listed_beside_it(
    base: str, runtime: Runtime, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "lama.md").write_text("# Lama\n\nKertas A4 disimpan di rak tiga.\n")
    ingest_paths(runtime.search_index, None, [notes], tenant="acme", batch="gudang")
    files = {"file": ("harga.csv", b"barang,harga\nkertas,500\ntinta,300\n", "text/csv")}
    data = {"batch_id": "gudang", "selections": ["harga"], "label": "Harga"}
    posted = call(base, "POST", "/v1/documents", files=files, data=data)
    assert posted.status_code == 201, posted.text
    assert posted.json()["status"] == "queued" and "upload" not in posted.json()
    document_id = posted.json()["document_id"]
    done = settled(base, document_id)
    assert (done["status"], done["selections"], done["size_bytes"]) == ("indexed", ["harga"], 34)
    listed = call(base, "GET", "/v1/documents?batch_id=gudang&limit=1").json()
    assert [d["document_id"] for d in listed["documents"]] == [document_id]
    rest = call(base, "GET", f"/v1/documents?batch_id=gudang&cursor={listed['next_cursor']}")
    (ingested,) = rest.json()["documents"]
    assert (ingested["filename"], ingested["status"]) == ("lama.md", "indexed")
    assert rest.json()["next_cursor"] is None
    shown = call(base, "GET", f"/v1/documents/{ingested['document_id']}").json()
    assert shown["size_bytes"] == len(b"# Lama\n\nKertas A4 disimpan di rak tiga.\n")
    assert call(base, "GET", "/v1/batches/gudang").json()["counts"] == {"indexed": 2}
    assert call(base, "GET", "/v1/documents?status=failed").json()["documents"] == []


def test_what_uploads_do_not_take_is_refused_before_anything_is_kept(
    base: str, runtime: Runtime
) -> None:
    docx = start(base, b"x" * 10, filename="kontrak.docx", content_type="application/msword")
    assert_error(docx, 415, "unsupported_document_type")
    assert ".pdf (application/pdf)" in docx.json()["error"]["supported"]
    wrong_type = start(base, b"x" * 10, filename="harga.csv", content_type="image/png")
    assert_error(wrong_type, 415, "unsupported_document_type")
    too_large = start(base, b"", size_bytes=MAX_UPLOAD + 1)
    assert_error(too_large, 413, "upload_too_large")
    for bad in (
        {"content_type": "text/markdown", "size_bytes": 3},  # no filename
        {"filename": "a.md", "content_type": "text/markdown", "size_bytes": -1},
        {"filename": "../a.md", "content_type": "text/markdown", "size_bytes": 3},
        {"filename": "a.md", "content_type": "text/markdown", "size_bytes": 3, "sha256": "x"},
        {"filename": "a.md", "content_type": "text/markdown", "size_bytes": 3, "path": "/"},
    ):
        assert_error(call(base, "POST", "/v1/documents", json=bad), 422, "validation_error")
    assert_error(call(base, "POST", "/v1/documents", json=[1]), 422, "validation_error")
    not_json = call(
        base, "POST", "/v1/documents", content=b"a.md", headers={"Content-Type": "text/plain"}
    )
    assert_error(not_json, 415, "unsupported_media_type")
    no_file = call(base, "POST", "/v1/documents", files={"other": ("a.md", b"x", "text/plain")})
    assert_error(no_file, 422, "validation_error")
    big = {"file": ("besar.txt", b"a" * (MULTIPART_MAX_BYTES + 1), "text/plain")}
    assert call(base, "POST", "/v1/documents", files=big).status_code == 413
    # A file whose bytes are not the SHA-256 sent beside them: the documented 400 (a schema
    # cannot say one field is the other's hash; the fuzzer found it undocumented).
    lying = {"sha256": hashlib.sha256(b"other bytes").hexdigest()}
    note = {"file": ("catatan.md", b"# Catatan\n", "text/markdown")}
    mismatched = call(base, "POST", "/v1/documents", files=note, data=lying)
    assert_error(mismatched, 400, "sha256_mismatch")
    documented = httpx.get(f"{base}/openapi.json").json()["paths"]["/v1/documents"]["post"]
    assert "`sha256_mismatch`" in documented["responses"]["400"]["description"]
    assert_error(
        call(base, "POST", "/v1/documents", OTHER.replace("uploads", "x"), json={}),
        403,
        "invalid_api_key",
    )
    assert call(base, "GET", "/v1/documents").json()["documents"] == []
    assert uploaded_files(runtime) == []


def test_the_upload_url_refuses_what_was_not_declared(
    base: str, runtime: Runtime, clock: Clock
) -> None:
    started = start(base, NOTE, sha256=hashlib.sha256(NOTE).hexdigest()).json()
    upload, document_id = started["upload"], started["document_id"]
    url = upload["url"]
    assert_error(send(upload, NOTE + b"!"), 413, "larger_than_declared")
    assert_error(send(upload, NOTE[:-1]), 400, "size_mismatch")
    assert_error(send(upload, NOTE[:-1] + b"?"), 400, "sha256_mismatch")
    assert_error(send(upload, NOTE, **{"Content-Type": "text/plain"}), 415, "content_type_mismatch")
    forged = url.replace("signature=", "signature=0")
    assert_error(
        httpx.put(forged, content=NOTE, headers=upload["headers"]), 403, "upload_url_invalid"
    )
    other_tenant = url.replace("tenant=acme", "tenant=other")
    response = httpx.put(other_tenant, content=NOTE, headers=upload["headers"])
    assert_error(response, 404, "document_not_found")
    over_limit = httpx.put(url, content=b"a" * (MAX_UPLOAD + 1), headers=upload["headers"])
    assert_error(over_limit, 413, "payload_too_large")
    assert uploaded_files(runtime) == []  # nothing of any refused body was kept
    assert call(base, "GET", f"/v1/documents/{document_id}").json()["status"] == "awaiting_upload"

    clock.skip(901)  # the URL's 15 minutes ran out
    assert_error(send(upload, NOTE), 403, "upload_url_expired")
    clock.skip(-901)
    assert send(upload, NOTE).status_code == 200
    assert_error(send(upload, NOTE), 409, "upload_not_awaited")
    settled(base, document_id)

    # an upload whose document was deleted takes no bytes
    gone = start(base, b"# Hapus\n\nDokumen ini dihapus.\n", filename="hapus.md").json()
    assert call(base, "DELETE", f"/v1/documents/{gone['document_id']}").status_code == 200
    assert_error(
        send(gone["upload"], b"# Hapus\n\nDokumen ini dihapus.\n"), 404, "document_not_found"
    )
    assert [p.name for p in uploaded_files(runtime)] == [document_id]


def test_a_lying_type_and_a_pdf_bomb_end_failed_with_a_reason(base: str) -> None:
    pdf = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    files = {"file": ("harga.csv", pdf, "text/csv")}
    lying = call(base, "POST", "/v1/documents", files=files).json()["document_id"]
    bomb = pdf_bomb()
    started = start(base, bomb, filename="bom.pdf", content_type="application/pdf").json()
    assert send(started["upload"], bomb).status_code == 200
    lied = settled(base, lying)
    assert (lied["status"], lied["reason"]) == ("failed", "named .csv but the content is a PDF")
    exploded = settled(base, started["document_id"])
    assert exploded["status"] == "failed" and "too large" in exploded["reason"]
    failed = call(base, "GET", "/v1/documents?status=failed").json()["documents"]
    assert {d["document_id"] for d in failed} == {lying, started["document_id"]}
    assert call(base, "GET", "/v1/documents?status=indexed").json()["documents"] == []


def test_a_new_version_replaces_the_old_one(base: str) -> None:
    def upload(data: bytes) -> str:
        files = {"file": ("harga.csv", data, "text/csv")}
        posted = call(base, "POST", "/v1/documents", files=files, data={"batch_id": "b"})
        assert posted.status_code == 201, posted.text
        document_id: str = posted.json()["document_id"]
        assert settled(base, document_id)["status"] == "indexed"
        return document_id

    old = upload(b"barang,harga\nkertas,500\nquuxberry,300\n")
    new = upload(b"barang,harga\nkertas,550\nzibberfruit,320\n")
    assert call(base, "GET", f"/v1/documents/{new}").json()["replaces"] == old
    assert_error(call(base, "GET", f"/v1/documents/{old}"), 404, "document_not_found")
    assert found(base, "quuxberry") == set()
    assert found(base, "zibberfruit") == {new}


def test_a_server_that_died_mid_ingest_resumes_it_on_restart(
    serve_app: ServeApp, runtime: Runtime
) -> None:
    # What a server killed mid-ingest leaves: the bytes kept, the upload `processing` under
    # the dead process's lease (no worker renews it).
    body = V1UploadRequest(
        filename="catatan.md", content_type="text/markdown", size_bytes=len(NOTE)
    )
    accepted, _ = upload_file(runtime, "acme", body, NOTE, wake=False)
    document_id = accepted.document_id
    claimed = runtime.store.claim_upload(
        "acme", document_id, owner="dead-server", lease_s=3.0, now=time.time()
    )
    assert claimed is not None and claimed.status == "processing"

    runtime.cross_check_jobs  # noqa: B018  # what `tanda serve` starts with
    base = serve_app(create_app(runtime))

    done = settled(base, document_id, timeout_s=60)
    assert done["status"] == "indexed" and "reason" not in done
    assert runtime.store.upload("acme", document_id).attempts == 2  # type: ignore[union-attr]
    assert found(base, "zorblaxquintine marmaduketrix") == {document_id}


def test_uploads_are_the_types_ingest_reads() -> None:
    from tanda.contract.v1_documents import UPLOAD_TYPES
    from tanda.service.ingest import SUPPORTED_SUFFIXES

    assert set(UPLOAD_TYPES) == set(SUPPORTED_SUFFIXES)
