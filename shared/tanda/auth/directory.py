"""Keys and tenants as data (issue 27): what the authenticator reads of the Store, cached.

A presented key is looked up by the id computed from its digest (one Store read) and its digest
compared in constant time; a tenant's status by its profile. Both are kept for at most
``cache_s`` seconds (``TANDA_AUTH_CACHE_S``, at most 60): a key revoked or expired, or a tenant
suspended, is refused by every process within that bound — a key's expiry time itself is checked
on every request, against the record in the cache. An unknown key is cached too (as unknown), so
a stream of wrong keys costs one read per key per bound, and a new key is never hidden by it
(nobody presented its secret before it existed).

A key's ``last_used_at`` is written at most once a minute per key and never on the request's
critical path: the request hands it to one background thread, whose conditional write
(``Store.touch_key``) also keeps other processes to once a minute. A full queue drops the
update: a last use is a hint, never a reason to slow or fail a request.
"""

from __future__ import annotations

import hmac
import logging
import queue
import threading
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Generic, TypeVar

from tanda.errors import ServiceUnavailable
from tanda.records.keys import ApiKeyRecord, KeyKind, key_id_of

if TYPE_CHECKING:
    from tanda.ports import Store

log = logging.getLogger(__name__)

TOUCH_EVERY_S = 60.0
"""A key's ``last_used_at`` is written at most this often."""
MAX_CACHED = 10_000
_PENDING_TOUCHES = 1_000
_V = TypeVar("_V")

STORE_RETRY_AFTER_S = 1
STORE_UNAVAILABLE_MESSAGE = "Credentials cannot be checked right now; retry shortly."


def _read(read: Callable[[], _V]) -> _V:
    """A Store read on a request's path: a Store that fails (locked, throttled, unreachable)
    is the server's fault, so the caller gets 503 ``auth_unavailable`` — never 500, never the
    Store's message, never a refusal of credentials that may be good."""
    try:
        return read()
    except ServiceUnavailable:
        raise
    except Exception as exc:
        log.warning("the key store could not be read", exc_info=True)
        error = ServiceUnavailable(STORE_UNAVAILABLE_MESSAGE, code="auth_unavailable")
        error.retry_after_s = STORE_RETRY_AFTER_S  # type: ignore[attr-defined]
        raise error from exc


class _Cache(Generic[_V]):
    """Values read at a time, each kept ``ttl_s``; bounded (cleared when full)."""

    def __init__(self, ttl_s: float, clock: Callable[[], float]) -> None:
        self._ttl_s = ttl_s
        self._clock = clock
        self._items: dict[str, tuple[float, _V]] = {}
        self._lock = threading.Lock()

    def get(self, key: str, read: Callable[[], _V]) -> _V:
        now = self._clock()
        with self._lock:
            found = self._items.get(key)
        if found is not None and now - found[0] < self._ttl_s:
            return found[1]
        value = read()
        if self._ttl_s > 0:
            with self._lock:
                if len(self._items) >= MAX_CACHED:
                    self._items.clear()
                self._items[key] = (now, value)
        return value


class KeyDirectory:
    """The Store's keys and tenant statuses as the authenticator sees them."""

    def __init__(
        self,
        store: Store | Callable[[], Store],
        *,
        cache_s: float,
        clock: Callable[[], float],
        background_touch: bool = True,
    ) -> None:
        """``store``: the Store, or what builds it when it is first read — a Lambda's request
        that presents no credentials then never builds it (no SDK client on the first request
        after a restore, issue 24)."""
        self._store_of: Callable[[], Store] = store if callable(store) else lambda: store
        self._built: Store | None = None
        self._build_lock = threading.Lock()
        self._clock = clock
        self._keys: _Cache[ApiKeyRecord | None] = _Cache(cache_s, clock)
        self._statuses: _Cache[str] = _Cache(cache_s, clock)
        self._cache_s = cache_s
        self._seen: dict[str, tuple[float, bool]] = {}
        self._touched: dict[str, float] = {}
        self._touch_lock = threading.Lock()
        self._background = background_touch
        self._queue: queue.Queue[tuple[str, float]] = queue.Queue(maxsize=_PENDING_TOUCHES)
        self._worker: threading.Thread | None = None

    def store(self) -> Store:
        """The Store, built on the first call."""
        if self._built is None:
            with self._build_lock:
                if self._built is None:
                    self._built = self._store_of()
        return self._built

    def _read(self, read: Callable[[Store], _V]) -> _V:
        """``read`` of the Store through :func:`_read`; a Store that cannot be built at all is
        the deployment's configuration, raised as it is (as when it was built with the
        authenticator)."""
        store = self.store()
        return _read(lambda: read(store))

    def key(self, digest: str, kinds: Collection[KeyKind]) -> ApiKeyRecord | None:
        """The record of the key whose digest is ``digest`` if it is of one of ``kinds`` and
        accepted now; else ``None`` (unknown, another kind, revoked or expired)."""
        key_id = key_id_of(digest)
        record = self._keys.get(key_id, lambda: self._read(lambda store: store.key(key_id)))
        if record is None or not hmac.compare_digest(record.digest, digest):
            return None
        if record.kind not in kinds or not record.accepted(self._clock()):
            return None
        return record

    def any_key(self, kinds: Collection[KeyKind]) -> bool:
        """Whether the Store holds a key of ``kinds`` at all (whether the route family is
        configured); once one is seen, it stays so for this process."""
        name = ",".join(sorted(kinds))
        now = self._clock()
        with self._touch_lock:
            seen = self._seen.get(name)
        if seen is not None and (seen[1] or now - seen[0] < self._cache_s):
            return seen[1]
        found = any(k.kind in kinds for k in self._read(lambda store: store.api_keys()))
        with self._touch_lock:
            self._seen[name] = (now, found)
        return found

    def suspended(self, tenant_id: str) -> bool:
        status = self._statuses.get(
            tenant_id, lambda: self._read(lambda store: store.tenant_profile(tenant_id).status)
        )
        return status == "suspended"

    def used(self, record: ApiKeyRecord) -> None:
        """Note a use of ``record``: its ``last_used_at`` is written later, at most once a minute
        by this process (and by every process, through the write's condition)."""
        now = self._clock()
        with self._touch_lock:
            last = self._touched.get(record.key_id)
            if last is not None and now - last < TOUCH_EVERY_S:
                return
            if len(self._touched) >= MAX_CACHED:
                self._touched.clear()
            self._touched[record.key_id] = now
        if not self._background:
            self._touch(record.key_id, now)
            return
        self._start_worker()
        try:
            self._queue.put_nowait((record.key_id, now))
        except queue.Full:
            log.debug("last use of %s not recorded: queue full", record.key_id)

    def _touch(self, key_id: str, at: float) -> None:
        try:
            self.store().touch_key(key_id, at, every_s=TOUCH_EVERY_S)
        except Exception:  # a hint, never a failure: logged, not raised
            log.warning("could not record the last use of %s", key_id, exc_info=True)

    def _start_worker(self) -> None:
        with self._touch_lock:
            if self._worker is not None and self._worker.is_alive():
                return
            self._worker = threading.Thread(
                target=self._drain, name="tanda-key-last-use", daemon=True
            )
            self._worker.start()

    def _drain(self) -> None:
        while True:
            key_id, at = self._queue.get()
            self._touch(key_id, at)
            self._queue.task_done()

    def flush(self) -> None:
        """Wait until every noted use is written (tests, and a process about to stop)."""
        if self._background:
            self._queue.join()
