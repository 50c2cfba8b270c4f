"""bench/mutation.py reads mutmut's results as mutmut does: a mutant stopped by its CPU-time limit
is a timeout (killed), not a mutant left unchecked."""

from __future__ import annotations

import hashlib
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


def test_a_target_this_workdir_never_ran_keeps_its_earlier_figures(
    mutation: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given results that hold the routing's figures and one justification of the guard,
    earlier = {
        "by_target": {
            "routing": {
                "mutants": 67,
                "killed": 67,
                "survived": 0,
                "justified": 0,
                "unjustified": 0,
                "not_checked": 0,
            },
            "guard": {
                "mutants": 35,
                "killed": 34,
                "survived": 1,
                "justified": 1,
                "unjustified": 0,
                "not_checked": 0,
            },
        },
        "justified": [
            {
                "function": "tanda.guard.policy_guard.PolicyGuard.run",
                "before": "a",
                "after": "b",
                "reason": "equivalent",
            }
        ],
    }
    results = tmp_path / "mutation.json"
    results.write_text(json.dumps(earlier))
    monkeypatch.setattr(mutation, "RESULTS", results)
    # and a fresh workdir that ran only the citations (one mutant, killed) — the routing and the
    # guard are there, never run,
    src = tmp_path / "work" / "mutants" / "src" / "tanda"
    for path, codes in (
        ("ask/citations.py.meta", {"tanda.ask.citations.x_resolve_markers__mutmut_1": 1}),
        ("pipeline/routing.py.meta", {"tanda.pipeline.routing.x_route_segments__mutmut_1": None}),
        (
            "guard/policy_guard.py.meta",
            {"tanda.guard.policy_guard.xǁPolicyGuardǁrun__mutmut_1": None},
        ),
    ):
        (src / path).parent.mkdir(parents=True, exist_ok=True)
        (src / path).write_text(json.dumps({"exit_code_by_key": codes}))

    # when it is reported, then the routing and the guard keep their figures and justification,
    # and say they come from an earlier run; the citations are counted from this one.
    result = mutation.report(tmp_path / "work")
    assert result["by_target"]["routing"] == earlier["by_target"]["routing"]
    assert result["by_target"]["guard"] == earlier["by_target"]["guard"]
    assert result["by_target"]["citations"]["killed"] == 1
    assert result["from_an_earlier_run"] == ["guard", "routing"]
    assert result["justified"] == earlier["justified"]
    assert result["by_target"]["annotate"]["mutants"] == 0  # never run anywhere: nothing to keep


def test_a_justification_outlives_a_partial_rerun_that_did_not_check_its_mutant(
    mutation: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given results where a guard survivor is justified,
    reason = {
        "function": "tanda.guard.policy_guard.PolicyGuard.run",
        "before": "if a:",
        "after": "if not a:",
        "reason": "equivalent: a is always true here",
    }
    results = tmp_path / "mutation.json"
    results.write_text(json.dumps({"by_target": {}, "justified": [reason]}))
    monkeypatch.setattr(mutation, "RESULTS", results)
    # and a workdir whose guard run killed one mutant and did not check the justified one
    # (its diff known from an earlier `mutmut show`),
    work = tmp_path / "work"
    module = work / "mutants" / "src" / "tanda" / "guard" / "policy_guard.py"
    module.parent.mkdir(parents=True)
    module.write_text("# mutated module\n")
    killed = "tanda.guard.policy_guard.xǁPolicyGuardǁrun__mutmut_1"
    justified = "tanda.guard.policy_guard.xǁPolicyGuardǁrun__mutmut_2"
    codes: dict[str, int | None] = {killed: 1, justified: None}
    module.with_suffix(".py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    digest = hashlib.sha256(module.read_bytes()).hexdigest()
    cache = {justified: {"digest": digest, "before": "if a:", "after": "if not a:"}}
    (work / "mutation-diffs.json").write_text(json.dumps(cache))

    # when it is reported, then the reason is kept apart (the mutant counts as not checked)
    first = mutation.report(work)
    assert first["by_target"]["guard"]["not_checked"] == 1
    assert first["justified"] == []
    assert [j["reason"] for j in first["justified_not_checked"]] == [reason["reason"]]

    # and a later run that finds the mutant surviving justifies it with that reason.
    results.write_text(json.dumps(first))
    codes[justified] = 0
    module.with_suffix(".py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    second = mutation.report(work)
    assert second["by_target"]["guard"]["justified"] == 1
    assert second["unjustified"] == []
    assert [j["reason"] for j in second["justified"]] == [reason["reason"]]
