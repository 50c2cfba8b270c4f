"""The ``sam`` tests build the whole deployment with the SAM CLI (a few minutes, PyPI downloads):
``make test`` (and so CI) and ``make sam-smoke`` run them; a plain ``pytest`` deselects them
unless ``SAM_SMOKE=1`` is set (listed as deselected, never skipped)."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("SAM_SMOKE") == "1":
        return
    deselected = [item for item in items if item.get_closest_marker("sam")]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker("sam")]
