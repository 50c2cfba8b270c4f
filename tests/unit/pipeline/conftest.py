"""A small corpus in an in-memory index and the scripted model over tests/scenarios/, on one
manual clock with the pipeline: a scripted latency spends request time exactly and no wall time
(issue 12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tanda.adapters.scripted import ScriptedModel
from tanda.pipeline.answer_v2 import AnswerDeps
from tanda.settings import Settings
from tests.corpus import add_qanun
from tests.fakes import SCENARIOS, InMemorySearchIndex, ManualClock, scripted_model

__all__ = ["SCENARIOS"]


@pytest.fixture
def index() -> InMemorySearchIndex:
    index = InMemorySearchIndex()
    add_qanun(index, "acme", selections=("anggaran",))
    add_qanun(index, "other")
    return index


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def model(clock: ManualClock) -> ScriptedModel:
    return scripted_model(clock=clock)


@pytest.fixture
def request_deadline_s() -> float:
    return 2.0


@pytest.fixture
def deps(
    index: InMemorySearchIndex,
    model: ScriptedModel,
    clock: ManualClock,
    request_deadline_s: float,
    tmp_path: Path,
) -> AnswerDeps:
    settings = Settings(home=tmp_path, request_deadline_s=request_deadline_s, model_call_budget=12)
    return AnswerDeps(index=index, model=model, settings=settings, clock=clock)
