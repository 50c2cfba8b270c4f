"""What every test folder shares: no scripted latency slept in wall time (issue 12)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tanda.adapters import scripted

pytest_plugins = ["pytester"]  # tests/unit/test_suite_rules.py runs a test session in a test


@pytest.fixture(autouse=True)
def _scripted_latency_is_never_slept(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A scripted model spends its latencies on the clock it is handed; one left on wall time
    would make the test wait for a deadline and depend on the machine's load. A latency that
    reaches wall time costs nothing here and fails the test, whichever thread (a server's) spent
    it."""
    slept: list[float] = []
    monkeypatch.setattr(scripted, "wall_time", slept.append)
    yield
    if slept:
        pytest.fail(
            f"a scripted model slept {sum(slept):.3f} s in wall time: hand it a clock, "
            "e.g. ScriptedModel(…, sleep=ManualClock().advance) or tests.fakes.scripted_model() "
            "(docs/testing.md)"
        )
