"""The connection pool of the embedded adapters (issue 11), with stand-in connections."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from itertools import count

import pytest

from tanda.adapters.connection_pool import ConnectionPool, leased_per_call


class Connection:
    numbers = count(1)

    def __init__(self) -> None:
        self.number = next(self.numbers)
        self.closed = False

    def close(self) -> None:
        self.closed = True


def pool(max_idle: int = 2) -> tuple[ConnectionPool[Connection], list[Connection]]:
    opened: list[Connection] = []

    def connect() -> Connection:
        opened.append(Connection())
        return opened[-1]

    return ConnectionPool(connect, Connection.close, max_idle=max_idle), opened


def test_a_lease_inside_a_lease_on_one_thread_is_the_same_connection() -> None:
    connections, opened = pool()
    with connections.lease() as outer, connections.lease() as inner:
        assert inner is outer
        assert connections.current() is outer
    assert len(opened) == 1 and connections.idle == 1


def test_another_thread_reuses_the_idle_connection() -> None:
    connections, opened = pool()
    with connections.lease():
        pass
    seen: list[Connection] = []

    def use() -> None:
        with connections.lease() as connection:
            seen.append(connection)

    worker = threading.Thread(target=use)
    worker.start()
    worker.join()
    assert seen == opened


def test_connections_beyond_max_idle_are_closed_when_they_come_back() -> None:
    connections, opened = pool(max_idle=2)
    together = threading.Barrier(4)

    def use() -> None:
        with connections.lease():
            together.wait()  # four threads hold four connections at once

    workers = [threading.Thread(target=use) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(opened) == 4
    assert connections.idle == 2
    assert sum(c.closed for c in opened) == 2


def test_close_closes_idle_connections_now_and_leased_ones_when_their_call_ends() -> None:
    connections, opened = pool()
    with connections.lease():
        pass
    idle = opened[0]
    with connections.lease() as leased:
        connections.close()
        assert not leased.closed  # in use: closed when it comes back, not under its caller
    assert idle is leased and leased.closed
    assert connections.idle == 0
    with connections.lease() as fresh:
        assert not fresh.closed  # the pool stays usable


def test_current_outside_a_call_is_an_error_not_a_new_connection() -> None:
    connections, opened = pool()
    with pytest.raises(RuntimeError):
        connections.current()
    assert opened == []


def test_every_public_method_but_close_holds_a_lease() -> None:
    @leased_per_call("connections")
    class Adapter:
        def __init__(self) -> None:
            self.connections, self.opened = pool()

        def read(self) -> Connection:
            return self._helper()

        def _helper(self) -> Connection:
            return self.connections.current()

        def close(self) -> None:
            with pytest.raises(RuntimeError):
                self.connections.current()

    adapter = Adapter()
    assert adapter.read() is adapter.opened[0]
    adapter.close()
    with pytest.raises(RuntimeError):
        adapter._helper()


def test_a_public_method_that_yields_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="must not yield"):

        @leased_per_call("connections")
        class Adapter:
            def rows(self) -> Iterator[int]:
                yield 1
