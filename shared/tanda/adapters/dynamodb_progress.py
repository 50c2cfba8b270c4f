"""The ``Progress`` port on DynamoDB: the agent step (one Lambda) publishes an answer's tool frames,
the stream function (another Lambda) reads them while the execution runs.

Items live in the single table (``TandaTable`` in ``template.yaml``; a test compares
:data:`TABLE_KEYS` and :data:`TTL_ATTRIBUTE` with it):

================================  ==========================  ===============================
item                              PK                          SK
================================  ==========================  ===============================
progress event                    ``PROG#<request id>``       ``<seq>``, 10 digits zero-padded
================================  ==========================  ===============================

with ``frame`` (the encoded frame, ``tanda.records.progress.encode_frame``) and ``expires_at``
(epoch seconds, :data:`PROGRESS_TTL_S` after the publish). A frame of ``tool.started`` carries the
agent's tool arguments (its search text), hence the short TTL.

The sequence number is the sort key, written with ``attribute_not_exists(SK)``: two publishers of
one request (a retried task beside a late one) can never write the same number, and the one that
loses the race reads the last number (consistent read) and takes the next. Readers query
``SK > after`` with consistent reads, so a read sees every publish that returned before it.
Imports nothing heavy: the agent step pays for boto3 only when it publishes.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tanda.adapters.aws_errors import error_code
from tanda.records.progress import ProgressEvent, decode_frame, encode_frame

if TYPE_CHECKING:
    from tanda.contract.common import WireModel
    from tanda.settings import Settings

TABLE_KEYS: dict[str, str] = {"PK": "HASH", "SK": "RANGE"}
"""The table's key schema (attribute → key type), as ``TandaTable`` in ``template.yaml``."""
TTL_ATTRIBUTE = "expires_at"
PK_PREFIX = "PROG#"
SEQ_DIGITS = 10
PROGRESS_TTL_S = 900
"""Events outlive the longest answer (a streamed REST integration ends at 300 s) and no more."""
MAX_ATTEMPTS = 12
"""Each conditional failure is another publisher's frame written: a publisher can lose as many
races in a row as the others publish frames meanwhile (five, in a burst of tool calls), so the
budget is more than a burst and each retry waits a jittered moment (``CONFLICT_PAUSE_S``) for
the other's burst to pass. A clean-clone CI run on a loaded machine lost five in a row."""
CONFLICT_PAUSE_S = 0.005
"""The most the ``n``-th retry waits is ``n`` times this, jittered (full jitter)."""
_KNOWN_REQUESTS = 1024


def progress_pk(request_id: str) -> str:
    return f"{PK_PREFIX}{request_id}"


def seq_sk(seq: int) -> str:
    return f"{seq:0{SEQ_DIGITS}d}"


class DynamoProgress:
    """``client`` is a boto3 DynamoDB client (injected in tests; built by :meth:`from_settings`)."""

    def __init__(
        self,
        client: Any,
        *,
        table: str,
        ttl_s: int = PROGRESS_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self.table = table
        self.ttl_s = ttl_s
        self.clock = clock
        self._next: dict[str, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, client: Any | None = None) -> DynamoProgress:
        if client is None:
            from tanda.adapters.aws_sdk import client as sdk_client  # lazily: only AWS pays

            client = sdk_client("dynamodb")
        return cls(client, table=settings.dynamodb_table)

    def publish(self, request_id: str, frame: WireModel) -> int:
        encoded = encode_frame(frame)
        with self._lock:
            seq = self._next.get(request_id, 1)
            for attempt in range(MAX_ATTEMPTS):
                if attempt:
                    time.sleep(random.uniform(0, CONFLICT_PAUSE_S * attempt))  # noqa: S311
                try:
                    self.client.put_item(
                        TableName=self.table,
                        Item={
                            "PK": {"S": progress_pk(request_id)},
                            "SK": {"S": seq_sk(seq)},
                            "frame": {"S": encoded},
                            TTL_ATTRIBUTE: {"N": str(math.ceil(self.clock() + self.ttl_s))},
                        },
                        ConditionExpression="attribute_not_exists(SK)",
                    )
                except Exception as error:
                    if error_code(error) != "ConditionalCheckFailedException":
                        raise
                    seq = self._last_seq(request_id) + 1  # another publisher took it
                    continue
                if len(self._next) >= _KNOWN_REQUESTS and request_id not in self._next:
                    self._next.clear()  # a warm container serves many requests; a miss costs
                    # one conditional failure, never a wrong number
                self._next[request_id] = seq + 1
                return seq
        raise RuntimeError(f"progress: no free sequence number after {MAX_ATTEMPTS} attempts")

    def read(self, request_id: str, after: int = 0) -> list[ProgressEvent]:
        query: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "PK = :pk AND SK > :after",
            # DynamoDB deletes expired items lazily: filter them here, as every TTL read does.
            "FilterExpression": "#ttl > :now",
            "ExpressionAttributeNames": {"#ttl": TTL_ATTRIBUTE},
            "ExpressionAttributeValues": {
                ":pk": {"S": progress_pk(request_id)},
                ":after": {"S": seq_sk(after)},
                ":now": {"N": str(math.floor(self.clock()))},
            },
            "ConsistentRead": True,
        }
        events: list[ProgressEvent] = []
        while True:
            page = self.client.query(**query)
            events += [
                ProgressEvent(int(item["SK"]["S"]), decode_frame(item["frame"]["S"]))
                for item in page["Items"]
            ]
            if "LastEvaluatedKey" not in page:
                return events
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _last_seq(self, request_id: str) -> int:
        page = self.client.query(
            TableName=self.table,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": progress_pk(request_id)}},
            ProjectionExpression="SK",
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
        )
        items = page["Items"]
        return int(items[0]["SK"]["S"]) if items else 0
