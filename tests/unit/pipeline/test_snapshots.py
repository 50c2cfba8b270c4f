"""Every scenario's full /query/v2 body (or error body), answered by the in-process runner,
against its committed snapshot (the Step Functions runner gives the same bodies:
tests/integration/test_stepfunctions.py).

Snapshots live in tests/snapshots/<scenario>.json; ids are fixed. To accept a deliberate change,
run `TANDA_UPDATE_SNAPSHOTS=1 pytest tests/unit/pipeline/test_snapshots.py` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tanda.api.errors import domain_error_body, status_for
from tanda.contract import QueryV2Request
from tanda.errors import TandaError
from tanda.service.answer_v2 import to_response
from tests.corpus import QUESTION
from tests.unit.pipeline.conftest import PipelineDeps

SNAPSHOTS = Path(__file__).parents[2] / "snapshots"
SCENARIOS = sorted(p.stem for p in (Path(__file__).parents[2] / "scenarios").glob("*.json"))
OPT_INS: dict[str, dict[str, Any]] = {"proof_refuted": {"include_proof": True}}  # ASK-11


def body_for(deps: PipelineDeps, scenario: str) -> dict[str, Any]:
    request = QueryV2Request(query=QUESTION, include_grounding=True, **OPT_INS.get(scenario, {}))
    try:
        outcome = deps.answer(request, scenario=scenario)
    except TandaError as error:
        return {"status": status_for(error), "body": domain_error_body(error)}
    response = to_response(
        outcome, request, conversation_id="c-1", message_id="m-1", trace_id="t-1"
    )
    return {"status": 200, "body": response.model_dump(mode="json")}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario_body_matches_its_snapshot(deps: PipelineDeps, scenario: str) -> None:
    actual = body_for(deps, scenario)
    path = SNAPSHOTS / f"{scenario}.json"
    if os.environ.get("TANDA_UPDATE_SNAPSHOTS") == "1":
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert actual == expected
