"""A tanda home for CLI tests: the embedded defaults (SQLite index, no embedder, the offline
model) under a directory of the test's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tanda.settings import load_settings


def use_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Point the CLI at ``home`` on the embedded defaults. Settings are read once per process:
    the cache is cleared, or every test after the first one that ran the CLI would work in that
    test's home."""
    monkeypatch.setenv("TANDA_HOME", str(home))
    monkeypatch.setenv("TANDA_INDEX", "sqlite")
    monkeypatch.setenv("TANDA_EMBEDDER", "none")
    monkeypatch.setenv("TANDA_MODEL", "offline")
    load_settings.cache_clear()
