"""Erasing a document's traces from a ``Store`` (issue 26), one contract on ``SqliteStore`` and
``DynamoStore`` (moto): stored messages that cite the document keep their text while their
citations of it say ``erased``; memory items drawn from those messages go; other tenants,
other documents and other owners' items stay; the erasure receipt is kept, newest first."""

from __future__ import annotations

from pathlib import Path

import pytest

from tanda.adapters.dynamodb_store import DynamoStore, citation_pk, conversation_pk, message_sk
from tanda.adapters.sqlite_store import SqliteStore
from tanda.ports import Store
from tanda.records.conversations import ConversationOwner, MemoryItem, StoredMessage
from tanda.records.documents import ErasureReceipt
from tests.integration.test_store_contract import ISSUER, OTHER_TENANT, OWNER, conversation

pytestmark = pytest.mark.integration


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "sqlite":
        return SqliteStore(tmp_path / "store.sqlite")
    found: Store = request.getfixturevalue("dynamo_store")
    return found


def cited(mid: str, at: float, *documents: str, owner: ConversationOwner = OWNER) -> StoredMessage:
    return StoredMessage(
        message_id=mid,
        conversation_id="c1",
        tenant_id=owner.tenant_id,
        route="query_v2",
        question="Kapan pembayaran jatuh tempo?",
        answer=f"Jawaban {mid} [P1].",
        trace_id=f"trace-{mid}",
        created_at=at,
        citations=[
            {
                "citation_key": f"P{n}",
                "chunk_id": f"{doc}#0",
                "document_id": doc,
                "document_title": f"Faktur {doc}",
                "section": "Catatan rahasia",
                "page_no": 2,
            }
            for n, doc in enumerate(documents, start=1)
        ],
        cited_documents=list(documents),
    )


def remembered(mid: str, text: str, owner: ConversationOwner = OWNER) -> MemoryItem:
    return MemoryItem(
        memory_id=f"m-{mid}",
        tenant_id=owner.tenant_id,
        issuer=owner.issuer,
        subject=owner.subject,
        text=text,
        conversation_id="c1",
        message_id=mid,
        created_at=50.0,
    )


def test_citations_say_erased_and_memories_drawn_from_the_document_go(store: Store) -> None:
    for owner in (OWNER, OTHER_TENANT):
        store.create_conversation(conversation(owner=owner))
    store.add_message(OWNER, cited("m1", 101.0, "faktur-7", "faktur-8"))
    store.add_message(OWNER, cited("m2", 102.0, "faktur-8"))
    store.add_message(OTHER_TENANT, cited("m1", 101.0, "faktur-7", owner=OTHER_TENANT))
    store.add_memories(
        [
            remembered("m1", "Pembayaran 30 hari."),
            remembered("m2", "Kertas A4 Rp 500.000."),
            remembered("m1", "Pembayaran 30 hari.", owner=OTHER_TENANT),
        ]
    )

    assert store.erase_document_traces("t1", "faktur-7") == (1, 1)

    first, second = store.messages(OWNER, "c1")
    assert first.answer == "Jawaban m1 [P1]."  # the answer's text stays
    assert first.citations[0] == {
        "citation_key": "P1",
        "chunk_id": "faktur-7#0",
        "document_id": "faktur-7",
        "erased": True,
    }
    assert first.citations[1]["document_title"] == "Faktur faktur-8"  # the other document's
    assert second == cited("m2", 102.0, "faktur-8")
    assert [m.text for m in store.memories(OWNER, limit=10)] == ["Kertas A4 Rp 500.000."]
    # Another tenant's messages and memories citing the same id are untouched.
    assert store.messages(OTHER_TENANT, "c1")[0].citations[0]["document_title"] == "Faktur faktur-7"
    assert len(store.memories(OTHER_TENANT, limit=10)) == 1
    assert store.erase_document_traces("t1", "faktur-7") == (0, 0)  # twice: nothing left


def test_erasure_receipts_are_kept_per_tenant_newest_first(store: Store) -> None:
    def receipt(rid: str, at: float, tenant: str = "t1") -> ErasureReceipt:
        return ErasureReceipt(
            receipt_id=rid,
            tenant_id=tenant,
            document_id=f"doc-{rid}",
            title="Faktur",
            filename="faktur.md",
            content_hash="abc",
            erased_at=at,
            removed={"chunks": 3, "records": 2},
        )

    for r in (receipt("r1", 10.0), receipt("r2", 20.0), receipt("r3", 15.0, tenant="t2")):
        store.put_erasure_receipt(r)
    assert [r.receipt_id for r in store.erasure_receipts("t1")] == ["r2", "r1"]
    assert store.erasure_receipts("t1")[1] == receipt("r1", 10.0)
    assert [r.receipt_id for r in store.erasure_receipts("t2")] == ["r3"]
    assert store.erasure_receipts("t9") == []


def test_sqlite_store_keeps_no_bytes_of_an_erased_citation(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "store.sqlite")
    owner = ConversationOwner(issuer=ISSUER, tenant_id="t1", subject="user-1")
    store.create_conversation(conversation(owner=owner))
    message = cited("m1", 101.0, "faktur-7")
    secret = "Catatan rahasia Zorblaxquintine"
    message.citations[0]["section"] = secret
    store.add_message(owner, message)
    store.add_memories([remembered("m1", "Zorblaxquintine dibayar 30 hari.")])
    store.erase_document_traces("t1", "faktur-7")
    store.close()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"zorblaxquintine" not in path.read_bytes().lower(), path.name


class NoScan:
    """A DynamoDB client that refuses ``Scan``: the erasure must reach every citing message and
    memory through keys (issue 26) — a ``Scan`` cannot be held to any key by IAM."""

    def __init__(self, client: object) -> None:
        self._client = client
        self.operations: list[str] = []

    def __getattr__(self, name: str) -> object:
        if name == "scan":
            raise AssertionError("the erasure scanned the table")
        self.operations.append(name)
        return getattr(self._client, name)


def test_dynamodb_erasure_queries_the_documents_citations_and_never_scans(
    dynamo_store: DynamoStore,
) -> None:
    # Given two owners of one tenant whose messages cite the document, one of them with a
    # message citing more documents than one transaction holds items,
    other_user = ConversationOwner(issuer=ISSUER, tenant_id="t1", subject="user-2")
    for owner in (OWNER, other_user):
        dynamo_store.create_conversation(conversation(owner=owner))
    many = [f"doc-{n}" for n in range(120)]
    dynamo_store.add_message(OWNER, cited("m1", 101.0, "faktur-7", *many))
    dynamo_store.add_message(other_user, cited("m9", 105.0, "faktur-7", owner=other_user))
    dynamo_store.add_memories(
        [remembered("m1", "Pembayaran 30 hari."), remembered("m9", "Ongkir", owner=other_user)]
    )
    dynamo_store.client = NoScan(dynamo_store.client)

    # when the document, and one cited past the transaction's room, are erased,
    assert dynamo_store.erase_document_traces("t1", "faktur-7") == (2, 2)
    assert dynamo_store.erase_document_traces("t1", "doc-119") == (1, 0)

    # then both owners' messages say so, found through the document's citation items,
    assert "scan" not in dynamo_store.client.operations
    for owner in (OWNER, other_user):
        (message,) = dynamo_store.messages(owner, "c1")
        assert message.citations[0]["erased"] is True
    assert dynamo_store.messages(OWNER, "c1")[0].citations[-1]["erased"] is True
    assert dynamo_store.memories(OWNER, limit=5) == []
    # and the citation items of an erased document are gone (nothing left to find twice).
    assert dynamo_store._query_all(citation_pk("t1", "faktur-7"), None) == []
    assert dynamo_store._query_all(citation_pk("t1", "doc-3"), None) != []


def test_a_citation_item_without_its_message_is_skipped(dynamo_store: DynamoStore) -> None:
    # Given a message whose store failed (another route had answered the conversation): its
    # citation item may be there without it,
    dynamo_store.create_conversation(conversation(owner=OWNER))
    dynamo_store.add_message(OWNER, cited("m1", 101.0, "faktur-8"))
    pk = conversation_pk(OWNER, "c1")
    (item,) = dynamo_store._citation_items(OWNER, pk, message_sk(1.0, "gone"), ["faktur-7"])
    dynamo_store.client.put_item(TableName=dynamo_store.table, Item=item)

    # when the document is erased, then nothing is counted and the stray item goes.
    assert dynamo_store.erase_document_traces("t1", "faktur-7") == (0, 0)
    assert dynamo_store._query_all(citation_pk("t1", "faktur-7"), None) == []
