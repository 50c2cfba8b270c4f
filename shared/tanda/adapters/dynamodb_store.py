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
from collections.abc import Callable, Sequence
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


def message_sk(created_at: float, message_id: str) -> str:
    # Zero-padded fixed point sorts as a string in the order SQLite sorts the number.
    return f"{MESSAGE_PREFIX}{created_at:020.6f}#{message_id}"


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: float) -> dict[str, str]:
    return {"N": repr(value) if isinstance(value, float) else str(value)}


class DynamoStore:
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
        try:
            # V2-19: the message and the claim of its route are one transaction.
            self.client.transact_write_items(
                TransactItems=[
                    {"Update": claim},
                    {
                        "Put": {
                            "TableName": self.table,
                            "Item": {
                                "PK": _s(conversation_pk(owner, message.conversation_id)),
                                "SK": _s(message_sk(message.created_at, message.message_id)),
                                "body": _s(message.model_dump_json()),
                            },
                            "ConditionExpression": "attribute_not_exists(SK)",
                        }
                    },
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

    def _scan_all(self, expression: str, values: dict[str, Any]) -> list[dict[str, Any]]:
        scan: dict[str, Any] = {
            "TableName": self.table,
            "FilterExpression": expression,
            "ExpressionAttributeValues": values,
            "ConsistentRead": True,
        }
        found: list[dict[str, Any]] = []
        while True:
            page = self.client.scan(**scan)
            found += page["Items"]
            if "LastEvaluatedKey" not in page:
                return found
            scan["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def erase_document_traces(self, tenant_id: str, document_id: str) -> tuple[int, int]:
        """A scan of the tenant's messages naming the document and of its memory items (the
        owner's digest is in their keys, so no query reaches every owner): erasure is rare."""
        tenant = _s(f"T#{tenant_id}#O#")
        messages = self._scan_all(
            "begins_with(PK, :tenant) AND begins_with(SK, :m) AND contains(body, :doc)",
            {
                ":tenant": tenant,
                ":m": _s(MESSAGE_PREFIX),
                ":doc": _s(json.dumps(document_id, ensure_ascii=False)),
            },
        )
        drawn: set[str] = set()
        changed = 0
        for item in messages:
            message = StoredMessage.model_validate_json(item["body"]["S"])
            if not cites(message, document_id):
                continue
            drawn.add(message.message_id)
            erased = erase_citations(message, document_id)
            if erased is not None:
                self.client.update_item(
                    TableName=self.table,
                    Key={"PK": item["PK"], "SK": item["SK"]},
                    UpdateExpression="SET body = :body",
                    ConditionExpression="attribute_exists(SK)",
                    ExpressionAttributeValues={":body": _s(erased.model_dump_json())},
                )
                changed += 1
        removed = 0
        if drawn:
            memories = self._scan_all(
                "begins_with(PK, :tenant) AND begins_with(SK, :mem)",
                {":tenant": tenant, ":mem": _s(MEMORY_PREFIX)},
            )
            for item in memories:
                if MemoryItem.model_validate_json(item["body"]["S"]).message_id in drawn:
                    self.client.delete_item(
                        TableName=self.table, Key={"PK": item["PK"], "SK": item["SK"]}
                    )
                    removed += 1
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
