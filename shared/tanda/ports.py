"""Ports: what the core needs from the outside world (DESIGN §1). Adapters in ``tanda.adapters``
implement them; ``tanda.wiring`` picks one per port from the settings. The records they speak are
in :mod:`tanda.records`; the model port, ``ChatModel``, is in :mod:`tanda.model_calls` beside the
request and response it speaks."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tanda.credits import CreditAccount, LedgerEntry, LedgerRef, TenantProfile, UsageKind
from tanda.records.conversations import (
    Conversation,
    ConversationOwner,
    MemoryItem,
    PlaygroundReceipt,
    RateDecision,
    Route,
    StoredMessage,
)
from tanda.records.documents import (
    Chunk,
    Document,
    DocumentErasure,
    ErasureReceipt,
    IngestOutcome,
    SearchHit,
    SearchQuery,
    SearchScope,
)
from tanda.records.jobs import CrossCheckJob, JobPage
from tanda.records.keys import ApiKeyRecord
from tanda.records.structure import RecordQuery, StructureRecord

if TYPE_CHECKING:
    from tanda.contract.common import WireModel
    from tanda.records.progress import ProgressEvent


@runtime_checkable
class SearchIndex(Protocol):
    """Chunks of every tenant's documents and their structure records (ASK-14). Every method
    filters by tenant inside the adapter."""

    def upsert_document(
        self,
        document: Document,
        chunks: Sequence[Chunk],
        records: Sequence[StructureRecord] = (),
    ) -> IngestOutcome:
        """Add or replace a document's chunks and structure records; a failure midway leaves the
        previous version searchable and readable. The same version
        (:func:`tanda.records.documents.keeps_version`: same ``content_hash``, and the same
        ``structure_version`` unless ``document`` brings none) → ``unchanged``, or ``rescoped``
        (see :meth:`rescope_document`) when ``document`` names another batch or selections."""
        ...

    def rescope_document(self, document: Document) -> IngestOutcome | None:
        """Give the indexed version of ``document`` (same tenant, id and version) the
        ``batch_id`` and ``selections`` of ``document`` — its record, every chunk and every
        structure record; text and vectors stay. ``rescoped``, or ``unchanged`` when it has them
        already; ``None`` when the index does not hold that version (then the caller indexes it
        in full)."""
        ...

    def records(self, query: RecordQuery) -> list[StructureRecord]:
        """The structure records inside ``query.scope`` that ``query`` narrows to, in document
        order (document id, then position): by kind, node id, the chunk they were read from, or
        their parent — what the /v1/ask evidence layers, cross-check jobs and knowledge queries
        read (see :class:`~tanda.records.structure.RecordQuery`)."""
        ...

    def search(self, query: SearchQuery) -> list[SearchHit]:
        """Ranked hits within ``query.scope`` (lexical, plus vector when ``query.vector``)."""
        ...

    def chunks(self, scope: SearchScope, chunk_ids: Sequence[str]) -> list[Chunk]:
        """The named chunks that lie inside ``scope`` (others are silently absent)."""
        ...

    def document_chunks(self, scope: SearchScope, document_id: str) -> list[Chunk]:
        """A whole document in order (``read_document``), or ``[]`` outside ``scope``."""
        ...

    def documents(self, scope: SearchScope) -> list[Document]:
        """The documents inside ``scope`` (``list_sources``; empty scope → ``[]``)."""
        ...

    def delete_document(self, tenant_id: str, document_id: str) -> DocumentErasure | None:
        """Erase one document of ``tenant_id`` (issue 26): its record, every chunk and vector,
        every structure record — gone from search, reads and the index's files (no trace of its
        text left behind where the engine allows it). ``None`` when the tenant holds no such
        document (another tenant's id included)."""
        ...


class Embedder(Protocol):
    """Text → vectors. ``dimensions`` is fixed per embedder."""

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]: ...


class Reranker(Protocol):
    """Scores (query, passage) pairs for the floor (ASK-06): hits scoring under
    ``TANDA_RERANK_MIN_SCORE`` never reach synthesis (``tanda.retrieval.rerank.rerank_floor``).

    ``name`` says which reranker ran (``/v1/search`` shows it). ``reorders``: whether its scores
    rank better than the fused search order (a cross-encoder) — else the floor only filters and
    keeps that order (the embedded lexical score, docs/retrieval.md).
    """

    name: str
    reorders: bool

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """One relevance score per passage, in order, 0–1 (higher is more relevant). Raises
        ``tanda.errors.UpstreamFailed`` (a subclass) when it cannot score them all."""
        ...


class ConversationConflict(Exception):
    """The conversation belongs to another route (V2-19 → 409)."""


class ConversationMissing(LookupError):
    """The owner has no such conversation — unknown, or someone else's (→ 404, issue 11)."""


class Store(Protocol):
    """Conversations, messages, memory, receipts, rate limits, each tenant's credit ledger and
    profile, and cross-check jobs.

    A conversation, its messages and a memory item are addressed by their
    :class:`~tanda.records.conversations.ConversationOwner` (issuer, tenant, subject): a read or
    write under any other owner finds nothing, exactly as for an id that never existed (issue 11).
    """

    def create_conversation(self, conversation: Conversation) -> None:
        """Store a new conversation under ``conversation.owner``."""
        ...

    def conversation(
        self, owner: ConversationOwner, conversation_id: str
    ) -> Conversation | None: ...

    def claim(self, owner: ConversationOwner, conversation_id: str, route: Route) -> Conversation:
        """One conditional write: set the owner route if none, else require it to be ``route``.
        Raises ``ConversationConflict`` (another route owns it) or ``ConversationMissing`` (no
        such conversation of this owner)."""
        ...

    def add_message(self, owner: ConversationOwner, message: StoredMessage) -> None:
        """Store an answered turn and claim its conversation for ``message.route`` in one atomic
        write (V2-19: the route that answers first owns it, even if a failed turn released it
        meanwhile). Raises as :meth:`claim` does, storing nothing."""
        ...

    def messages(self, owner: ConversationOwner, conversation_id: str) -> list[StoredMessage]:
        """The conversation's messages in time order; ``[]`` when it is not this owner's."""
        ...

    def release(self, owner: ConversationOwner, conversation_id: str, route: Route) -> bool:
        """Give back a claim that no answer used: one conditional write removes the owner route
        if it is ``route`` and the conversation has no message. ``True`` if it did."""
        ...

    def discard(self, owner: ConversationOwner, conversation_id: str) -> bool:
        """Delete the conversation if it has no message (a failed first turn's own, whose id the
        client never learned). ``True`` if it did."""
        ...

    def add_memories(self, items: Sequence[MemoryItem]) -> None:
        """Keep verified statements under each item's owner (same text twice is kept once)."""
        ...

    def memories(self, owner: ConversationOwner, *, limit: int) -> list[MemoryItem]:
        """The owner's newest memory items, newest first."""
        ...

    def erase_document_traces(self, tenant_id: str, document_id: str) -> tuple[int, int]:
        """Issue 26: every stored message of the tenant that cites ``document_id`` keeps its
        text, its citations of it reduced to keys marked ``erased``
        (:func:`tanda.records.conversations.erase_citations`), and the memory items drawn from
        such messages are deleted. ``(messages changed, memory items deleted)``; no trace of the
        removed bytes is left in the Store's files where the engine allows it."""
        ...

    def put_erasure_receipt(self, receipt: ErasureReceipt) -> None: ...

    def erasure_receipts(self, tenant_id: str) -> list[ErasureReceipt]:
        """The tenant's erasure receipts, newest first (issue 26)."""
        ...

    def put_receipt(self, receipt: PlaygroundReceipt) -> None: ...

    def receipt(self, run_id: str, *, now: float | None = None) -> PlaygroundReceipt | None:
        """The receipt, or ``None`` when absent or expired at ``now``."""
        ...

    def hit(self, key: str, *, limit: int, window_s: float, now: float) -> RateDecision:
        """Count one request for ``key`` in the current fixed window; refuse over ``limit``."""
        ...

    # --- credits (ASK-12, ASK-13), their ledger (issue 27) and tenants (ASK-07, issue 27) -----
    #
    # A tenant's ledger opens with ``opening`` credits the first time it is written (a charge, a
    # metered call, a grant or an adjustment) — itself an entry (a ``grant``, OPENING_REASON) —
    # and until then reads as ``opening``. Every change of the balance is a ``LedgerEntry``
    # written in the same transaction or conditional write as the change, so the balance is
    # always the sum of the tenant's entries. ``ref`` names the call (request or job id, key id).

    def credit_account(self, tenant_id: str, *, opening: Decimal) -> CreditAccount:
        """The tenant's balance and usage. Reads only."""
        ...

    def charge(
        self,
        tenant_id: str,
        kind: UsageKind,
        amount: Decimal,
        *,
        opening: Decimal,
        ref: LedgerRef | None = None,
    ) -> bool:
        """ONE conditional write: if the balance covers ``amount``, take it, count one charged
        call of ``kind`` and write its ``charge`` entry. ``False`` (nothing written) when the
        balance does not cover it — never a negative balance, never a charge counted twice."""
        ...

    def meter(
        self, tenant_id: str, kind: UsageKind, *, opening: Decimal, ref: LedgerRef | None = None
    ) -> None:
        """Count one metered call of ``kind`` (a ``dip_test_`` key) and write its ``metered``
        entry (amount 0): the balance is untouched."""
        ...

    def grant_credits(
        self, tenant_id: str, amount: Decimal, *, opening: Decimal, reason: str = "grant"
    ) -> CreditAccount:
        """Add ``amount`` (> 0, at most ``MAX_GRANT``) to the balance with its ``grant`` entry;
        the account after it. ``CreditLimitError`` (nothing written) when the balance would pass
        ``MAX_BALANCE`` (``tanda.credits``, issue 23)."""
        ...

    def adjust_credits(
        self,
        tenant_id: str,
        amount: Decimal,
        *,
        opening: Decimal,
        reason: str,
        allow_negative: bool = False,
    ) -> CreditAccount | None:
        """Add the signed ``amount`` (``tanda credits adjust``) with its ``adjustment`` entry;
        the account after it. ``None`` (nothing written) when it would take the balance below
        zero and ``allow_negative`` is off; ``CreditLimitError`` over ``MAX_BALANCE``."""
        ...

    def ledger(
        self, tenant_id: str, *, since: float | None = None, until: float | None = None
    ) -> list[LedgerEntry]:
        """The tenant's entries with ``since <= at < until``, oldest first."""
        ...

    def tenant_profile(self, tenant_id: str) -> TenantProfile:
        """The tenant's profile; an empty, active one if never set."""
        ...

    def put_tenant_profile(self, profile: TenantProfile) -> None: ...

    def tenants(self) -> list[TenantProfile]:
        """Every tenant whose profile was ever written, by id."""
        ...

    # --- API keys (issue 27; tanda.records.keys) -----------------------------------------------

    def put_key(self, record: ApiKeyRecord) -> None:
        """Store a new key. ``ValueError`` (nothing written) when its ``key_id`` exists."""
        ...

    def key(self, key_id: str) -> ApiKeyRecord | None: ...

    def api_keys(self, tenant_id: str | None = None) -> list[ApiKeyRecord]:
        """Every key (of ``tenant_id``), oldest first."""
        ...

    def end_key(
        self, key_id: str, *, revoked_at: float | None = None, expires_at: float | None = None
    ) -> ApiKeyRecord | None:
        """Set the key's revocation or (an earlier) expiry; the record after it, ``None`` when
        there is no such key. A time already set earlier is kept."""
        ...

    def touch_key(self, key_id: str, at: float, *, every_s: float) -> bool:
        """ONE conditional write: set ``last_used_at`` to ``at`` unless it was set less than
        ``every_s`` before. ``True`` if it did."""
        ...

    # --- cross-check jobs (XC-1, XC-2; tanda.records.jobs) -------------------------------------

    def create_job(
        self, job: CrossCheckJob, *, opening: Decimal, ref: LedgerRef | None = None
    ) -> bool:
        """ONE atomic write: store the new ``job`` and, when it is ``queued``, pay for it: a
        ``test_key`` job counts one metered ``cross_check`` call; any other takes
        ``job.charged`` from the tenant's balance only if the balance covers it, counting one
        charged call. ``False`` (nothing written) when it does not cover it. A job stored
        already ``failed`` (a scheduled run that could not start) pays nothing. Raises
        ``ValueError`` when the id exists."""
        ...

    def job(self, tenant_id: str, job_id: str) -> CrossCheckJob | None:
        """The tenant's job; ``None`` for an unknown id or another tenant's job."""
        ...

    def replace_job(self, job: CrossCheckJob, *, refund: bool = False) -> bool:
        """ONE conditional write: ``job`` replaces the stored job of its tenant and id if that
        one is still at ``job.version - 1`` (see ``CrossCheckJob.next``). With ``refund``, the
        job's ``charged`` credits go back to the tenant's balance in the same write, counted as
        one refunded ``cross_check`` call (a failed job, XC-2). ``False`` (nothing written) when
        another write came first."""
        ...

    def jobs(
        self, tenant_id: str, *, scheduled: bool | None, limit: int, after: str | None = None
    ) -> JobPage:
        """The tenant's jobs, newest first, at most ``limit``, after the job id ``after``;
        ``scheduled``: only those a schedule started (``True``), only the others (``False``)
        or all (``None``)."""
        ...

    def open_jobs(self, *, limit: int) -> list[CrossCheckJob]:
        """Queued and running jobs of every tenant, oldest first (what a worker pool picks up
        and resumes)."""
        ...


class Progress(Protocol):
    """Live progress of one answer (V2-21), across a process or a Lambda boundary: the agent
    publishes ``tool.started`` / ``tool.finished`` frames under the request's id, the stream
    route reads what is new. ``tanda.adapters.memory_progress.MemoryProgress`` (one process) and
    ``tanda.adapters.dynamodb_progress.DynamoProgress`` (items with a TTL) implement it."""

    def publish(self, request_id: str, frame: WireModel) -> int:
        """Append ``frame`` to the request's events; returns its sequence number (1, 2, …,
        strictly increasing per request, whoever publishes)."""
        ...

    def read(self, request_id: str, after: int = 0) -> list[ProgressEvent]:
        """The request's events with a sequence number above ``after``, in order (a read sees
        every publish that returned before it started)."""
        ...
