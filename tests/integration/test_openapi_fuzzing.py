"""Schemathesis against the app under a real uvicorn server (issue 11): every operation of the
OpenAPI document, every check, a bounded number of examples, the scripted model — 0 failures.

The server must do what its document says: accept every body the schemas allow (positive data),
refuse every body they do not (negative data), answer only documented statuses in the documented
shapes, and never fail. The command to run the same by hand, with more examples, is in
docs/openapi-fuzzing.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.wiring import Runtime
from tests.corpus import add_qanun

from .conftest import ServeApp
from .credentials import ADMIN, API_KEY, V1_KEY, settings_for, sign

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SCENARIOS = Path(__file__).parents[1] / "scenarios"
CONFIG = Path(__file__).with_name("schemathesis.toml")
MAX_EXAMPLES = 25
SEED = 20261130


@pytest.fixture
def base_url(serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> str:
    settings = settings_for(
        tmp_path,
        signing_key,
        model=f"scripted:{SCENARIOS}",
        # a fuzzer is one admin sending hundreds of playground requests
        admin_rate_burst=1_000_000,
        admin_rate_per_minute=1_000_000,
        # and one tenant sending hundreds of /v1 requests (ASK-13)
        v1_rate_per_minute=1_000_000,
    )
    runtime = Runtime(settings=settings)
    add_qanun(runtime.search_index, "acme")
    # The documents of POST /v1/cross-check's example: the fuzzer reaches a queued job, and
    # through the 202's link the job it polls (issue 15).
    add_qanun(runtime.search_index, "acme", doc_id="qanun-2024")
    # GET /v1/batches/{batch_id} reads this batch (schemathesis.toml names it; issue 26).
    add_qanun(runtime.search_index, "acme", doc_id="qanun-2025", batch_id="anggaran")
    return serve_app(create_app(runtime))


def test_schemathesis_finds_no_failure_on_any_operation(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, tmp_path: Path
) -> None:
    # Given valid credentials of each kind, as `tanda keys create` would export them
    env = {
        **os.environ,
        "TANDA_API_KEY": API_KEY,
        "TANDA_JWT": sign(signing_key, exp=int(time.time()) + 900),
        "TANDA_ADMIN_JWT": sign(signing_key, ADMIN, exp=int(time.time()) + 900),
        "TANDA_V1_KEY": V1_KEY,
        "NO_COLOR": "1",
    }
    document = httpx.get(f"{base_url}/openapi.json").json()
    operation_count = sum(len(methods) for methods in document["paths"].values())
    # When schemathesis runs every phase and every check on every operation
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(CONFIG),
        "run",
        f"{base_url}/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        str(SEED),
        "--workers",
        "1",
        "--request-timeout",
        "60",
    ]
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    output = run.stdout + run.stderr
    # Then it tested them all and found nothing
    assert run.returncode == 0, output[-20000:]
    assert f"Tested: {operation_count}" in output, output[-5000:]
    assert "No issues found" in output, output[-5000:]
