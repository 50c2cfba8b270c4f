"""The embedded ``Store``: one SQLite file for conversations, messages, memory, receipts, rate
limits, the tenants' credit ledgers and profiles.

Every conversation read and write names its owner — issuer, tenant and subject — in the WHERE
clause, and messages are read through their conversation (issue 11). The route claim is one
conditional UPDATE (V2-19), so two first answers on different routes cannot both win; storing a
message claims in the same transaction. Receipts and rate-limit windows carry an expiry and are
filtered on read.

Credits are integers of 1/10 000 credit (``tanda.credits.to_units``), so the balance check and the
charge are one exact conditional UPDATE (ASK-12); the charge and its usage count commit together.

Files written before issue 11 have conversations without ``issuer``/``subject`` columns (added as
NULL when the file is opened) and memory in a ``memories`` table keyed without the issuer: such
rows match no owner, so no one reads them — not their creator either, whose issuer is unknown.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TypeVar

from tanda.adapters.connection_pool import ConnectionPool, PooledConnections, leased_per_call
from tanda.adapters.private_files import private_database
from tanda.credits import (
    CARRIED_REASON,
    JOB_USAGE,
    MAX_BALANCE_UNITS,
    OPENING_REASON,
    CreditAccount,
    LedgerEntry,
    LedgerRef,
    TenantProfile,
    Usage,
    UsageKind,
    charge_entry,
    check_grant,
    from_units,
    metered_entry,
    operator_entry,
    over_max_balance,
    refund_entry,
    to_units,
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
    DocumentUpload,
    DuplicateContent,
    UploadExists,
    UploadPage,
    UploadStatus,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    body TEXT NOT NULL,
    route TEXT,
    issuer TEXT,
    subject TEXT,
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
CREATE TABLE IF NOT EXISTS owner_memories (
    tenant_id TEXT NOT NULL,
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, issuer, subject, text)
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
CREATE TABLE IF NOT EXISTS credit_accounts (
    tenant_id TEXT PRIMARY KEY,
    balance_units INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS credit_ledger (
    tenant_id TEXT NOT NULL,
    at REAL NOT NULL,
    entry_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    amount_units INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, at, entry_id)
);
CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    body TEXT NOT NULL,
    last_used_at REAL
);
CREATE TABLE IF NOT EXISTS credit_usage (
    tenant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    charged INTEGER NOT NULL DEFAULT 0,
    metered INTEGER NOT NULL DEFAULT 0,
    credit_units INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, kind)
);
CREATE TABLE IF NOT EXISTS tenant_profiles (
    tenant_id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cross_check_jobs (
    tenant_id TEXT NOT NULL,
    job_id TEXT NOT NULL,
    status TEXT NOT NULL,
    scheduled INTEGER NOT NULL,
    version INTEGER NOT NULL,
    created_at REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, job_id)
);
CREATE INDEX IF NOT EXISTS cross_check_jobs_open ON cross_check_jobs (status, created_at, job_id);
CREATE TABLE IF NOT EXISTS erasure_receipts (
    tenant_id TEXT NOT NULL,
    erased_at REAL NOT NULL,
    receipt_id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, erased_at, receipt_id)
);
CREATE TABLE IF NOT EXISTS uploads (
    tenant_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    status TEXT NOT NULL,
    sha256 TEXT,
    batch_id TEXT,
    filename TEXT NOT NULL,
    updated_at REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, document_id)
);
CREATE INDEX IF NOT EXISTS uploads_open ON uploads (status, updated_at, document_id);
CREATE INDEX IF NOT EXISTS uploads_content ON uploads (tenant_id, sha256);
"""
OPEN_STATUSES = ("queued", "running")
_T = TypeVar("_T")
OWNED = "tenant_id = ? AND conversation_id = ? AND issuer = ? AND subject = ?"
"""A conversation of one owner (issue 11); bind :func:`_owned`. NULL never equals, so rows
written before the owner columns existed match no one."""
NO_MESSAGE = (
    "NOT EXISTS (SELECT 1 FROM messages AS m WHERE m.tenant_id = conversations.tenant_id "
    "AND m.conversation_id = conversations.conversation_id)"
)


def _owned(owner: ConversationOwner, conversation_id: str) -> tuple[str, str, str, str]:
    return (owner.tenant_id, conversation_id, owner.issuer, owner.subject)


def _add_owner_columns(db: sqlite3.Connection) -> None:
    """A file from before issue 11 gets the owner columns, NULL in its existing rows."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(conversations)")}
    for column in ("issuer", "subject"):
        if column not in columns:
            db.execute(f"ALTER TABLE conversations ADD COLUMN {column} TEXT")


def _allow_negative_balances(db: sqlite3.Connection) -> None:
    """Issue 27: an operator may adjust a balance below zero (``--allow-negative``); a file from
    before it has a CHECK that forbids it, so its accounts table is rebuilt without it. Every
    write that must not overdraw says so in its own condition."""
    (sql,) = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'credit_accounts'"
    ).fetchone()
    if "CHECK" not in sql:
        return
    db.execute(
        "CREATE TABLE credit_accounts_new (tenant_id TEXT PRIMARY KEY, "
        "balance_units INTEGER NOT NULL)"
    )
    db.execute(
        "INSERT INTO credit_accounts_new SELECT tenant_id, balance_units FROM credit_accounts"
    )
    db.execute("DROP TABLE credit_accounts")
    db.execute("ALTER TABLE credit_accounts_new RENAME TO credit_accounts")


def _carry_balances_into_the_ledger(db: sqlite3.Connection) -> None:
    """An account opened before the ledger existed gets one entry of its balance, so its balance
    is the sum of its entries from then on."""
    rows = db.execute(
        "SELECT tenant_id, balance_units FROM credit_accounts AS a WHERE NOT EXISTS "
        "(SELECT 1 FROM credit_ledger AS l WHERE l.tenant_id = a.tenant_id)"
    ).fetchall()
    for tenant_id, units in rows:
        _insert_entry(db, operator_entry(tenant_id, "grant", from_units(units), CARRIED_REASON))


def _insert_entry(db: sqlite3.Connection, entry: LedgerEntry) -> None:
    db.execute(
        "INSERT INTO credit_ledger (tenant_id, at, entry_id, kind, amount_units, body) "
        "VALUES (?,?,?,?,?,?)",
        (
            entry.tenant_id,
            entry.at,
            entry.entry_id,
            entry.kind,
            to_units(entry.amount),
            entry.model_dump_json(),
        ),
    )


def _add_refund_column(db: sqlite3.Connection) -> None:
    """A ledger from before cross-check jobs (issue 15) counts no refunds yet."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(credit_usage)")}
    if "refunded" not in columns:
        db.execute("ALTER TABLE credit_usage ADD COLUMN refunded INTEGER NOT NULL DEFAULT 0")


@leased_per_call("_connections")
class SqliteStore(PooledConnections[sqlite3.Connection]):
    """``Store`` over one SQLite file (WAL). Each public call leases a pooled connection (issue
    11), so any thread reuses them; writers take one lock."""

    # Not mutated (bench/mutation.py): mutmut's copies of these two would run leased_per_call's
    # lease before the pool exists, or inside the pool's own connect.
    def __init__(self, path: Path) -> None:  # pragma: no mutate block
        # Questions, answers and memories: readable by the owner only, side files too.
        self.path = private_database(path)
        self._write = threading.Lock()
        self._connections = ConnectionPool(self._connect, sqlite3.Connection.close)
        with self._write, self._connections.lease() as db:
            db.executescript(SCHEMA)
            _add_owner_columns(db)
            _add_refund_column(db)
            # One transaction, so two processes opening an old file at once migrate it once.
            db.execute("BEGIN IMMEDIATE")
            try:
                _allow_negative_balances(db)
                _carry_balances_into_the_ledger(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # --- connections -----------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:  # pragma: no mutate block
        # A pooled connection moves between threads, never used by two at once.
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA busy_timeout=30000")
        # Deleted or rewritten rows are overwritten, not left in free pages (issue 26).
        db.execute("PRAGMA secure_delete=ON")
        return db

    def _in_transaction(self, write: Callable[[sqlite3.Connection], _T]) -> _T:
        """``write`` in one IMMEDIATE transaction (other processes on the file wait for it)."""
        with self._write:
            db = self._leased()
            db.execute("BEGIN IMMEDIATE")
            try:
                result = write(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

    # --- conversations ---------------------------------------------------------------------------

    def create_conversation(self, conversation: Conversation) -> None:
        with self._write:
            self._leased().execute(
                "INSERT INTO conversations (tenant_id, conversation_id, body, route, issuer, "
                "subject) VALUES (?,?,?,?,?,?)",
                (
                    conversation.tenant_id,
                    conversation.conversation_id,
                    conversation.model_dump_json(),
                    conversation.route,
                    conversation.issuer,
                    conversation.subject,
                ),
            )

    def conversation(self, owner: ConversationOwner, conversation_id: str) -> Conversation | None:
        row = (
            self._leased()
            .execute(
                f"SELECT body, route FROM conversations WHERE {OWNED}",  # noqa: S608
                _owned(owner, conversation_id),
            )
            .fetchone()
        )
        if row is None:
            return None
        return Conversation.model_validate_json(row[0]).model_copy(update={"route": row[1]})

    def _claim(
        self, db: sqlite3.Connection, owner: ConversationOwner, conversation_id: str, route: Route
    ) -> None:
        """The conditional UPDATE of a claim, under the write lock; raises when it fails."""
        cursor = db.execute(
            f"UPDATE conversations SET route = ? WHERE {OWNED} AND (route IS NULL OR route = ?)",  # noqa: S608
            (route, *_owned(owner, conversation_id), route),
        )
        if cursor.rowcount == 0:
            if self.conversation(owner, conversation_id) is None:
                raise ConversationMissing(conversation_id)
            raise ConversationConflict(conversation_id)

    def claim(self, owner: ConversationOwner, conversation_id: str, route: Route) -> Conversation:
        with self._write:
            self._claim(self._leased(), owner, conversation_id, route)
        found = self.conversation(owner, conversation_id)
        if found is None:  # discarded in between
            raise ConversationMissing(conversation_id)
        return found

    def add_message(self, owner: ConversationOwner, message: StoredMessage) -> None:
        def write(db: sqlite3.Connection) -> None:
            # V2-19: the message claims its conversation in the same transaction.
            self._claim(db, owner, message.conversation_id, message.route)
            db.execute(
                "INSERT INTO messages (tenant_id, conversation_id, created_at, message_id, "
                "body) VALUES (?,?,?,?,?)",
                (
                    owner.tenant_id,
                    message.conversation_id,
                    message.created_at,
                    message.message_id,
                    message.model_dump_json(),
                ),
            )

        self._in_transaction(write)

    def messages(self, owner: ConversationOwner, conversation_id: str) -> list[StoredMessage]:
        rows = self._leased().execute(
            "SELECT m.body FROM messages AS m JOIN conversations AS c "
            "ON c.tenant_id = m.tenant_id AND c.conversation_id = m.conversation_id "
            "WHERE c.tenant_id = ? AND c.conversation_id = ? AND c.issuer = ? AND c.subject = ? "
            "ORDER BY m.created_at, m.message_id",
            _owned(owner, conversation_id),
        )
        return [StoredMessage.model_validate_json(row[0]) for row in rows]

    def release(self, owner: ConversationOwner, conversation_id: str, route: Route) -> bool:
        with self._write:
            cursor = self._leased().execute(
                f"UPDATE conversations SET route = NULL WHERE {OWNED} AND route = ? "  # noqa: S608
                f"AND {NO_MESSAGE}",
                (*_owned(owner, conversation_id), route),
            )
        return cursor.rowcount > 0

    def discard(self, owner: ConversationOwner, conversation_id: str) -> bool:
        with self._write:
            cursor = self._leased().execute(
                f"DELETE FROM conversations WHERE {OWNED} AND {NO_MESSAGE}",  # noqa: S608
                _owned(owner, conversation_id),
            )
        return cursor.rowcount > 0

    # --- long-term memory ----------------------------------------------------------------------

    def add_memories(self, items: Sequence[MemoryItem]) -> None:
        with self._write:
            self._leased().executemany(
                "INSERT OR IGNORE INTO owner_memories "
                "(tenant_id, issuer, subject, text, created_at, body) VALUES (?,?,?,?,?,?)",
                [
                    (i.tenant_id, i.issuer, i.subject, i.text, i.created_at, i.model_dump_json())
                    for i in items
                ],
            )

    def memories(self, owner: ConversationOwner, *, limit: int) -> list[MemoryItem]:
        rows = self._leased().execute(
            "SELECT body FROM owner_memories WHERE tenant_id = ? AND issuer = ? AND subject = ? "
            "ORDER BY created_at DESC, text LIMIT ?",
            (owner.tenant_id, owner.issuer, owner.subject, limit),
        )
        return [MemoryItem.model_validate_json(row[0]) for row in rows]

    # --- erasure (issue 26) -------------------------------------------------------------------

    def erase_document_traces(self, tenant_id: str, document_id: str) -> tuple[int, int]:
        def write(db: sqlite3.Connection) -> tuple[int, int]:
            drawn: set[str] = set()
            changed = 0
            rows = db.execute(
                "SELECT conversation_id, created_at, message_id, body FROM messages "
                "WHERE tenant_id = ? AND instr(body, ?) > 0",
                (tenant_id, json.dumps(document_id, ensure_ascii=False)),
            ).fetchall()
            for conversation_id, created_at, message_id, body in rows:
                message = StoredMessage.model_validate_json(body)
                if not cites(message, document_id):
                    continue
                drawn.add(message.message_id)
                erased = erase_citations(message, document_id)
                if erased is not None:
                    changed += 1
                    db.execute(
                        "UPDATE messages SET body = ? WHERE tenant_id = ? AND conversation_id = ? "
                        "AND created_at = ? AND message_id = ?",
                        (
                            erased.model_dump_json(),
                            tenant_id,
                            conversation_id,
                            created_at,
                            message_id,
                        ),
                    )
            removed = 0
            for rowid, body in db.execute(
                "SELECT rowid, body FROM owner_memories WHERE tenant_id = ?", (tenant_id,)
            ).fetchall():
                if MemoryItem.model_validate_json(body).message_id in drawn:
                    removed += db.execute(
                        "DELETE FROM owner_memories WHERE rowid = ?", (rowid,)
                    ).rowcount
            return changed, removed

        result = self._in_transaction(write)
        with self._write:  # the WAL's copies of the old pages go too
            self._leased().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        return result

    def put_erasure_receipt(self, receipt: ErasureReceipt) -> None:
        with self._write:
            self._leased().execute(
                "INSERT OR REPLACE INTO erasure_receipts (tenant_id, erased_at, receipt_id, body) "
                "VALUES (?, ?, ?, ?)",
                (
                    receipt.tenant_id,
                    receipt.erased_at,
                    receipt.receipt_id,
                    receipt.model_dump_json(),
                ),
            )

    def erasure_receipts(self, tenant_id: str) -> list[ErasureReceipt]:
        rows = self._leased().execute(
            "SELECT body FROM erasure_receipts WHERE tenant_id = ? "
            "ORDER BY erased_at DESC, receipt_id DESC",
            (tenant_id,),
        )
        return [ErasureReceipt.model_validate_json(row[0]) for row in rows]

    # --- receipts and rate limits ---------------------------------------------------------------

    def put_receipt(self, receipt: PlaygroundReceipt) -> None:
        with self._write:
            self._leased().execute(
                "INSERT OR REPLACE INTO receipts (run_id, expires_at, body) VALUES (?,?,?)",
                (receipt.run_id, receipt.expires_at, receipt.model_dump_json()),
            )

    def receipt(self, run_id: str, *, now: float | None = None) -> PlaygroundReceipt | None:
        row = (
            self._leased()
            .execute("SELECT body FROM receipts WHERE run_id = ?", (run_id,))
            .fetchone()
        )
        if row is None:
            return None
        receipt = PlaygroundReceipt.model_validate_json(row[0])
        if now is not None and receipt.expires_at <= now:
            return None  # expired: as gone as a DynamoDB item past its TTL
        return receipt

    def hit(self, key: str, *, limit: int, window_s: float, now: float) -> RateDecision:
        window = math.floor(now / window_s)
        with self._write:
            db = self._leased()
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

    # --- credits (ASK-12, ASK-13) and tenant profiles (ASK-07) ---------------------------------

    def credit_account(self, tenant_id: str, *, opening: Decimal) -> CreditAccount:
        db = self._leased()
        row = db.execute(
            "SELECT balance_units FROM credit_accounts WHERE tenant_id = ?", (tenant_id,)
        ).fetchone()
        usage = {
            kind: Usage(
                charged=charged, metered=metered, refunded=refunded, credits=from_units(units)
            )
            for kind, charged, metered, refunded, units in db.execute(
                "SELECT kind, charged, metered, refunded, credit_units FROM credit_usage "
                "WHERE tenant_id = ? ORDER BY kind",
                (tenant_id,),
            )
        }
        balance = from_units(row[0]) if row is not None else from_units(to_units(opening))
        return CreditAccount(tenant_id=tenant_id, balance=balance, usage=usage)

    @staticmethod
    def _open_account(db: sqlite3.Connection, tenant_id: str, opening: Decimal) -> None:
        """Open the tenant's ledger at ``opening`` unless it is open: the account row and, for a
        non-zero opening, its ``grant`` entry."""
        opened = db.execute(
            "INSERT OR IGNORE INTO credit_accounts (tenant_id, balance_units) VALUES (?, ?)",
            (tenant_id, to_units(opening)),
        ).rowcount
        if opened and opening != 0:
            _insert_entry(db, operator_entry(tenant_id, "grant", opening, OPENING_REASON))

    @staticmethod
    def _charge(
        db: sqlite3.Connection,
        tenant_id: str,
        kind: UsageKind,
        units: int,
        ref: LedgerRef | None,
    ) -> int | None:
        """The conditional charge (ASK-12: the check and the charge are ONE UPDATE), its usage
        count and its ledger entry; the balance after it, or ``None`` when the balance does not
        cover it."""
        row = db.execute(
            "UPDATE credit_accounts SET balance_units = balance_units - ? "
            "WHERE tenant_id = ? AND balance_units >= ? RETURNING balance_units",
            (units, tenant_id, units),
        ).fetchone()
        if row is None:
            return None
        db.execute(
            "INSERT INTO credit_usage (tenant_id, kind, charged, credit_units) "
            "VALUES (?, ?, 1, ?) ON CONFLICT (tenant_id, kind) DO UPDATE SET "
            "charged = charged + 1, credit_units = credit_units + excluded.credit_units",
            (tenant_id, kind, units),
        )
        _insert_entry(db, charge_entry(tenant_id, kind, from_units(units), ref))
        balance: int = row[0]
        return balance

    @staticmethod
    def _meter(
        db: sqlite3.Connection, tenant_id: str, kind: UsageKind, ref: LedgerRef | None
    ) -> None:
        db.execute(
            "INSERT INTO credit_usage (tenant_id, kind, metered) VALUES (?, ?, 1) "
            "ON CONFLICT (tenant_id, kind) DO UPDATE SET metered = metered + 1",
            (tenant_id, kind),
        )
        _insert_entry(db, metered_entry(tenant_id, kind, ref))

    def charge(
        self,
        tenant_id: str,
        kind: UsageKind,
        amount: Decimal,
        *,
        opening: Decimal,
        ref: LedgerRef | None = None,
    ) -> bool:
        units = to_units(amount)

        def write(db: sqlite3.Connection) -> None:
            self._open_account(db, tenant_id, opening)
            if self._charge(db, tenant_id, kind, units, ref) is None:
                raise _Refused

        try:
            self._in_transaction(write)
        except _Refused:
            return False  # rolled back: a ledger opened by this refused charge is not kept
        return True

    def meter(
        self, tenant_id: str, kind: UsageKind, *, opening: Decimal, ref: LedgerRef | None = None
    ) -> None:
        def write(db: sqlite3.Connection) -> None:
            self._open_account(db, tenant_id, opening)
            self._meter(db, tenant_id, kind, ref)

        self._in_transaction(write)

    def grant_credits(
        self, tenant_id: str, amount: Decimal, *, opening: Decimal, reason: str = "grant"
    ) -> CreditAccount:
        check_grant(amount)
        units = to_units(amount)

        def write(db: sqlite3.Connection) -> None:
            self._open_account(db, tenant_id, opening)
            # Issue 23: the bound is in the UPDATE, so the sum never passes 2**63 - 1 (where
            # SQLite would store a lossy REAL); refused, the transaction (and the opening of a
            # new ledger) rolls back whole.
            granted = db.execute(
                "UPDATE credit_accounts SET balance_units = balance_units + ? "
                "WHERE tenant_id = ? AND balance_units <= ?",
                (units, tenant_id, MAX_BALANCE_UNITS - units),
            ).rowcount
            if not granted:
                raise over_max_balance(amount)
            _insert_entry(db, operator_entry(tenant_id, "grant", amount, reason))

        self._in_transaction(write)
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
        units = to_units(amount)

        def write(db: sqlite3.Connection) -> None:
            self._open_account(db, tenant_id, opening)
            # Only a negative adjustment can take the balance below zero: a positive one brings
            # a negative balance up even while it stays negative (as on DynamoDB).
            floor = "" if allow_negative or units >= 0 else " AND balance_units + ? >= 0"
            params: tuple[object, ...] = (units, tenant_id, MAX_BALANCE_UNITS - units)
            done = db.execute(
                "UPDATE credit_accounts SET balance_units = balance_units + ? "  # noqa: S608
                f"WHERE tenant_id = ? AND balance_units <= ?{floor}",
                params + ((units,) if floor else ()),
            ).rowcount
            if not done:
                if units > 0:
                    raise over_max_balance(amount)
                raise _Refused
            _insert_entry(db, operator_entry(tenant_id, "adjustment", amount, reason))

        try:
            self._in_transaction(write)
        except _Refused:
            return None
        return self.credit_account(tenant_id, opening=opening)

    def ledger(
        self, tenant_id: str, *, since: float | None = None, until: float | None = None
    ) -> list[LedgerEntry]:
        rows = self._leased().execute(
            "SELECT body FROM credit_ledger WHERE tenant_id = ? AND at >= ? AND at < ? "
            "ORDER BY at, entry_id",
            (
                tenant_id,
                -math.inf if since is None else since,
                math.inf if until is None else until,
            ),
        )
        return [LedgerEntry.model_validate_json(row[0]) for row in rows]

    def tenant_profile(self, tenant_id: str) -> TenantProfile:
        row = (
            self._leased()
            .execute("SELECT body FROM tenant_profiles WHERE tenant_id = ?", (tenant_id,))
            .fetchone()
        )
        if row is None:
            return TenantProfile(tenant_id=tenant_id)
        return TenantProfile.model_validate_json(row[0])

    def put_tenant_profile(self, profile: TenantProfile) -> None:
        with self._write:
            self._leased().execute(
                "INSERT OR REPLACE INTO tenant_profiles (tenant_id, body) VALUES (?, ?)",
                (profile.tenant_id, profile.model_dump_json()),
            )

    def tenants(self) -> list[TenantProfile]:
        rows = self._leased().execute("SELECT body FROM tenant_profiles ORDER BY tenant_id")
        return [TenantProfile.model_validate_json(row[0]) for row in rows]

    # --- API keys (issue 27) ---------------------------------------------------------------------

    def put_key(self, record: ApiKeyRecord) -> None:
        try:
            with self._write:
                self._leased().execute(
                    "INSERT INTO api_keys (key_id, tenant_id, created_at, body, last_used_at) "
                    "VALUES (?,?,?,?,?)",
                    (
                        record.key_id,
                        record.tenant_id,
                        record.created_at,
                        record.model_dump_json(exclude={"last_used_at"}),
                        record.last_used_at,
                    ),
                )
        except sqlite3.IntegrityError as error:
            raise ValueError(f"key {record.key_id} exists") from error

    def key(self, key_id: str) -> ApiKeyRecord | None:
        row = (
            self._leased()
            .execute("SELECT body, last_used_at FROM api_keys WHERE key_id = ?", (key_id,))
            .fetchone()
        )
        return None if row is None else _key(row[0], row[1])

    def api_keys(self, tenant_id: str | None = None) -> list[ApiKeyRecord]:
        where, params = ("WHERE tenant_id = ?", (tenant_id,)) if tenant_id else ("", ())
        rows = self._leased().execute(
            f"SELECT body, last_used_at FROM api_keys {where} "  # noqa: S608
            "ORDER BY created_at, key_id",
            params,
        )
        return [_key(body, used) for body, used in rows]

    def end_key(
        self, key_id: str, *, revoked_at: float | None = None, expires_at: float | None = None
    ) -> ApiKeyRecord | None:
        def write(db: sqlite3.Connection) -> ApiKeyRecord | None:
            row = db.execute(
                "SELECT body, last_used_at FROM api_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
            if row is None:
                return None
            ended = _key(row[0], row[1]).ended(revoked_at, expires_at)
            db.execute(
                "UPDATE api_keys SET body = ? WHERE key_id = ?",
                (ended.model_dump_json(exclude={"last_used_at"}), key_id),
            )
            return ended

        return self._in_transaction(write)

    def touch_key(self, key_id: str, at: float, *, every_s: float) -> bool:
        with self._write:
            cursor = self._leased().execute(
                "UPDATE api_keys SET last_used_at = ? WHERE key_id = ? "
                "AND (last_used_at IS NULL OR last_used_at <= ?)",
                (at, key_id, at - every_s),
            )
        return cursor.rowcount > 0

    # --- cross-check jobs (XC-1, XC-2) -----------------------------------------------------------

    def create_job(
        self, job: CrossCheckJob, *, opening: Decimal, ref: LedgerRef | None = None
    ) -> bool:
        units = to_units(job.charged)
        ref = (ref or LedgerRef()).model_copy(update={"job_id": job.job_id})

        def write(db: sqlite3.Connection) -> bool:
            self._open_account(db, job.tenant_id, opening)
            # XC-2: the charge and the job commit together, or neither does.
            if job.status != "queued":
                pass  # stored already failed: it never ran, it pays nothing
            elif job.test_key:
                self._meter(db, job.tenant_id, JOB_USAGE, ref)
            elif self._charge(db, job.tenant_id, JOB_USAGE, units, ref) is None:
                raise _Refused
            try:
                db.execute(
                    "INSERT INTO cross_check_jobs (tenant_id, job_id, status, scheduled, version, "
                    "created_at, body) VALUES (?,?,?,?,?,?,?)",
                    (
                        job.tenant_id,
                        job.job_id,
                        job.status,
                        int(job.schedule is not None),
                        job.version,
                        job.created_at,
                        job.model_dump_json(),
                    ),
                )
            except sqlite3.IntegrityError as error:
                raise ValueError(f"job {job.job_id} exists") from error
            return True

        try:
            return self._in_transaction(write)
        except _Refused:
            return False

    def job(self, tenant_id: str, job_id: str) -> CrossCheckJob | None:
        row = (
            self._leased()
            .execute(
                "SELECT body FROM cross_check_jobs WHERE tenant_id = ? AND job_id = ?",
                (tenant_id, job_id),
            )
            .fetchone()
        )
        return None if row is None else CrossCheckJob.model_validate_json(row[0])

    def replace_job(self, job: CrossCheckJob, *, refund: bool = False) -> bool:
        units = to_units(job.charged)

        def write(db: sqlite3.Connection) -> bool:
            cursor = db.execute(
                "UPDATE cross_check_jobs SET status = ?, version = ?, body = ? "
                "WHERE tenant_id = ? AND job_id = ? AND version = ?",
                (
                    job.status,
                    job.version,
                    job.model_dump_json(),
                    job.tenant_id,
                    job.job_id,
                    job.version - 1,
                ),
            )
            if cursor.rowcount == 0:
                return False
            if refund:
                db.execute(
                    "UPDATE credit_accounts SET balance_units = balance_units + ? "
                    "WHERE tenant_id = ?",
                    (units, job.tenant_id),
                )
                db.execute(
                    "UPDATE credit_usage SET refunded = refunded + 1, "
                    "credit_units = credit_units - ? WHERE tenant_id = ? AND kind = ?",
                    (units, job.tenant_id, JOB_USAGE),
                )
                _insert_entry(db, refund_entry(job.tenant_id, job.job_id, job.charged))
            return True

        return self._in_transaction(write)

    def jobs(
        self, tenant_id: str, *, scheduled: bool | None, limit: int, after: str | None = None
    ) -> JobPage:
        where = ["tenant_id = ?"]
        params: list[object] = [tenant_id]
        if scheduled is not None:
            where.append("scheduled = ?")
            params.append(int(scheduled))
        if after is not None:
            where.append("job_id < ?")  # ids grow with their creation time
            params.append(after)
        rows = self._leased().execute(
            f"SELECT body FROM cross_check_jobs WHERE {' AND '.join(where)} "  # noqa: S608
            "ORDER BY job_id DESC LIMIT ?",
            (*params, limit + 1),
        )
        found = [CrossCheckJob.model_validate_json(row[0]) for row in rows]
        page = tuple(found[:limit])
        more = len(found) > limit and bool(page)
        return JobPage(jobs=page, next_after=page[-1].job_id if more else None)

    def open_jobs(self, *, limit: int) -> list[CrossCheckJob]:
        rows = self._leased().execute(
            "SELECT body FROM cross_check_jobs WHERE status IN (?, ?) "
            "ORDER BY created_at, job_id LIMIT ?",
            (*OPEN_STATUSES, limit),
        )
        return [CrossCheckJob.model_validate_json(row[0]) for row in rows]

    # --- uploads (issue 26) ----------------------------------------------------------------------

    @staticmethod
    def _upload_row(
        db: sqlite3.Connection, tenant_id: str, document_id: str
    ) -> DocumentUpload | None:
        row = db.execute(
            "SELECT body FROM uploads WHERE tenant_id = ? AND document_id = ?",
            (tenant_id, document_id),
        ).fetchone()
        return None if row is None else DocumentUpload.model_validate_json(row[0])

    @staticmethod
    def _check_content(db: sqlite3.Connection, upload: DocumentUpload, now: float) -> None:
        """Raise ``DuplicateContent`` when another upload of the tenant holds its bytes."""
        if not upload.holds_content(now):
            return
        rows = db.execute(
            "SELECT body FROM uploads WHERE tenant_id = ? AND sha256 = ? AND document_id != ?",
            (upload.tenant_id, upload.sha256, upload.document_id),
        )
        for (body,) in rows:
            holder = DocumentUpload.model_validate_json(body)
            if holder.holds_content(now):
                raise DuplicateContent(holder.document_id)

    @staticmethod
    def _write_upload(db: sqlite3.Connection, upload: DocumentUpload, *, insert: bool) -> None:
        values = (
            upload.status,
            upload.sha256,
            upload.batch_id,
            upload.filename,
            upload.updated_at,
            upload.model_dump_json(),
            upload.tenant_id,
            upload.document_id,
        )
        if insert:
            db.execute(
                "INSERT INTO uploads (status, sha256, batch_id, filename, updated_at, body, "
                "tenant_id, document_id) VALUES (?,?,?,?,?,?,?,?)",
                values,
            )
        else:
            db.execute(
                "UPDATE uploads SET status = ?, sha256 = ?, batch_id = ?, filename = ?, "
                "updated_at = ?, body = ? WHERE tenant_id = ? AND document_id = ?",
                values,
            )

    def create_upload(self, upload: DocumentUpload, *, now: float) -> None:
        def write(db: sqlite3.Connection) -> None:
            if self._upload_row(db, upload.tenant_id, upload.document_id) is not None:
                raise UploadExists(f"upload {upload.document_id} exists")
            self._check_content(db, upload, now)
            self._write_upload(db, upload, insert=True)

        self._in_transaction(write)

    def upload(self, tenant_id: str, document_id: str) -> DocumentUpload | None:
        return self._upload_row(self._leased(), tenant_id, document_id)

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
        where = ["tenant_id = ?"]
        params: list[object] = [tenant_id]
        if after is not None:
            where.append("document_id < ?")  # ids grow with their creation time
            params.append(after)
        if batch_id is not None:
            where.append("batch_id = ?")
            params.append(batch_id)
        if statuses is not None:
            wanted = list(statuses)
            where.append(f"status IN ({','.join('?' * len(wanted))})")
            params.extend(wanted)
        if filename is not None:
            where.append("filename = ?")
            params.append(filename)
        rows = self._leased().execute(
            f"SELECT body FROM uploads WHERE {' AND '.join(where)} "  # noqa: S608
            "ORDER BY document_id DESC LIMIT ?",
            (*params, limit + 1),
        )
        found = [DocumentUpload.model_validate_json(row[0]) for row in rows]
        page = tuple(found[:limit])
        more = len(found) > limit and bool(page)
        return UploadPage(uploads=page, next_after=page[-1].document_id if more else None)

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
        def write(db: sqlite3.Connection) -> DocumentUpload | None:
            current = self._upload_row(db, tenant_id, document_id)
            if current is None or current.status not in expected:
                return None
            if owner is not None and current.lease_owner != owner:
                return None
            after = current.changed(**{**changes, "updated_at": now})
            self._check_content(db, after, now)
            self._write_upload(db, after, insert=False)
            return after

        return self._in_transaction(write)

    def claim_upload(
        self, tenant_id: str, document_id: str, *, owner: str, lease_s: float, now: float
    ) -> DocumentUpload | None:
        def write(db: sqlite3.Connection) -> DocumentUpload | None:
            current = self._upload_row(db, tenant_id, document_id)
            if current is None or not current.claimable(now):
                return None
            claimed = current.changed(
                status="processing",
                attempts=current.attempts + 1,
                lease_owner=owner,
                lease_until=now + lease_s,
                updated_at=now,
            )
            self._write_upload(db, claimed, insert=False)
            return claimed

        return self._in_transaction(write)

    def open_uploads(self, *, limit: int) -> list[DocumentUpload]:
        rows = self._leased().execute(
            "SELECT body FROM uploads WHERE status IN (?, ?) "
            "ORDER BY updated_at, document_id LIMIT ?",
            (*OPEN_UPLOAD, limit),
        )
        return [DocumentUpload.model_validate_json(row[0]) for row in rows]

    def delete_upload(self, tenant_id: str, document_id: str) -> bool:
        with self._write:
            cursor = self._leased().execute(
                "DELETE FROM uploads WHERE tenant_id = ? AND document_id = ?",
                (tenant_id, document_id),
            )
        return cursor.rowcount > 0

    def upload_counts(self, tenant_id: str, batch_id: str) -> dict[UploadStatus, int]:
        rows = self._leased().execute(
            "SELECT status, COUNT(*) FROM uploads WHERE tenant_id = ? AND batch_id = ? "
            "GROUP BY status ORDER BY status",
            (tenant_id, batch_id),
        )
        return {status: count for status, count in rows}


class _Refused(Exception):
    """Internal: a conditional write's condition failed; the transaction rolls back."""


def _key(body: str, last_used_at: float | None) -> ApiKeyRecord:
    return ApiKeyRecord.model_validate_json(body).model_copy(update={"last_used_at": last_used_at})
