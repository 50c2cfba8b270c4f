"""Uploaded documents (issue 26): what happens to one upload once its bytes arrived
(docs/documents.md).

:func:`process_upload` is the per-document handler BOTH runners call — the embedded worker pool
of ``tanda serve`` (the one that runs cross-check jobs) and, on AWS, the ``IngestFunction``
behind the queue and the Distributed Map. For one ``(tenant, document_id)``:

1. **claim** it: ``queued`` (or ``processing`` under a lease that ran out) → ``processing``
   under this worker's lease, in one conditional write (``Store.claim_upload``). Nothing to
   claim — finished, deleted, running under another live lease, or a redelivered message — is
   a no-op. One taken ``max_attempts`` times already is failed (``interrupted``) instead;
2. read the bytes (``Originals.read``) and check them: the declared size and ``sha256``, and the
   real type (:func:`tanda.service.ingest.sniff_refusal`: a PDF named ``.csv`` is ``failed``
   with a reason, never half-read);
3. ingest them as ``tanda ingest`` ingests one file (:func:`tanda.service.ingest.ingest_file`:
   chunks, structure records when ``TANDA_STRUCTURE_LAYERS``, embeddings when an embedder is
   configured) under the upload's ``document_id``, ``batch_id`` and ``selections`` — one atomic
   ``upsert_document``;
4. mark it ``indexed`` (pages, chunks, records by kind) — or ``skipped`` / ``failed`` with a
   reason — in one conditional write that only the lease holder's ``processing`` satisfies.

**A delete wins.** The lease is renewed while the worker works; a renewal that finds the upload
``deleting`` (or gone) cancels the work before anything is written. A delete that came after the
write makes step 4's transition fail: the worker then erases what it wrote. Either way the
document ends erased and nothing of it stays indexed.

**Never half-indexed and ``indexed``.** The index write is atomic and ``indexed`` is written only
after it; a worker that dies between the two leaves the upload ``processing``: its lease runs
out, the next worker takes it again and the write finds the content already there
(``unchanged``). After ``max_attempts`` takes it ends ``failed`` (``interrupted``).

**Versions.** Once its chunks are written (searchable), earlier indexed uploads of the tenant
with the same ``filename`` in the same batch and other bytes are erased, then the upload is
marked ``indexed`` with ``replaces`` naming the last of them: the old chunks disappear only after
the new ones are searchable, and a client that sees ``indexed`` no longer finds the old ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tanda.errors import DocumentNotFound
from tanda.records.uploads import DocumentUpload, DuplicateContent, OriginalRefused, UploadStatus
from tanda.service.ingest import StructureLayers, ingest_file

if TYPE_CHECKING:
    from tanda.model_calls import ChatModel
    from tanda.ports import Embedder, Originals, SearchIndex, Store

log = logging.getLogger(__name__)

INTERRUPTED_REASON = "interrupted: its worker stopped {attempts} times before it was indexed"
MISSING_REASON = "the uploaded file is missing"
VERSION_PAGE = 50
AWAITING: tuple[UploadStatus, ...] = ("awaiting_upload",)
PROCESSING: tuple[UploadStatus, ...] = ("processing",)
INDEXED: tuple[UploadStatus, ...] = ("indexed",)


@dataclass(frozen=True)
class UploadPorts:
    """What :func:`process_upload` reads and writes through (``Runtime.upload_ports``)."""

    store: Store
    index: SearchIndex
    originals: Originals
    embedder: Embedder | None
    layers_model: ChatModel | None
    """The model that proposes claims when structure layers are built; ``None``: no layers."""
    clock: Callable[[], float]
    lease_s: float
    max_attempts: int


class _Lease:
    """Renews ``owner``'s lease on a processing upload every third of ``lease_s``; ``live`` turns
    ``False`` as soon as the upload is no longer processing under it (deleted, or taken by
    another worker after the lease ran out)."""

    def __init__(self, ports: UploadPorts, upload: DocumentUpload, owner: str) -> None:
        self.ports, self.upload, self.owner = ports, upload, owner
        self._live = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, name="tanda-upload-lease", daemon=True)

    def __enter__(self) -> _Lease:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def live(self) -> bool:
        """Whether the upload is still processing under this lease: what the renewals saw, and
        a read of it now (a read, not a write: asked before and after the index write)."""
        if not self._live:
            return False
        now = self.ports.store.upload(self.upload.tenant_id, self.upload.document_id)
        if now is None or now.status != "processing" or now.lease_owner != self.owner:
            self._live = False
        return self._live

    def check(self) -> bool:
        """Renew now; ``False`` once the upload is not processing under this lease."""
        now = self.ports.clock()
        try:
            renewed = self.ports.store.transition_upload(
                self.upload.tenant_id,
                self.upload.document_id,
                expected=PROCESSING,
                changes={"lease_until": now + self.ports.lease_s},
                now=now,
                owner=self.owner,
            )
        except Exception:
            log.warning("lease of upload %s not renewed", self.upload.document_id, exc_info=True)
            return True  # try again at the next third
        if renewed is None:
            self._live = False
        return self._live

    def _renew(self) -> None:
        while not self._stop.wait(self.ports.lease_s / 3):
            if not self.check():
                return


def queue_received(
    store: Store, originals: Originals, upload: DocumentUpload, *, sha256: str | None, now: float
) -> DocumentUpload | None:
    """An awaiting upload's bytes have arrived (the embedded ``PUT``, an S3 event): it moves
    ``awaiting_upload`` → ``queued`` with their SHA-256 (when known), in one conditional write.
    ``None``: it was no longer awaited (deleted, or received by a racing call). Bytes another
    upload of the tenant holds: this upload and its original are deleted, and the
    :class:`DuplicateContent` naming the other is raised on."""
    changes: dict[str, object] = {"status": "queued"}
    if sha256 is not None:
        changes["sha256"] = sha256
    try:
        return store.transition_upload(
            upload.tenant_id, upload.document_id, expected=AWAITING, changes=changes, now=now
        )
    except DuplicateContent:
        store.delete_upload(upload.tenant_id, upload.document_id)
        originals.delete(upload.tenant_id, upload.document_id)
        raise


def process_upload(
    ports: UploadPorts, tenant_id: str, document_id: str, *, owner: str
) -> DocumentUpload | None:
    """Ingest one queued upload (module docstring); the upload as this call left it, ``None``
    when there is none (deleted). Idempotent: a second call for the same upload — a redelivered
    message — finds it claimed or finished and returns it unchanged."""
    store = ports.store
    now = ports.clock()
    upload = store.upload(tenant_id, document_id)
    if upload is None:
        return None
    if upload.lease_expired(now) and upload.attempts >= ports.max_attempts:
        failed = store.transition_upload(
            tenant_id,
            document_id,
            expected=PROCESSING,
            changes=_ended("failed", INTERRUPTED_REASON.format(attempts=upload.attempts)),
            now=now,
        )
        return failed or store.upload(tenant_id, document_id)
    claimed = store.claim_upload(
        tenant_id, document_id, owner=owner, lease_s=ports.lease_s, now=now
    )
    if claimed is None:
        return upload
    with _Lease(ports, claimed, owner) as lease:
        return _ingest_claimed(ports, claimed, owner, lease)


def _ended(status: str, reason: str | None) -> dict[str, object]:
    return {"status": status, "reason": reason, "lease_owner": None, "lease_until": None}


def _finish(
    ports: UploadPorts, upload: DocumentUpload, owner: str, changes: dict[str, object]
) -> DocumentUpload | None:
    return ports.store.transition_upload(
        upload.tenant_id,
        upload.document_id,
        expected=PROCESSING,
        changes=changes,
        now=ports.clock(),
        owner=owner,
    )


def _ingest_claimed(
    ports: UploadPorts, upload: DocumentUpload, owner: str, lease: _Lease
) -> DocumentUpload | None:
    tenant_id, document_id = upload.tenant_id, upload.document_id
    try:
        data = ports.originals.read(tenant_id, document_id)
    except OriginalRefused as refused:
        return _finish(ports, upload, owner, _ended("failed", str(refused)))
    if data is None:
        if not lease.live:  # deleted meanwhile: the erasure took the bytes
            return ports.store.upload(tenant_id, document_id)
        return _finish(ports, upload, owner, _ended("failed", MISSING_REASON))
    mismatch = _mismatch(upload, data)
    if mismatch is not None:
        return _finish(ports, upload, owner, _ended("failed", mismatch))
    layers = StructureLayers(model=ports.layers_model) if ports.layers_model else None
    metadata: dict[str, object] = {"origin": "upload"}
    if upload.label:
        metadata["title"] = upload.label
    result = ingest_file(
        ports.index,
        ports.embedder,
        data,
        tenant=tenant_id,
        document_id=document_id,
        filename=upload.filename,
        batch=upload.batch_id,
        selections=upload.selections,
        metadata=metadata,
        layers=layers,
        proceed=lambda: lease.live,
    )
    if result.status == "cancelled":
        return ports.store.upload(tenant_id, document_id)
    if result.status != "indexed":
        return _finish(ports, upload, owner, _ended(result.status, result.reason))
    if not lease.live:  # deleted while it was written: the delete wins
        return _lost(ports, upload)
    replaced = _erase_versions(ports, upload, lease)
    done = _finish(
        ports,
        upload,
        owner,
        {
            **_ended("indexed", None),
            "indexed_at": ports.clock(),
            "title": result.title,
            "pages": result.pages,
            "chunks": result.chunks,
            "records": result.records,
            "replaces": replaced[0] if replaced else None,
        },
    )
    if done is None:
        return _lost(ports, upload)
    return done


def _mismatch(upload: DocumentUpload, data: bytes) -> str | None:
    import hashlib

    if len(data) != upload.size_bytes:
        return f"the stored file has {len(data)} bytes, not the declared {upload.size_bytes}"
    if upload.sha256 is not None and hashlib.sha256(data).hexdigest() != upload.sha256:
        return "the stored file's SHA-256 is not the declared one"
    return None


def _lost(ports: UploadPorts, upload: DocumentUpload) -> DocumentUpload | None:
    """The upload left ``processing`` under this worker while it wrote the document: deleted
    (the delete wins: erase what was written) or taken by another worker after this one's lease
    ran out (that one writes the same document; leave it)."""
    now = ports.store.upload(upload.tenant_id, upload.document_id)
    if now is None or now.status == "deleting":
        ports.index.delete_document(upload.tenant_id, upload.document_id)
        log.info("upload %s was deleted while it was indexed: erased", upload.document_id)
    return now


def _erase_versions(ports: UploadPorts, upload: DocumentUpload, lease: _Lease) -> list[str]:
    """Erase the earlier versions of ``upload`` — uploads of the tenant with the same filename
    in the same batch and other bytes, indexed — now that it is searchable; their ids, the
    newest first."""
    from tanda.service.documents import erase_document

    replaced: list[str] = []
    after: str | None = upload.document_id  # earlier uploads only: ids sort by creation
    while after is not None:
        page = ports.store.uploads(
            upload.tenant_id,
            limit=VERSION_PAGE,
            after=after,
            filename=upload.filename,
            statuses=INDEXED,
        )
        for earlier in page.uploads:
            if earlier.batch_id != upload.batch_id or earlier.sha256 == upload.sha256:
                continue
            if not lease.live:  # deleted meanwhile: the old version stays
                return replaced
            try:
                erase_document(
                    ports.index,
                    ports.store,
                    upload.tenant_id,
                    earlier.document_id,
                    now=ports.clock(),
                    originals=ports.originals,
                )
            except DocumentNotFound:
                continue  # erased meanwhile
            replaced.append(earlier.document_id)
        after = page.next_after
    return replaced
