"""The shared data (statute PDFs, budget CSVs) lives beside the repository: ../shared/data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[4]
# Beside the checkout, or beside the folder of a git worktree (…/wt/<name>).
SHARED_DATA = next(
    (p / "shared" / "data" for p in REPO_ROOT.parents if (p / "shared" / "data").is_dir()),
    REPO_ROOT.parent / "shared" / "data",
)
CORPUS = SHARED_DATA / "corpus"


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"shared demo corpus not found at {CORPUS} (expected ../shared/data)")
    return CORPUS
