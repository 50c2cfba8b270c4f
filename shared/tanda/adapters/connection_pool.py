"""Database connections shared by every thread of the embedded adapters (issue 11).

A connection per thread that lives as long as the adapter leaked: each stream ran on a new thread,
so each left two file descriptors and its page cache behind until the process ran out of files.
Here a call *leases* a connection for its duration and hands it back: any thread — a stream
worker, anyio's threadpool behind the sync routes, the CLI — reuses the idle ones. At most
``max_idle`` stay open between calls; a lease when none is idle opens one and a return beyond
``max_idle`` closes it, so open connections never exceed the calls in flight plus ``max_idle``.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

C = TypeVar("C")
T = TypeVar("T")

MAX_IDLE = 4
"""Connections kept open between calls: enough for the routes that run at once on two cores."""


class ConnectionPool(Generic[C]):
    """Connections made by ``connect`` and ended by ``disconnect``, leased per call.

    A thread that already holds a lease gets the same connection again, so a call nested in
    another (a read inside a write transaction) sees the same transaction, as with one connection
    per thread. Connections move between threads, never in use by two at once.
    """

    def __init__(
        self,
        connect: Callable[[], C],
        disconnect: Callable[[C], None],
        *,
        max_idle: int = MAX_IDLE,
    ) -> None:
        self._connect = connect
        self._disconnect = disconnect
        self.max_idle = max_idle
        self._idle: list[C] = []
        self._lock = threading.Lock()
        self._held = threading.local()  # the connection this thread leases now, during a call
        self._generation = 0  # bumped by close(): connections leased before it end on return

    @property
    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    @contextmanager
    def lease(self) -> Iterator[C]:
        """A connection for the block: this thread's current one, else an idle or a new one."""
        held: C | None = getattr(self._held, "connection", None)
        if held is not None:
            yield held
            return
        connection, generation = self._checkout()
        self._held.connection = connection
        try:
            yield connection
        finally:
            self._held.connection = None
            self._checkin(connection, generation)

    def current(self) -> C:
        """The connection this thread leases now."""
        held: C | None = getattr(self._held, "connection", None)
        if held is None:
            raise RuntimeError("no connection is leased on this thread (see leased_per_call)")
        return held

    def close(self) -> None:
        """Close the idle connections now and the leased ones when their call ends. The pool
        stays usable: a later call opens a new connection."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._generation += 1
        for connection in idle:
            self._disconnect(connection)

    def _checkout(self) -> tuple[C, int]:
        with self._lock:
            generation = self._generation
            if self._idle:
                return self._idle.pop(), generation  # the most recently used: its cache is warm
        return self._connect(), generation

    def _checkin(self, connection: C, generation: int) -> None:
        with self._lock:
            if generation == self._generation and len(self._idle) < self.max_idle:
                self._idle.append(connection)
                return
        self._disconnect(connection)


class PooledConnections(Generic[C]):
    """Base of an adapter whose public calls lease from ``self._connections`` (set it in
    ``__init__``; decorate the class with :func:`leased_per_call`)."""

    _connections: ConnectionPool[C]

    def _leased(self) -> C:
        """The connection the running public call leased."""
        return self._connections.current()

    @property
    def idle_connections(self) -> int:
        return self._connections.idle

    @property
    def max_idle_connections(self) -> int:
        return self._connections.max_idle

    def close(self) -> None:
        """Close every connection this adapter opened (in any thread); a later call reopens."""
        self._connections.close()


def leased_per_call(pool_attribute: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: every public method of the class runs holding one connection leased from
    the pool in ``pool_attribute`` (``close`` excepted), which the class's private helpers reach
    through ``pool.current()``. A method added later is covered without anyone remembering to."""

    def decorate(cls: type[T]) -> type[T]:
        for name, member in list(vars(cls).items()):
            if name.startswith("_") or name == "close" or not inspect.isfunction(member):
                continue
            if inspect.isgeneratorfunction(member):
                # Its lease would end before the caller iterates: rows read on no connection.
                raise TypeError(f"{cls.__name__}.{name}: a leasing method must not yield")
            setattr(cls, name, _holding_a_lease(member, pool_attribute))
        return cls

    return decorate


def _holding_a_lease(method: Callable[..., Any], pool_attribute: str) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        pool: ConnectionPool[Any] = getattr(self, pool_attribute)
        with pool.lease():
            return method(self, *args, **kwargs)

    return call
