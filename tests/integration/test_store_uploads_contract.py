"""The ``Store`` contract for uploads (issue 26): the same tests against ``SqliteStore`` on a
temporary file and ``DynamoStore`` under moto (tables from template.yaml). Every write is one
conditional write: a second create, a redelivered claim, a transition from a status that moved
on, and a second holder of the same bytes each write nothing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.sqlite_store import SqliteStore
from tanda.ports import Store
from tanda.records.uploads import DocumentUpload, DuplicateContent, UploadExists, new_document_id

SHA_A = "a" * 64
SHA_B = "b" * 64


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "sqlite":
        return SqliteStore(tmp_path / "store.sqlite")
    found: Store = request.getfixturevalue("dynamo_store")
    return found


def upload(document_id: str = "doc_000000000001000000000000", **changes: Any) -> DocumentUpload:
    base = DocumentUpload(
        tenant_id="t1",
        document_id=document_id,
        filename="faktur.pdf",
        content_type="application/pdf",
        size_bytes=1234,
        created_at=100.0,
        updated_at=100.0,
        expires_at=1000.0,
    )
    return base.model_copy(update=changes)


def ids(n: int) -> list[str]:
    return [f"doc_{i:012x}{0:012x}" for i in range(1, n + 1)]


def test_an_upload_reads_back_for_its_tenant_only(store: Store) -> None:
    store.create_upload(upload(sha256=SHA_A, batch_id="b1", selections=("s",)), now=100.0)
    assert store.upload("t1", upload().document_id) == upload(
        sha256=SHA_A, batch_id="b1", selections=("s",)
    )
    assert store.upload("t2", upload().document_id) is None
    assert store.upload("t1", "doc_ffffffffffffffffffffffff") is None


def test_a_second_create_of_the_same_id_writes_nothing(store: Store) -> None:
    store.create_upload(upload(), now=100.0)
    with pytest.raises(UploadExists):
        store.create_upload(upload(filename="other.csv", sha256=SHA_B), now=100.0)
    assert store.upload("t1", upload().document_id) == upload()


def test_the_same_bytes_twice_in_one_tenant_is_a_duplicate_of_the_first(store: Store) -> None:
    first, second, third = ids(3)
    store.create_upload(upload(first, sha256=SHA_A), now=100.0)
    with pytest.raises(DuplicateContent) as raised:
        store.create_upload(upload(second, sha256=SHA_A), now=100.0)
    assert raised.value.document_id == first
    assert store.upload("t1", second) is None
    # another tenant may hold the same bytes
    store.create_upload(upload(second, tenant_id="t2", sha256=SHA_A), now=100.0)
    # an awaiting upload holds them only until its URL expires
    store.create_upload(upload(third, sha256=SHA_A), now=1000.0)
    assert store.upload("t1", third) is not None


def test_failing_or_deleting_releases_the_bytes(store: Store) -> None:
    first, second, third = ids(3)
    store.create_upload(upload(first, sha256=SHA_A, status="queued"), now=100.0)
    store.transition_upload(
        "t1", first, expected=("queued",), changes={"status": "failed", "reason": "x"}, now=101.0
    )
    store.create_upload(upload(second, sha256=SHA_A), now=102.0)
    store.transition_upload(
        "t1", second, expected=("awaiting_upload",), changes={"status": "deleting"}, now=103.0
    )
    store.create_upload(upload(third, sha256=SHA_A), now=104.0)
    assert store.delete_upload("t1", third) is True
    assert store.delete_upload("t1", third) is False
    store.create_upload(upload(third, sha256=SHA_A), now=105.0)


def test_bytes_known_only_on_arrival_are_claimed_by_the_transition(store: Store) -> None:
    first, second = ids(2)
    store.create_upload(upload(first, sha256=SHA_A, status="indexed"), now=100.0)
    store.create_upload(upload(second), now=100.0)
    with pytest.raises(DuplicateContent) as raised:
        store.transition_upload(
            "t1",
            second,
            expected=("awaiting_upload",),
            changes={"status": "queued", "sha256": SHA_A},
            now=101.0,
        )
    assert raised.value.document_id == first
    assert store.upload("t1", second) == upload(second)  # nothing written
    queued = store.transition_upload(
        "t1",
        second,
        expected=("awaiting_upload",),
        changes={"status": "queued", "sha256": SHA_B},
        now=101.0,
    )
    assert queued == upload(second, status="queued", sha256=SHA_B, updated_at=101.0)


def test_a_transition_from_a_status_that_moved_on_writes_nothing(store: Store) -> None:
    store.create_upload(upload(status="queued"), now=100.0)
    doc = upload().document_id
    assert (
        store.transition_upload(
            "t1", doc, expected=("awaiting_upload",), changes={"status": "queued"}, now=101.0
        )
        is None
    )
    assert store.upload("t1", doc) == upload(status="queued")
    assert (
        store.transition_upload(
            "t2", doc, expected=("queued",), changes={"status": "failed"}, now=101.0
        )
        is None
    )
    assert (
        store.transition_upload(
            "t1", "doc_ffffffffffffffffffffffff", expected=("queued",), changes={}, now=101.0
        )
        is None
    )


def test_a_claim_takes_a_queued_upload_once_and_an_expired_lease_again(store: Store) -> None:
    store.create_upload(upload(status="queued"), now=100.0)
    doc = upload().document_id
    claimed = store.claim_upload("t1", doc, owner="w1", lease_s=30.0, now=200.0)
    assert claimed is not None
    assert (claimed.status, claimed.attempts, claimed.lease_owner, claimed.lease_until) == (
        "processing",
        1,
        "w1",
        230.0,
    )
    # a redelivered message, a second worker: the lease is live, nothing is taken
    assert store.claim_upload("t1", doc, owner="w2", lease_s=30.0, now=229.0) is None
    # only the lease holder finishes it
    assert (
        store.transition_upload(
            "t1",
            doc,
            expected=("processing",),
            changes={"status": "indexed"},
            now=210.0,
            owner="w2",
        )
        is None
    )
    # the worker died: its lease ran out, another takes it again
    again = store.claim_upload("t1", doc, owner="w2", lease_s=30.0, now=230.0)
    assert again is not None and (again.attempts, again.lease_owner) == (2, "w2")
    done = store.transition_upload(
        "t1", doc, expected=("processing",), changes={"status": "indexed"}, now=240.0, owner="w2"
    )
    assert done is not None and done.status == "indexed" and done.updated_at == 240.0
    assert store.claim_upload("t1", doc, owner="w3", lease_s=30.0, now=999.0) is None


def test_concurrent_claims_give_the_upload_to_one_worker(store: Store) -> None:
    store.create_upload(upload(status="queued"), now=100.0)
    won: list[str] = []

    def claim(owner: str) -> None:
        if store.claim_upload("t1", upload().document_id, owner=owner, lease_s=30, now=101.0):
            won.append(owner)

    threads = [threading.Thread(target=claim, args=(f"w{i}",)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1


def test_open_uploads_are_the_queued_and_processing_ones_oldest_first(store: Store) -> None:
    statuses = ["queued", "awaiting_upload", "processing", "indexed", "queued", "failed"]
    for n, (document_id, status) in enumerate(zip(ids(6), statuses, strict=True)):
        store.create_upload(
            upload(document_id, tenant_id=f"t{n % 2}", status=status, updated_at=300.0 - n),
            now=100.0,
        )
    found = store.open_uploads(limit=10)
    assert [(u.document_id, u.status) for u in found] == [
        (ids(6)[4], "queued"),
        (ids(6)[2], "processing"),
        (ids(6)[0], "queued"),
    ]
    assert len(store.open_uploads(limit=2)) == 2


def test_a_tenants_uploads_list_newest_first_in_pages_with_filters(store: Store) -> None:
    made = ids(7)
    for n, document_id in enumerate(made):
        store.create_upload(
            upload(
                document_id,
                batch_id="b1" if n % 2 else "b2",
                status="indexed" if n < 4 else "queued",
                filename="a.csv" if n in (1, 5) else "faktur.pdf",
            ),
            now=100.0,
        )
    store.create_upload(upload(ids(8)[7], tenant_id="t2"), now=100.0)
    first = store.uploads("t1", limit=3)
    assert [u.document_id for u in first.uploads] == made[::-1][:3]
    rest = store.uploads("t1", limit=10, after=first.next_after)
    assert [u.document_id for u in rest.uploads] == made[::-1][3:]
    assert rest.next_after is None
    b1 = store.uploads("t1", limit=10, batch_id="b1")
    assert [u.document_id for u in b1.uploads] == [made[5], made[3], made[1]]
    indexed = store.uploads("t1", limit=10, statuses=("indexed",), batch_id="b1")
    assert [u.document_id for u in indexed.uploads] == [made[3], made[1]]
    named = store.uploads("t1", limit=10, filename="a.csv", after=made[5])
    assert [u.document_id for u in named.uploads] == [made[1]]


def test_batch_counts_by_status(store: Store) -> None:
    statuses = ["queued", "indexed", "indexed", "failed", "indexed"]
    for document_id, status in zip(ids(5), statuses, strict=True):
        store.create_upload(upload(document_id, batch_id="b1", status=status), now=100.0)
    store.create_upload(upload(ids(6)[5], batch_id="b2"), now=100.0)
    store.create_upload(upload(ids(7)[6], batch_id="b1", tenant_id="t2"), now=100.0)
    assert store.upload_counts("t1", "b1") == {"queued": 1, "indexed": 3, "failed": 1}
    assert store.upload_counts("t1", "nothing") == {}


def test_new_document_ids_sort_by_creation() -> None:
    made = [new_document_id(1_700_000_000.0 + n / 10_000) for n in range(50)]
    assert made == sorted(made)
    assert len(set(made)) == 50
