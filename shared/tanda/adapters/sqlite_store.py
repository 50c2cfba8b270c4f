"""The embedded ``Store``: one SQLite file for conversations, messages, receipts and rate limits.

The ownership claim is one conditional UPDATE (V2-19), so two first answers on different routes
cannot both win. Receipts and rate-limit windows carry an expiry and are filtered on read.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from tanda.adapters.connection_pool import ConnectionPool, leased_per_call
from tanda.conversations.model import (
    Conversation,
    MemoryItem,
    PlaygroundReceipt,
    RateDecision,
    Route,
    StoredMessage,
)
from tanda.ports import ConversationConflict

SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    body TEXT NOT NULL,
    route TEXT,
    PRIMARY KEY (tenant_id, conversation_id)
);
CREATE TABLE IF NOT EXISTS messages (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    message_id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, created_at, message_id)
);
CREATE TABLE IF NOT EXISTS memories (
    tenant_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, subject, text)
);
CREATE TABLE IF NOT EXISTS receipts (
    run_id TEXT PRIMARY KEY,
    expires_at REAL NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rate_windows (
    key TEXT NOT NULL,
    window INTEGER NOT NULL,
    count INTEGER NOT NULL,
    expires_at REAL NOT NULL,
    PRIMARY KEY (key, window)
);
"""


@leased_per_call("_connections")
class SqliteStore:
    """``Store`` over one SQLite file (WAL). Each public call leases a pooled connection (issue
    11), so any thread reuses them; writers take one lock."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._write = threading.Lock()
        self._connections = ConnectionPool(self._connect, sqlite3.Connection.close)
        with self._write, self._connections.lease() as db:
            db.executescript(SCHEMA)

    # --- connections -----------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        # A pooled connection moves between threads, never used by two at once.
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA busy_timeout=30000")
        return db

    def _db(self) -> sqlite3.Connection:
        """The connection the running public call leased (see ``leased_per_call``)."""
        return self._connections.current()

    @property
    def idle_connections(self) -> int:
        return self._connections.idle

    @property
    def max_idle_connections(self) -> int:
        return self._connections.max_idle

    def close(self) -> None:
        """Close every connection this store opened (in any thread); a later call reopens."""
        self._connections.close()

    # --- conversations ---------------------------------------------------------------------------

    def create_conversation(self, conversation: Conversation) -> None:
        with self._write:
            self._db().execute(
                "INSERT INTO conversations (tenant_id, conversation_id, body, route) "
                "VALUES (?,?,?,?)",
                (
                    conversation.tenant_id,
                    conversation.conversation_id,
                    conversation.model_dump_json(),
                    conversation.route,
                ),
            )

    def conversation(self, tenant_id: str, conversation_id: str) -> Conversation | None:
        row = (
            self._db()
            .execute(
                "SELECT body, route FROM conversations WHERE tenant_id = ? AND conversation_id = ?",
                (tenant_id, conversation_id),
            )
            .fetchone()
        )
        if row is None:
            return None
        return Conversation.model_validate_json(row[0]).model_copy(update={"route": row[1]})

    def claim(self, tenant_id: str, conversation_id: str, route: Route) -> Conversation:
        with self._write:
            cursor = self._db().execute(
                "UPDATE conversations SET route = ? WHERE tenant_id = ? AND conversation_id = ? "
                "AND (route IS NULL OR route = ?)",
                (route, tenant_id, conversation_id, route),
            )
        found = self.conversation(tenant_id, conversation_id)
        if found is None:
            raise LookupError(conversation_id)
        if cursor.rowcount == 0:
            raise ConversationConflict(conversation_id)
        return found

    def add_message(self, message: StoredMessage) -> None:
        with self._write:
            self._db().execute(
                "INSERT INTO messages (tenant_id, conversation_id, created_at, message_id, body) "
                "VALUES (?,?,?,?,?)",
                (
                    message.tenant_id,
                    message.conversation_id,
                    message.created_at,
                    message.message_id,
                    message.model_dump_json(),
                ),
            )

    def messages(self, tenant_id: str, conversation_id: str) -> list[StoredMessage]:
        rows = self._db().execute(
            "SELECT body FROM messages WHERE tenant_id = ? AND conversation_id = ? "
            "ORDER BY created_at, message_id",
            (tenant_id, conversation_id),
        )
        return [StoredMessage.model_validate_json(row[0]) for row in rows]

    # --- long-term memory ----------------------------------------------------------------------

    def add_memories(self, items: Sequence[MemoryItem]) -> None:
        with self._write:
            self._db().executemany(
                "INSERT OR IGNORE INTO memories (tenant_id, subject, text, created_at, body) "
                "VALUES (?,?,?,?,?)",
                [
                    (i.tenant_id, i.subject, i.text, i.created_at, i.model_dump_json())
                    for i in items
                ],
            )

    def memories(self, tenant_id: str, subject: str, *, limit: int) -> list[MemoryItem]:
        rows = self._db().execute(
            "SELECT body FROM memories WHERE tenant_id = ? AND subject = ? "
            "ORDER BY created_at DESC, text LIMIT ?",
            (tenant_id, subject, limit),
        )
        return [MemoryItem.model_validate_json(row[0]) for row in rows]

    # --- receipts and rate limits ---------------------------------------------------------------

    def put_receipt(self, receipt: PlaygroundReceipt) -> None:
        with self._write:
            self._db().execute(
                "INSERT OR REPLACE INTO receipts (run_id, expires_at, body) VALUES (?,?,?)",
                (receipt.run_id, receipt.expires_at, receipt.model_dump_json()),
            )

    def receipt(self, run_id: str, *, now: float | None = None) -> PlaygroundReceipt | None:
        row = self._db().execute("SELECT body FROM receipts WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        receipt = PlaygroundReceipt.model_validate_json(row[0])
        if now is not None and receipt.expires_at <= now:
            return None  # expired: as gone as a DynamoDB item past its TTL
        return receipt

    def hit(self, key: str, *, limit: int, window_s: float, now: float) -> RateDecision:
        window = math.floor(now / window_s)
        with self._write:
            db = self._db()
            db.execute("DELETE FROM rate_windows WHERE expires_at <= ?", (now,))
            (count,) = db.execute(
                "INSERT INTO rate_windows (key, window, count, expires_at) VALUES (?,?,1,?) "
                "ON CONFLICT (key, window) DO UPDATE SET count = count + 1 RETURNING count",
                (key, window, (window + 1) * window_s),
            ).fetchone()
        if count <= limit:
            return RateDecision(allowed=True)
        return RateDecision(
            allowed=False, retry_after_s=max(1, math.ceil((window + 1) * window_s - now))
        )
