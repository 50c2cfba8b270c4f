"""Cold-start import cost of each Lambda entry point, beside a minimal Powertools handler.

Every sample is a fresh interpreter (a new Lambda execution environment pays the same imports):
the clock starts after interpreter start-up, imports the entry module from its function folder
and stops; then, where the entry has a Mangum ``handler``, it is invoked once with a synthetic
API Gateway REST event to prove it answers and to time the first invocation. The reference is
``aws_lambda_powertools.event_handler.APIGatewayRestResolver`` serving ``GET /healthz``, written
to a temporary folder and measured the same way.

Run from the repository root::

    .venv/bin/python bench/coldstart.py [--runs 5]

Writes ``bench/results/coldstart.json``. Local figures, not Lambda's: no layer unzip, bytecode
already cached, a different CPU - use them to compare entries, not as absolute budgets.

``artifact`` (issue 12) measures the functions as ``sam build`` makes them (``.tanda/sam/
build-<host arch>``, built when missing: ``make sam-smoke`` builds it too), each sample a clean
Python 3.12 with only the function's folder, its layers and the runtime's own packages on
``sys.path`` (``tests/infra/artifact_probe.py``), split the way SnapStart splits a cold start:

- ``import_ms`` + ``prime_ms`` = ``snapshot_eligible_init_ms``: the entry module's import and the
  before-snapshot hook (``tanda.snapstart``) - done once per published version, in the snapshot;
- ``after_restore_ms`` + ``first_invoke_after_restore_ms``: what a restored environment still
  pays in code (Lambda's own restore time comes on top and cannot be measured here);
- ``on_demand_cold_ms`` = ``import_ms`` + ``first_invoke_cold_ms``: the same without SnapStart.

As deployed, the artifact has no bytecode (SAM does not compile it, Lambda cannot write it under
``/opt``), so every sample compiles what it imports; ``import_with_bytecode_ms`` shows the import
with ``.pyc`` files present.

Each cold import is paired with a reference import sampled right after it (``vs_powertools``: the
median of the pairs' ratios). ``pydantic_floor`` pairs the same way a handler that imports only
pydantic and one deferred model: what no handler whose state is a pydantic model can go under.
``--before-build DIR`` measures an earlier build (e.g. the branch point's) in the same run, before
this one, and writes it as ``artifact_before``::

    .venv/bin/python bench/coldstart.py --before-build .tanda/sam/build-before-x86_64 \
        --before-note "main 455b86c"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
RESULTS = REPO / "bench" / "results" / "coldstart.json"
REFERENCE = "powertools_rest_resolver"
MCP_SDK = "mcp.server.mcpserver"

POWERTOOLS_HANDLER = """\
from aws_lambda_powertools.event_handler import APIGatewayRestResolver

app = APIGatewayRestResolver()


@app.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


def handler(event, context):
    return app.resolve(event, context)
"""

PYDANTIC_FLOOR_HANDLER = """\
from pydantic import BaseModel, ConfigDict, Field


class State(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    batch_index: int = Field(ge=0)
"""
"""The least a handler whose state is a pydantic model imports: pydantic and one deferred model,
measured like the reference (issue 24: the floor under a step handler's import)."""

# Runs in the fresh interpreter: argv = [module, folder-or-"", method, path].
PROBE = """\
import json, sys, time
module, folder, method, path = sys.argv[1:5]
if folder:
    sys.path.insert(0, folder)
start = time.perf_counter()
import importlib
entry = importlib.import_module(module)
import_ms = (time.perf_counter() - start) * 1000
out = {"import_ms": import_ms}
handler = getattr(entry, "handler", None)
if method == "STEP" and callable(handler):
    # A Step Functions task: path is the state (JSON); *_at / *_until are seconds from now.
    class Context:
        function_name = "coldstart"
        aws_request_id = "00000000-0000-0000-0000-000000000000"
    event = json.loads(path)
    for key in list(event):
        if key.endswith(("_at", "_until")):
            event[key] += time.time()
    start = time.perf_counter()
    response = handler(event, Context())
    out["first_invoke_ms"] = (time.perf_counter() - start) * 1000
    out["status"] = "ok" if isinstance(response, dict) else repr(response)
elif method and callable(handler):
    class Context:
        function_name = "coldstart"
        memory_limit_in_mb = 1024
        invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:coldstart"
        aws_request_id = "00000000-0000-0000-0000-000000000000"
        def get_remaining_time_in_millis(self):
            return 29000
    host = "example.execute-api.us-east-1.amazonaws.com"
    event = {
        "resource": path, "path": path, "httpMethod": method,
        "headers": {"Host": host, "Accept": "*/*", "Content-Type": "application/json"},
        "multiValueHeaders": {"Host": [host], "Accept": ["*/*"],
                              "Content-Type": ["application/json"]},
        "queryStringParameters": None, "multiValueQueryStringParameters": None,
        "pathParameters": None, "stageVariables": None,
        "requestContext": {"resourcePath": path, "httpMethod": method, "path": "/v1" + path,
                           "stage": "v1", "requestId": "coldstart",
                           "identity": {"sourceIp": "203.0.113.7", "userAgent": "coldstart"}},
        "body": "{}" if method == "POST" else None, "isBase64Encoded": False,
    }
    start = time.perf_counter()
    response = handler(event, Context())
    out["first_invoke_ms"] = (time.perf_counter() - start) * 1000
    out["status"] = response["statusCode"]
print(json.dumps(out))
"""


def partner_auth_env() -> dict[str, str]:
    """Partner and /v1 auth configured (key hashes, one issuer and its public key), so a guarded
    route sent no credentials answers 401 like a deployed one, not 503 ``auth_not_configured``."""
    public_pem = (
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return {
        "TANDA_API_KEY_HASHES": hashlib.sha256(b"coldstart-unused-key").hexdigest(),
        "TANDA_JWT_ISSUERS": json.dumps({"https://idp.coldstart.example": "tenant-coldstart"}),
        "TANDA_JWT_PUBLIC_KEYS": public_pem,
        # /v1 keys too, so /mcp sent no key answers 401 (issue 16).
        "TANDA_V1_API_KEY_HASHES": json.dumps(
            {hashlib.sha256(b"dip_test_coldstart-unused").hexdigest(): "tenant-coldstart"}
        ),
    }


PARTNER_AUTH_ENV = partner_auth_env()


@dataclass(frozen=True)
class Entry:
    name: str
    module: str
    folder: Path | None
    # The synthetic request the handler answers once per sample, and the status it must give.
    method: str = ""
    path: str = ""
    expect_status: int | str | None = None


JUDGE_BATCH_STATE = json.dumps(
    {
        "batch_index": 0,
        "items": [],
        "passages": {},
        "deadline_at": 30,
        "checks_until": 20,
        "calls": 0,
        "timeout_s": 20,
    }
)
"""An empty judge batch: the first invocation validates the state, reads the settings, builds
the runtime's model and answers, without a model call (the offline model, no index)."""


def entries(reference_folder: Path) -> list[Entry]:
    found = [
        Entry("tanda.api.app", "tanda.api.app", None),
        Entry(REFERENCE, "app", reference_folder, "GET", "/healthz", 200),
        # Issue 16: what the official MCP SDK's server costs to import on its own.
        Entry(MCP_SDK, MCP_SDK, None),
    ]
    for app_file in sorted((REPO / "functions").glob("*/app.py")):
        route = app_file.parent.name
        if route == "health":
            found.append(Entry(route, "app", app_file.parent, "GET", "/healthz", 200))
        elif route == "mcp":
            # No credentials sent: the MCP endpoint answers through the error mapping (401).
            found.append(Entry(route, "app", app_file.parent, "POST", "/mcp", 401))
        elif route == "query_v2":
            # No credentials sent: the route must answer through the error mapping (401).
            found.append(Entry(route, "app", app_file.parent, "POST", "/query/v2", 401))
        else:
            # Stream routes are served by uvicorn under the Lambda Web Adapter (no handler);
            # the other routes are timed on import only.
            found.append(Entry(route, "app", app_file.parent))
    for app_file in sorted((REPO / "functions" / "steps").glob("*/app.py")):
        step = app_file.parent.name
        if step == "judge_batch":
            # Deferred work (state validators, settings, the model) shows in the first invoke.
            found.append(
                Entry(f"steps/{step}", "app", app_file.parent, "STEP", JUDGE_BATCH_STATE, "ok")
            )
        else:
            found.append(Entry(f"steps/{step}", "app", app_file.parent))
    return found


TARGETS = {"route": 2.0, "step": 1.5}
"""Issue 7: a route function under 2x the Powertools handler's import, a step under 1.5x."""


def sample(entry: Entry, workdir: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TANDA_"))}
    env["TANDA_HOME"] = str(workdir / "tanda-home")
    env.update(PARTNER_AUTH_ENV)
    command = [
        sys.executable,
        "-c",
        PROBE,
        entry.module,
        str(entry.folder or ""),
        entry.method,
        entry.path,
    ]
    started = time.perf_counter()
    result = subprocess.run(
        command, cwd=workdir, env=env, capture_output=True, text=True, timeout=120
    )
    process_ms = (time.perf_counter() - started) * 1000
    if result.returncode != 0:
        last = result.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{entry.name}: {last[0]}")
    measured: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    measured["process_ms"] = process_ms
    return measured


def measure(entry: Entry, runs: int, workdir: Path) -> dict[str, Any]:
    sample(entry, workdir)  # warm-up: bytecode cache and page cache, as on a reused host
    samples = [sample(entry, workdir) for _ in range(runs)]
    imports = [s["import_ms"] for s in samples]
    summary: dict[str, Any] = {
        "module": entry.module,
        "folder": shown(entry.folder) if entry.folder else None,
        "median_ms": round(statistics.median(imports), 1),
        "min_ms": round(min(imports), 1),
        "process_median_ms": round(statistics.median(s["process_ms"] for s in samples), 1),
    }
    if entry.method:
        statuses = sorted({s.get("status") for s in samples}, key=str)
        summary["first_invoke"] = {
            "request": "judge_batch: empty batch"
            if entry.method == "STEP"
            else f"{entry.method} {entry.path}",
            "median_ms": round(statistics.median(s["first_invoke_ms"] for s in samples), 1),
            "status": statuses[0] if len(statuses) == 1 else statuses,
            "expected_status": entry.expect_status,
            "ok": statuses == [entry.expect_status],
        }
    return summary


def shown(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def print_table(report: dict[str, Any]) -> None:
    rows = [(name, data) for name, data in report["entries"].items()]
    rows.append((f"{REFERENCE} (reference)", report["reference"][REFERENCE]))
    header = (
        f"{'entry':<36} {'import med':>10} {'min':>8} {'x ptools':>8} {'process':>8}  first invoke"
    )
    print(header)
    print("-" * len(header))
    for name, data in rows:
        if "error" in data:
            print(f"{name:<36} {'-':>10} {'-':>8} {'-':>8} {'-':>8}  {data['error']}")
            continue
        ratio = data.get("ratio_to_powertools", 1.0)
        invoke = data.get("first_invoke")
        invoke_text = (
            f"{invoke['request']} -> {invoke['status']} in {invoke['median_ms']:.1f} ms"
            + ("" if invoke["ok"] else f"  (EXPECTED {invoke['expected_status']})")
            if invoke
            else ""
        )
        print(
            f"{name:<36} {data['median_ms']:>8.1f}ms {data['min_ms']:>6.1f}ms "
            f"{ratio:>7.2f}x {data['process_median_ms']:>6.1f}ms  {invoke_text}"
        )
    print(f"\n{report['runs']} runs each, median; python {report['python']} on {report['machine']}")


def median(samples: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(s[key] for s in samples), 1)


def first_invoke(samples: list[dict[str, Any]], key: str) -> float | None:
    """The median ``key`` of each sample's first event, if the function was sent one."""
    if not samples[0]["events"]:
        return None
    return round(statistics.median(s["events"][0][key] for s in samples), 1)


def artifact_report(
    runs: int, only: list[str] | None = None, build: Path | None = None
) -> dict[str, Any]:
    """Every Python-runtime function of the host build (or ``only`` these; or of ``build``, an
    earlier one), measured as SnapStart splits it, and each cold import paired with a Powertools
    reference import; and pydantic's floor (:data:`PYDANTIC_FLOOR_HANDLER`) paired the same way."""
    import shutil

    from tests.infra import sam

    if build is None:
        build = sam.HOME / f"build-{sam.host_architecture()}"
        if not (build / "template.yaml").is_file():
            build = sam.build(sam.host_architecture())
    runtime = sam.ensure_runtime_stand_in()
    functions: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="tanda-coldstart-artifact-") as tmp:
        workdir = Path(tmp)
        for name in sam.PYTHON_FUNCTIONS:
            if only and name not in only:
                continue
            events = sam.function_events(name)[:1]
            restored = [
                sam.probe(build, name, runtime, workdir, {"snapstart": True, "events": events})
                for _ in range(runs)
            ]
            cold: list[dict[str, Any]] = []
            reference: list[dict[str, Any]] = []
            for _ in range(runs):  # each cold sample paired with a reference sample (issue 24)
                cold.append(
                    sam.probe(build, name, runtime, workdir, {"snapstart": False, "events": events})
                )
                reference.append(reference_probe(build, runtime, workdir))
            sam.probe(build, name, runtime, workdir, {}, write_bytecode=True)
            compiled = [sam.probe(build, name, runtime, workdir, {}) for _ in range(runs)]
            for cache in list(build.rglob("__pycache__")):  # back to the deployed artifact
                shutil.rmtree(cache, ignore_errors=True)

            entry: dict[str, Any] = {"first_invoke": events[0]["name"] if events else None}
            entry["vs_powertools"] = paired_ratio(name, cold, reference)
            for unit in ("", "_cpu"):  # wall clock, then this process's CPU time
                figures = {
                    "import_ms": median(restored + cold, f"import{unit}_ms"),
                    "import_with_bytecode_ms": median(compiled, f"import{unit}_ms"),
                    "prime_ms": median(restored, f"before_snapshot{unit}_ms"),
                    "after_restore_ms": median(restored, f"after_restore{unit}_ms"),
                    "first_invoke_after_restore_ms": first_invoke(restored, f"invoke{unit}_ms"),
                    "first_invoke_cold_ms": first_invoke(cold, f"invoke{unit}_ms"),
                }
                figures["snapshot_eligible_init_ms"] = round(
                    figures["import_ms"] + figures["prime_ms"], 1
                )
                if events:
                    figures["on_demand_cold_ms"] = round(
                        figures["import_ms"] + (figures["first_invoke_cold_ms"] or 0), 1
                    )
                    figures["after_restore_total_ms"] = round(
                        figures["after_restore_ms"]
                        + (figures["first_invoke_after_restore_ms"] or 0),
                        1,
                    )
                entry["wall" if not unit else "cpu"] = figures
            functions[name] = entry
        floor: list[dict[str, Any]] = []
        reference = []
        for _ in range(runs):  # paired as the functions are
            floor.append(handler_probe(build, runtime, workdir, PYDANTIC_FLOOR_HANDLER))
            reference.append(reference_probe(build, runtime, workdir))
    python = sam.python312()
    return {
        "build": shown(build),
        "python": subprocess.run(
            [str(python), "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip(),
        "runs": runs,
        "measure": "fresh `python3.12 -I -S -B` per sample with only the built function, its "
        "layers and the runtime's packages on sys.path; medians of wall time (`wall`) and of "
        "the process's CPU time (`cpu`, what a loaded host disturbs least); `vs_powertools`: "
        "each cold import over a bare Powertools REST resolver's import sampled right after it "
        "the same way, the median of the pairs (issue 24 targets: a step 1.5x, a route 2x)",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "functions": functions,
        "pydantic_floor": {
            "handler": "pydantic and one deferred model (PYDANTIC_FLOOR_HANDLER in "
            "bench/coldstart.py): the least a handler whose state is a pydantic model imports",
            **floor_ratio(floor, reference),
        },
    }


def reference_probe(build: Path, runtime: Path, workdir: Path) -> dict[str, Any]:
    """The Powertools REST resolver handler (:data:`POWERTOOLS_HANDLER`) imported the way
    ``sam.probe`` imports a built function: a clean ``python3.12 -I -S -B`` with only its folder,
    the built layers (Powertools is in the dependency layer) and the runtime's packages."""
    return handler_probe(build, runtime, workdir, POWERTOOLS_HANDLER)


def handler_probe(build: Path, runtime: Path, workdir: Path, source: str) -> dict[str, Any]:
    """A handler written as ``source`` (``app.py``), imported as :func:`reference_probe` says."""
    from tests.infra import sam

    folder = workdir / f"handler-{hashlib.sha256(source.encode()).hexdigest()[:12]}"
    folder.mkdir(exist_ok=True)
    (folder / "app.py").write_text(source, encoding="utf-8")
    spec = {
        "path": [str(folder)]
        + [str(build / layer / "python") for layer in sam.LAYERS]
        + [str(runtime)],
        "module": "app",
        "snapstart": False,
        "events": [],
    }
    spec_file = workdir / f"{folder.name}.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    result = subprocess.run(
        [str(sam.python312()), "-I", "-S", "-B", str(sam.PROBE), str(spec_file)],
        cwd=workdir,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    loaded: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


def paired_ratio(
    name: str, cold: list[dict[str, Any]], reference: list[dict[str, Any]]
) -> dict[str, Any]:
    """Each cold import over the reference import measured right after it, as the median of the
    pairs (a drifting load moves both), for wall and CPU time, against the issue's targets."""
    figures: dict[str, Any] = {}
    for unit in ("", "_cpu"):
        key = f"import{unit}_ms"
        ratios = [c[key] / r[key] for c, r in zip(cold, reference, strict=True) if r[key]]
        figures["wall" if not unit else "cpu"] = {
            "powertools_import_ms": median(reference, key),
            "ratio": round(statistics.median(ratios), 2) if ratios else None,
        }
    target = TARGETS["step" if name.endswith("StepFunction") else "route"]
    figures["target_ratio"] = target
    cpu_ratio = figures["cpu"]["ratio"]
    figures["within_target"] = cpu_ratio is not None and cpu_ratio <= target
    return figures


def floor_ratio(floor: list[dict[str, Any]], reference: list[dict[str, Any]]) -> dict[str, Any]:
    """The floor's import over the reference's sampled right after it, median of the pairs."""
    figures: dict[str, Any] = {}
    for unit in ("", "_cpu"):
        key = f"import{unit}_ms"
        ratios = [f[key] / r[key] for f, r in zip(floor, reference, strict=True) if r[key]]
        figures["wall" if not unit else "cpu"] = {
            "import_ms": median(floor, key),
            "powertools_import_ms": median(reference, key),
            "ratio": round(statistics.median(ratios), 2) if ratios else None,
        }
    return figures


def print_artifact_table(artifact: dict[str, Any]) -> None:
    def cell(value: float | None, width: int) -> str:
        return f"{value:>{width}.1f}" if value is not None else f"{'-':>{width}}"

    for unit in ("wall", "cpu"):
        header = (
            f"{'artifact, py ' + artifact['python'] + ', ' + unit + ' ms':<28} {'import':>7} "
            f"{'+pyc':>6} {'prime':>6} {'restore':>7} {'1st inv':>8} {'cold 1st':>8} "
            f"{'on-demand':>9} {'x ptools':>8}"
        )
        print("\n" + header)
        print("-" * len(header))
        for name, entry in artifact["functions"].items():
            f = entry[unit]
            print(
                f"{name:<28} {cell(f['import_ms'], 7)} {cell(f['import_with_bytecode_ms'], 6)} "
                f"{cell(f['prime_ms'], 6)} {cell(f['after_restore_ms'], 7)} "
                f"{cell(f['first_invoke_after_restore_ms'], 8)} "
                f"{cell(f['first_invoke_cold_ms'], 8)} {cell(f.get('on_demand_cold_ms'), 9)} "
                f"{cell(entry['vs_powertools'][unit]['ratio'], 8)}"
            )
        floor = artifact.get("pydantic_floor", {}).get(unit)
        if floor:
            print(
                f"{'(pydantic + one model)':<28} {cell(floor['import_ms'], 7)} {'':>6} {'':>6} "
                f"{'':>7} {'':>8} {'':>8} {'':>9} {cell(floor['ratio'], 8)}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument(
        "--no-artifact", action="store_true", help="skip the built artifact (no SAM build)"
    )
    parser.add_argument(
        "--artifact-function",
        action="append",
        default=[],
        metavar="FUNCTION",
        help="measure only these functions of the built artifact (template names, repeatable)",
    )
    parser.add_argument(
        "--before-build",
        type=Path,
        metavar="DIR",
        help="also measure the --artifact-function functions (or all) of this earlier sam build "
        "in the same run, each paired with the reference the same way (artifact_before)",
    )
    parser.add_argument(
        "--before-note",
        default="",
        help="what the --before-build is (e.g. the commit it was built from)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="ENTRY",
        help="measure only these entries (and the reference) and update them in the results "
        "file, keeping every other figure (repeatable; implies --no-artifact)",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tanda-coldstart-") as tmp:
        workdir = Path(tmp)
        reference_folder = workdir / "powertools"
        reference_folder.mkdir()
        (reference_folder / "app.py").write_text(POWERTOOLS_HANDLER, encoding="utf-8")

        measured: dict[str, dict[str, Any]] = {}
        for entry in entries(reference_folder):
            if args.only and entry.name not in {REFERENCE, *args.only}:
                continue
            try:
                measured[entry.name] = measure(entry, args.runs, workdir)
            except RuntimeError as error:
                measured[entry.name] = {"error": str(error)}

    reference = measured.pop(REFERENCE)
    reference["folder"] = "(temporary file; see POWERTOOLS_HANDLER in bench/coldstart.py)"
    if "error" in reference:
        print(f"reference failed: {reference['error']}", file=sys.stderr)
        return 1
    for name, data in measured.items():
        if "median_ms" in data:
            data["ratio_to_powertools"] = round(data["median_ms"] / reference["median_ms"], 2)
            if name not in {"tanda.api.app", MCP_SDK}:
                target = TARGETS["step" if name.startswith("steps/") else "route"]
                data["target_ratio"] = target
                data["within_target"] = data["ratio_to_powertools"] < target

    report = {
        "python": platform.python_version(),
        "machine": f"{platform.platform()} ({platform.machine()}, {os.cpu_count()} cpu)",
        "runs": args.runs,
        "measure": "import of the entry module in a fresh interpreter (start-up excluded); "
        "process_median_ms is the whole subprocess including start-up and first invoke",
        "entries": measured,
        "reference": {REFERENCE: reference},
    }
    print_table(report)
    if args.only and args.output.exists():
        # Only some entries were measured: the others keep their committed figures, and each
        # measured one carries the reference it was compared with in the same run.
        previous = json.loads(args.output.read_text(encoding="utf-8"))
        for data in measured.values():
            data["reference_median_ms_same_run"] = reference["median_ms"]
        previous["entries"].update(measured)
        report = previous
    elif not args.no_artifact and not args.only:
        if args.before_build:
            # The earlier build first, then this one: the same run, the same pairing.
            before = artifact_report(
                args.runs, args.artifact_function or None, args.before_build.resolve()
            )
            report["artifact_before"] = {"note": args.before_note, **before}
            print("\nbefore:", args.before_note)
            print_artifact_table(before)
        report["artifact"] = artifact_report(args.runs, args.artifact_function or None)
        print_artifact_table(report["artifact"])
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {shown(args.output.resolve())}")
    failed = [
        name
        for name, data in measured.items()
        if "first_invoke" in data and not data["first_invoke"]["ok"]
    ]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
