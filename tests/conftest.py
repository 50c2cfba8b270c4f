"""What every test folder shares: the hypothesis profiles, and no scripted latency slept in wall
time (issue 12)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tanda.adapters import scripted

pytest_plugins = ["pytester"]  # tests/unit/test_suite_rules.py runs a test session in a test

# `make test` (and a plain pytest) runs the fast profile; `make test-deep` the thorough one
# (HYPOTHESIS_PROFILE=thorough, nightly). Each property test pins its known edge cases with
# `@example`, which run in both; the profile sets only how many generated cases come on top.
# No deadline: a loaded machine makes a slow example, not a failing one.
settings.register_profile("fast", max_examples=40, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


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
