"""The SAM CLI, its builds, and running a built function the way Lambda runs it — for the
artifact smoke test (``test_sam_artifact.py``) and ``bench/coldstart.py``.

Everything lives under ``.tanda/sam/`` (not committed) and is made from scratch when missing:

- ``venv/``     the SAM CLI (``aws-sam-cli`` from PyPI) in its own Python 3.12 venv, never in the
                project's venv (its pins would fight the dev tools');
- ``runtime/``  what the Lambda Python 3.12 runtime provides beside the layers (boto3,
                snapshot-restore-py: ``RUNTIME_PROVIDED`` of infra/scripts/layer_requirements.py),
                pip-installed for the host;
- ``build-<architecture>/``  ``sam build`` output, one per architecture; ``cache/`` its cache.

Python 3.12 is the Lambda runtime's version: ``SAM_SMOKE_PYTHON`` if set, else pyenv's
``~/.pyenv/versions/3.12.*`` (on these machines), else a ``python3.12`` on PATH.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from samtranslator.yaml_helper import yaml_parse

REPO = Path(__file__).resolve().parents[2]
HOME = REPO / ".tanda" / "sam"
VENV = HOME / "venv"
RUNTIME = HOME / "runtime"
CACHE = HOME / "cache"
SAM_CLI = "aws-sam-cli==1.170.0"
REGION = "us-east-1"
HOST_ARCHITECTURE = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}
PROBE = Path(__file__).with_name("artifact_probe.py")
EVENTS = Path(__file__).with_name("events")
TEMPLATE: dict[str, Any] = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
FUNCTIONS = {
    name: resource["Properties"]
    for name, resource in TEMPLATE["Resources"].items()
    if resource["Type"] == "AWS::Serverless::Function"
}
LAYERS = ("DepsLayer", "TandaLayer")
STREAM_FUNCTIONS = sorted(n for n, p in FUNCTIONS.items() if p["Handler"].endswith(".sh"))
PYTHON_FUNCTIONS = sorted(set(FUNCTIONS) - set(STREAM_FUNCTIONS))


class SmokeSetupError(RuntimeError):
    """The smoke test could not get its tools: a setup failure, reported as such."""


def python312() -> Path:
    """A CPython 3.12 interpreter: ``SAM_SMOKE_PYTHON``, pyenv's newest 3.12, or PATH's."""
    candidates = [os.environ.get("SAM_SMOKE_PYTHON", "")]
    candidates += sorted(
        glob.glob(os.path.expanduser("~/.pyenv/versions/3.12.*/bin/python3.12")), reverse=True
    )
    candidates.append(shutil.which("python3.12") or "")
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 12))"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.stdout.strip() == "True":
            return Path(candidate)
    raise SmokeSetupError(
        "no Python 3.12 found (pyenv ~/.pyenv/versions/3.12.*, python3.12 on PATH, or set "
        "SAM_SMOKE_PYTHON): the Lambda runtime is 3.12, the smoke test imports under it"
    )


def run(command: list[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(c) for c in command], capture_output=True, text=True, check=False, **kwargs
    )  # type: ignore[call-overload]
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-30:])
        raise SmokeSetupError(f"{' '.join(map(str, command[:4]))} ... failed:\n{tail}")
    completed: subprocess.CompletedProcess[str] = result
    return completed


def ensure_sam_cli() -> Path:
    """``.tanda/sam/venv/bin/sam`` of the pinned version, installed when missing."""
    stamp = VENV / ".installed"
    if not (stamp.is_file() and stamp.read_text() == SAM_CLI):
        shutil.rmtree(VENV, ignore_errors=True)
        run([python312(), "-m", "venv", VENV])
        run([VENV / "bin" / "python", "-m", "pip", "install", "--quiet", SAM_CLI])
        stamp.write_text(SAM_CLI)
    return VENV / "bin" / "sam"


def ensure_runtime_stand_in() -> Path:
    """A folder with what the Lambda Python runtime provides beside the layers."""
    sys.path.insert(0, str(REPO / "infra" / "scripts"))
    try:
        from layer_requirements import RUNTIME_PROVIDED
    finally:
        sys.path.pop(0)
    wanted = " ".join(sorted(RUNTIME_PROVIDED))
    stamp = RUNTIME / ".installed"
    if not (stamp.is_file() and stamp.read_text() == wanted):
        shutil.rmtree(RUNTIME, ignore_errors=True)
        run(
            [
                python312(),
                *("-m", "pip", "install", "--quiet", "--no-compile", "--target", RUNTIME),
                *sorted(RUNTIME_PROVIDED),
            ]
        )
        stamp.write_text(wanted)
    return RUNTIME


def sam_env() -> dict[str, str]:
    """SAM CLI's environment: no telemetry, and Python 3.12 first on PATH (its pip builder
    looks for the runtime's interpreter there)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TANDA_"))}
    env["SAM_CLI_TELEMETRY"] = "0"
    env["PATH"] = f"{python312().parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def sam(*args: str) -> subprocess.CompletedProcess[str]:
    return run([ensure_sam_cli(), *args, "--region", REGION], cwd=REPO, env=sam_env())


def build(architecture: str) -> Path:
    """``sam build`` (no container) of every function and layer for ``architecture``."""
    build_dir = HOME / f"build-{architecture}"
    sam(
        "build",
        "--template-file",
        str(REPO / "template.yaml"),
        "--build-dir",
        str(build_dir),
        "--cache-dir",
        str(CACHE),
        "--parameter-overrides",
        f"Architecture={architecture}",
    )
    # What is deployed is the build folder as sam leaves it: no bytecode (Lambda cannot write it
    # under /opt either). Earlier probes may have left some behind in an incremental build.
    for cache in list(build_dir.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)
    return build_dir


def host_architecture() -> str:
    import platform

    machine = platform.machine().lower()
    if machine not in HOST_ARCHITECTURE:
        raise SmokeSetupError(f"no Lambda architecture for this host ({machine})")
    return HOST_ARCHITECTURE[machine]


# --- running a built function ---------------------------------------------------------------

# What each function is asked, and what it must answer. Guarded routes get no credentials: the
# 401 goes through authentication, the error mapping and the whole import graph of the route.
ROUTE_EVENTS: dict[str, list[tuple[str, int]]] = {
    "HealthFunction": [("healthz_get", 200)],
    "QueryV2Function": [("query_v2_post", 401)],
    "QueryV1Function": [("query_v1_post", 401)],
    "ConversationsFunction": [("conversations_post", 401), ("conversation_get", 401)],
    "PlaygroundFunction": [("playground_post", 401)],
    "V1SearchFunction": [("v1_search_post", 401)],
    "V1AskFunction": [("v1_ask_post", 401)],
    "V1CrossCheckFunction": [("v1_cross_check_post", 401), ("v1_cross_check_get", 401)],
    "V1DocumentsFunction": [("v1_documents_get", 401)],
    # Without a key: the error shape; with the smoke key: the MCP server lists its tools.
    "McpFunction": [("mcp_post", 401), ("mcp_tools_list_post", 200)],
}
STREAM_REQUESTS = {
    "QueryV2StreamFunction": ("/query/v2/stream", {"query": "Berapa anggaran?"}),
    "QueryV1StreamFunction": ("/query/stream", {"query": "Berapa anggaran?"}),
}


def future(seconds: float) -> float:
    return time.time() + seconds


# Minimal valid states of the steps that answer without a model call or an index (the offline
# model); the agent and guard steps are covered by their SnapStart priming (every stage module
# they import lazily) and by the adapter matrix.
STEP_EVENTS: dict[str, dict[str, Any]] = {
    "JudgeBatchStepFunction": {
        "batch_index": 0,
        "items": [],
        "passages": {},
        "deadline_at": "future:30",
        "checks_until": "future:20",
        "calls": 0,
        "timeout_s": 20,
    },
    "FramingCheckStepFunction": {
        "work": {
            "mode": "annotate-v2",
            "question": "Berapa anggaran yang ditetapkan?",
            "deadline_at": "future:30",
            "checks_until": "future:20",
            "timeouts": {"agent_s": 1, "checks_s": 20, "guard_s": 3},
            "segments": [],
            "passages": {},
            "framing_calls": 0,
        }
    },
}

# Values for the template's environment variables that CloudFormation would resolve.
PUBLIC_PEM = (
    Ed25519PrivateKey.generate()
    .public_key()
    .public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    .decode()
)
RESOLVED = {
    "TANDA_DYNAMODB_TABLE": "tanda-smoke",
    "TANDA_DYNAMODB_RECEIPTS_TABLE": "tanda-smoke-receipts",
    "TANDA_INDEX": "opensearch:https://search.smoke.invalid",
    "TANDA_OPENSEARCH_SERVICE": "aoss",
    "TANDA_OPENSEARCH_REGION": REGION,
    "TANDA_QUERY_STATE_MACHINE_ARN": (
        f"arn:aws:states:{REGION}:123456789012:stateMachine:tanda-smoke-query"
    ),
    "TANDA_CROSS_CHECK_STATE_MACHINE_ARN": (
        f"arn:aws:states:{REGION}:123456789012:stateMachine:tanda-smoke-cross-check"
    ),
    "TANDA_UPLOADS_BUCKET": "tanda-smoke-uploads",
    "TANDA_BULK_INGEST_STATE_MACHINE_ARN": (
        f"arn:aws:states:{REGION}:123456789012:stateMachine:tanda-smoke-bulk-ingest"
    ),
    "TANDA_API_KEY_HASHES": hashlib.sha256(b"smoke-unused-key").hexdigest(),
    "TANDA_V1_API_KEY_HASHES": json.dumps(
        {
            hashlib.sha256(b"smoke-v1").hexdigest(): "t",
            hashlib.sha256(b"dip_test_smoke-mcp").hexdigest(): "t",  # events/mcp_tools_list_post
        }
    ),
    "TANDA_JWT_ISSUERS": json.dumps({"https://idp.smoke.invalid": "tenant-smoke"}),
    "TANDA_JWT_PUBLIC_KEYS": PUBLIC_PEM,
}
# !If [HasModelApiKey, ..., !Ref AWS::NoValue]: no key; !If [HasRerankMinScore, ...]: the
# parameter is empty by default, so the application's default floor applies; !If
# [HasSourcePortals / HasSourceMcpServers, ...]: no portal, no MCP server (issue 25).
DROPPED = {"TANDA_MODEL_API_KEY", "TANDA_RERANK_MIN_SCORE", "TANDA_PORTALS", "TANDA_MCP_SERVERS"}


def function_environment(name: str, home: Path) -> dict[str, str]:
    """The function's environment as deployed with default parameters: Globals + its own
    variables, parameters at their defaults, resolved references replaced by local values, and
    AWS endpoints pointed at a closed loopback port (nothing may leave this machine)."""
    variables = {
        **TEMPLATE["Globals"]["Function"]["Environment"]["Variables"],
        **FUNCTIONS[name].get("Environment", {}).get("Variables", {}),
    }
    parameters = TEMPLATE["Parameters"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    for key, value in variables.items():
        if key in DROPPED:
            continue
        if isinstance(value, str | int | float):
            env[key] = str(value)
        elif isinstance(value, dict) and set(value) == {"Ref"} and value["Ref"] in parameters:
            env[key] = str(parameters[value["Ref"]]["Default"])
        elif key in RESOLVED:
            env[key] = RESOLVED[key]
        else:
            raise AssertionError(f"{name}: give the smoke test a local value for {key}")
    env.update(
        TANDA_HOME=str(home),
        AWS_REGION=REGION,
        AWS_DEFAULT_REGION=REGION,
        AWS_ACCESS_KEY_ID="smoke",
        AWS_SECRET_ACCESS_KEY="smoke",  # not a secret: nothing is called
        AWS_ENDPOINT_URL="http://127.0.0.1:9",
        AWS_LAMBDA_FUNCTION_NAME=f"tanda-smoke-{name}",
        AWS_LAMBDA_INITIALIZATION_TYPE="snap-start",
    )
    return env


def artifact_path(build: Path, name: str, runtime: Path) -> list[str]:
    """``sys.path`` as Lambda gives it: the function, its layers (under /opt/python), then what
    the runtime provides."""
    return (
        [str(build / name)] + [str(build / layer / "python") for layer in LAYERS] + [str(runtime)]
    )


def probe(
    build: Path,
    name: str,
    runtime: Path,
    tmp: Path,
    spec: dict[str, Any],
    *,
    write_bytecode: bool = False,
    environment: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run ``artifact_probe.py`` for function ``name`` of ``build``; its JSON result
    (``environment``: variables over the function's own, e.g. a local AWS endpoint)."""
    spec = {"path": artifact_path(build, name, runtime), "module": "app", **spec}
    spec_file = tmp / f"{name}.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    result = subprocess.run(
        # -I -S: no site-packages, no PYTHON* variables, no current folder; -B: no bytecode
        # written into the artifact (Lambda compiles every cold start: /opt is read-only).
        [str(python312()), "-I", "-S", *([] if write_bytecode else ["-B"]), PROBE, spec_file],
        cwd=tmp,
        env={**function_environment(name, tmp / "home"), **(environment or {})},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, f"{name} failed in the artifact:\n{result.stderr[-4000:]}"
    output: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return output


def in_future(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with every ``"future:SECONDS"`` (nested ones too) made that far from now."""
    return {
        key: future(float(value.removeprefix("future:")))
        if isinstance(value, str) and value.startswith("future:")
        else in_future(value)
        if isinstance(value, dict)
        else value
        for key, value in state.items()
    }


def recorded_event(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text(encoding="utf-8"))
    return event


def function_events(name: str) -> list[dict[str, Any]]:
    """The events the probe sends the function: its recorded API Gateway events, or its step's
    minimal state, or none."""
    if name in ROUTE_EVENTS:
        return [{"name": event, "event": recorded_event(event)} for event, _ in ROUTE_EVENTS[name]]
    if name in STEP_EVENTS:
        return [{"name": "state", "event": in_future(STEP_EVENTS[name])}]
    return []
