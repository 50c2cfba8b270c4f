"""The AWS functions search OpenSearch: none of them imports the embedded lexical engine (issue
28). tantivy's wheel is in the deps layer like every dependency of tanda (it ships abi3 wheels
for x86_64 and arm64), but a function's cold start never pays for it: this imports every
handler, and the OpenSearch adapter they are wired to, with tantivy made unimportable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = textwrap.dedent(
    """
    import importlib.abc, importlib.util, json, sys
    from pathlib import Path

    class NoEngine(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "tantivy" or name.startswith("tantivy."):
                raise ImportError("a Lambda function imported tantivy")
            return None

    sys.meta_path.insert(0, NoEngine())
    results = {}
    for app in sorted(Path("functions").rglob("app.py")):
        spec = importlib.util.spec_from_file_location("handler_" + app.parent.name, app)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
            results[str(app)] = "ok"
        except BaseException as exc:
            results[str(app)] = f"{type(exc).__name__}: {exc}"
    import tanda.adapters.opensearch_index  # what TANDA_INDEX=opensearch:… builds
    results["tantivy imported"] = "tantivy" in sys.modules
    print(json.dumps(results))
    """
)


def test_no_lambda_handler_imports_the_embedded_lexical_engine() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO / "shared"),
        "TANDA_INDEX": "opensearch:https://search.example",
        "TANDA_STORE": "dynamodb",
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    results = json.loads(done.stdout.strip().splitlines()[-1])
    handlers = {k: v for k, v in results.items() if k.endswith("app.py")}
    assert len(handlers) >= 10
    assert {k: v for k, v in handlers.items() if v != "ok"} == {}
    assert results["tantivy imported"] is False
