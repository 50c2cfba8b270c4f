"""A step handler imports only what its step runs (issue 24: cold start).

Each state machine task (``functions/steps/<step>/app.py``) is imported in a fresh interpreter, as
a new Lambda execution environment imports it, and the modules it pulled in are read back. The
pipeline's state speaks the annotation shapes of the contract (citations, segments, claims, the
faithfulness report, the proof chain); it must not pull in the HTTP contract — request bodies,
route responses, stream frames, error bodies — nor a web framework, and a check step must not
pull in the agent, its tools or retrieval, nor the turn's input (the conversation it sees). No
handler builds a validator at import: they are built on first use.
"""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tanda.contract

REPO = Path(__file__).resolve().parents[3]
STEPS = REPO / "functions" / "steps"
QUERY_STEPS = ("agent", "judge_batch", "framing_check", "guard")

SPOKEN = {"common", "segments", "response", "proof"}
"""The contract modules the pipeline's state is made of (``tanda.pipeline.states``)."""
HTTP_CONTRACT = {
    f"tanda.contract.{m.name}" for m in pkgutil.iter_modules(tanda.contract.__path__)
} - {f"tanda.contract.{name}" for name in SPOKEN}
WEB = {"fastapi", "starlette", "mangum", "tanda.api", "tanda.service"}
AGENT = {"tanda.agent", "tanda.search", "tanda.retrieval"}
TURN_INPUT = {"tanda.pipeline.request", "tanda.conversations.history", "tanda.conversations.scope"}
"""What only the agent step reads: the turn (``AnswerRequest``) and the conversation it sees."""
STAGE_CODE = {"tanda.annotate.aggregate", "tanda.annotate.compose", "tanda.judge.strict_judge"}
"""Stage code the state's types once pulled in; a step imports it when it runs."""

PROBE = """\
import json, sys
sys.path.insert(0, sys.argv[1])
import app
print(json.dumps(sorted(sys.modules)))
"""

BUILT_PROBE = """\
import json, sys
sys.path.insert(0, sys.argv[1])
import app
from pydantic import BaseModel

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

print(json.dumps(sorted(
    f"{m.__module__}.{m.__qualname__}" for m in subclasses(BaseModel) if m.__pydantic_complete__
)))
"""


def imported_by(step: str, tmp_path: Path, probe: str = PROBE) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TANDA_"))}
    env["TANDA_HOME"] = str(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "shared"), str(REPO)])
    result = subprocess.run(
        [sys.executable, "-c", probe, str(STEPS / step)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_the_http_contract_is_more_than_what_the_state_speaks() -> None:
    # The check below means something only if it has modules to look for.
    assert {
        "tanda.contract.query",
        "tanda.contract.frames",
        "tanda.contract.errors",
    } <= HTTP_CONTRACT


@pytest.mark.parametrize("step", QUERY_STEPS)
def test_a_step_handler_imports_no_http_contract_and_no_web_framework(
    step: str, tmp_path: Path
) -> None:
    modules = imported_by(step, tmp_path)
    assert "tanda.pipeline.states" in modules  # it did import its step
    assert sorted(modules & HTTP_CONTRACT) == []
    assert sorted(m for m in modules if m.split(".")[0] in WEB or m in WEB) == []


@pytest.mark.parametrize("step", ["judge_batch", "framing_check", "guard"])
def test_a_check_step_handler_imports_no_agent_tools_or_retrieval(
    step: str, tmp_path: Path
) -> None:
    modules = imported_by(step, tmp_path)
    assert sorted(m for m in modules if any(m == a or m.startswith(a + ".") for a in AGENT)) == []


@pytest.mark.parametrize("step", ["judge_batch", "framing_check", "guard"])
def test_a_check_step_handler_imports_not_the_turns_input(step: str, tmp_path: Path) -> None:
    modules = imported_by(step, tmp_path)
    assert sorted(modules & TURN_INPUT) == []
    assert "tanda.pipeline.request" in imported_by("agent", tmp_path)  # the agent's does


@pytest.mark.parametrize("step", QUERY_STEPS)
def test_a_step_handler_imports_the_states_types_without_stage_code(
    step: str, tmp_path: Path
) -> None:
    modules = imported_by(step, tmp_path)
    assert "tanda.annotate.outcome" in modules
    assert sorted(modules & STAGE_CODE) == []


@pytest.mark.parametrize("step", QUERY_STEPS)
def test_a_step_handler_builds_no_validator_at_import(step: str, tmp_path: Path) -> None:
    # A model whose validator is built at import costs the cold start its schema (and pydantic's
    # plugin scan, on the first): every state, stage type and model-call shape defers it.
    assert sorted(imported_by(step, tmp_path, BUILT_PROBE)) == []
