"""Connections of the embedded adapters on real SQLite files (issue 11): any thread reuses them,
none outlives its call beyond a few idle ones, and ``close()`` closes every one."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.adapters.sqlite_store import SqliteStore
from tanda.records.conversations import Conversation, ConversationOwner
from tanda.records.documents import SearchQuery, SearchScope
from tests.corpus import add_qanun

pytestmark = pytest.mark.integration

SCOPE = SearchScope(tenant_id="acme")


def files_open(path: Path) -> int:
    """Descriptors of this process on ``path`` and its ``-wal``/``-shm`` companions."""
    names = {str(path), f"{path}-wal", f"{path}-shm"}
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}") in names
        except OSError:
            continue  # closed while listing
    return count


def each_in_own_thread(call: Callable[[], object], threads: int) -> None:
    """``call`` once in each of ``threads`` threads, one after another; each thread ends."""
    for _ in range(threads):
        worker = threading.Thread(target=call)
        worker.start()
        worker.join()


def all_at_once(call: Callable[[], object], threads: int) -> None:
    """``call`` in ``threads`` threads that are all inside it at the same time."""
    barrier = threading.Barrier(threads)

    def run() -> None:
        barrier.wait()
        call()
        barrier.wait()  # nobody returns a connection before everybody holds one

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


OWNER = ConversationOwner(issuer="p", tenant_id="acme", subject="u")


@pytest.fixture
def index(tmp_path: Path) -> Iterator[SqliteSearchIndex]:
    idx = SqliteSearchIndex(tmp_path / "index.sqlite")
    add_qanun(idx, "acme")
    yield idx
    idx.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    db = SqliteStore(tmp_path / "store.sqlite")
    db.create_conversation(
        Conversation(
            conversation_id="c1", tenant_id="acme", issuer="p", subject="u", created_at=1.0
        )
    )
    yield db
    db.close()


def search(index: SqliteSearchIndex) -> None:
    assert index.search(SearchQuery(text="anggaran pendidikan", scope=SCOPE))
    assert index.documents(SCOPE)


def read_conversation(store: SqliteStore) -> None:
    assert store.conversation(OWNER, "c1") is not None


def test_index_calls_from_threads_that_end_leave_no_connection_behind(
    index: SqliteSearchIndex,
) -> None:
    search(index)
    before = files_open(index.path)
    each_in_own_thread(lambda: search(index), threads=200)
    # Was +2 descriptors per thread: one connection per thread, never closed.
    assert files_open(index.path) <= before


def test_store_calls_from_threads_that_end_leave_no_connection_behind(
    store: SqliteStore,
) -> None:
    read_conversation(store)
    before = files_open(store.path)
    each_in_own_thread(lambda: read_conversation(store), threads=200)
    assert files_open(store.path) <= before


@pytest.mark.parametrize("adapter", ["index", "store"])
def test_bursts_of_concurrent_calls_keep_a_few_idle_connections_and_files_do_not_add_up(
    adapter: str, request: pytest.FixtureRequest
) -> None:
    target = request.getfixturevalue(adapter)
    call = (lambda: search(target)) if adapter == "index" else (lambda: read_conversation(target))
    threads = 24
    for _ in range(10):
        all_at_once(call, threads=threads)
    # Connections beyond the idle few are closed when they come back. (How many were open at once
    # depends on the scheduler: on a loaded machine a burst's calls may barely overlap, so fewer
    # than the idle few may have been needed — never more kept.)
    assert 1 <= target.idle_connections <= target.max_idle_connections
    # At most one burst's worth of descriptors: the database and WAL files of each connection open
    # at the peak, and the shared -shm. (In WAL mode SQLite may keep a closed connection's database
    # descriptor while other connections hold their shared lock, and hands it to the next one.)
    assert files_open(target.path) <= 2 * threads + 1


@pytest.mark.parametrize("adapter", ["index", "store"])
def test_close_closes_every_connection_opened_in_any_thread(
    adapter: str, request: pytest.FixtureRequest
) -> None:
    target = request.getfixturevalue(adapter)
    call = (lambda: search(target)) if adapter == "index" else (lambda: read_conversation(target))
    path = target.path
    all_at_once(call, threads=3)
    call()
    assert files_open(path) > 0
    target.close()
    assert files_open(path) == 0
    call()  # still usable: a later call opens a connection again
    target.close()
    assert files_open(path) == 0
