"""The AWS ``Store``: DynamoDB, with the same behaviour as ``SqliteStore`` (one contract suite,
``tests/integration/test_store_contract.py``, runs against both).

Two tables, whose key schemas are declared in ``template.yaml`` (a test compares them with
:data:`TABLE_KEYS` and :data:`RECEIPTS_KEYS`):

* the single table (``PK``, ``SK``; TTL attribute ``expires_at``):

  ===================  ======================================  ===============================
  item                 PK                                      SK
  ===================  ======================================  ===============================
  conversation         ``T#<tenant>#O#<owner digest>#C#<id>``  ``CONV``
  message              ``T#<tenant>#O#<owner digest>#C#<id>``  ``M#<created_at>#<message_id>``
  memory item (V2-22)  ``T#<tenant>#O#<owner digest>``         ``MEM#<sha256 of the text>``
  citation (issue 26)  ``CITE#<digest of tenant, document>``   ``<message PK>#<message SK>``
  rate-limit window    ``RATE#<key>``                          ``W#<window number>``
  credit ledger        ``TENANT#<tenant>``                     ``CREDITS``
  … its entries        ``TENANT#<tenant>``                     ``LEDGER#<at>#<entry id>``
  erasure receipt      ``TENANT#<tenant>``                     ``ERASED#<at>#<receipt id>``
  tenant profile       ``TENANT#<tenant>``                     ``PROFILE``
  … listed             ``TENANTS``                             ``<tenant>``
  API key (issue 27)   ``KEYS``                                ``<key id>``
  cross-check job      ``XC#<tenant>``                         ``JOB#<job id>``
  … its further pages  ``XC#<tenant>``                         ``JOB#<job id>#P#<n>``
  open job (pointer)   ``XCOPEN``                              ``<created_at>#<tenant>#<job id>``
  ===================  ======================================  ===============================

  The owner digest is the SHA-256 of ``[issuer, subject]`` as JSON (:func:`owner_key`): no
  issuer or subject, whatever characters it holds, can spell another owner's key.

* the receipts table (``run_id``; TTL attribute ``expires_at``) — PG-5: never text.

Tenant and owner isolation is structural (issue 11): the tenant and the owner — issuer and subject
— are part of every conversation and memory key, so a read by anyone else names another item and
finds nothing, exactly like an unknown id. Items written before issue 11 (``T#<tenant>#C#<id>``,
``T#<tenant>#U#<subject>``) are addressed by no key any more: no one reads them.

A conversation item counts its messages (``message_count``): storing a message and claiming the
conversation for its route are one transaction, and a claim is given back (``release``) or an
empty conversation deleted (``discard``) only while no message exists.

A stored message that cites documents writes, in the transaction that stores it, one citation
item per document it draws on (:func:`citation_pk`): the message's key and its owner's, no text.
Erasing a document (issue 26) reads its citation items with one ``Query`` — no ``Scan`` of the
tenant's conversations, which IAM could not hold to the table's conversation items — rewrites
those messages' citations and deletes the memory items drawn from them (a ``Query`` of each
owner's memory partition), then the citation items.

A tenant's credit account is one item: ``balance`` and, per usage kind, ``<kind>_charged``,
``<kind>_metered`` and ``<kind>_credits`` (DynamoDB numbers are exact decimals). Every change of
the balance is ONE transaction of the conditional update of that item and the Put of its ledger
entry (issue 27), so the balance is the sum of the entries: a charge takes the amount and counts
the call only while the balance covers it (ASK-12). An item without ``balance`` reads as the
opening balance; the first write opens the ledger (attribute ``ledger``) with its own transaction:
the opening balance — or, for an account from before the ledger, its balance then — and its
entry. Transactions that conflict on the item are retried a few times with jitter.

API keys (issue 27) are one partition, ``KEYS``: a presented key is found by the id computed
from its digest (one ``GetItem``), and ``tanda keys list`` is one query; ``last_used_at`` is an
attribute of its own, updated by a conditional write at most once a minute.

A cross-check job (XC-2) is its JSON, zlib-compressed, in ``body`` — split over page items when
it is larger than :data:`JOB_PAGE_BYTES`, since an item holds at most 400 KB and a job holds its
findings. Every write of a job is one transaction: the job item on the condition that its
``version`` is the one the writer read, its pages, the pointer that lists it among the open jobs
while it is queued or running, and the ledger: creating a job charges (or meters) it, and a failed
job's refund is part of the write that fails it, so a job is charged once and refunded at most
once.

DynamoDB deletes expired items lazily (up to days later), so every read of an item with
``expires_at`` filters on it as well.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
import zlib
from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pydantic_settings import BaseSettings, SettingsConfigDict

from tanda.adapters.aws_errors import error_code as _error_code
from tanda.credits import (
    CARRIED_REASON,
    JOB_USAGE,
    MAX_BALANCE,
    OPENING_REASON,
    USAGE_KINDS,
    CreditAccount,
    LedgerEntry,
    LedgerRef,
    TenantProfile,
    Usage,
    UsageKind,
    as_credits,
    charge_entry,
    check_grant,
    metered_entry,
    operator_entry,
    over_max_balance,
    refund_entry,
)
from tanda.ports import ConversationConflict, ConversationMissing
from tanda.records.conversations import (
    Conversation,
    ConversationOwner,
    MemoryItem,
    PlaygroundReceipt,
    RateDecision,
    Route,
    StoredMessage,
    cites,
    erase_citations,
)
from tanda.records.documents import ErasureReceipt
from tanda.records.jobs import CrossCheckJob, JobPage
from tanda.records.keys import ApiKeyRecord
from tanda.records.uploads import (
    OPEN_UPLOAD,
    UPLOAD_STATUSES,
    DocumentUpload,
    DuplicateContent,
    UploadExists,
    UploadPage,
    UploadStatus,
)

if TYPE_CHECKING:
    from tanda.settings import Settings

TABLE_KEYS: dict[str, str] = {"PK": "HASH", "SK": "RANGE"}
"""Key schema of the single table (attribute → key type), as in ``template.yaml``."""
RECEIPTS_KEYS: dict[str, str] = {"run_id": "HASH"}
"""Key schema of the receipts table, as in ``template.yaml``."""
TTL_ATTRIBUTE = "expires_at"
CONVERSATION_SK = "CONV"
MESSAGE_PREFIX = "M#"
MEMORY_PREFIX = "MEM#"
CITATION_PREFIX = "CITE#"
"""A document's citing messages (issue 26): ``CITE#<sha256 of [tenant, document]>``."""
TRANSACT_MAX = 100
"""Items one DynamoDB transaction may hold."""
MESSAGE_COUNT = "message_count"
RATE_PREFIX = "RATE#"
TENANT_PREFIX = "TENANT#"
CREDITS_SK = "CREDITS"
PROFILE_SK = "PROFILE"
BALANCE = "balance"
LEDGER = "ledger"
"""Set on a CREDITS item once its ledger is open (issue 27)."""
LEDGER_PREFIX = "LEDGER#"
ERASURE_PREFIX = "ERASED#"
"""A tenant's erasure receipts (issue 26), by time: ``ERASED#<erased_at>#<receipt id>``."""
TENANTS_PK = "TENANTS"
KEYS_PK = "KEYS"
LAST_USED = "last_used_at"
TRANSACTION_ATTEMPTS = 6
LEDGER_OPEN_ATTEMPTS = 3
"""At most: the attempt, the ledger opened (by this writer or another), the attempt again."""
JOB_PK_PREFIX = "XC#"
JOB_SK_PREFIX = "JOB#"
OPEN_JOBS_PK = "XCOPEN"
JOB_PAGE_BYTES = 350_000
"""A job's compressed body is split into items of at most this many bytes (400 KB per item)."""


class DynamoTables(BaseSettings):
    """Table names from the environment (``TANDA_DYNAMODB_TABLE``,
    ``TANDA_DYNAMODB_RECEIPTS_TABLE``) until ``Settings`` carries them."""

    model_config = SettingsConfigDict(env_prefix="TANDA_", extra="ignore", frozen=True)

    dynamodb_table: str = "tanda"
    dynamodb_receipts_table: str = "tanda-receipts"


def owner_key(owner: ConversationOwner) -> str:
    """The partition prefix of everything one owner has (issue 11)."""
    digest = hashlib.sha256(json.dumps([owner.issuer, owner.subject]).encode()).hexdigest()
    return f"T#{owner.tenant_id}#O#{digest}"


def conversation_pk(owner: ConversationOwner, conversation_id: str) -> str:
    return f"{owner_key(owner)}#C#{conversation_id}"


def memory_pk(owner: ConversationOwner) -> str:
    return owner_key(owner)


def citation_pk(tenant_id: str, document_id: str) -> str:
    """The partition of the messages citing one document of one tenant (issue 26): a digest,
    so no tenant or document id, whatever characters it holds, spells another's."""
    digest = hashlib.sha256(json.dumps([tenant_id, document_id]).encode()).hexdigest()
    return f"{CITATION_PREFIX}{digest}"


def cited_by(message: StoredMessage) -> list[str]:
    """The documents ``message`` draws on (:func:`~tanda.records.conversations.cites`), once."""
    found = [*message.cited_documents, *(c.get("document_id") for c in message.citations)]
    return list(dict.fromkeys(str(d) for d in found if d))


def message_sk(created_at: float, message_id: str) -> str:
    # Zero-padded fixed point sorts as a string in the order SQLite sorts the number.
    return f"{MESSAGE_PREFIX}{created_at:020.6f}#{message_id}"


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: float) -> dict[str, str]:
    return {"N": repr(value) if isinstance(value, float) else str(value)}


# --- uploads (issue 26) -------------------------------------------------------------------------
# Key layout (module docstring): a tenant's uploads, their claims on bytes and their batches'
# counts share the partition DOC#<tenant>; the open (queued, processing) ones are listed by a
# pointer each in DOCOPEN, ordered by updated_at. Every write is one transaction of the upload
# item, conditioned on the version that was read, with the items it keeps consistent.

UPLOAD_PK_PREFIX = "DOC#"
UPLOAD_SK_PREFIX = "U#"
CONTENT_SK_PREFIX = "SHA#"
BATCH_SK_PREFIX = "B#"
OPEN_UPLOADS_PK = "DOCOPEN"
UPLOAD_ATTEMPTS = 8
"""Optimistic writes: a write whose read went stale reads again, this many times at most."""
UPLOAD_PAGE = 100


class _StaleUpload(Exception):
    """The upload item changed between the read and the write: read again."""


def _upload_pk(tenant_id: str) -> str:
    return f"{UPLOAD_PK_PREFIX}{tenant_id}"


def _open_sk(upload: DocumentUpload) -> str:
    return f"{upload.updated_at:020.6f}#{upload.tenant_id}#{upload.document_id}"


class DynamoUploads:
    """The upload methods of :class:`DynamoStore` (mixed in below)."""

    client: Any
    table: str

    def _upload_key(self, tenant_id: str, document_id: str) -> dict[str, dict[str, str]]:
        return {"PK": _s(_upload_pk(tenant_id)), "SK": _s(f"{UPLOAD_SK_PREFIX}{document_id}")}

    def _content_key(self, tenant_id: str, sha256: str) -> dict[str, dict[str, str]]:
        return {"PK": _s(_upload_pk(tenant_id)), "SK": _s(f"{CONTENT_SK_PREFIX}{sha256}")}

    def _read_upload(self, tenant_id: str, document_id: str) -> tuple[DocumentUpload, int] | None:
        item = self.client.get_item(
            TableName=self.table, Key=self._upload_key(tenant_id, document_id), ConsistentRead=True
        ).get("Item")
        if item is None:
            return None
        return DocumentUpload.model_validate_json(item["body"]["S"]), int(item["version"]["N"])

    def _holder(self, tenant_id: str, sha256: str) -> str | None:
        item = self.client.get_item(
            TableName=self.table, Key=self._content_key(tenant_id, sha256), ConsistentRead=True
        ).get("Item")
        return None if item is None else str(item["document_id"]["S"])

    def _upload_writes(
        self,
        before: tuple[DocumentUpload, int] | None,
        after: DocumentUpload | None,
        now: float,
    ) -> list[dict[str, Any]]:
        """The transaction that takes the upload from ``before`` (read at its version; ``None``:
        absent) to ``after`` (``None``: deleted): the upload item, its claim on its bytes, its
        open pointer and its batch's counts."""
        old = before[0] if before else None
        upload = after or old
        assert upload is not None
        writes: list[dict[str, Any]] = []
        key = self._upload_key(upload.tenant_id, upload.document_id)
        if after is None:
            writes.append(
                {
                    "Delete": {
                        "TableName": self.table,
                        "Key": key,
                        "ConditionExpression": "version = :v",
                        "ExpressionAttributeValues": {":v": _n(before[1] if before else 0)},
                    }
                }
            )
        else:
            put: dict[str, Any] = {
                "TableName": self.table,
                "Item": {
                    **key,
                    "body": _s(after.model_dump_json()),
                    "version": _n((before[1] if before else 0) + 1),
                    "status": _s(after.status),
                    "filename": _s(after.filename),
                    **({"batch_id": _s(after.batch_id)} if after.batch_id is not None else {}),
                },
            }
            if before is None:
                put["ConditionExpression"] = "attribute_not_exists(SK)"
            else:
                put["ConditionExpression"] = "version = :v"
                put["ExpressionAttributeValues"] = {":v": _n(before[1])}
            writes.append({"Put": put})
        writes += self._content_writes(old, after, now)
        writes += self._open_writes(old, after)
        writes += self._count_writes(old, after)
        return writes

    def _content_writes(
        self, old: DocumentUpload | None, after: DocumentUpload | None, now: float
    ) -> list[dict[str, Any]]:
        writes: list[dict[str, Any]] = []
        me = (after or old).document_id  # type: ignore[union-attr]
        holds = after is not None and after.holds_content(now)
        if holds and after is not None and after.sha256 is not None:
            claim: dict[str, Any] = {
                **self._content_key(after.tenant_id, after.sha256),
                "document_id": _s(me),
            }
            if after.status == "awaiting_upload":
                claim["until"] = _n(after.expires_at)
            writes.append(
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": claim,
                        "ConditionExpression": (
                            "attribute_not_exists(SK) OR document_id = :me OR #until <= :now"
                        ),
                        "ExpressionAttributeNames": {"#until": "until"},
                        "ExpressionAttributeValues": {":me": _s(me), ":now": _n(now)},
                    }
                }
            )
        kept = holds and after is not None and after.sha256 == (old.sha256 if old else None)
        if old is not None and old.sha256 is not None and not kept:
            # Release what it may hold (only if it is still its own: another may have taken
            # an expired claim).
            # Release what it held, only if still its own (another may have taken a claim that
            # expired).
            writes.append(
                {
                    "Delete": {
                        "TableName": self.table,
                        "Key": self._content_key(old.tenant_id, old.sha256),
                        "ConditionExpression": "attribute_not_exists(SK) OR document_id = :me",
                        "ExpressionAttributeValues": {":me": _s(me)},
                    }
                }
            )
        return writes

    def _open_writes(
        self, old: DocumentUpload | None, after: DocumentUpload | None
    ) -> list[dict[str, Any]]:
        writes: list[dict[str, Any]] = []
        was = old is not None and old.status in OPEN_UPLOAD
        now_open = after is not None and after.status in OPEN_UPLOAD
        old_sk = _open_sk(old) if was and old is not None else None
        new_sk = _open_sk(after) if now_open and after is not None else None
        if old_sk is not None and old_sk != new_sk:
            writes.append(
                {
                    "Delete": {
                        "TableName": self.table,
                        "Key": {"PK": _s(OPEN_UPLOADS_PK), "SK": _s(old_sk)},
                    }
                }
            )
        if new_sk is not None and after is not None:
            writes.append(
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": {
                            "PK": _s(OPEN_UPLOADS_PK),
                            "SK": _s(new_sk),
                            "tenant_id": _s(after.tenant_id),
                            "document_id": _s(after.document_id),
                        },
                    }
                }
            )
        return writes

    def _count_writes(
        self, old: DocumentUpload | None, after: DocumentUpload | None
    ) -> list[dict[str, Any]]:
        changes: dict[tuple[str, str], dict[str, int]] = {}
        for upload, step in ((old, -1), (after, 1)):
            if upload is not None and upload.batch_id is not None:
                counts = changes.setdefault((upload.tenant_id, upload.batch_id), {})
                counts[upload.status] = counts.get(upload.status, 0) + step
        writes: list[dict[str, Any]] = []
        for (tenant_id, batch_id), counts in sorted(changes.items()):
            moved = {status: n for status, n in counts.items() if n}
            if not moved:
                continue
            names = {f"#s{i}": status for i, status in enumerate(sorted(moved))}
            writes.append(
                {
                    "Update": {
                        "TableName": self.table,
                        "Key": {
                            "PK": _s(_upload_pk(tenant_id)),
                            "SK": _s(f"{BATCH_SK_PREFIX}{batch_id}"),
                        },
                        "UpdateExpression": "ADD "
                        + ", ".join(f"{name} :n{i}" for i, name in enumerate(names)),
                        "ExpressionAttributeNames": names,
                        "ExpressionAttributeValues": {
                            f":n{i}": _n(moved[status]) for i, status in enumerate(names.values())
                        },
                    }
                }
            )
        return writes

    def _write_upload(
        self,
        before: tuple[DocumentUpload, int] | None,
        after: DocumentUpload | None,
        now: float,
    ) -> None:
        """One transaction (:meth:`_upload_writes`). Raises :class:`_StaleUpload` when the upload
        item is not as read, ``UploadExists`` when a create finds it, ``DuplicateContent`` when
        another upload holds the bytes."""
        writes = self._upload_writes(before, after, now)
        try:
            self.client.transact_write_items(TransactItems=writes)
        except Exception as error:
            if _error_code(error) != "TransactionCanceledException":
                raise
            reasons = getattr(error, "response", {}).get("CancellationReasons") or []
            codes = [str(reason.get("Code")) for reason in reasons]
            if codes and codes[0] == "ConditionalCheckFailed":
                if before is None:
                    raise UploadExists("upload exists") from error
                raise _StaleUpload() from error
            if "ConditionalCheckFailed" in codes and after is not None and after.sha256:
                holder = self._holder(after.tenant_id, after.sha256)
                if holder is not None and holder != after.document_id:
                    raise DuplicateContent(holder) from error
            raise _StaleUpload() from error

    def create_upload(self, upload: DocumentUpload, *, now: float) -> None:
        for _ in range(UPLOAD_ATTEMPTS):
            try:
                self._write_upload(None, upload, now)
                return
            except _StaleUpload:
                continue  # a claim released meanwhile: try again
        raise RuntimeError("the upload could not be written")

    def upload(self, tenant_id: str, document_id: str) -> DocumentUpload | None:
        found = self._read_upload(tenant_id, document_id)
        return None if found is None else found[0]

    def uploads(
        self,
        tenant_id: str,
        *,
        limit: int,
        after: str | None = None,
        batch_id: str | None = None,
        statuses: Collection[UploadStatus] | None = None,
        filename: str | None = None,
    ) -> UploadPage:
        """A ``Query`` of the tenant's upload items backwards (ids grow with creation), the
        filters applied by DynamoDB, until a page and one more are found."""
        values: dict[str, Any] = {":pk": _s(_upload_pk(tenant_id)), ":lo": _s(UPLOAD_SK_PREFIX)}
        if after is not None:
            condition = "PK = :pk AND SK BETWEEN :lo AND :hi"
            values[":hi"] = _s(f"{UPLOAD_SK_PREFIX}{after}")
        else:
            condition = "PK = :pk AND begins_with(SK, :lo)"
        filters: list[str] = []
        names: dict[str, str] = {}
        if batch_id is not None:
            filters.append("batch_id = :batch")
            values[":batch"] = _s(batch_id)
        if statuses is not None:
            wanted = sorted(set(statuses))
            names["#status"] = "status"
            filters.append(
                "#status IN (" + ", ".join(f":st{i}" for i in range(len(wanted))) + ")"
                if wanted
                else "attribute_not_exists(PK)"
            )
            values.update({f":st{i}": _s(status) for i, status in enumerate(wanted)})
        if filename is not None:
            filters.append("filename = :filename")
            values[":filename"] = _s(filename)
        query: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": condition,
            "ExpressionAttributeValues": values,
            "ScanIndexForward": False,
            "ConsistentRead": True,
            "Limit": max(limit + 1, UPLOAD_PAGE),
        }
        if filters:
            query["FilterExpression"] = " AND ".join(filters)
        if names:
            query["ExpressionAttributeNames"] = names
        found: list[DocumentUpload] = []
        while len(found) <= limit:
            page = self.client.query(**query)
            for item in page["Items"]:
                upload = DocumentUpload.model_validate_json(item["body"]["S"])
                if after is not None and upload.document_id >= after:
                    continue  # BETWEEN includes its bound
                found.append(upload)
            if "LastEvaluatedKey" not in page:
                break
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        shown = tuple(found[:limit])
        more = len(found) > limit and bool(shown)
        return UploadPage(uploads=shown, next_after=shown[-1].document_id if more else None)

    def _change_upload(
        self,
        tenant_id: str,
        document_id: str,
        change: Callable[[DocumentUpload], DocumentUpload | None],
        now: float,
    ) -> DocumentUpload | None:
        """Read, ``change`` (``None``: nothing to write), write at the version read; again
        when another write came between."""
        for _ in range(UPLOAD_ATTEMPTS):
            before = self._read_upload(tenant_id, document_id)
            if before is None:
                return None
            after = change(before[0])
            if after is None:
                return None
            try:
                self._write_upload(before, after, now)
            except _StaleUpload:
                continue
            return after
        return None

    def transition_upload(
        self,
        tenant_id: str,
        document_id: str,
        *,
        expected: Collection[UploadStatus],
        changes: Mapping[str, object],
        now: float,
        owner: str | None = None,
    ) -> DocumentUpload | None:
        def change(current: DocumentUpload) -> DocumentUpload | None:
            if current.status not in expected:
                return None
            if owner is not None and current.lease_owner != owner:
                return None
            return current.changed(**{**changes, "updated_at": now})

        return self._change_upload(tenant_id, document_id, change, now)

    def claim_upload(
        self, tenant_id: str, document_id: str, *, owner: str, lease_s: float, now: float
    ) -> DocumentUpload | None:
        def change(current: DocumentUpload) -> DocumentUpload | None:
            if not current.claimable(now):
                return None
            return current.changed(
                status="processing",
                attempts=current.attempts + 1,
                lease_owner=owner,
                lease_until=now + lease_s,
                updated_at=now,
            )

        return self._change_upload(tenant_id, document_id, change, now)

    def open_uploads(self, *, limit: int) -> list[DocumentUpload]:
        if limit <= 0:
            return []
        page = self.client.query(
            TableName=self.table,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": _s(OPEN_UPLOADS_PK)},
            ConsistentRead=True,
            Limit=limit,
        )
        found: list[DocumentUpload] = []
        for item in page["Items"]:
            upload = self.upload(item["tenant_id"]["S"], item["document_id"]["S"])
            if upload is not None and upload.status in OPEN_UPLOAD:
                found.append(upload)
        return found

    def delete_upload(self, tenant_id: str, document_id: str) -> bool:
        for _ in range(UPLOAD_ATTEMPTS):
            before = self._read_upload(tenant_id, document_id)
            if before is None:
                return False
            try:
                self._write_upload(before, None, before[0].updated_at)
            except _StaleUpload:
                continue
            return True
        return False

    def upload_counts(self, tenant_id: str, batch_id: str) -> dict[UploadStatus, int]:
        item = (
            self.client.get_item(
                TableName=self.table,
                Key={"PK": _s(_upload_pk(tenant_id)), "SK": _s(f"{BATCH_SK_PREFIX}{batch_id}")},
                ConsistentRead=True,
            ).get("Item")
            or {}
        )
        return {
            status: int(item[status]["N"])
            for status in UPLOAD_STATUSES
            if status in item and int(item[status]["N"]) > 0
        }


class DynamoStore(DynamoUploads):
    """``client`` is a boto3 DynamoDB client (injected in tests; built by :meth:`from_settings`)."""

    def __init__(self, client: Any, *, table: str, receipts_table: str) -> None:
        self.client = client
        self.table = table
        self.receipts_table = receipts_table

    @classmethod
    def from_settings(cls, settings: Settings, client: Any | None = None) -> DynamoStore:
        tables = DynamoTables()
        table = getattr(settings, "dynamodb_table", None) or tables.dynamodb_table
        receipts = (
            getattr(settings, "dynamodb_receipts_table", None) or tables.dynamodb_receipts_table
        )
        if client is None:
            from tanda.adapters.aws_sdk import client as sdk_client  # lazily: only AWS pays

            client = sdk_client("dynamodb")
        return cls(client, table=table, receipts_table=receipts)

    # --- conversations ---------------------------------------------------------------------------

    def _conversation_key(
        self, owner: ConversationOwner, conversation_id: str
    ) -> dict[str, dict[str, str]]:
        return {"PK": _s(conversation_pk(owner, conversation_id)), "SK": _s(CONVERSATION_SK)}

    def create_conversation(self, conversation: Conversation) -> None:
        item = {
            **self._conversation_key(conversation.owner, conversation.conversation_id),
            "body": _s(conversation.model_dump_json(exclude={"route"})),
        }
        if conversation.route is not None:
            # No attribute at all until a route answers: the claim tests attribute_not_exists.
            item["route"] = _s(conversation.route)
        try:
            self.client.put_item(
                TableName=self.table,
                Item=item,
                ConditionExpression="attribute_not_exists(PK)",
            )
        except Exception as error:
            if _error_code(error) == "ConditionalCheckFailedException":
                raise ValueError(f"conversation {conversation.conversation_id} exists") from error
            raise

    def conversation(self, owner: ConversationOwner, conversation_id: str) -> Conversation | None:
        found = self.client.get_item(
            TableName=self.table,
            Key=self._conversation_key(owner, conversation_id),
            ConsistentRead=True,
        ).get("Item")
        return None if found is None else _conversation(found)

    def _claim_update(
        self, owner: ConversationOwner, conversation_id: str, route: Route
    ) -> dict[str, Any]:
        """The claim as one conditional update: set the route if none, else require it."""
        return {
            "TableName": self.table,
            "Key": self._conversation_key(owner, conversation_id),
            "UpdateExpression": "SET #route = :route",
            "ConditionExpression": (
                "attribute_exists(PK) AND (attribute_not_exists(#route) OR #route = :route)"
            ),
            "ExpressionAttributeNames": {"#route": "route"},
            "ExpressionAttributeValues": {":route": _s(route)},
        }

    def _claim_failed(self, owner: ConversationOwner, conversation_id: str) -> Exception:
        """``ConversationMissing`` when the owner has no such conversation, else the conflict."""
        if self.conversation(owner, conversation_id) is None:
            return ConversationMissing(conversation_id)
        return ConversationConflict(conversation_id)

    def claim(self, owner: ConversationOwner, conversation_id: str, route: Route) -> Conversation:
        # V2-19: ONE conditional write; DynamoDB serialises writes to an item, so of two first
        # answers on different routes exactly one condition holds.
        try:
            updated = self.client.update_item(
                **self._claim_update(owner, conversation_id, route), ReturnValues="ALL_NEW"
            )
        except Exception as error:
            if _error_code(error) != "ConditionalCheckFailedException":
                raise
            raise self._claim_failed(owner, conversation_id) from error
        return _conversation(updated["Attributes"])

    def add_message(self, owner: ConversationOwner, message: StoredMessage) -> None:
        claim = self._claim_update(owner, message.conversation_id, message.route)
        claim["UpdateExpression"] += " ADD #count :one"
        claim["ExpressionAttributeNames"]["#count"] = MESSAGE_COUNT
        claim["ExpressionAttributeValues"][":one"] = _n(1)
        pk = conversation_pk(owner, message.conversation_id)
        sk = message_sk(message.created_at, message.message_id)
        citations = [
            {"Put": {"TableName": self.table, "Item": item}}
            for item in self._citation_items(owner, pk, sk, cited_by(message))
        ]
        # Past what one transaction holds, the rest go first: a citation item whose message was
        # never stored is skipped (and dropped) by the erasure that reads it.
        room = TRANSACT_MAX - 2
        for extra in citations[room:]:
            self.client.put_item(**extra["Put"])
        try:
            # V2-19: the message and the claim of its route are one transaction; with them, the
            # message's citation items (issue 26).
            self.client.transact_write_items(
                TransactItems=[
                    {"Update": claim},
                    {
                        "Put": {
                            "TableName": self.table,
                            "Item": {
                                "PK": _s(pk),
                                "SK": _s(sk),
                                "body": _s(message.model_dump_json()),
                            },
                            "ConditionExpression": "attribute_not_exists(SK)",
                        }
                    },
                    *citations[:room],
                ]
            )
        except Exception as error:
            if _error_code(error) != "TransactionCanceledException":
                raise
            reasons = getattr(error, "response", {}).get("CancellationReasons") or [{}]
            if reasons[0].get("Code") == "ConditionalCheckFailed":
                raise self._claim_failed(owner, message.conversation_id) from error
            raise

    def messages(self, owner: ConversationOwner, conversation_id: str) -> list[StoredMessage]:
        # One query reads the conversation item ("CONV" sorts before "M#") and its messages:
        # messages are only ever read through their owner's conversation.
        items = self._query_all(conversation_pk(owner, conversation_id), None)
        if not any(i["SK"]["S"] == CONVERSATION_SK for i in items):
            return []
        return [
            StoredMessage.model_validate_json(i["body"]["S"])
            for i in items
            if i["SK"]["S"].startswith(MESSAGE_PREFIX)
        ]

    def release(self, owner: ConversationOwner, conversation_id: str, route: Route) -> bool:
        return self._unless_answered(
            self.client.update_item,
            Key=self._conversation_key(owner, conversation_id),
            UpdateExpression="REMOVE #route",
            ConditionExpression="#route = :route AND attribute_not_exists(#count)",
            ExpressionAttributeNames={"#route": "route", "#count": MESSAGE_COUNT},
            ExpressionAttributeValues={":route": _s(route)},
        )

    def discard(self, owner: ConversationOwner, conversation_id: str) -> bool:
        return self._unless_answered(
            self.client.delete_item,
            Key=self._conversation_key(owner, conversation_id),
            ConditionExpression="attribute_exists(PK) AND attribute_not_exists(#count)",
            ExpressionAttributeNames={"#count": MESSAGE_COUNT},
        )

    def _unless_answered(self, write: Any, **request: Any) -> bool:
        """One conditional write whose condition includes "no message yet"; ``False`` if not."""
        try:
            write(TableName=self.table, **request)
        except Exception as error:
            if _error_code(error) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    # --- long-term memory ------------------------------------------------------------------

    def add_memories(self, items: Sequence[MemoryItem]) -> None:
        for item in items:
            # The text's digest is the sort key: the same text twice is one item (first kept).
            digest = hashlib.sha256(item.text.encode()).hexdigest()
            try:
                self.client.put_item(
                    TableName=self.table,
                    Item={
                        "PK": _s(memory_pk(item.owner)),
                        "SK": _s(f"{MEMORY_PREFIX}{digest}"),
                        "body": _s(item.model_dump_json()),
                    },
                    ConditionExpression="attribute_not_exists(SK)",
                )
            except Exception as error:
                if _error_code(error) != "ConditionalCheckFailedException":
                    raise

    def memories(self, owner: ConversationOwner, *, limit: int) -> list[MemoryItem]:
        # Newest first needs every item of the user sorted here: the sort key is the digest.
        items = [
            MemoryItem.model_validate_json(i["body"]["S"])
            for i in self._query_all(memory_pk(owner), MEMORY_PREFIX)
        ]
        items.sort(key=lambda m: (-m.created_at, m.text))
        return items[: max(0, limit)]

    def _query_all(self, pk: str, prefix: str | None) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        query: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "PK = :pk",
            "ExpressionAttributeValues": {":pk": _s(pk)},
            "ConsistentRead": True,
        }
        if prefix is not None:
            query["KeyConditionExpression"] += " AND begins_with(SK, :prefix)"
            query["ExpressionAttributeValues"][":prefix"] = _s(prefix)
        while True:
            page = self.client.query(**query)
            found += page["Items"]
            if "LastEvaluatedKey" not in page:
                return found
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    # --- erasure (issue 26) -------------------------------------------------------------------

    @staticmethod
    def _citation_items(
        owner: ConversationOwner, pk: str, sk: str, documents: Sequence[str]
    ) -> list[dict[str, Any]]:
        return [
            {
                "PK": _s(citation_pk(owner.tenant_id, document_id)),
                "SK": _s(f"{pk}#{sk}"),
                "message_pk": _s(pk),
                "message_sk": _s(sk),
                "owner_pk": _s(memory_pk(owner)),
            }
            for document_id in documents
        ]

    def erase_document_traces(self, tenant_id: str, document_id: str) -> tuple[int, int]:
        """The messages citing the document (its citation items: one ``Query``) keep their text
        and say ``erased``; the memory items drawn from them go (a ``Query`` of each owner's
        memory partition); then the citation items go. Each step may be run again."""
        citations = self._query_all(citation_pk(tenant_id, document_id), None)
        drawn: dict[str, set[str]] = {}
        changed = 0
        for citation in citations:
            key = {"PK": citation["message_pk"], "SK": citation["message_sk"]}
            item = self.client.get_item(TableName=self.table, Key=key, ConsistentRead=True).get(
                "Item"
            )
            if item is None:  # a message that was never stored (its transaction failed)
                continue
            message = StoredMessage.model_validate_json(item["body"]["S"])
            if message.tenant_id != tenant_id or not cites(message, document_id):
                continue
            drawn.setdefault(citation["owner_pk"]["S"], set()).add(message.message_id)
            erased = erase_citations(message, document_id)
            if erased is not None:
                self.client.update_item(
                    TableName=self.table,
                    Key=key,
                    UpdateExpression="SET body = :body",
                    ConditionExpression="attribute_exists(SK)",
                    ExpressionAttributeValues={":body": _s(erased.model_dump_json())},
                )
                changed += 1
        removed = 0
        for owner_pk, message_ids in sorted(drawn.items()):
            for item in self._query_all(owner_pk, MEMORY_PREFIX):
                if MemoryItem.model_validate_json(item["body"]["S"]).message_id in message_ids:
                    self.client.delete_item(
                        TableName=self.table, Key={"PK": item["PK"], "SK": item["SK"]}
                    )
                    removed += 1
        for citation in citations:
            self.client.delete_item(
                TableName=self.table, Key={"PK": citation["PK"], "SK": citation["SK"]}
            )
        return changed, removed

    def put_erasure_receipt(self, receipt: ErasureReceipt) -> None:
        self.client.put_item(
            TableName=self.table,
            Item={
                "PK": _s(f"{TENANT_PREFIX}{receipt.tenant_id}"),
                "SK": _s(f"{ERASURE_PREFIX}{receipt.erased_at:020.6f}#{receipt.receipt_id}"),
                "body": _s(receipt.model_dump_json()),
            },
        )

    def erasure_receipts(self, tenant_id: str) -> list[ErasureReceipt]:
        items = self._query_all(f"{TENANT_PREFIX}{tenant_id}", ERASURE_PREFIX)
        return [ErasureReceipt.model_validate_json(i["body"]["S"]) for i in reversed(items)]

    # --- receipts and rate limits ------------------------------------------------------------

    def put_receipt(self, receipt: PlaygroundReceipt) -> None:
        self.client.put_item(
            TableName=self.receipts_table,
            Item={
                "run_id": _s(receipt.run_id),
                # TTL wants whole epoch seconds; the exact expiry stays in the body.
                TTL_ATTRIBUTE: _n(math.ceil(receipt.expires_at)),
                "body": _s(receipt.model_dump_json()),
            },
        )

    def receipt(self, run_id: str, *, now: float | None = None) -> PlaygroundReceipt | None:
        found = self.client.get_item(
            TableName=self.receipts_table, Key={"run_id": _s(run_id)}, ConsistentRead=True
        ).get("Item")
        if found is None:
            return None
        receipt = PlaygroundReceipt.model_validate_json(found["body"]["S"])
        if now is not None and receipt.expires_at <= now:
            return None  # past its TTL, even if DynamoDB has not deleted it yet
        return receipt

    def hit(self, key: str, *, limit: int, window_s: float, now: float) -> RateDecision:
        window = math.floor(now / window_s)
        window_end = (window + 1) * window_s
        refused = RateDecision(allowed=False, retry_after_s=max(1, math.ceil(window_end - now)))
        if limit <= 0:
            return refused
        try:
            # One atomic counter per (key, window): counts only while under the limit, so a
            # refused request costs a condition check, not an ever-growing count.
            self.client.update_item(
                TableName=self.table,
                Key={"PK": _s(f"{RATE_PREFIX}{key}"), "SK": _s(f"W#{window}")},
                UpdateExpression="ADD #count :one SET #ttl = if_not_exists(#ttl, :expires)",
                ConditionExpression="attribute_not_exists(#count) OR #count < :limit",
                ExpressionAttributeNames={"#count": "count", "#ttl": TTL_ATTRIBUTE},
                ExpressionAttributeValues={
                    ":one": _n(1),
                    ":limit": _n(limit),
                    ":expires": _n(math.ceil(window_end)),
                },
                ReturnValues="UPDATED_NEW",
            )
        except Exception as error:
            if _error_code(error) != "ConditionalCheckFailedException":
                raise
            return refused
        return RateDecision(allowed=True)

    # --- credits (ASK-12, ASK-13) and tenant profiles (ASK-07) ---------------------------------

    def _tenant_key(self, tenant_id: str, sk: str) -> dict[str, dict[str, str]]:
        return {"PK": _s(f"{TENANT_PREFIX}{tenant_id}"), "SK": _s(sk)}

    def credit_account(self, tenant_id: str, *, opening: Decimal) -> CreditAccount:
        item = self.client.get_item(
            TableName=self.table, Key=self._tenant_key(tenant_id, CREDITS_SK), ConsistentRead=True
        ).get("Item")
        return _account(tenant_id, item or {}, opening)

    # The ledger (issue 27): every write of the balance is a transaction of the conditional
    # update of the CREDITS item — which requires the ledger open (attribute ``ledger``) — and
    # the Put of its entry. A ledger is opened once, by its own transaction: the opening balance
    # (or, for an account from before the ledger, its balance then) and that entry.

    def _entry_put(self, entry: LedgerEntry) -> dict[str, Any]:
        return {
            "Put": {
                "TableName": self.table,
                "Item": {
                    **self._tenant_key(entry.tenant_id, _ledger_sk(entry.at, entry.entry_id)),
                    "amount": _decimal(entry.amount),
                    "body": _s(entry.model_dump_json()),
                },
                "ConditionExpression": "attribute_not_exists(SK)",
            }
        }

    def _transact(self, writes: list[dict[str, Any]]) -> None:
        """One ``TransactWriteItems``; retried (a few times, with jitter) while another
        transaction on the same item conflicts. Raises :class:`_Cancelled` with the reasons of
        any other cancellation."""
        for attempt in range(TRANSACTION_ATTEMPTS):
            try:
                self.client.transact_write_items(TransactItems=writes)
                return
            except Exception as error:
                if _error_code(error) != "TransactionCanceledException":
                    raise
                reasons = getattr(error, "response", {}).get("CancellationReasons") or []
                codes = [str(reason.get("Code")) for reason in reasons]
                if "TransactionConflict" not in codes or attempt == TRANSACTION_ATTEMPTS - 1:
                    raise _Cancelled(codes) from error
            time.sleep(random.uniform(0, 0.01 * 2**attempt))  # noqa: S311 — jitter only

    def _unopened_balance(self, tenant_id: str, opening: Decimal) -> tuple[Decimal, bool] | None:
        """``None`` when the tenant's ledger is open; else the balance it would open at and
        whether that is a balance from before the ledger (carried) or ``opening``."""
        item = (
            self.client.get_item(
                TableName=self.table,
                Key=self._tenant_key(tenant_id, CREDITS_SK),
                ConsistentRead=True,
            ).get("Item")
            or {}
        )
        if LEDGER in item:
            return None
        if BALANCE in item:
            return Decimal(item[BALANCE]["N"]), True
        return opening, False

    def _open_ledger(self, tenant_id: str, base: Decimal, carried: bool) -> None:
        reason = CARRIED_REASON if carried else OPENING_REASON
        writes: list[dict[str, Any]] = [
            {
                "Update": {
                    "TableName": self.table,
                    "Key": self._tenant_key(tenant_id, CREDITS_SK),
                    "UpdateExpression": "SET #ledger = :true, #balance = :base",
                    "ConditionExpression": "attribute_not_exists(#ledger) AND "
                    "(attribute_not_exists(#balance) OR #balance = :base)",
                    "ExpressionAttributeNames": {"#ledger": LEDGER, "#balance": BALANCE},
                    "ExpressionAttributeValues": {":true": {"BOOL": True}, ":base": _decimal(base)},
                }
            }
        ]
        if base != 0:
            writes.append(self._entry_put(operator_entry(tenant_id, "grant", base, reason)))
        try:
            self._transact(writes)
        except _Cancelled as cancelled:
            if "ConditionalCheckFailed" not in cancelled.codes:
                raise
            # Opened meanwhile (or an old writer moved the balance): the caller tries again.

    def _on_ledger(
        self,
        tenant_id: str,
        opening: Decimal,
        writes: Callable[[], list[dict[str, Any]]],
        fits: Callable[[Decimal], bool],
    ) -> bool:
        """Run the transaction ``writes()`` builds, whose first item is the conditional update
        of the tenant's CREDITS item; first open the ledger when it is not, if the write
        ``fits`` the balance it would open at (else nothing is written). ``False`` when the
        update's condition fails. Built anew for each attempt: its entry is stamped after the
        opening's."""
        known_open = False
        for _ in range(LEDGER_OPEN_ATTEMPTS):
            try:
                self._transact(writes())
                return True
            except _Cancelled as cancelled:
                if cancelled.codes[:1] != ["ConditionalCheckFailed"]:
                    raise
            if known_open:
                return False  # the ledger was open before this attempt: its condition failed
            # Refused because the ledger was not open yet — or it was, and the balance did not
            # cover it: once open, the next attempt tells them apart.
            unopened = self._unopened_balance(tenant_id, opening)
            if unopened is not None:
                if not fits(unopened[0]):
                    return False
                self._open_ledger(tenant_id, *unopened)
            known_open = True
        return False

    def _charge_update(self, tenant_id: str, kind: UsageKind, amount: Decimal) -> dict[str, Any]:
        """The conditional charge (ASK-12): it takes the amount and counts the call only while
        the balance covers it, on an open ledger."""
        return {
            "TableName": self.table,
            "Key": self._tenant_key(tenant_id, CREDITS_SK),
            "UpdateExpression": "SET #balance = #balance - :amount "
            "ADD #charged :one, #credits :amount",
            "ConditionExpression": "attribute_exists(#ledger) AND #balance >= :amount",
            "ExpressionAttributeNames": {
                "#ledger": LEDGER,
                "#balance": BALANCE,
                "#charged": f"{kind}_charged",
                "#credits": f"{kind}_credits",
            },
            "ExpressionAttributeValues": {":amount": _decimal(amount), ":one": _n(1)},
        }

    def _meter_update(self, tenant_id: str, kind: UsageKind) -> dict[str, Any]:
        return {
            "TableName": self.table,
            "Key": self._tenant_key(tenant_id, CREDITS_SK),
            "UpdateExpression": "ADD #metered :one",
            "ConditionExpression": "attribute_exists(#ledger)",
            "ExpressionAttributeNames": {"#ledger": LEDGER, "#metered": f"{kind}_metered"},
            "ExpressionAttributeValues": {":one": _n(1)},
        }

    def _charge_writes(
        self, tenant_id: str, kind: UsageKind, amount: Decimal, ref: LedgerRef | None
    ) -> list[dict[str, Any]]:
        entry = charge_entry(tenant_id, kind, amount, ref)
        return [{"Update": self._charge_update(tenant_id, kind, amount)}, self._entry_put(entry)]

    def _meter_writes(
        self, tenant_id: str, kind: UsageKind, ref: LedgerRef | None
    ) -> list[dict[str, Any]]:
        entry = metered_entry(tenant_id, kind, ref)
        return [{"Update": self._meter_update(tenant_id, kind)}, self._entry_put(entry)]

    def charge(
        self,
        tenant_id: str,
        kind: UsageKind,
        amount: Decimal,
        *,
        opening: Decimal,
        ref: LedgerRef | None = None,
    ) -> bool:
        # ASK-12: the check and the charge are ONE conditional write (with its entry, one
        # transaction); DynamoDB serialises writes to the item, so concurrent charges can never
        # take the balance below zero.
        amount = as_credits(amount)
        return self._on_ledger(
            tenant_id,
            opening,
            lambda: self._charge_writes(tenant_id, kind, amount, ref),
            lambda base: base >= amount,
        )

    def meter(
        self, tenant_id: str, kind: UsageKind, *, opening: Decimal, ref: LedgerRef | None = None
    ) -> None:
        self._on_ledger(
            tenant_id, opening, lambda: self._meter_writes(tenant_id, kind, ref), _always
        )

    def _add_writes(
        self, entry: LedgerEntry, *, floor: bool, ceiling: bool = True
    ) -> list[dict[str, Any]]:
        """Add ``entry.amount`` to the balance, with the entry; the condition keeps it within
        ``MAX_BALANCE`` and (``floor``) at or above zero."""
        conditions = ["attribute_exists(#ledger)"]
        values = {":amount": _decimal(entry.amount)}
        if ceiling:
            conditions.append("#balance <= :room")
            values[":room"] = _decimal(MAX_BALANCE - entry.amount)
        if floor:
            conditions.append("#balance >= :need")
            values[":need"] = _decimal(-entry.amount)
        return [
            {
                "Update": {
                    "TableName": self.table,
                    "Key": self._tenant_key(entry.tenant_id, CREDITS_SK),
                    "UpdateExpression": "SET #balance = #balance + :amount",
                    "ConditionExpression": " AND ".join(conditions),
                    "ExpressionAttributeNames": {"#ledger": LEDGER, "#balance": BALANCE},
                    "ExpressionAttributeValues": values,
                }
            },
            self._entry_put(entry),
        ]

    def grant_credits(
        self, tenant_id: str, amount: Decimal, *, opening: Decimal, reason: str = "grant"
    ) -> CreditAccount:
        check_grant(amount)
        as_credits(amount)  # at most CREDIT_PLACES decimal places, as on SQLite

        def writes() -> list[dict[str, Any]]:
            return self._add_writes(operator_entry(tenant_id, "grant", amount, reason), floor=False)

        # Issue 23: refused whole, like SQLite's, when the balance would pass MAX_BALANCE; a
        # ledger not yet opened is not opened for a grant that does not fit.
        if not self._on_ledger(
            tenant_id, opening, writes, lambda base: base + amount <= MAX_BALANCE
        ):
            raise over_max_balance(amount)
        return self.credit_account(tenant_id, opening=opening)

    def adjust_credits(
        self,
        tenant_id: str,
        amount: Decimal,
        *,
        opening: Decimal,
        reason: str,
        allow_negative: bool = False,
    ) -> CreditAccount | None:
        def writes() -> list[dict[str, Any]]:
            entry = operator_entry(tenant_id, "adjustment", amount, reason)
            return self._add_writes(entry, floor=not allow_negative and amount < 0)

        def fits(base: Decimal) -> bool:
            after = base + amount
            return after <= MAX_BALANCE and (allow_negative or after >= 0)

        if not self._on_ledger(tenant_id, opening, writes, fits):
            if amount > 0:
                raise over_max_balance(amount)
            return None
        return self.credit_account(tenant_id, opening=opening)

    def ledger(
        self, tenant_id: str, *, since: float | None = None, until: float | None = None
    ) -> list[LedgerEntry]:
        query: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "PK = :pk AND SK BETWEEN :low AND :high",
            "ExpressionAttributeValues": {
                ":pk": _s(f"{TENANT_PREFIX}{tenant_id}"),
                ":low": _s(_ledger_sk(max(0.0, since or 0.0), "")),
                ":high": _s(LEDGER_PREFIX + "~"),
            },
            "ConsistentRead": True,
        }
        if until is not None:
            query["ExpressionAttributeValues"][":high"] = _s(_ledger_sk(max(0.0, until), "~"))
        entries: list[LedgerEntry] = []
        while True:
            page = self.client.query(**query)
            entries += [LedgerEntry.model_validate_json(i["body"]["S"]) for i in page["Items"]]
            if "LastEvaluatedKey" not in page:
                break
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return [
            e
            for e in entries
            if (since is None or e.at >= since) and (until is None or e.at < until)
        ]

    def tenant_profile(self, tenant_id: str) -> TenantProfile:
        item = self.client.get_item(
            TableName=self.table, Key=self._tenant_key(tenant_id, PROFILE_SK), ConsistentRead=True
        ).get("Item")
        if item is None:
            return TenantProfile(tenant_id=tenant_id)
        return TenantProfile.model_validate_json(item["body"]["S"])

    def put_tenant_profile(self, profile: TenantProfile) -> None:
        body = _s(profile.model_dump_json())
        # The profile, and its copy in the one partition that lists every tenant.
        self._transact(
            [
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": {**self._tenant_key(profile.tenant_id, PROFILE_SK), "body": body},
                    }
                },
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": {"PK": _s(TENANTS_PK), "SK": _s(profile.tenant_id), "body": body},
                    }
                },
            ]
        )

    def tenants(self) -> list[TenantProfile]:
        return [
            TenantProfile.model_validate_json(item["body"]["S"])
            for item in self._query_all(TENANTS_PK, None)
        ]

    # --- API keys (issue 27) ---------------------------------------------------------------------

    def _key_key(self, key_id: str) -> dict[str, dict[str, str]]:
        return {"PK": _s(KEYS_PK), "SK": _s(key_id)}

    def put_key(self, record: ApiKeyRecord) -> None:
        item = {
            **self._key_key(record.key_id),
            "tenant_id": _s(record.tenant_id),
            "body": _s(record.model_dump_json(exclude={"last_used_at"})),
        }
        if record.last_used_at is not None:
            item[LAST_USED] = _n(record.last_used_at)
        try:
            self.client.put_item(
                TableName=self.table, Item=item, ConditionExpression="attribute_not_exists(SK)"
            )
        except Exception as error:
            if _error_code(error) == "ConditionalCheckFailedException":
                raise ValueError(f"key {record.key_id} exists") from error
            raise

    def key(self, key_id: str) -> ApiKeyRecord | None:
        item = self.client.get_item(
            TableName=self.table, Key=self._key_key(key_id), ConsistentRead=True
        ).get("Item")
        return None if item is None else _key_record(item)

    def api_keys(self, tenant_id: str | None = None) -> list[ApiKeyRecord]:
        records = [_key_record(item) for item in self._query_all(KEYS_PK, None)]
        records = [r for r in records if tenant_id is None or r.tenant_id == tenant_id]
        return sorted(records, key=lambda r: (r.created_at, r.key_id))

    def end_key(
        self, key_id: str, *, revoked_at: float | None = None, expires_at: float | None = None
    ) -> ApiKeyRecord | None:
        found = self.key(key_id)
        if found is None:
            return None
        ended = found.ended(revoked_at, expires_at)
        self.client.update_item(
            TableName=self.table,
            Key=self._key_key(key_id),
            UpdateExpression="SET body = :body",
            ConditionExpression="attribute_exists(SK)",
            ExpressionAttributeValues={
                ":body": _s(ended.model_dump_json(exclude={"last_used_at"}))
            },
        )
        return ended

    def touch_key(self, key_id: str, at: float, *, every_s: float) -> bool:
        try:
            self.client.update_item(
                TableName=self.table,
                Key=self._key_key(key_id),
                UpdateExpression="SET #used = :at",
                ConditionExpression="attribute_exists(SK) AND "
                "(attribute_not_exists(#used) OR #used <= :before)",
                ExpressionAttributeNames={"#used": LAST_USED},
                ExpressionAttributeValues={":at": _n(at), ":before": _n(at - every_s)},
            )
        except Exception as error:
            if _error_code(error) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    # --- cross-check jobs (XC-1, XC-2) -----------------------------------------------------------

    def _job_key(self, tenant_id: str, job_id: str, page: int = 0) -> dict[str, dict[str, str]]:
        sk = f"{JOB_SK_PREFIX}{job_id}" + (f"#P#{page}" if page else "")
        return {"PK": _s(f"{JOB_PK_PREFIX}{tenant_id}"), "SK": _s(sk)}

    def _open_key(self, job: CrossCheckJob) -> dict[str, dict[str, str]]:
        # Sorted by creation: open_jobs reads them oldest first.
        sk = f"{job.created_at:020.6f}#{job.tenant_id}#{job.job_id}"
        return {"PK": _s(OPEN_JOBS_PK), "SK": _s(sk)}

    def _job_writes(self, job: CrossCheckJob, condition: dict[str, Any]) -> list[dict[str, Any]]:
        """The job item (with ``condition``) and its further pages, as transaction items."""
        pages = _job_pages(job)
        item = {
            **self._job_key(job.tenant_id, job.job_id),
            "status": _s(job.status),
            "version": _n(job.version),
            "scheduled": {"BOOL": job.schedule is not None},
            "created_at": _n(job.created_at),
            "pages": _n(len(pages)),
            "body": {"B": pages[0]},
        }
        writes: list[dict[str, Any]] = [
            {"Put": {"TableName": self.table, "Item": item, **condition}}
        ]
        for number, page in enumerate(pages[1:], start=1):
            key = self._job_key(job.tenant_id, job.job_id, number)
            writes.append({"Put": {"TableName": self.table, "Item": {**key, "body": {"B": page}}}})
        return writes

    def create_job(
        self, job: CrossCheckJob, *, opening: Decimal, ref: LedgerRef | None = None
    ) -> bool:
        # XC-2: the charge (or the metered count) with its ledger entry, the job and its pointer
        # are one transaction; a job stored already failed never ran and pays nothing.
        ref = (ref or LedgerRef()).model_copy(update={"job_id": job.job_id})
        pays = job.status == "queued"

        def writes() -> list[dict[str, Any]]:
            payments: list[dict[str, Any]] = []
            if pays and job.test_key:
                payments = self._meter_writes(job.tenant_id, JOB_USAGE, ref)
            elif pays:
                payments = self._charge_writes(job.tenant_id, JOB_USAGE, job.charged, ref)
            stored = [
                *payments,
                *self._job_writes(job, {"ConditionExpression": "attribute_not_exists(PK)"}),
            ]
            if not job.finished:
                stored.append({"Put": {"TableName": self.table, "Item": self._open_key(job)}})
            return stored

        try:
            if not pays:
                self._transact(writes())
                return True
            return self._on_ledger(
                job.tenant_id,
                opening,
                writes,
                lambda base: job.test_key or base >= job.charged,
            )
        except _Cancelled as cancelled:
            if "ConditionalCheckFailed" in cancelled.codes:
                raise ValueError(f"job {job.job_id} exists") from cancelled
            raise

    def job(self, tenant_id: str, job_id: str) -> CrossCheckJob | None:
        found = self.client.get_item(
            TableName=self.table, Key=self._job_key(tenant_id, job_id), ConsistentRead=True
        ).get("Item")
        if found is None:
            return None
        return self._read_job(tenant_id, job_id, found)

    def _read_job(self, tenant_id: str, job_id: str, item: dict[str, Any]) -> CrossCheckJob:
        pages = [bytes(item["body"]["B"])]
        for number in range(1, int(item["pages"]["N"])):
            page = self.client.get_item(
                TableName=self.table,
                Key=self._job_key(tenant_id, job_id, number),
                ConsistentRead=True,
            )["Item"]
            pages.append(bytes(page["body"]["B"]))
        return CrossCheckJob.model_validate_json(zlib.decompress(b"".join(pages)))

    def replace_job(self, job: CrossCheckJob, *, refund: bool = False) -> bool:
        stored = self.client.get_item(
            TableName=self.table,
            Key=self._job_key(job.tenant_id, job.job_id),
            ConsistentRead=True,
            ProjectionExpression="pages",
        ).get("Item")
        if stored is None:
            return False
        writes = self._job_writes(
            job,
            {
                "ConditionExpression": "version = :read",
                "ExpressionAttributeValues": {":read": _n(job.version - 1)},
            },
        )
        for stale in range(len(writes), int(stored["pages"]["N"])):
            key = self._job_key(job.tenant_id, job.job_id, stale)
            writes.append({"Delete": {"TableName": self.table, "Key": key}})
        if job.finished:
            writes.append({"Delete": {"TableName": self.table, "Key": self._open_key(job)}})
        if refund:
            # XC-2: a failed job's charge goes back in the write that fails it, with its entry.
            entry = refund_entry(job.tenant_id, job.job_id, job.charged)
            writes.append(self._entry_put(entry))
            writes.append(
                {
                    "Update": {
                        "TableName": self.table,
                        "Key": self._tenant_key(job.tenant_id, CREDITS_SK),
                        "UpdateExpression": "ADD #balance :amount, #refunded :one, #credits :minus",
                        "ExpressionAttributeNames": {
                            "#balance": BALANCE,
                            "#refunded": f"{JOB_USAGE}_refunded",
                            "#credits": f"{JOB_USAGE}_credits",
                        },
                        "ExpressionAttributeValues": {
                            ":amount": _decimal(job.charged),
                            ":minus": _decimal(-job.charged),
                            ":one": _n(1),
                        },
                    }
                }
            )
        try:
            self._transact(writes)
        except _Cancelled as cancelled:
            if cancelled.codes[:1] == ["ConditionalCheckFailed"]:
                return False
            raise
        return True

    def jobs(
        self, tenant_id: str, *, scheduled: bool | None, limit: int, after: str | None = None
    ) -> JobPage:
        query: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
            # Page items of a job have no status.
            "FilterExpression": "attribute_exists(#status)",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": {
                ":pk": _s(f"{JOB_PK_PREFIX}{tenant_id}"),
                ":prefix": _s(JOB_SK_PREFIX),
            },
            "ScanIndexForward": False,  # ids grow with their creation time: newest first
            "ConsistentRead": True,
        }
        if scheduled is not None:
            query["FilterExpression"] += " AND #scheduled = :scheduled"
            query["ExpressionAttributeNames"]["#scheduled"] = "scheduled"
            query["ExpressionAttributeValues"][":scheduled"] = {"BOOL": scheduled}
        if after is not None:
            query["ExclusiveStartKey"] = self._job_key(tenant_id, after)
        found: list[CrossCheckJob] = []
        while len(found) <= limit:
            page = self.client.query(**query)
            for item in page["Items"]:
                job_id = item["SK"]["S"].removeprefix(JOB_SK_PREFIX)
                found.append(self._read_job(tenant_id, job_id, item))
            if "LastEvaluatedKey" not in page:
                break
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        listed = tuple(found[:limit])
        more = len(found) > limit and bool(listed)
        return JobPage(jobs=listed, next_after=listed[-1].job_id if more else None)

    def open_jobs(self, *, limit: int) -> list[CrossCheckJob]:
        pointers = self.client.query(
            TableName=self.table,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": _s(OPEN_JOBS_PK)},
            ConsistentRead=True,
            Limit=max(1, limit),
        )["Items"]
        found: list[CrossCheckJob] = []
        for pointer in pointers:
            _, tenant_id, job_id = pointer["SK"]["S"].split("#", 2)
            job = self.job(tenant_id, job_id)
            if job is not None and not job.finished:
                found.append(job)
        return found


class _Cancelled(Exception):
    """Internal: a transaction was cancelled; ``codes`` are its items' reasons, in order."""

    def __init__(self, codes: list[str]) -> None:
        super().__init__(", ".join(codes))
        self.codes = codes


def _always(_: Decimal) -> bool:
    return True


def _ledger_sk(at: float, entry_id: str) -> str:
    # Zero-padded fixed point sorts as a string in time order.
    return f"{LEDGER_PREFIX}{at:020.6f}#{entry_id}"


def _key_record(item: dict[str, Any]) -> ApiKeyRecord:
    used = item.get(LAST_USED)
    record = ApiKeyRecord.model_validate_json(item["body"]["S"])
    return record.model_copy(update={"last_used_at": float(used["N"]) if used else None})


def _decimal(value: Decimal) -> dict[str, str]:
    return {"N": format(value, "f")}


def _account(tenant_id: str, item: dict[str, Any], opening: Decimal) -> CreditAccount:
    def number(name: str) -> Decimal | None:
        found = item.get(name)
        return Decimal(found["N"]) if found is not None else None

    usage: dict[UsageKind, Usage] = {}
    for kind in USAGE_KINDS:
        charged, metered, refunded, credits = (
            number(f"{kind}_{part}") for part in ("charged", "metered", "refunded", "credits")
        )
        if charged is None and metered is None:
            continue
        usage[kind] = Usage(
            charged=int(charged or 0),
            metered=int(metered or 0),
            refunded=int(refunded or 0),
            credits=as_credits(credits or Decimal(0)),
        )
    balance = number(BALANCE)
    return CreditAccount(
        tenant_id=tenant_id,
        balance=as_credits(opening if balance is None else balance),
        usage=usage,
    )


def _conversation(item: dict[str, Any]) -> Conversation:
    route = item.get("route", {}).get("S")  # the attribute, not the body, holds the claim
    return Conversation.model_validate_json(item["body"]["S"]).model_copy(update={"route": route})


def _job_pages(job: CrossCheckJob) -> list[bytes]:
    """The job's JSON, compressed, in pages of at most :data:`JOB_PAGE_BYTES`."""
    body = zlib.compress(job.model_dump_json().encode(), level=6)
    return [body[i : i + JOB_PAGE_BYTES] for i in range(0, len(body), JOB_PAGE_BYTES)] or [b""]
