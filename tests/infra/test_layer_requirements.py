"""The deps layer's requirements come from ``pyproject.toml`` and cover every import of tanda
(issue 12: a hand-kept copy lacked PyStemmer and httpx, so the built artifact could not import
the default model). Fast checks on metadata; the built artifact itself is exercised by
``test_sam_artifact.py``."""

from __future__ import annotations

import ast
import importlib.util
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from types import ModuleType

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "infra" / "scripts" / "layer_requirements.py"
PACKAGE = REPO / "shared" / "tanda"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layer_requirements", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


EXPORT = load_script()


def committed_requirements() -> list[Requirement]:
    lines = EXPORT.LAYER_REQUIREMENTS.read_text(encoding="utf-8").splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]


def installed_closure(roots: list[Requirement]) -> set[str]:
    """Every distribution ``pip install`` of ``roots`` brings, read from the metadata of the
    packages installed here (markers evaluated for this interpreter, extras followed)."""
    seen: set[str] = set()
    todo = [(root, frozenset(root.extras)) for root in roots]
    while todo:
        requirement, extras = todo.pop()
        name = canonicalize_name(requirement.name)
        key = f"{name}[{','.join(sorted(extras))}]"
        if key in seen:
            continue
        seen.add(key)
        for line in metadata.requires(requirement.name) or []:
            child = Requirement(line)
            wanted = child.marker is None or any(
                child.marker.evaluate({"extra": extra}) for extra in (*extras, "")
            )
            if wanted:
                todo.append((child, frozenset(child.extras)))
    return {key.partition("[")[0] for key in seen}


def third_party_imports() -> dict[str, set[str]]:
    """Top-level modules tanda imports (lazy imports inside functions included) → the files."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top == "tanda" or top in sys.stdlib_module_names or top == "__future__":
                    continue
                found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def test_the_committed_layer_requirements_are_what_pyproject_exports() -> None:
    # Given pyproject.toml, when the export script renders the layer's requirements, then the
    # committed file is exactly that (run infra/scripts/layer_requirements.py after a change).
    pyproject = tomllib.loads(EXPORT.PYPROJECT.read_text(encoding="utf-8"))
    assert EXPORT.LAYER_REQUIREMENTS.read_text(encoding="utf-8") == EXPORT.render(pyproject)


def test_every_third_party_module_tanda_imports_is_in_the_layer_or_the_lambda_runtime() -> None:
    # Given the distributions the committed layer requirements install, plus the runtime's own,
    available = installed_closure(committed_requirements())
    available |= installed_closure([Requirement(name) for name in EXPORT.RUNTIME_PROVIDED])
    providers = metadata.packages_distributions()

    # when every third-party import of the tanda package is traced to its distribution,
    missing = {
        module: sorted(files)
        for module, files in third_party_imports().items()
        if not {canonicalize_name(d) for d in providers.get(module, [module])} & available
    }

    # then none is missing from the artifact a Lambda function runs.
    assert missing == {}


def test_the_export_drops_runtime_provided_packages_and_duplicates() -> None:
    pyproject = {
        "project": {
            "dependencies": ["PyStemmer>=2.2", "httpx>=0.27"],
            "optional-dependencies": {"aws": ["boto3>=1.34", "HTTPX>=0.28", "mangum>=0.19"]},
        }
    }
    assert EXPORT.layer_requirements(pyproject) == ["PyStemmer>=2.2", "httpx>=0.27", "mangum>=0.19"]
