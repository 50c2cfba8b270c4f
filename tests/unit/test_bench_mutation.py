"""bench/mutation.py reads mutmut's results as mutmut does: a mutant stopped by its CPU-time limit
is a timeout (killed), not a mutant left unchecked."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "mutation.py"


@pytest.fixture(scope="module")
def mutation() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_mutation", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_mutant_stopped_by_its_cpu_limit_counts_as_a_timeout(
    mutation: ModuleType, tmp_path: Path
) -> None:
    # Given mutmut's results for four mutants of the routing: killed, survived, not run yet, and
    # stopped by SIGXCPU (exit -24, what mutmut 3 reports for its CPU-time limit)
    meta = tmp_path / "mutants" / "src" / "tanda" / "pipeline" / "routing.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {"killed": 1, "survived": 0, "unrun": None, "cpu": -24}
    keys = {what: f"tanda.pipeline.routing.x_route_segments__mutmut_{what}" for what in codes}
    meta.write_text(json.dumps({"exit_code_by_key": {keys[w]: c for w, c in codes.items()}}))

    # when they are read, then each has mutmut's own status
    statuses = {m.name: m.status for m in mutation.mutants(tmp_path)}
    assert statuses == {
        keys["killed"]: "killed",
        keys["survived"]: "survived",
        keys["unrun"]: "not checked",
        keys["cpu"]: "timeout",
    }
