"""The deployment as ``sam build`` makes it, run the way Lambda runs it (issue 12).

moto tests import tanda from the dev venv, so a package missing from the deps layer passes them
all. Here the SAM CLI lints and builds ``template.yaml`` (no container); every native library of
the arm64 build must be aarch64; then each function of a build for this host's architecture is
imported by a clean Python 3.12 (``-I -S``: no site-packages) with only its own folder, its
layers and the runtime's own packages on ``sys.path``, its SnapStart hooks run as the runtime
runs them, and it is invoked with recorded API Gateway events (``events/``) or a minimal step
state. The stream functions run their ``run.sh`` (uvicorn, as under the Lambda Web Adapter).
Every adapter a setting can select is built inside the artifact.

Deselected unless ``SAM_SMOKE=1`` (``make test``, ``make sam-smoke``): see conftest.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tanda.contract import ErrorResponse
from tanda.snapstart import LWA_AFTER_RESTORE_PATH, LWA_BEFORE_CHECKPOINT_PATH
from tests.aws import create_table_from_template

from . import sam
from .sam import (
    FUNCTIONS,
    PYTHON_FUNCTIONS,
    REPO,
    RESOLVED,
    ROUTE_EVENTS,
    STREAM_FUNCTIONS,
    STREAM_REQUESTS,
    artifact_path,
    function_environment,
    probe,
)

pytestmark = pytest.mark.sam


def assert_error_shape(body: str, status: int) -> None:
    error = ErrorResponse.model_validate_json(body)
    assert error.error.code, body
    assert "Traceback" not in body and "File " not in body, body
    assert status == 401, (status, body)


# --- fixtures: tools and the two builds, once per session ----------------------------------


@pytest.fixture(scope="session")
def runtime_stand_in() -> Path:
    return sam.ensure_runtime_stand_in()


@pytest.fixture(scope="session")
def lint() -> subprocess.CompletedProcess[str]:
    return sam.sam("validate", "--lint", "--template-file", str(REPO / "template.yaml"))


@pytest.fixture(scope="session")
def arm64_build() -> Path:
    return sam.build("arm64")


@pytest.fixture(scope="session")
def host_build() -> Path:
    return sam.build(sam.host_architecture())


# --- the template and the builds -----------------------------------------------------------


def test_sam_validate_lint_passes(lint: subprocess.CompletedProcess[str]) -> None:
    assert "is a valid SAM Template" in lint.stdout + lint.stderr


def test_the_layer_requirements_are_current_before_building() -> None:
    # The build installs the committed file: it must be what pyproject.toml exports.
    script = REPO / "infra" / "scripts" / "layer_requirements.py"
    check = subprocess.run(
        [str(sam.python312()), str(script), "--check"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr


ELF_MACHINES = {183: "arm64", 62: "x86_64"}  # e_machine: EM_AARCH64, EM_X86_64


def native_libraries(build: Path) -> dict[str, str]:
    """Every ELF shared object of the build → its architecture."""
    found = {}
    for path in build.rglob("*.so*"):
        header = path.read_bytes()[:20]
        if header[:4] == b"\x7fELF":
            machine = int.from_bytes(header[18:20], "little")
            found[str(path.relative_to(build))] = ELF_MACHINES.get(machine, str(machine))
    return found


@pytest.mark.parametrize("architecture", ["arm64", "host"])
def test_every_native_library_is_built_for_the_function_architecture(
    architecture: str, request: pytest.FixtureRequest
) -> None:
    # Given `sam build` without a container on an x86_64 host,
    build: Path = request.getfixturevalue(
        "arm64_build" if architecture == "arm64" else "host_build"
    )
    wanted = "arm64" if architecture == "arm64" else sam.host_architecture()

    # when every shared object it installed is read,
    libraries = native_libraries(build)

    # then each is for the function's architecture (pip fetched that platform's wheels: no
    # source build fell back to the host's compiler), and the compiled packages are there.
    assert {lib: arch for lib, arch in libraries.items() if arch != wanted} == {}
    for package in ("pydantic_core", "cryptography", "apsw", "Stemmer", "sqlite_vec", "_cffi"):
        assert any(package in lib for lib in libraries), f"{package}: no native library"


# --- every function, imported and invoked from the host build ------------------------------


@pytest.fixture(scope="module")
def smoke_dynamodb() -> Iterator[str]:
    """A DynamoDB on loopback (moto's server) with the template's tables under the smoke's
    names: a request that presents a key reads its tenant's status from the Store (issue 27), as
    deployed. Its endpoint, for ``AWS_ENDPOINT_URL_DYNAMODB``."""
    import boto3
    from moto.server import ThreadedMotoServer

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        client = boto3.client(
            "dynamodb",
            endpoint_url=endpoint,
            region_name=sam.REGION,
            aws_access_key_id="smoke",
            aws_secret_access_key="smoke",
        )
        create_table_from_template(client, "TandaTable", RESOLVED["TANDA_DYNAMODB_TABLE"])
        create_table_from_template(
            client, "ReceiptsTable", RESOLVED["TANDA_DYNAMODB_RECEIPTS_TABLE"]
        )
        yield endpoint
    finally:
        server.stop()


@pytest.mark.parametrize("name", PYTHON_FUNCTIONS)
def test_each_function_imports_primes_and_answers_in_a_clean_python_312(
    name: str,
    host_build: Path,
    runtime_stand_in: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    # Given the built function, its layers and the runtime's own packages, nothing else (and,
    # for the one event that presents a key, the Store it reads the tenant's status from),
    handler = FUNCTIONS[name]["Handler"]
    assert handler == "app.handler", handler
    events = sam.function_events(name)

    # when a clean Python 3.12 imports it, runs its SnapStart hooks and invokes it (the agent
    # step also imports the MCP client it opens only for a request naming an MCP server),
    spec: dict[str, Any] = {"snapstart": True, "events": events}
    if name == "AgentStepFunction":
        spec["imports"] = list(AGENT_STEP_LAZY_IMPORTS)
    environment = None
    if any(sent == "mcp_tools_list_post" for sent, _ in ROUTE_EVENTS.get(name, [])):
        environment = {"AWS_ENDPOINT_URL_DYNAMODB": request.getfixturevalue("smoke_dynamodb")}
    out = probe(host_build, name, runtime_stand_in, tmp_path, spec, environment=environment)

    # then it ran from the artifact (not from a venv), under 3.12,
    assert out["python"].startswith("3.12."), out["python"]
    for module, file in out["module_files"].items():
        assert file is None or str(host_build) in file or str(runtime_stand_in) in file, module
    # the lazily imported modules come from the artifact too (issue 25: the MCP client),
    for module, file in out["imports"].items():
        assert file is not None and str(host_build) in file, (module, file)
    # registered its hooks with the runtime (priming imported every module it names),
    assert out["before_snapshot_hooks"] == 1 and out["after_restore_hooks"] == 1
    # and answered each event as deployed.
    for sent, result in zip(events, out["events"], strict=True):
        assert "error" not in result, result.get("error")
        response = result["response"]
        if name in ROUTE_EVENTS:
            expected = dict(ROUTE_EVENTS[name])[sent["name"]]
            status = response["statusCode"]
            if expected == 200:
                assert status == 200, response
                assert answers_as_deployed(sent["name"], json.loads(response["body"]))
            else:
                assert_error_shape(response["body"], status)
        else:
            assert isinstance(response, dict), response


AGENT_STEP_LAZY_IMPORTS = (
    "mcp",
    "mcp.client.streamable_http",
    "mcp.client.stdio",
    "tanda.adapters.mcp_source",
    "tanda.adapters.ckan_portal",
)
"""Issue 25: what the agent step imports only when a request names a portal or MCP server."""


def answers_as_deployed(event: str, body: dict[str, Any]) -> bool:
    """A 200 is the route's own answer: the health check, or the MCP server's tools."""
    if event == "mcp_tools_list_post":
        tools = {tool["name"] for tool in body["result"]["tools"]}
        return {"search", "list_sources", "get_node", "verify_quote", "validate_answer"} <= tools
    return bool(body["status"] == "ok")


def wiring_adapter_modules() -> set[str]:
    """Every adapter module tanda.wiring can import (one per selectable setting value)."""
    source = (REPO / "shared" / "tanda" / "wiring.py").read_text(encoding="utf-8")
    return set(re.findall(r"from (tanda\.adapters\.\w+) import", source))


def adapter_matrix(scenarios: Path) -> list[dict[str, Any]]:
    unreachable = "http://127.0.0.1:9/v1"
    arn = RESOLVED["TANDA_QUERY_STATE_MACHINE_ARN"]
    aws = {"store": "dynamodb", "dynamodb_table": "tanda-smoke"}
    cases = [
        ("store sqlite", {"store": "sqlite"}, "store"),
        ("store dynamodb", aws, "store"),
        (
            "progress dynamodb",
            {**aws, "runner": "stepfunctions", "query_state_machine_arn": arn},
            "progress",
        ),
        ("progress memory", {"runner": "inprocess"}, "progress"),
        ("originals local", {}, "originals"),
        ("originals s3", {"uploads_bucket": RESOLVED["TANDA_UPLOADS_BUCKET"]}, "originals"),
        ("index sqlite", {"index": "sqlite"}, "search_index"),
        (
            "index opensearch",
            {
                "index": RESOLVED["TANDA_INDEX"],
                "opensearch_service": "aoss",
                "opensearch_region": sam.REGION,
            },
            "search_index",
        ),
        ("model offline", {"model": "offline"}, "model"),
        ("model scripted", {"model": f"scripted:{scenarios}"}, "model"),
        ("model openai", {"model": f"openai:{unreachable}#smoke"}, "model"),
        ("model bedrock", {"model": "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0"}, "model"),
        ("runner inprocess", {"runner": "inprocess"}, "runner"),
        (
            "runner stepfunctions",
            {"runner": "stepfunctions", "query_state_machine_arn": arn},
            "runner",
        ),
        ("embedder none", {"embedder": "none"}, "embedder"),
        ("embedder openai", {"embedder": f"openai:{unreachable}#smoke"}, "embedder"),
        ("embedder bedrock", {"embedder": "bedrock:amazon.titan-embed-text-v2:0"}, "embedder"),
        ("reranker none", {"reranker": "none"}, "reranker"),
        ("reranker lexical", {"reranker": "lexical"}, "reranker"),
        ("reranker tei", {"reranker": f"tei:{unreachable}"}, "reranker"),
        ("reranker cohere", {"reranker": f"cohere:{unreachable}#smoke"}, "reranker"),
        ("reranker bedrock", {"reranker": "bedrock:amazon.rerank-v1:0"}, "reranker"),
        ("authenticator", {}, "authenticator"),
        (
            "sources",
            {
                "portals": {"acme": {"name": "smoke", "base_url": unreachable}},
                "mcp_servers": {
                    "acme": [{"name": "p", "transport": "streamable_http", "url": unreachable}]
                },
            },
            "sources",
        ),
    ]
    return [{"name": n, "settings": s, "build": b} for n, s, b in cases]


def test_every_adapter_a_setting_selects_is_built_inside_the_artifact(
    host_build: Path, runtime_stand_in: Path, tmp_path: Path
) -> None:
    # Given the artifact's layers (the same for every function) and every value of the
    # settings tanda.wiring reads,
    matrix = adapter_matrix(REPO / "tests" / "scenarios")
    spec = {"module": "tanda.wiring", "adapters": matrix}

    # when each adapter is built there (clients only: nothing connects),
    out = probe(host_build, "HealthFunction", runtime_stand_in, tmp_path, spec)

    # then every one builds, and every adapter module wiring can import was imported.
    failed = {a["name"]: a["error"] for a in out["adapters"] if "error" in a}
    assert failed == {}, "\n".join(f"{k}:\n{v}" for k, v in failed.items())
    assert len(out["adapters"]) == len(matrix)
    assert wiring_adapter_modules() - set(out["modules"]) == set()


# --- the stream functions: run.sh, as the Lambda Web Adapter starts it ---------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def stream_function(
    request: pytest.FixtureRequest, host_build: Path, runtime_stand_in: Path, tmp_path: Path
) -> Iterator[str]:
    """The function's ``run.sh`` started as the adapter starts it; yields the base URL."""
    name: str = request.param
    folder = host_build / name
    # `python` is the runtime's 3.12 without site-packages: only what the artifact carries.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "python"
    wrapper.write_text(f'#!/bin/sh\nexec "{sam.python312()}" -S -B "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    port = free_port()
    env = function_environment(name, tmp_path / "home")
    env.update(
        PATH=f"{bin_dir}{os.pathsep}/usr/bin:/bin",
        PORT=str(port),
        LAMBDA_TASK_ROOT=str(folder),
        PYTHONPATH=os.pathsep.join(artifact_path(host_build, name, runtime_stand_in)[1:]),
    )
    log = (tmp_path / "uvicorn.log").open("w")
    process = subprocess.Popen(
        [str(folder / FUNCTIONS[name]["Handler"])],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # the adapter's readiness check: a TCP connect (tcp protocol)
            if process.poll() is not None:
                raise AssertionError(f"{name}: run.sh exited\n{log_text(tmp_path)}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"{name}: no server\n{log_text(tmp_path)}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
        log.close()


def log_text(tmp_path: Path) -> str:
    return (tmp_path / "uvicorn.log").read_text(encoding="utf-8")[-4000:]


@pytest.mark.parametrize("stream_function", STREAM_FUNCTIONS, indirect=True)
def test_each_stream_function_serves_from_its_run_script(
    stream_function: str, request: pytest.FixtureRequest
) -> None:
    name = request.node.callspec.params["stream_function"]
    path, body = STREAM_REQUESTS[name]
    with httpx.Client(base_url=stream_function, timeout=30) as client:
        # Given the server the adapter would proxy to, when it gets the SnapStart hooks,
        # then they succeed (the adapter fails the snapshot or the restore on a non-2xx);
        assert client.post(LWA_BEFORE_CHECKPOINT_PATH).status_code == 204
        assert client.post(LWA_AFTER_RESTORE_PATH).status_code == 204
        # and a request without credentials gets the error shape.
        response = client.post(path, json=body)
    assert_error_shape(response.text, response.status_code)
