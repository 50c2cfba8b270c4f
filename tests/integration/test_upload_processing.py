"""``process_upload`` (issue 26), the per-document handler the embedded worker pool and the AWS
IngestFunction both call, on a real SQLite Store and index and the embedded originals folder:
an upload ends ``indexed`` and searchable, or ``failed``/``skipped`` with a reason and nothing
indexed; a redelivery does nothing twice; a delete racing it wins; a worker that died is taken
over; a new version replaces the old one only once it is searchable."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.local_originals import LocalOriginals
from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.adapters.sqlite_store import SqliteStore
from tanda.records.documents import SearchQuery, SearchScope
from tanda.records.uploads import DocumentUpload, new_document_id
from tanda.service.documents import erase_document
from tanda.service.uploads import UploadPorts, process_upload
from tests.fakes import HashEmbedder

pytestmark = pytest.mark.integration

TENANT = "t1"
NOTE = (
    "# Catatan gudang\n\nKertas A4 disimpan di rak tiga. Zorblaxquintine menjaga rak itu.\n\n"
    "## Tinta\n\nTinta hitam dipesan setiap bulan.\n"
)


@pytest.fixture
def ports(tmp_path: Path) -> Iterator[UploadPorts]:
    index = SqliteSearchIndex(tmp_path / "home" / "index.sqlite", progress=False)
    yield UploadPorts(
        store=SqliteStore(tmp_path / "home" / "store.sqlite"),
        index=index,
        originals=LocalOriginals(tmp_path / "home" / "uploads"),
        embedder=None,
        layers_model=None,
        clock=time.time,
        lease_s=30.0,
        max_attempts=2,
    )
    index.close()


def queued(
    ports: UploadPorts, data: bytes, filename: str = "catatan.md", **changes: Any
) -> DocumentUpload:
    """An upload whose bytes arrived: stored, and the record ``queued``."""
    now = time.time()
    upload = DocumentUpload(
        tenant_id=TENANT,
        document_id=new_document_id(now),
        status="queued",
        filename=filename,
        content_type="text/markdown",
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        created_at=now,
        updated_at=now,
        expires_at=now + 900,
    ).model_copy(update=changes)
    ports.originals.put(TENANT, upload.document_id, [data], size_bytes=len(data))
    ports.store.create_upload(upload, now=now)
    return upload


def found(ports: UploadPorts, text: str) -> set[str]:
    hits = ports.index.search(SearchQuery(text=text, scope=SearchScope(tenant_id=TENANT)))
    return {hit.chunk.document_id for hit in hits}


def indexed_ids(ports: UploadPorts) -> set[str]:
    return {d.document_id for d in ports.index.documents(SearchScope(tenant_id=TENANT))}


def test_an_upload_ends_indexed_and_searchable_and_a_redelivery_does_nothing(
    ports: UploadPorts,
) -> None:
    upload = queued(ports, NOTE.encode(), batch_id="b1", selections=("gudang",))
    done = process_upload(ports, TENANT, upload.document_id, owner="w1")
    assert done is not None
    assert (done.status, done.reason, done.attempts) == ("indexed", None, 1)
    assert done.chunks and done.chunks >= 2 and done.indexed_at is not None
    assert (done.lease_owner, done.lease_until) == (None, None)
    assert found(ports, "Zorblaxquintine") == {upload.document_id}
    (document,) = ports.index.documents(SearchScope(tenant_id=TENANT))
    assert document.batch_id == "b1" and document.selections == ("gudang",)
    assert document.metadata["size_bytes"] == str(len(NOTE.encode()))
    assert document.content_hash == upload.sha256
    # the same message again (SQS redelivery): nothing is claimed or written twice
    again = process_upload(ports, TENANT, upload.document_id, owner="w2")
    assert again == done


def test_a_pdf_named_csv_fails_with_a_reason_and_nothing_is_indexed(
    ports: UploadPorts,
) -> None:
    pdf = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    upload = queued(ports, pdf, filename="harga.csv", content_type="text/csv")
    done = process_upload(ports, TENANT, upload.document_id, owner="w1")
    assert done is not None and done.status == "failed"
    assert done.reason == "named .csv but the content is a PDF"
    assert indexed_ids(ports) == set()


def test_bytes_other_than_declared_fail_before_they_are_read(ports: UploadPorts) -> None:
    upload = queued(ports, NOTE.encode(), sha256="0" * 64)
    done = process_upload(ports, TENANT, upload.document_id, owner="w1")
    assert done is not None and done.status == "failed"
    assert done.reason == "the stored file's SHA-256 is not the declared one"
    assert indexed_ids(ports) == set()


def test_an_empty_text_is_skipped_not_failed(ports: UploadPorts) -> None:
    upload = queued(ports, b"   \n\n ", filename="kosong.txt")
    done = process_upload(ports, TENANT, upload.document_id, owner="w1")
    assert done is not None and (done.status, done.reason) == (
        "skipped",
        "nothing to index (no text)",
    )


class DeletingEmbedder(HashEmbedder):
    """Embeds, after erasing the document being ingested: a DELETE that arrives while the
    worker is between reading and writing."""

    def __init__(self, erase: Any) -> None:
        super().__init__()
        self.erase = erase

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.erase()
        return super().embed(texts)


class DeletingIndex:
    """The index, whose write is followed at once by a DELETE of the same document: the delete
    lands after the chunks were written, before the worker marks the upload indexed."""

    def __init__(self, inner: SqliteSearchIndex, erase: Any) -> None:
        self.inner, self.erase = inner, erase

    def upsert_document(self, *args: Any, **kwargs: Any) -> Any:
        outcome = self.inner.upsert_document(*args, **kwargs)
        self.erase()
        return outcome

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize("when", ["before the write", "after the write"])
def test_a_delete_racing_the_ingest_wins(ports: UploadPorts, when: str) -> None:
    upload = queued(ports, NOTE.encode())
    receipts: list[Any] = []

    def erase() -> None:
        if not receipts:
            receipts.append(
                erase_document(
                    ports.index,
                    ports.store,
                    TENANT,
                    upload.document_id,
                    now=time.time(),
                    originals=ports.originals,
                )
            )

    if when == "before the write":
        racing = replace(ports, embedder=DeletingEmbedder(erase))
    else:
        racing = replace(ports, index=DeletingIndex(ports.index, erase))  # type: ignore[arg-type]
    assert process_upload(racing, TENANT, upload.document_id, owner="w1") is None
    assert len(receipts) == 1 and receipts[0].document_id == upload.document_id
    assert ports.store.upload(TENANT, upload.document_id) is None
    assert ports.originals.read(TENANT, upload.document_id) is None
    assert indexed_ids(ports) == set()
    assert found(ports, "Zorblaxquintine") == set()


def test_a_worker_that_died_is_taken_over_then_failed_after_its_attempts(
    ports: UploadPorts,
) -> None:
    upload = queued(ports, NOTE.encode())
    now = time.time()
    # a worker claimed it and died: its lease ran out
    ports.store.claim_upload(TENANT, upload.document_id, owner="dead", lease_s=0.0, now=now)
    done = process_upload(ports, TENANT, upload.document_id, owner="w2")
    assert done is not None and (done.status, done.attempts) == ("indexed", 2)

    other = queued(ports, NOTE.replace("tiga", "empat").encode(), filename="lain.md")
    for owner in ("dead1", "dead2"):
        ports.store.claim_upload(TENANT, other.document_id, owner=owner, lease_s=0.0, now=now)
    failed = process_upload(ports, TENANT, other.document_id, owner="w3")
    assert failed is not None and failed.status == "failed"
    assert failed.reason == "interrupted: its worker stopped 2 times before it was indexed"
    assert other.document_id not in indexed_ids(ports)


def test_a_new_version_replaces_the_old_once_it_is_searchable(ports: UploadPorts) -> None:
    old = queued(ports, NOTE.encode(), filename="catatan.md", batch_id="b1")
    process_upload(ports, TENANT, old.document_id, owner="w1")
    elsewhere = queued(ports, NOTE.replace("rak", "lemari").encode(), batch_id="b2")
    process_upload(ports, TENANT, elsewhere.document_id, owner="w1")
    new = queued(ports, NOTE.replace("tiga", "lima").encode(), filename="catatan.md", batch_id="b1")
    done = process_upload(ports, TENANT, new.document_id, owner="w1")
    assert done is not None and (done.status, done.replaces) == ("indexed", old.document_id)
    assert indexed_ids(ports) == {new.document_id, elsewhere.document_id}
    assert ports.store.upload(TENANT, old.document_id) is None
    assert ports.originals.read(TENANT, old.document_id) is None
    (receipt,) = ports.store.erasure_receipts(TENANT)
    assert receipt.document_id == old.document_id


def test_a_pdf_bomb_fails_with_a_reason_within_limits(ports: UploadPorts) -> None:
    bomb = pdf_bomb()
    upload = queued(ports, bomb, filename="bom.pdf", content_type="application/pdf")
    started = time.perf_counter()
    done = process_upload(ports, TENANT, upload.document_id, owner="w1")
    assert time.perf_counter() - started < 30
    assert done is not None and done.status == "failed"
    assert done.reason is not None and "too large" in done.reason
    assert indexed_ids(ports) == set()


def pdf_bomb(pages: int = 4, inflated: int = 60 * 1024 * 1024) -> bytes:
    """A tiny PDF whose page contents inflate to ``inflated`` bytes each (zlib, about 1000:1)."""
    import zlib

    content = zlib.compress(b"(A) Tj " * (inflated // 7), 9)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode())
    for i in range(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            "/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> "
            ">> >> >>".encode()
        )
        objects.append(
            f"<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode()
            + content
            + b"\nendstream"
        )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer << /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)
