"""A tanda home for CLI tests: the embedded defaults (SQLite index, no embedder, the offline
model) under a directory of the test's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tanda.cli import main
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


def ask_json(
    capsys: pytest.CaptureFixture[str], question: str, *flags: str, tenant: str = "demo"
) -> dict[str, Any]:
    """``tanda ask QUESTION --tenant TENANT --json FLAGS…`` in this process: its answer as JSON
    (whatever was printed before is dropped)."""
    capsys.readouterr()
    assert main(["ask", question, "--tenant", tenant, "--json", *flags]) == 0
    body: dict[str, Any] = json.loads(capsys.readouterr().out)
    return body


def supported(body: dict[str, Any]) -> list[str]:
    """The texts of an answer's supported claims, in order."""
    return [c["text"] for c in body["claims"] if c["verdict"] == "supported"]
