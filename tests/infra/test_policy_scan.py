"""The policy scan of issue 27: checkov over ``template.yaml`` as CloudFormation (it reads
``AWS::Serverless::Function`` and the rest of SAM's types as they are written) finds nothing
that is neither fixed nor suppressed in the template itself, each suppression with its reason
(``Metadata: checkov: skip:`` on the resource), and no suppression is left over.

checkov pins boto3, packaging and networkx to old versions, so — like the SAM CLI in
``sam.py`` — it gets a venv of its own under ``.tanda/checkov/`` (its version is the ``policy``
extra of ``pyproject.toml``), made on first use from PyPI. Deselected unless ``SAM_SMOKE=1``
(``make test``, ``make policy``): see conftest.py."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .test_template import REPO, load_template

pytestmark = pytest.mark.policy

HOME = REPO / ".tanda" / "checkov"
VENV = HOME / "venv"


def requirement() -> str:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (pinned,) = pyproject["project"]["optional-dependencies"]["policy"]
    assert "==" in pinned, "pin checkov: a new release brings new checks"
    return str(pinned)


def ensure_checkov() -> Path:
    """``.tanda/checkov/venv/bin/checkov`` of the pinned version, installed when missing."""
    wanted = requirement()
    stamp = VENV / ".installed"
    if not (stamp.is_file() and stamp.read_text() == wanted):
        for command in (
            [sys.executable, "-m", "venv", "--clear", str(VENV)],
            [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", wanted],
        ):
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            assert done.returncode == 0, f"{' '.join(command[:4])} ...:\n{done.stderr[-3000:]}"
        stamp.write_text(wanted)
    return VENV / "bin" / "checkov"


@pytest.fixture(scope="module")
def scan() -> dict[str, Any]:
    # The command of the issue, offline: --skip-download (no guideline links or severities).
    result = subprocess.run(
        [
            str(ensure_checkov()),
            *("-f", "template.yaml", "--framework", "cloudformation"),
            *("--skip-download", "--compact", "-o", "json"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.stdout.startswith("{"), result.stderr[-3000:]
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_checkov_finds_nothing_left_to_fix(scan: dict[str, Any]) -> None:
    summary = scan["summary"]
    failed = [
        f"{c['check_id']} {c['resource']}: {c['check_name']}"
        for c in scan["results"]["failed_checks"]
    ]
    assert failed == []
    assert summary["parsing_errors"] == 0
    assert summary["passed"] > 0 and summary["resource_count"] > 0


def test_every_suppression_is_in_the_template_with_its_reason_and_is_used(
    scan: dict[str, Any],
) -> None:
    # Given each skip written on a resource of template.yaml,
    written = Counter(
        (f"{resource['Type']}.{name}", skip["id"])
        for name, resource in load_template()["Resources"].items()
        for skip in resource.get("Metadata", {}).get("checkov", {}).get("skip", [])
    )
    for (resource, check), count in written.items():
        assert count == 1, f"{resource} skips {check} twice"
    # when checkov runs, then what it skipped is exactly those (no stale skip, none from
    # elsewhere), each with a reason.
    skipped = scan["results"]["skipped_checks"]
    assert Counter((c["resource"], c["check_id"]) for c in skipped) == written
    for check in skipped:
        reason = check["check_result"].get("suppress_comment", "")
        assert reason and reason != "No comment provided", check["resource"]
