"""Runs INSIDE a clean Python 3.12 (``python3.12 -I -S artifact_probe.py SPEC.json``), the way the
Lambda Python runtime runs a built function: no site-packages, no PYTHONPATH, no current folder —
only the folders SPEC names (the function's folder, its layers' ``python/`` folders, and a stand-in
for what the runtime itself provides). Prints one JSON line of results; the test decides.

SPEC: ``{"path": [...], "module": "app", "handler": "handler", "snapstart": true,
"events": [{"name": ..., "event": {...}}], "adapters": [{"name": ..., "settings": {...},
"build": "model"}], "imports": ["mcp.client.streamable_http", ...]}``. Stdlib only until
``path`` is on ``sys.path``.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
import traceback
from typing import Any


class LambdaContext:
    function_name = "tanda-smoke"
    function_version = "1"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:tanda-smoke:live"
    aws_request_id = "00000000-0000-0000-0000-000000000000"
    log_group_name = "/aws/lambda/tanda-smoke"
    log_stream_name = "smoke"

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def run_hooks(registry: list[Any], reverse: bool = False) -> None:
    # As the Python runtime does: before-snapshot hooks in reverse order of registration,
    # after-restore hooks in order, each with its registered arguments.
    for func, args, kwargs in reversed(registry) if reverse else registry:
        func(*args, **kwargs)


class Stopwatch:
    """Wall time and this process's CPU time since start (CPU time is what a loaded host
    disturbs least; Lambda gives a function a share of CPU by its memory size)."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def record(self, out: dict[str, Any], key: str) -> None:
        out[f"{key}_ms"] = round((time.perf_counter() - self.wall) * 1000, 1)
        out[f"{key}_cpu_ms"] = round((time.process_time() - self.cpu) * 1000, 1)


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as spec_file:
        spec = json.load(spec_file)
    sys.path[:0] = spec["path"]
    out: dict[str, Any] = {"python": sys.version.split()[0], "sys_path": sys.path}

    watch = Stopwatch()
    module = importlib.import_module(spec["module"])
    watch.record(out, "import")

    if spec.get("snapstart"):
        import snapshot_restore_py  # the runtime's own library (the stand-in here)

        watch = Stopwatch()
        run_hooks(snapshot_restore_py.get_before_snapshot(), reverse=True)
        watch.record(out, "before_snapshot")
        out["before_snapshot_hooks"] = len(snapshot_restore_py.get_before_snapshot())
        watch = Stopwatch()
        run_hooks(snapshot_restore_py.get_after_restore())
        watch.record(out, "after_restore")
        out["after_restore_hooks"] = len(snapshot_restore_py.get_after_restore())

    handler = getattr(module, spec.get("handler") or "handler", None)
    out["events"] = []
    for item in spec.get("events", []):
        watch = Stopwatch()
        try:
            response = handler(item["event"], LambdaContext())  # type: ignore[misc]
        except Exception:  # reported to the test, which fails with the traceback
            out["events"].append({"name": item["name"], "error": traceback.format_exc()})
            continue
        result = {"name": item["name"], "response": response}
        watch.record(result, "invoke")
        out["events"].append(result)

    out["imports"] = {}
    for name in spec.get("imports", []):  # modules the function loads only when used
        try:
            out["imports"][name] = getattr(importlib.import_module(name), "__file__", None)
        except Exception:
            out["imports"][name] = "error: " + traceback.format_exc()

    out["adapters"] = []
    for item in spec.get("adapters", []):
        from tanda.settings import Settings
        from tanda.wiring import Runtime

        try:
            runtime = Runtime(settings=Settings(**item["settings"]))
            built = getattr(runtime, item["build"])
            out["adapters"].append({"name": item["name"], "built": type(built).__name__})
        except Exception:
            out["adapters"].append({"name": item["name"], "error": traceback.format_exc()})
    out["modules"] = sorted(name for name in sys.modules if name.startswith("tanda."))
    out["module_files"] = {
        name: getattr(sys.modules[name], "__file__", None)
        for name in ("tanda", "pydantic_core._pydantic_core", "Stemmer", "apsw", "boto3")
        if name in sys.modules
    }
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
