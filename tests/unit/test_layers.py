"""Layers only point down (DESIGN §2, issues 12 and 24).

The import-linter contracts in ``pyproject.toml`` are the one table of the layers: they run here
as ``make lint`` runs them (``lint-imports``), so CI fails on a violation; the checks below read
their layers from them (no table of their own) and measure the import graph of ``tanda`` with
grimp: zero cycles between modules, zero cycles between the packages under ``tanda/``, zero
upward imports, no import between independent siblings (``|``). A function-level (lazy) import
and a ``TYPE_CHECKING`` import count like any other: a lazy import is still an import.

``docs/layers.md`` says the same table in words; it must list every module under ``tanda/`` in
the layer the contracts put it (DESIGN.md is the handbook's, outside this repository: the
closing note of a change proposes its §2 from that page).
"""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = REPO / "pyproject.toml"
LAYERS_DOC = REPO / "docs" / "layers.md"
CONTRACTS: list[dict[str, Any]] = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"][
    "importlinter"
]["contracts"]


def contract(contract_id: str) -> dict[str, Any]:
    (found,) = [c for c in CONTRACTS if c["id"] == contract_id]
    return found


@dataclass(frozen=True)
class Layer:
    modules: tuple[str, ...]
    independent: bool
    """``|``: the siblings do not import each other; ``:`` (or one module): they may."""


def parse_layers(entries: Sequence[str]) -> list[Layer]:
    """import-linter's ``layers`` (top first) as :class:`Layer` s, bottom first."""
    layers = []
    for entry in reversed(entries):
        independent = "|" in entry
        if independent and ":" in entry:
            raise ValueError(f"a layer mixes | and : — {entry!r}")
        modules = tuple(m.strip() for m in re.split(r"[|:]", entry))
        layers.append(Layer(modules, independent))
    return layers


LAYERS = parse_layers(contract("layers")["layers"])
RANK: dict[str, int] = {m: rank for rank, layer in enumerate(LAYERS, 1) for m in layer.modules}
"""Rank of every package (or module) directly under tanda/, from the contract: an import may go
to the same rank (unless the siblings are independent) or a lower one."""
INDEPENDENT = {m for layer in LAYERS if layer.independent for m in layer.modules}


def tops(modules: Iterable[str]) -> set[str]:
    return {m.removeprefix("tanda.") for m in modules}


ADAPTER_IMPORTERS = {"adapters"} | (
    RANK.keys() - tops(contract("only-wiring-imports-adapters")["source_modules"])
)
"""Who may import an adapter: the adapters, and every layer the contract does not forbid it."""
ADAPTERS_MAY_NOT_IMPORT = tops(contract("adapters-import-down")["forbidden_modules"])


def top(module: str) -> str:
    """``tanda.pipeline.steps`` → ``pipeline``; ``tanda`` itself → ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def edges(graph: grimp.ImportGraph) -> set[tuple[str, str]]:
    return {
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
    }


def cycles(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    successors: dict[str, set[str]] = {}
    for a, b in pairs:
        if a != b:
            successors.setdefault(a, set()).add(b)
            successors.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(successors[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(successors):
        if node not in index:
            visit(node)
    return found


def package_edges(pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The module graph squashed to the packages directly under ``tanda/``."""
    return {(top(a), top(b)) for a, b in pairs if top(a) and top(b) and top(a) != top(b)}


def upward(pairs: Iterable[tuple[str, str]], rank: Mapping[str, int] = RANK) -> list[str]:
    """Each import that goes to a higher layer, or between independent siblings, or to an adapter
    from outside the factory, or from an adapter to anything above the pure domain."""
    found = []
    for importer, imported in sorted(pairs):
        source, target = top(importer), top(imported)
        if not source or not target or source == target:
            continue
        if target == "adapters":
            if source not in ADAPTER_IMPORTERS:
                found.append(f"{importer} -> {imported} (only tanda.wiring imports adapters)")
        elif source == "adapters":
            if target in ADAPTERS_MAY_NOT_IMPORT or target not in rank:
                found.append(f"{importer} -> {imported} (an adapter imports the kernel and domain)")
        elif source not in rank or target not in rank:
            found.append(f"{importer} -> {imported} (a package without a layer)")
        elif rank[target] > rank[source]:
            found.append(f"{importer} -> {imported} ({source} is below {target})")
        elif rank[target] == rank[source] and source in INDEPENDENT:
            found.append(f"{importer} -> {imported} ({source} and {target} are independent)")
    return found


@pytest.fixture(scope="module")
def tanda_graph() -> grimp.ImportGraph:
    return grimp.build_graph("tanda", cache_dir=None)


def test_the_import_linter_contracts_of_make_lint_are_kept() -> None:
    # Given the contracts `make lint` checks, when they run on tanda (the report of a broken
    # contract, with the import chain, is in the captured output)
    # (import-linter configures logging with disable_existing_loggers: every logger made
    # before it — tanda's included — would stay silent for the tests that run after this one)
    loggers = [
        logger
        for logger in logging.Logger.manager.loggerDict.values()
        if isinstance(logger, logging.Logger) and not logger.disabled
    ]
    try:
        exit_code = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    finally:
        for logger in loggers:
            logger.disabled = False
    # Then every one is kept
    assert exit_code == 0


def test_every_package_under_tanda_has_a_layer(tanda_graph: grimp.ImportGraph) -> None:
    placed = {top(module) for module in tanda_graph.modules} - {"", "adapters"}
    assert placed - RANK.keys() == set(), "place the new package in pyproject.toml's layers"


def test_the_adapter_contracts_name_every_layer() -> None:
    # A package left out of a forbidden contract would escape it: every layer but the factory is
    # forbidden to import adapters, and adapters may import only the kernel and the pure domain.
    assert {"adapters", "wiring"} == ADAPTER_IMPORTERS
    above_the_pure_domain = {m for m, rank in RANK.items() if rank > RANK["annotate"]}
    assert above_the_pure_domain == ADAPTERS_MAY_NOT_IMPORT


def documented_layers(text: str) -> tuple[list[Layer], set[str]]:
    """The rows of docs/layers.md's table, bottom first, and the modules of the rows outside the
    layers (adapters): each row names its modules in backticks and says whether its siblings are
    ``independent``."""
    rows: list[Layer] = []
    beside: set[str] = set()
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0] or cells[0].startswith(("layer", "---")):
            continue
        modules = tuple(re.findall(r"`([a-z_]+)`", cells[1]))
        if cells[0].startswith("beside"):
            beside.update(modules)
        elif modules:
            rows.append(Layer(modules, cells[2] == "independent"))
    return list(reversed(rows)), beside


def test_the_layers_page_says_what_the_contracts_say(tanda_graph: grimp.ImportGraph) -> None:
    # Given docs/layers.md, the project's own statement of DESIGN §2,
    rows, beside = documented_layers(LAYERS_DOC.read_text(encoding="utf-8"))
    # then its rows are the contract's layers, bottom to top, each with the same modules and
    # the same independence,
    assert [(set(r.modules), r.independent) for r in rows] == [
        (set(layer.modules), layer.independent) for layer in LAYERS
    ]
    # and every module directly under tanda/ is on the page.
    placed = {top(module) for module in tanda_graph.modules} - {""}
    assert placed - RANK.keys() - beside == set()


def test_the_page_check_finds_a_module_in_another_layer() -> None:
    page = """
| layer | modules | siblings | holds |
|---|---|---|---|
| stages | `agent`, `judge` | independent | x |
| kernel | `lang` | | x |
| beside | `adapters` | | x |
"""
    rows, beside = documented_layers(page)
    assert rows == [Layer(("lang",), False), Layer(("agent", "judge"), True)]
    assert beside == {"adapters"}


def test_no_module_of_tanda_is_in_an_import_cycle(tanda_graph: grimp.ImportGraph) -> None:
    assert cycles(edges(tanda_graph)) == []


def test_no_two_packages_of_tanda_import_each_other(tanda_graph: grimp.ImportGraph) -> None:
    assert cycles(package_edges(edges(tanda_graph))) == []


def test_no_import_points_up(tanda_graph: grimp.ImportGraph) -> None:
    assert upward(edges(tanda_graph)) == []


# --- the checks themselves find what they look for --------------------------------------------


def fake_graph(*pairs: tuple[str, str]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for importer, imported in pairs:
        graph.add_import(importer=importer, imported=imported)
    return graph


def test_the_cycle_check_finds_a_lazy_import_back() -> None:
    # Given ports → progress and progress → ports (the cycle issue 12 found, through a lazy import)
    graph = fake_graph(("tanda.ports", "tanda.progress"), ("tanda.progress", "tanda.ports"))
    assert cycles(edges(graph)) == [["tanda.ports", "tanda.progress"]]


def test_the_package_cycle_check_finds_two_packages_that_import_each_other() -> None:
    # Given no module cycle, but pipeline.steps → wiring and wiring → pipeline.runners
    graph = fake_graph(
        ("tanda.pipeline.steps", "tanda.wiring"), ("tanda.wiring", "tanda.pipeline.runners")
    )
    assert cycles(edges(graph)) == []
    assert cycles(package_edges(edges(graph))) == [["pipeline", "wiring"]]


def test_the_layer_check_finds_an_upward_import_and_an_adapter_out_of_place() -> None:
    graph = fake_graph(
        ("tanda.agent.run", "tanda.pipeline.context"),  # a stage takes its budget from above
        ("tanda.crosscheck.judge", "tanda.ask.lang"),  # a stage imports a stage
        ("tanda.knowledge.nodes", "tanda.proof.match"),  # a pure package imports a sibling
        ("tanda.api.answering", "tanda.adapters.scripted"),  # a surface builds an adapter
        ("tanda.adapters.stepfunctions", "tanda.pipeline.steps"),  # an adapter runs steps
        ("tanda.pipeline.answer_v2", "tanda.agent.run"),  # down: fine
        ("tanda.agent.tools", "tanda.search"),  # the named exception: fine
        ("tanda.ports", "tanda.records.jobs"),  # kernel siblings: fine
        ("tanda.wiring", "tanda.adapters.offline"),  # the factory: fine
    )
    assert upward(edges(graph)) == [
        "tanda.adapters.stepfunctions -> tanda.pipeline.steps (an adapter imports the kernel "
        "and domain)",
        "tanda.agent.run -> tanda.pipeline.context (agent is below pipeline)",
        "tanda.api.answering -> tanda.adapters.scripted (only tanda.wiring imports adapters)",
        "tanda.crosscheck.judge -> tanda.ask.lang (crosscheck and ask are independent)",
        "tanda.knowledge.nodes -> tanda.proof.match (knowledge and proof are independent)",
    ]


def test_the_contract_layers_are_read_bottom_first() -> None:
    assert parse_layers(["api", "agent | judge", "lang : numbers"]) == [
        Layer(("lang", "numbers"), False),
        Layer(("agent", "judge"), True),
        Layer(("api",), False),
    ]
    with pytest.raises(ValueError, match="mixes"):
        parse_layers(["agent | judge : guard"])
