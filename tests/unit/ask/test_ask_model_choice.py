"""``TANDA_ASK_MODEL`` picks the /v1/ask synthesis model (ASK-04): unset or empty → the answering
model itself, ``none`` → no model (RAG not configured), anything else → that model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tanda.adapters.offline import OfflineModel
from tanda.adapters.scripted import ScriptedModel
from tanda.settings import Settings
from tanda.wiring import Runtime

SCENARIOS = Path(__file__).parents[2] / "scenarios" / "ask"


@pytest.mark.parametrize("ask_model", [None, "", "offline"])
def test_unset_empty_or_the_same_spec_share_the_answering_model(
    tmp_path: Path, ask_model: str | None
) -> None:
    runtime = Runtime(settings=Settings(home=tmp_path, model="offline", ask_model=ask_model))
    assert runtime.ask_model is runtime.model


def test_none_means_no_synthesis_model(tmp_path: Path) -> None:
    assert Runtime(settings=Settings(home=tmp_path, ask_model="none")).ask_model is None


def test_another_spec_builds_its_own_model(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, model=f"scripted:{SCENARIOS}", ask_model="offline")
    runtime = Runtime(settings=settings)
    assert isinstance(runtime.model, ScriptedModel)
    assert isinstance(runtime.ask_model, OfflineModel)


def test_an_unknown_spec_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown model"):
        _ = Runtime(settings=Settings(home=tmp_path, ask_model="gpt")).ask_model
