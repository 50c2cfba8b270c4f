"""The DynamoDB side of uploads (issue 26), beyond the Store contract both stores pass
(``test_store_uploads_contract.py``): every item an upload's lifecycle and a document's erasure
touch is one the functions' IAM policies allow (``dynamodb:LeadingKeys`` of ``template.yaml``),
no operation is a ``Scan``, and the claim on a tenant's bytes is written in the same transaction
as the upload."""

from __future__ import annotations

import fnmatch
from typing import Any

import pytest
from samtranslator.yaml_helper import yaml_parse

from tanda.adapters.dynamodb_store import DynamoStore
from tanda.records.conversations import ConversationOwner
from tanda.records.uploads import DocumentUpload, DuplicateContent
from tests.aws import REPO
from tests.integration.test_store_contract import ISSUER, conversation
from tests.integration.test_store_erasure_contract import cited, remembered

pytestmark = pytest.mark.integration

SHA = "c" * 64


class Recording:
    """A DynamoDB client that records the partition key of every item each call names."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.keys: list[tuple[str, str]] = []

    def __getattr__(self, name: str) -> Any:
        if name == "scan":
            raise AssertionError("a Scan names no key: IAM cannot hold it to a partition")
        call = getattr(self._client, name)

        def recorded(**request: Any) -> Any:
            for pk in _partition_keys(request):
                self.keys.append((name, pk))
            return call(**request)

        return recorded


def _partition_keys(request: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for item in request.get("TransactItems", []):
        ((_, write),) = item.items()
        found += _partition_keys(write)
    for field in ("Key", "Item"):
        if field in request:
            found.append(request[field]["PK"]["S"])
    values = request.get("ExpressionAttributeValues", {})
    if "KeyConditionExpression" in request:
        found.append(values[":pk"]["S"])
    return found


def leading_keys(function: str) -> list[str]:
    template = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
    for policy in template["Resources"][function]["Properties"]["Policies"]:
        for statement in policy.get("Statement", []):
            condition = statement.get("Condition", {}).get("ForAllValues:StringLike", {})
            if "dynamodb:LeadingKeys" in condition:
                return list(condition["dynamodb:LeadingKeys"])
    raise AssertionError(f"{function} has no LeadingKeys condition")


def allowed(pk: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(pk, pattern) for pattern in patterns)


def _upload(document_id: str, **changes: Any) -> DocumentUpload:
    return DocumentUpload(
        tenant_id="t1",
        document_id=document_id,
        filename="kvkk.pdf",
        content_type="application/pdf",
        size_bytes=10,
        batch_id="b1",
        created_at=100.0,
        updated_at=100.0,
        expires_at=1000.0,
    ).model_copy(update=changes)


def test_an_uploads_lifecycle_touches_only_items_the_ingest_function_may(
    dynamo_store: DynamoStore,
) -> None:
    recording = Recording(dynamo_store.client)
    dynamo_store.client = recording
    first, second = "doc_000000000001000000000000", "doc_000000000002000000000000"

    # Given an upload whose bytes arrive, are claimed, indexed; a duplicate; a delete,
    dynamo_store.create_upload(_upload(first), now=100.0)
    dynamo_store.transition_upload(
        "t1", first, expected=("awaiting_upload",), changes={"status": "queued", "sha256": SHA},
        now=101.0,
    )  # fmt: skip
    dynamo_store.claim_upload("t1", first, owner="w", lease_s=30, now=102.0)
    dynamo_store.transition_upload(
        "t1", first, expected=("processing",), changes={"status": "indexed"}, now=103.0, owner="w"
    )
    with pytest.raises(DuplicateContent):
        dynamo_store.create_upload(_upload(second, sha256=SHA), now=104.0)
    dynamo_store.open_uploads(limit=5)
    dynamo_store.uploads("t1", limit=5, batch_id="b1")
    assert dynamo_store.upload_counts("t1", "b1") == {"indexed": 1}
    dynamo_store.delete_upload("t1", first)

    # then every item named is under the ingest function's leading keys, and the documents
    # function's too.
    for function in ("IngestFunction", "V1DocumentsFunction"):
        patterns = leading_keys(function)
        refused = [(call, pk) for call, pk in recording.keys if not allowed(pk, patterns)]
        assert refused == [], function
    assert {pk for _, pk in recording.keys} == {"DOC#t1", "DOCOPEN"}
    # The bytes are free again once the upload is gone.
    dynamo_store.create_upload(_upload(second, sha256=SHA, status="queued"), now=105.0)


def test_a_documents_erasure_touches_only_items_the_documents_function_may(
    dynamo_store: DynamoStore,
) -> None:
    owner = ConversationOwner(issuer=ISSUER, tenant_id="t1", subject="user-1")
    dynamo_store.create_conversation(conversation(owner=owner))
    dynamo_store.add_message(owner, cited("m1", 101.0, "faktur-7"))
    dynamo_store.add_memories([remembered("m1", "Pembayaran 30 hari.")])
    recording = Recording(dynamo_store.client)
    dynamo_store.client = recording

    assert dynamo_store.erase_document_traces("t1", "faktur-7") == (1, 1)

    # the route's, and the ingest function's: a new version erases the one it replaces
    for function in ("V1DocumentsFunction", "IngestFunction"):
        patterns = leading_keys(function)
        assert [(c, pk) for c, pk in recording.keys if not allowed(pk, patterns)] == [], function


def test_the_claim_on_the_bytes_is_written_with_the_upload(dynamo_store: DynamoStore) -> None:
    # Given a client that fails every transaction (a throttled table),
    class Failing:
        def __init__(self, client: Any) -> None:
            self._client = client

        def __getattr__(self, name: str) -> Any:
            if name == "transact_write_items":
                raise RuntimeError("throttled")
            return getattr(self._client, name)

    real = dynamo_store.client
    dynamo_store.client = Failing(real)
    with pytest.raises(RuntimeError):
        dynamo_store.create_upload(_upload("doc_000000000001000000000000", sha256=SHA), now=1.0)
    dynamo_store.client = real
    # then neither the upload nor its claim was written: another upload may hold the bytes.
    dynamo_store.create_upload(_upload("doc_000000000002000000000000", sha256=SHA), now=2.0)
    assert dynamo_store.upload("t1", "doc_000000000001000000000000") is None
