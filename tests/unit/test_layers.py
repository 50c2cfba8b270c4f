"""Layers only point down (DESIGN §2, issue 12).

The import-linter contracts in ``pyproject.toml`` (what ``make lint`` runs as ``lint-imports``)
run here too, so CI fails on a violation; and grimp measures the import graph of ``tanda``
itself: zero cycles between modules, zero cycles between the packages under ``tanda/``, zero
upward imports. A function-level (lazy) import and a ``TYPE_CHECKING`` import count like any other:
a lazy import is still an import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

KERNEL = [
    "contract",
    "errors",
    "numbers",
    "settings",
    "lang",
    "not_found",
    "prompts",
    "observability",
    "snapstart",
    "records",
    "ports",
    "model_calls",
    "passages",
    "credits",
    "threads",
    "sources",  # issue 25: what the settings say of a tenant's portal and MCP servers
]
DOMAIN = [
    "annotate",
    "retrieval",
    "extraction",
    "proof",
    "knowledge",
    "invoices",  # invoices sits below
]
STAGES = ["agent", "judge", "guard", "conversations", "auth", "retriever", "ask", "crosscheck"]

# Rank of every package (or module) directly under tanda/: an import may go to the same rank or
# a lower one. Adapters sit beside the stages (they may import the kernel and the pure domain);
# only the one factory imports them (checked separately).
RANK: dict[str, int] = {
    **dict.fromkeys(KERNEL, 1),
    **dict.fromkeys(DOMAIN, 2),
    **dict.fromkeys(STAGES, 3),
    "adapters": 3,
    "pipeline": 4,
    "service": 5,
    "wiring": 6,
    "mcp": 7,
    "api": 8,
    "cli": 9,
}
ADAPTER_IMPORTERS = {"wiring", "adapters"}
ADAPTERS_MAY_IMPORT = 2  # the kernel and the pure domain


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


def upward(pairs: Iterable[tuple[str, str]], rank: Mapping[str, int]) -> list[str]:
    """Each import that goes to a higher layer, or to an adapter from outside the factory, or
    from an adapter to anything above the pure domain."""
    found = []
    for importer, imported in sorted(pairs):
        source, target = top(importer), top(imported)
        if not source or not target or source == target:
            continue
        if source not in rank or target not in rank:
            found.append(f"{importer} -> {imported} (a package without a layer)")
        elif target == "adapters" and source not in ADAPTER_IMPORTERS:
            found.append(f"{importer} -> {imported} (only tanda.wiring imports adapters)")
        elif source == "adapters" and rank[target] > ADAPTERS_MAY_IMPORT:
            found.append(f"{importer} -> {imported} (an adapter imports the kernel and domain)")
        elif rank[target] > rank[source]:
            found.append(f"{importer} -> {imported} (layer {rank[source]} → {rank[target]})")
    return found


@pytest.fixture(scope="module")
def tanda_graph() -> grimp.ImportGraph:
    return grimp.build_graph("tanda", cache_dir=None)


def test_the_import_linter_contracts_of_make_lint_are_kept() -> None:
    # Given the contracts `make lint` checks, when they run on tanda (the report of a broken
    # contract, with the import chain, is in the captured output)
    exit_code = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    # Then every one is kept
    assert exit_code == 0


def test_every_package_under_tanda_has_a_layer(tanda_graph: grimp.ImportGraph) -> None:
    placed = {top(module) for module in tanda_graph.modules} - {""}
    assert placed - RANK.keys() == set(), "place the new package in RANK and in pyproject.toml"


def test_no_module_of_tanda_is_in_an_import_cycle(tanda_graph: grimp.ImportGraph) -> None:
    assert cycles(edges(tanda_graph)) == []


def test_no_two_packages_of_tanda_import_each_other(tanda_graph: grimp.ImportGraph) -> None:
    assert cycles(package_edges(edges(tanda_graph))) == []


def test_no_import_points_up(tanda_graph: grimp.ImportGraph) -> None:
    assert upward(edges(tanda_graph), RANK) == []


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
        ("tanda.api.answering", "tanda.adapters.scripted"),  # a surface builds an adapter
        ("tanda.adapters.stepfunctions", "tanda.pipeline.steps"),  # an adapter runs steps
        ("tanda.pipeline.answer_v2", "tanda.agent.run"),  # down: fine
        ("tanda.wiring", "tanda.adapters.offline"),  # the factory: fine
    )
    assert upward(edges(graph), RANK) == [
        "tanda.adapters.stepfunctions -> tanda.pipeline.steps (an adapter imports the kernel "
        "and domain)",
        "tanda.agent.run -> tanda.pipeline.context (layer 3 → 4)",
        "tanda.api.answering -> tanda.adapters.scripted (only tanda.wiring imports adapters)",
    ]
