"""Ports: what the core needs from the outside world (DESIGN §1). Adapters in ``tanda.adapters``
implement them; ``tanda.wiring`` picks one per port from the settings. The records they speak are
in :mod:`tanda.records`; the model port, ``ChatModel``, is in :mod:`tanda.model_calls` beside the
request and response it speaks."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
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
from tanda.records.uploads import (
    DocumentUpload,
    StoredOriginal,
    UploadPage,
    UploadStatus,
    UploadTarget,
)

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

    # --- uploads (issue 26; tanda.records.uploads) --------------------------------------------
    #
    # An upload is addressed by (tenant, document id): another tenant's reads as absent. Every
    # write is ONE conditional write (a transaction where it also writes the tenant's claim on
    # the bytes, ``sha256``), so SQS redelivery, two workers or a racing delete never both win.

    def create_upload(self, upload: DocumentUpload, *, now: float) -> None:
        """ONE atomic write: store the new ``upload`` and, when its ``sha256`` is known, the
        tenant's claim on those bytes. Raises ``UploadExists`` when the id exists and
        ``DuplicateContent`` (the holder's id) when an upload of the tenant holds the same
        ``sha256`` at ``now`` (``DocumentUpload.holds_content``); nothing is written then."""
        ...

    def upload(self, tenant_id: str, document_id: str) -> DocumentUpload | None:
        """The tenant's upload; ``None`` for an unknown id or another tenant's."""
        ...

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
        """The tenant's uploads, newest first (by id: ids sort by creation), at most ``limit``,
        those with an id below ``after``; only ``batch_id``'s, only in ``statuses``, only
        named ``filename`` when given. ``next_after`` continues, ``None`` on the last page."""
        ...

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
        """ONE conditional write: if the upload's status is in ``expected`` (and, with
        ``owner``, its ``lease_owner`` is ``owner``), apply ``changes`` (fields of
        ``DocumentUpload``; ``updated_at`` becomes ``now``) and return the upload after it.
        ``None`` (nothing written) when it is not — or there is no such upload. In the same
        write: a status outside ``HOLDS_CONTENT`` releases the tenant's claim on its
        ``sha256``; a ``sha256`` set where there was none takes it, raising
        ``DuplicateContent`` (nothing written) when another upload holds it at ``now``."""
        ...

    def claim_upload(
        self, tenant_id: str, document_id: str, *, owner: str, lease_s: float, now: float
    ) -> DocumentUpload | None:
        """ONE conditional write: an upload that is ``queued``, or ``processing`` under a lease
        that ran out (``lease_until <= now``), becomes ``processing`` under ``owner``'s lease
        until ``now + lease_s``, one more ``attempts``. ``None`` (nothing written) otherwise."""
        ...

    def open_uploads(self, *, limit: int) -> list[DocumentUpload]:
        """Queued and processing uploads of every tenant, oldest first (``updated_at``): what a
        worker pool picks up, and takes again when their lease ran out."""
        ...

    def delete_upload(self, tenant_id: str, document_id: str) -> bool:
        """Delete the upload and its claim on its bytes (the end of an erasure, or a duplicate
        found when the bytes arrived). ``False`` when there was none."""
        ...

    def upload_counts(self, tenant_id: str, batch_id: str) -> dict[UploadStatus, int]:
        """How many of the tenant's uploads of ``batch_id`` are in each status (those with
        none are absent)."""
        ...


class Originals(Protocol):
    """The bytes partners upload (issue 26), one object per ``(tenant, document id)``: embedded
    a 0600 file under ``TANDA_HOME/uploads/`` that ``tanda serve`` receives itself; on AWS an S3
    object ``tenants/<tenant>/uploads/<document_id>`` the partner posts to directly."""

    def upload_target(
        self,
        tenant_id: str,
        document_id: str,
        *,
        content_type: str,
        size_bytes: int,
        expires_at: float,
        base_url: str,
    ) -> UploadTarget:
        """How the partner sends exactly ``size_bytes`` bytes of ``content_type`` until
        ``expires_at`` (``base_url``: the API's own, for a target the API serves itself)."""
        ...

    def verify_target(
        self,
        tenant_id: str,
        document_id: str,
        query: Mapping[str, str],
        *,
        content_type: str,
        size_bytes: int,
        now: float,
    ) -> bool:
        """Whether ``query`` (of a request to a target this store made with
        :meth:`upload_target` and serves through the API, embedded) is that target's, signed
        and unexpired at ``now``. A store whose targets the API never serves (S3) says
        ``False``."""
        ...

    def put(
        self, tenant_id: str, document_id: str, body: Iterable[bytes], *, size_bytes: int
    ) -> StoredOriginal:
        """Store ``body``, which must be exactly ``size_bytes`` long, replacing nothing half:
        the object appears whole or not at all. Raises ``OriginalRefused`` (nothing stored)
        on a body of another size — ``too_large`` as soon as it passes ``size_bytes``, before
        the rest is read."""
        ...

    def read(self, tenant_id: str, document_id: str) -> bytes | None:
        """The stored bytes; ``None`` when there are none."""
        ...

    def delete(self, tenant_id: str, document_id: str) -> bool:
        """Delete the bytes (every version of them); ``False`` when there were none."""
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
