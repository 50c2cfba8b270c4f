"""The ``sam`` tests build the whole deployment with the SAM CLI (a few minutes, PyPI downloads),
the ``policy`` test runs checkov from a venv of its own (made from PyPI on first use): ``make
test`` (and so CI), ``make sam-smoke`` and ``make policy`` run them; a plain ``pytest``
deselects them unless ``SAM_SMOKE=1`` is set (listed as deselected, never skipped)."""

from __future__ import annotations

import os

import pytest

TOOL_MARKERS = ("sam", "policy")


def needs_tools(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(marker) for marker in TOOL_MARKERS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("SAM_SMOKE") == "1":
        return
    deselected = [item for item in items if needs_tools(item)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not needs_tools(item)]
