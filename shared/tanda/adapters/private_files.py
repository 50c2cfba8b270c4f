"""Embedded state files readable by their owner only (issue 11), as ``keys.json`` is.

``store.sqlite`` holds every question, answer and memory; ``index.sqlite`` every document's text.
SQLite creates a database's ``-wal``, ``-shm`` and ``-journal`` side files with the database
file's own permissions, so creating the database 0600 before SQLite first opens it is enough for
the side files too. A file made before with a wider mode is narrowed, side files included.
"""

from __future__ import annotations

import os
from pathlib import Path

SIDE_FILES = ("-wal", "-shm", "-journal")


def private_database(path: Path) -> Path:
    """Make sure ``path`` exists with mode 0600 (and its side files, where they exist);
    returns ``path``. An existing file's content is left as it is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))  # no O_EXCL: reopening is fine
    for file in (path, *(path.with_name(path.name + suffix) for suffix in SIDE_FILES)):
        try:
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)
        except FileNotFoundError:
            continue
    return path
