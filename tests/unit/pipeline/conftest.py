"""A small corpus in an in-memory index and the scripted model over tests/scenarios/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tanda.adapters.scripted import ScriptedModel
from tanda.pipeline.answer_v2 import AnswerDeps
from tanda.settings import Settings
from tests.corpus import add_qanun
from tests.fakes import InMemorySearchIndex

SCENARIOS = Path(__file__).parents[2] / "scenarios"


@pytest.fixture
def index() -> InMemorySearchIndex:
    index = InMemorySearchIndex()
    add_qanun(index, "acme", selections=("anggaran",))
    add_qanun(index, "other")
    return index


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel.from_dir(SCENARIOS)


@pytest.fixture
def deps(index: InMemorySearchIndex, model: ScriptedModel, tmp_path: Path) -> AnswerDeps:
    settings = Settings(home=tmp_path, request_deadline_s=2.0, model_call_budget=12)
    return AnswerDeps(index=index, model=model, settings=settings)
