"""The rules every test runs under (issue 12, docs/testing.md): no scripted latency is slept in
wall time, a test that needs the shared data fails without it, and the property tests run the
fast hypothesis profile unless the thorough one is asked for."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

import tests.corpus
from tests.corpus import shared_data

CONFTEST = Path(__file__).parents[1] / "conftest.py"


def test_a_scripted_latency_left_on_wall_time_fails_the_test_without_being_slept(
    pytester: pytest.Pytester,
) -> None:
    # Given a test whose scripted model has no clock and a guard that takes 3 s
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(
        """
        from tanda.adapters.scripted import Scenario, ScriptedModel
        from tanda.model_calls import ChatMessage, ChatRequest, ModelRole

        def test_slow_guard():
            model = ScriptedModel({"default": Scenario(latency_ms={"guard": 3_000})})
            request = ChatRequest(
                role=ModelRole.guard,
                messages=[ChatMessage(role="user", content="x")],
                timeout_s=900,
            )
            assert model.complete(request).content
        """
    )
    # when it runs, then it passes its own asserts at once and fails at teardown, saying why
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:schemathesis")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*a scripted model slept 3.000 s in wall time: hand it a clock*"])


def test_a_test_that_needs_missing_shared_data_fails_and_names_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tests.corpus, "SHARED_DATA", tmp_path / "shared" / "data")
    with pytest.raises(BaseException) as raised:  # a skip, too, would be caught here
        shared_data("corpus", "id_laws")
    assert raised.type is pytest.fail.Exception
    assert raised.match(r"^\.\./shared/data is missing: .*/corpus/id_laws does not exist")


def test_the_profile_is_hypothesis_profile_fast_by_default_and_thorough_runs_more() -> None:
    loaded = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))
    assert settings.default.max_examples == loaded.max_examples
    assert settings.get_profile("thorough").max_examples > settings.get_profile("fast").max_examples
