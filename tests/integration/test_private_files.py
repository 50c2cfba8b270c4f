"""The embedded state files are readable by their owner only, like ``keys.json`` (issue 11):
``store.sqlite`` (questions, answers, memories) and ``index.sqlite`` (every document's text), with
their SQLite side files, on real files under a permissive umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.adapters.sqlite_store import SqliteStore
from tanda.records.conversations import Conversation, ConversationOwner
from tanda.records.documents import SearchQuery, SearchScope
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.corpus import add_qanun

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    """0022: what most shells use, and what made these files world-readable before."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes(database: Path) -> dict[str, int]:
    """The database and each side file that exists, by name."""
    files = [database, *(database.with_name(database.name + s) for s in ("-wal", "-shm"))]
    return {f.name: mode(f) for f in files if f.exists()}


def test_the_runtimes_store_and_index_and_their_side_files_are_0600(tmp_path: Path) -> None:
    # Given the embedded runtime under a fresh home,
    runtime = Runtime(settings=Settings(home=tmp_path / "home"))

    # when a document is indexed and a conversation stored (both write through their WAL),
    add_qanun(runtime.search_index, "acme")
    runtime.store.create_conversation(
        Conversation(
            conversation_id="c1", tenant_id="acme", issuer="p", subject="u", created_at=1.0
        )
    )

    # then both databases and their -wal/-shm files are readable by the owner only,
    home = tmp_path / "home"
    for database in (home / "store.sqlite", home / "index.sqlite"):
        found = modes(database)
        assert set(found) == {database.name, f"{database.name}-wal", f"{database.name}-shm"}
        assert found == dict.fromkeys(found, 0o600), found
    # and so is the lexical engine's folder and each tenant's in it (issue 28): no one else
    # can enter them to read the terms
    runtime.search_index.search(SearchQuery(text="qanun", scope=SearchScope(tenant_id="acme")))
    lexical = home / "index.sqlite.tantivy"
    folders = [lexical, *(p for p in lexical.iterdir() if p.is_dir())]
    assert len(folders) == 2
    assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in folders} == dict.fromkeys(
        (f.name for f in folders), 0o700
    )


def test_files_made_before_with_a_wider_mode_are_narrowed_on_open(tmp_path: Path) -> None:
    # Given a store and an index written once, then opened up to 0644 (as an older tanda left
    # them),
    store_path, index_path = tmp_path / "store.sqlite", tmp_path / "index.sqlite"
    SqliteStore(store_path).create_conversation(
        Conversation(
            conversation_id="c1", tenant_id="acme", issuer="p", subject="u", created_at=1.0
        )
    )
    add_qanun(SqliteSearchIndex(index_path), "acme")
    for database in (store_path, index_path):
        for name in modes(database):
            (tmp_path / name).chmod(0o644)

    # when they are opened again, then every file is 0600 and nothing was lost.
    store = SqliteStore(store_path)
    index = SqliteSearchIndex(index_path)
    for database in (store_path, index_path):
        found = modes(database)
        assert found == dict.fromkeys(found, 0o600), found
    owner = ConversationOwner(issuer="p", tenant_id="acme", subject="u")
    assert store.conversation(owner, "c1") is not None
    assert [d.document_id for d in index.documents(SearchScope(tenant_id="acme"))] == ["qanun-2023"]
