"""IngestFunction (issue 26; docs/documents.md "On AWS"), its real handler under moto — DynamoDB
and the uploads bucket from template.yaml, the in-memory OpenSearch on loopback checked against
OpenSearch's spec: an uploaded object becomes a searchable document once, whatever SQS delivers
twice; a Lambda killed mid-document leaves it taken again or failed with a reason, never
``indexed`` half-written; a failed message is reported alone (partial batch response); an object
whose document was erased, or whose bytes the tenant already holds, leaves nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tanda.records.imports import upload_key
from tests.aws_ingest import (
    BUCKET,
    NOTE,
    TENANT,
    AwsIngest,
    LambdaContext,
    aws_ingest,
    s3_event,
    sqs_batch,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[AwsIngest]:
    with aws_ingest(monkeypatch, tmp_path / "home") as state:
        yield state


def test_an_uploaded_object_is_indexed_once_however_often_sqs_delivers_it(aws: AwsIngest) -> None:
    # Given an upload whose bytes the partner posted to S3,
    upload = aws.upload(NOTE.encode(), batch_id="b1")
    event = s3_event(upload.document_id)

    # when the queue delivers its event twice in one batch, then once more later,
    first = aws.handler(sqs_batch(event, event), LambdaContext())
    again = aws.handler(sqs_batch(event, receives=2), LambdaContext())

    # then no message failed, the document is indexed with its bytes' SHA-256,
    assert first == {"batchItemFailures": []} and again == {"batchItemFailures": []}
    done = aws.store.upload(TENANT, upload.document_id)
    assert done is not None and (done.status, done.attempts) == ("indexed", 1)
    assert done.sha256 == hashlib.sha256(NOTE.encode()).hexdigest()
    assert aws.indexed() == {upload.document_id}
    # its chunks were written once, and the batch counts it once.
    assert aws.chunk_writes(upload.document_id) == 1
    assert aws.store.upload_counts(TENANT, "b1") == {"indexed": 1}


def test_a_lambda_killed_mid_document_is_taken_again_after_its_lease(aws: AwsIngest) -> None:
    # Given an upload a previous invocation claimed and then died on (its lease ran out, nothing
    # indexed: the index write comes before `indexed`),
    upload = aws.upload(NOTE.encode())
    aws.store.transition_upload(
        TENANT, upload.document_id, expected=("awaiting_upload",), changes={"status": "queued"},
        now=upload.created_at,
    )  # fmt: skip
    dead = aws.store.claim_upload(
        TENANT, upload.document_id, owner="killed", lease_s=30, now=upload.created_at - 60
    )
    assert dead is not None and dead.status == "processing"
    assert aws.indexed() == set()

    # when the queue delivers the message again (after its visibility timeout),
    answer = aws.handler(sqs_batch(s3_event(upload.document_id), receives=2), LambdaContext())

    # then the next invocation takes it (a second attempt) and indexes it.
    assert answer == {"batchItemFailures": []}
    done = aws.store.upload(TENANT, upload.document_id)
    assert done is not None and (done.status, done.attempts) == ("indexed", 2)
    assert aws.indexed() == {upload.document_id}


def test_a_document_interrupted_as_often_as_allowed_ends_failed_with_a_reason(
    aws: AwsIngest,
) -> None:
    # Given an upload two invocations (TANDA_XC_MAX_ATTEMPTS) took and died on,
    upload = aws.upload(NOTE.encode())
    aws.store.transition_upload(
        TENANT, upload.document_id, expected=("awaiting_upload",), changes={"status": "queued"},
        now=upload.created_at,
    )  # fmt: skip
    for n, owner in enumerate(("killed-1", "killed-2")):
        at = upload.created_at - 200 + 60 * n
        assert aws.store.claim_upload(TENANT, upload.document_id, owner=owner, lease_s=30, now=at)

    # when its message comes once more,
    answer = aws.handler(sqs_batch(s3_event(upload.document_id), receives=3), LambdaContext())

    # then it is failed with the reason, the message is done with, and nothing is indexed.
    assert answer == {"batchItemFailures": []}
    done = aws.store.upload(TENANT, upload.document_id)
    assert done is not None and done.status == "failed"
    assert done.reason is not None and done.reason.startswith("interrupted")
    assert aws.indexed() == set()


def test_a_document_the_index_refuses_ends_failed_with_a_reason_never_indexed(
    aws: AwsIngest,
) -> None:
    # Given two uploads in one batch, the search index refusing the first one's writes (past
    # the _bulk backoff: tests/integration/test_opensearch_backoff.py),
    broken = aws.upload(NOTE.encode(), filename="rusak.md")
    fine = aws.upload(NOTE.encode() + b"\nTambahan.\n", filename="baik.md")
    aws.fail_bulk_of.add(broken.document_id)
    batch = sqs_batch(s3_event(broken.document_id), s3_event(fine.document_id))

    answer = aws.handler(batch, LambdaContext())

    # then the first is failed with the reason (its message is done with: a final status), the
    # other indexed, and nothing of the first is listed.
    assert answer == {"batchItemFailures": []}
    left = aws.store.upload(TENANT, broken.document_id)
    assert left is not None and left.status == "failed"
    assert left.reason is not None and left.reason.startswith("index refused it")
    assert aws.indexed() == {fine.document_id}


def test_a_message_whose_handling_raised_is_the_only_one_delivered_again(
    aws: AwsIngest, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given two uploads in one batch, S3 failing to read the first one's bytes,
    broken = aws.upload(NOTE.encode(), filename="rusak.md")
    fine = aws.upload(NOTE.encode() + b"\nTambahan.\n", filename="baik.md")
    read = aws.originals.read

    def flaky(tenant_id: str, document_id: str) -> bytes | None:
        if document_id == broken.document_id:
            raise ConnectionError("S3 unavailable")
        return read(tenant_id, document_id)

    monkeypatch.setattr(aws.originals, "read", flaky)
    batch = sqs_batch(s3_event(broken.document_id), s3_event(fine.document_id))

    # when the function handles the batch,
    answer = aws.handler(batch, LambdaContext())

    # then only that message is reported failed (SQS delivers it alone again), the other is
    # indexed, and the first waits as it was, to be queued by the next delivery.
    failed_id = batch["Records"][0]["messageId"]
    assert answer == {"batchItemFailures": [{"itemIdentifier": failed_id}]}
    assert aws.indexed() == {fine.document_id}
    left = aws.store.upload(TENANT, broken.document_id)
    assert left is not None and left.status == "awaiting_upload"
    monkeypatch.setattr(aws.originals, "read", read)
    assert aws.handler(sqs_batch(s3_event(broken.document_id), receives=2), LambdaContext()) == {
        "batchItemFailures": []
    }
    assert aws.indexed() == {fine.document_id, broken.document_id}


def test_an_object_for_an_erased_or_unknown_document_is_deleted(aws: AwsIngest) -> None:
    # Given bytes that arrived for a document erased before they came (its upload is gone),
    upload = aws.upload(NOTE.encode())
    assert aws.store.delete_upload(TENANT, upload.document_id)

    answer = aws.handler(sqs_batch(s3_event(upload.document_id)), LambdaContext())

    # then the message is done with and no version of the object is left.
    assert answer == {"batchItemFailures": []}
    versions = aws.s3.list_object_versions(
        Bucket=BUCKET, Prefix=upload_key(TENANT, upload.document_id)
    )
    assert versions.get("Versions", []) == [] and versions.get("DeleteMarkers", []) == []
    assert aws.indexed() == set()


def test_the_same_bytes_uploaded_again_are_not_a_second_document(aws: AwsIngest) -> None:
    # Given a document indexed from some bytes, and another upload of the same bytes whose
    # SHA-256 was not declared (known only when they arrive),
    first = aws.upload(NOTE.encode())
    aws.handler(sqs_batch(s3_event(first.document_id)), LambdaContext())
    second = aws.upload(NOTE.encode(), filename="salinan.md")

    answer = aws.handler(sqs_batch(s3_event(second.document_id)), LambdaContext())

    # then the second is not kept — record, object, index — and the first stays.
    assert answer == {"batchItemFailures": []}
    assert aws.store.upload(TENANT, second.document_id) is None
    assert aws.originals.read(TENANT, second.document_id) is None
    assert aws.indexed() == {first.document_id}


def test_an_event_for_a_key_that_is_no_upload_is_ignored(aws: AwsIngest) -> None:
    event = s3_event("x")
    event["detail"]["object"]["key"] = "tenants/t1/imports/batch/a.md"
    assert aws.handler(sqs_batch(event), LambdaContext()) == {"batchItemFailures": []}


def test_erasure_on_aws_removes_every_version_every_chunk_and_the_items_then_keeps_a_receipt(
    aws: AwsIngest,
) -> None:
    from tanda.service.documents import erase_document

    # Given an uploaded document indexed through the queue, whose original was overwritten once
    # (two versions in the versioned bucket),
    upload = aws.upload(NOTE.encode(), batch_id="b1")
    aws.handler(sqs_batch(s3_event(upload.document_id)), LambdaContext())
    key = upload_key(TENANT, upload.document_id)
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=NOTE.encode())
    assert aws.indexed() == {upload.document_id}

    # when it is erased as DELETE /v1/documents/{id} erases it on AWS,
    receipt = erase_document(
        aws.runtime.search_index,
        aws.store,
        TENANT,
        upload.document_id,
        now=1.0,
        originals=aws.originals,
    )

    # then no version of the original is left, nothing of it is in the index, its upload and
    # its claim on the bytes are gone (the same bytes may come again), and the receipt is kept.
    versions = aws.s3.list_object_versions(Bucket=BUCKET, Prefix=key)
    assert versions.get("Versions", []) == [] and versions.get("DeleteMarkers", []) == []
    assert aws.indexed() == set()
    assert not [
        s for s in aws.opensearch.documents.values() if s.get("document_id") == upload.document_id
    ]
    assert aws.store.upload(TENANT, upload.document_id) is None
    assert aws.store.upload_counts(TENANT, "b1") == {}
    assert receipt.removed.chunks >= 1
    assert [r.document_id for r in aws.store.erasure_receipts(TENANT)] == [upload.document_id]
    again = aws.upload(NOTE.encode(), sha256=hashlib.sha256(NOTE.encode()).hexdigest())
    assert aws.store.upload(TENANT, again.document_id) is not None


def test_a_new_version_replaces_the_old_one_with_its_original_once_searchable(
    aws: AwsIngest,
) -> None:
    # Given a document indexed from catatan.md in batch b1,
    old = aws.upload(NOTE.encode(), batch_id="b1")
    aws.handler(sqs_batch(s3_event(old.document_id)), LambdaContext())

    # when other bytes under the same name arrive in the same batch,
    new = aws.upload(NOTE.encode() + b"\nRevisi kedua.\n", batch_id="b1")
    answer = aws.handler(sqs_batch(s3_event(new.document_id)), LambdaContext())

    # then the new one is indexed and names the one it replaced, which is erased as DELETE
    # erases — index, upload, and every version of its original.
    assert answer == {"batchItemFailures": []}
    done = aws.store.upload(TENANT, new.document_id)
    assert done is not None and (done.status, done.replaces) == ("indexed", old.document_id)
    assert aws.indexed() == {new.document_id}
    assert aws.store.upload(TENANT, old.document_id) is None
    versions = aws.s3.list_object_versions(
        Bucket=BUCKET, Prefix=upload_key(TENANT, old.document_id)
    )
    assert versions.get("Versions", []) == [] and versions.get("DeleteMarkers", []) == []
    assert [r.document_id for r in aws.store.erasure_receipts(TENANT)] == [old.document_id]


def test_a_message_for_a_document_another_worker_holds_comes_back_later(aws: AwsIngest) -> None:
    import time

    from tanda.records.imports import ImportItem
    from tanda.service.ingest_events import DocumentBusy, import_object

    # Given an upload another invocation is ingesting right now (its lease is live),
    upload = aws.upload(NOTE.encode())
    queued = {"status": "queued", "sha256": hashlib.sha256(NOTE.encode()).hexdigest()}
    aws.store.transition_upload(
        TENANT, upload.document_id, expected=("awaiting_upload",), changes=queued, now=time.time()
    )
    assert aws.store.claim_upload(
        TENANT, upload.document_id, owner="busy", lease_s=30, now=time.time()
    )
    batch = sqs_batch(s3_event(upload.document_id))

    # when its message is delivered (a duplicate, or the copy's event of a bulk import),
    answer = aws.handler(batch, LambdaContext())

    # then it is not acknowledged — were that worker to die, nobody would finish the document —
    # but delivered again after the visibility timeout; the document is left to its worker.
    assert answer == {"batchItemFailures": [{"itemIdentifier": batch["Records"][0]["messageId"]}]}
    held = aws.store.upload(TENANT, upload.document_id)
    assert held is not None and (held.status, held.lease_owner) == ("processing", "busy")
    # A bulk-import child finding its document so raises too (Step Functions retries it after
    # the lease): here the object of the import is the same bytes, so it continues that upload.
    aws.s3.put_object(Bucket=BUCKET, Key="tenants/t1/imports/x/catatan.md", Body=NOTE.encode())
    item = ImportItem(key="tenants/t1/imports/x/catatan.md", tenant_id=TENANT, batch_id="b9")
    aws.store.transition_upload(
        TENANT, upload.document_id, expected=("processing",), changes={"batch_id": "b9"},
        now=time.time(),
    )  # fmt: skip
    with pytest.raises(DocumentBusy):
        import_object(aws.runtime.upload_ports(), item, owner="child-2")


def test_the_event_of_a_bulk_copy_leaves_the_document_to_its_child(aws: AwsIngest) -> None:
    import time

    from tanda.service.ingest_events import BULK_OWNER

    # Given a document a bulk-import child is ingesting (its copy's upload event comes meanwhile),
    upload = aws.upload(NOTE.encode())
    aws.store.transition_upload(
        TENANT, upload.document_id, expected=("awaiting_upload",), changes={"status": "queued"},
        now=time.time(),
    )  # fmt: skip
    owner = f"{BULK_OWNER}child-1"
    assert aws.store.claim_upload(
        TENANT, upload.document_id, owner=owner, lease_s=30, now=time.time()
    )

    # then the event is acknowledged (Step Functions retries the child if it dies), untouched.
    answer = aws.handler(sqs_batch(s3_event(upload.document_id)), LambdaContext())
    assert answer == {"batchItemFailures": []}
    held = aws.store.upload(TENANT, upload.document_id)
    assert held is not None and (held.status, held.lease_owner) == ("processing", owner)
