"""``infra/statemachines/query.asl.json`` is wired to real handlers and every failure path ends
in a fallback (DESIGN §4, §8 ``infra/``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from samtranslator.yaml_helper import yaml_parse

REPO = Path(__file__).resolve().parents[2]
ASL = REPO / "infra" / "statemachines" / "query.asl.json"
FALLBACKS = {
    "AgentTimedOut",
    "NothingReadable",
    "AgentFailed",
    "JudgeBatchLate",
    "JudgeBatchUnavailable",
    "FramingUnavailable",
    "GuardUnavailable",
}
THROTTLING = "Lambda.TooManyRequestsException"


def definition() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(ASL.read_text(encoding="utf-8"))
    return loaded


def all_states(states: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Every state, nested ones included, with the ``States`` map it lives in."""
    for name, state in states.items():
        yield name, state, states
        for branch in state.get("Branches", []):
            yield from all_states(branch["States"])
        for key in ("Iterator", "ItemProcessor"):
            if key in state:
                yield from all_states(state[key]["States"])


def state_machine_resource() -> dict[str, Any]:
    template = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
    machine: dict[str, Any] = template["Resources"]["QueryStateMachine"]
    return machine


def test_the_template_deploys_this_definition_as_an_express_machine() -> None:
    properties = state_machine_resource()["Properties"]
    assert properties["Type"] == "EXPRESS"
    assert (REPO / properties["DefinitionUri"]).resolve() == ASL.resolve()
    assert properties["Logging"]["IncludeExecutionData"] is False  # no text in logs


def test_every_task_resolves_to_a_step_function_with_a_handler_file() -> None:
    # Given each Task's ${Substitution}, when resolved through DefinitionSubstitutions,
    template = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
    substitutions = state_machine_resource()["Properties"]["DefinitionSubstitutions"]
    tasks = [s for _, s, _ in all_states(definition()["States"]) if s["Type"] == "Task"]
    assert len(tasks) == 4
    for task in tasks:
        found = re.fullmatch(r"\$\{(\w+)\}", task["Resource"])
        assert found, task["Resource"]
        # (the function's `live` alias: SnapStart resumes published versions only, never
        # $LATEST, so the machine must not name the bare function),
        reference = substitutions[found.group(1)]["Ref"]
        function, _, attribute = reference.partition(".")
        assert attribute == "Alias", reference
        properties = template["Resources"][function]["Properties"]
        # then it is a step handler under functions/steps/ with its entry module.
        assert properties["CodeUri"].startswith("functions/steps/")
        assert (REPO / properties["CodeUri"] / "app.py").is_file()
    assert set(substitutions) == {
        m for t in tasks for m in re.findall(r"\$\{(\w+)\}", t["Resource"])
    }


def test_every_task_has_a_timeout_path_throttling_retry_and_a_catch_all() -> None:
    for name, state, _ in all_states(definition()["States"]):
        if state["Type"] != "Task":
            continue
        assert state["TimeoutSecondsPath"].startswith("$."), name
        assert any(THROTTLING in r["ErrorEquals"] for r in state["Retry"]), name
        caught = {e for c in state["Catch"] for e in c["ErrorEquals"]}
        assert {"States.Timeout", "States.ALL"} <= caught, name


def test_every_catch_leads_to_a_fallback_state_that_ends_the_path() -> None:
    for name, state, siblings in all_states(definition()["States"]):
        for catcher in state.get("Catch", []):
            target = catcher["Next"]
            assert target in FALLBACKS, (name, target)
            fallback = siblings[target]
            assert fallback["Type"] in {"Pass", "Fail"}
            assert fallback["Type"] == "Fail" or fallback.get("End") is True


def test_every_next_names_a_state_of_the_same_scope() -> None:
    for name, state, siblings in all_states(definition()["States"]):
        targets = [state.get("Next"), state.get("Default")]
        targets += [c["Next"] for c in state.get("Choices", [])]
        for target in filter(None, targets):
            assert target in siblings, (name, target)


def test_a_late_judge_batch_and_a_failed_framing_check_produce_the_in_process_fallbacks() -> None:
    states = {n: s for n, s, _ in all_states(definition()["States"])}
    assert states["JudgeBatchLate"]["Parameters"]["failed"] == "deadline"
    assert states["JudgeBatchUnavailable"]["Parameters"]["failed"] == "judge_unavailable"
    assert states["FramingUnavailable"]["Parameters"] == {
        "checkable": None,
        "status": "unavailable",
    }
    assert states["AgentTimedOut"]["Parameters"] == {"refusal": "model_timeout"}
    assert states["GuardUnavailable"]["Error"] == "GuardUnavailable"


def test_states_all_is_alone_in_its_catcher() -> None:
    # ASL rule (enforced by Step Functions and moto): States.ALL may not share ErrorEquals.
    for name, state, _ in all_states(definition()["States"]):
        for rule in state.get("Catch", []) + state.get("Retry", []):
            if "States.ALL" in rule["ErrorEquals"]:
                assert rule["ErrorEquals"] == ["States.ALL"], name
