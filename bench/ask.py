"""``/v1/ask``: its overhead over ``/v1/search`` on the same query and index, and its end-to-end
time when model calls take 500 ms (issue 13).

Run from the repository root: ``.venv/bin/python bench/ask.py`` → prints a table, writes
``bench/results/ask.json``.

The app runs under uvicorn on loopback with a real SQLite index and store and the scripted model;
one keep-alive HTTP client sends the requests with a ``dip_live_`` key, so both routes pay their
whole real path: the shared throttle, the balance check and the conditional charge.

(1) Zero-latency model: ``/v1/search`` and ``/v1/ask`` alternate on the same question and top_k;
the p50 of each and the difference (target: under 5 ms) — retrieval is common to both, so the
difference is the synthesis stage, the citations and the second route's extra reads.
(2) 500 ms per model call: ``/v1/ask`` end to end ≈ one call; with a cut answer and its one
continuation ≈ two calls (continuations counted).
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ed25519  # noqa: E402
from tests.corpus import add_qanun  # noqa: E402
from tests.integration.credentials import settings_for  # noqa: E402
from tests.servers import serving  # noqa: E402

from tanda.adapters.scripted import AskScript, Scenario, ScriptedModel  # noqa: E402
from tanda.api.app import create_app  # noqa: E402
from tanda.auth.api_keys import hash_api_key  # noqa: E402
from tanda.wiring import Runtime  # noqa: E402

KEY = "dip_live_bench-key"
QUESTION = "Berapa anggaran pendidikan Aceh tahun 2023?"
RUNS = 300
SLOW_RUNS = 5
CALL_MS = 500
ANSWER = "Anggaran pendidikan 2023 adalah Rp 5 miliar [S1]."


def scenarios() -> dict[str, Scenario]:
    cut = AskScript(answer=ANSWER[:20], truncate=True, continuation=ANSWER[20:])
    return {
        "zero": Scenario(ask=AskScript(answer=ANSWER)),
        "slow": Scenario(ask=AskScript(answer=ANSWER), latency_ms={"ask": CALL_MS}),
        "slow_continued": Scenario(ask=cut, latency_ms={"ask": CALL_MS}),
    }


def corpus(runtime: Runtime) -> None:
    """The test Qanun plus 200 more documents, so that retrieval does real work."""
    add_qanun(runtime.search_index, "acme")
    for n in range(200):
        add_qanun(
            runtime.search_index,
            "acme",
            doc_id=f"qanun-{n}",
            texts=[
                f"Anggaran urusan {n} tahun {2000 + n % 24} adalah Rp {n + 1} miliar untuk "
                "belanja daerah, pendidikan dasar dan kesehatan masyarakat.",
                f"Pasal {n}: ketentuan pelaksanaan anggaran ditetapkan dengan peraturan gubernur.",
            ],
        )


def timed(client: httpx.Client, path: str, scenario: str) -> float:
    started = time.perf_counter()
    response = client.post(
        path,
        json={"query": QUESTION, "top_k": 5},
        headers={"Authorization": f"Bearer {KEY}", "X-Tanda-Scenario": scenario},
    )
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"{path}: HTTP {response.status_code} {response.text}")
    return elapsed


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> int:
    results: dict[str, Any] = {"python": sys.version.split()[0], "machine": platform.machine()}
    with tempfile.TemporaryDirectory() as home, ExitStack() as stack:
        settings = settings_for(
            Path(home),
            ed25519.Ed25519PrivateKey.generate(),
            # A scripted model, so that X-Tanda-Scenario is read; its scenarios are set below.
            model=f"scripted:{ROOT / 'tests' / 'scenarios' / 'ask'}",
            v1_api_key_hashes={hash_api_key(KEY): "acme"},
            initial_credits=Decimal(1_000_000),
            v1_rate_per_minute=1_000_000,
            request_deadline_s=30.0,
        )
        runtime = Runtime(settings=settings)
        runtime.__dict__["model"] = ScriptedModel(scenarios())
        corpus(runtime)
        base = stack.enter_context(serving(create_app(runtime)))
        client = stack.enter_context(httpx.Client(base_url=base, timeout=60))

        for _ in range(20):  # warm-up: imports, validators, SQLite pages
            timed(client, "/v1/search", "zero")
            timed(client, "/v1/ask", "zero")
        search: list[float] = []
        ask: list[float] = []
        for _ in range(RUNS):  # alternating, so drift hits both alike
            search.append(timed(client, "/v1/search", "zero"))
            ask.append(timed(client, "/v1/ask", "zero"))
        row = {
            "runs": RUNS,
            "search_p50_ms": round(p(search, 0.5), 2),
            "ask_p50_ms": round(p(ask, 0.5), 2),
            "search_p90_ms": round(p(search, 0.9), 2),
            "ask_p90_ms": round(p(ask, 0.9), 2),
        }
        row["ask_overhead_p50_ms"] = round(row["ask_p50_ms"] - row["search_p50_ms"], 2)
        row["target_ms"] = 5
        results["zero_latency"] = row
        print(
            f"zero-latency model: /v1/search p50 {row['search_p50_ms']} ms, /v1/ask p50 "
            f"{row['ask_p50_ms']} ms → overhead {row['ask_overhead_p50_ms']} ms (target < 5)"
        )

        for label, scenario, calls in (
            ("latency_500ms", "slow", 1),
            ("latency_500ms_with_continuation", "slow_continued", 2),
        ):
            timed(client, "/v1/ask", scenario)
            totals = [timed(client, "/v1/ask", scenario) for _ in range(SLOW_RUNS)]
            median = statistics.median(totals) * 1000
            results[label] = {
                "runs": SLOW_RUNS,
                "model_calls": calls,
                "call_ms": CALL_MS,
                "total_p50_ms": round(median, 1),
                "total_over_calls": round(median / (calls * CALL_MS), 3),
            }
            print(
                f"{label:>32}: {calls} × {CALL_MS} ms calls → p50 {median:.1f} ms "
                f"({results[label]['total_over_calls']} × the calls)"
            )
    out = ROOT / "bench" / "results" / "ask.json"
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
