"""What a state machine hop would cost ``/v1/ask`` (issue 24): run it as steps on the Runner, or
keep it one call in its route's Lambda?

``/v1/ask`` is retrieval then ONE synthesis call — no judge batches to fan out, no framing check
beside them, no guard after them — so a state machine could only chain it, never parallelise it.
This bench puts figures on that chain. It measures here what can be measured in-process, and takes
AWS's documented prices and the measured cold start for what cannot:

- ``measured``: the in-process times of ``/v1/ask`` (``bench/results/ask.json``: its overhead over
  ``/v1/search`` and its end-to-end time with 500 ms model calls), the import of a step handler
  (``bench/results/coldstart.json``: what a hop to a cold step Lambda adds), and — timed here —
  one Lambda boundary's serialisation: an ask-sized state (the question and its sources) dumped
  to JSON and validated back, as a runner and a step handler do it once each per hop;
- ``priced``: per answer, the extra of running the synthesis as one Express task behind
  ``StartSyncExecution`` — the Express request, its duration, and the route Lambda that waits
  while the task Lambda works (both billed for the synthesis time) — at AWS's list prices
  (us-east-1, arm64), stated with their sources below.

Run from the repository root: ``.venv/bin/python bench/ask_hop.py`` → prints the figures and
writes ``bench/results/ask_hop.json``.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "shared"))

from pydantic import BaseModel  # noqa: E402

from tanda.contract.common import Citation  # noqa: E402
from tanda.passages import Passage  # noqa: E402
from tanda.records.documents import LegalIdentity  # noqa: E402

RESULTS = ROOT / "bench" / "results"

PRICES: dict[str, Any] = {
    "express_request_usd": 1.00 / 1_000_000,
    "express_gb_second_usd": 0.00001667,
    "express_memory_gb": 0.0625,
    "express_rounding_s": 0.1,
    "standard": "no synchronous start (StartSyncExecution is for Express workflows only): a "
    "request/response route cannot wait on a Standard execution",
    "lambda_request_usd": 0.20 / 1_000_000,
    "lambda_arm64_gb_second_usd": 0.0000133334,
    "lambda_memory_gb": 1.0,
    "sources": [
        "https://aws.amazon.com/step-functions/pricing/ (Express: $1.00 per million requests, "
        "$0.00001667 per GB-second, billed in 64-MB chunks, rounded up to 100 ms)",
        "https://aws.amazon.com/lambda/pricing/ (arm64: $0.0000133334 per GB-second; $0.20 per "
        "million requests)",
        "template.yaml Globals: MemorySize 1024, arm64",
    ],
}
SYNTHESIS_S = (0.5, 2.0, 8.0)
"""Synthesis times priced: the bench's 500 ms call, and two a hosted model commonly takes."""
SOURCES = 8
SOURCE_CHARS = 1200


class AskState(BaseModel):
    """What a synthesis task would take across the boundary: the question and its sources."""

    query: str
    tenant_id: str
    sources: list[Passage]


def boundary_ms(runs: int = 200) -> float:
    """One hop's serialisation, both sides: the state to JSON and back into its model."""
    state = AskState(
        query="Berapa anggaran pendidikan tahun 2023?",
        tenant_id="acme",
        sources=[
            Passage(
                key=f"S{n}",
                kind="chunk",
                text="Anggaran pendidikan daerah. " * (SOURCE_CHARS // 28),
                citation=Citation(citation_key=f"S{n}", chunk_id=f"doc#{n}", document_id="doc"),
                identity=LegalIdentity(),
            )
            for n in range(SOURCES)
        ],
    )
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        AskState.model_validate_json(state.model_dump_json())
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 3)


def read(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((RESULTS / name).read_text(encoding="utf-8"))
    return loaded


def step_cold_ms(coldstart: dict[str, Any]) -> float | None:
    """A cold step Lambda's import and first invocation (CPU time: what a loaded host disturbs
    least), from the built artifact if measured, else the local import."""
    artifact = coldstart.get("artifact", {}).get("functions", {})
    judge = artifact.get("JudgeBatchStepFunction")
    if judge:
        return float(judge["cpu"]["on_demand_cold_ms"])
    local = coldstart.get("entries", {}).get("steps/judge_batch", {})
    return float(local["median_ms"]) if "median_ms" in local else None


def priced(synthesis_s: float) -> dict[str, float]:
    """Per answer, in USD: inline (the route Lambda makes the call) and as one Express task."""
    p = PRICES
    lambda_s = synthesis_s * p["lambda_memory_gb"] * p["lambda_arm64_gb_second_usd"]
    rounded = -(-synthesis_s // p["express_rounding_s"]) * p["express_rounding_s"]
    inline = p["lambda_request_usd"] + lambda_s
    express = (
        p["express_request_usd"]
        + rounded * p["express_memory_gb"] * p["express_gb_second_usd"]
        + p["lambda_request_usd"]  # the task Lambda
        + lambda_s  # the task Lambda makes the call ...
    )
    as_steps = inline + express  # ... while the route Lambda waits on StartSyncExecution
    return {
        "synthesis_s": synthesis_s,
        "inline_usd": round(inline, 9),
        "as_express_task_usd": round(as_steps, 9),
        "ratio": round(as_steps / inline, 2),
        "extra_usd_per_million_answers": round((as_steps - inline) * 1_000_000, 2),
    }


def main() -> int:
    ask = read("ask.json")
    coldstart = read("coldstart.json")
    measured = {
        "ask_overhead_over_search_p50_ms": ask["zero_latency"]["ask_overhead_p50_ms"],
        "ask_p50_ms_zero_latency_model": ask["zero_latency"]["ask_p50_ms"],
        "ask_total_p50_ms_one_500ms_call": ask["latency_500ms"]["total_p50_ms"],
        "model_calls": ask["latency_500ms"]["model_calls"],
        "boundary_serialisation_ms": boundary_ms(),
        "cold_step_lambda_ms": step_cold_ms(coldstart),
    }
    report = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "measured": measured,
        "prices": PRICES,
        "priced": [priced(s) for s in SYNTHESIS_S],
        "latency_added_warm_ms": {
            "serialisation": measured["boundary_serialisation_ms"],
            "note": "plus the service's own StartSyncExecution and Lambda Invoke scheduling "
            "(not measurable offline; moto does not model it)",
        },
        "decision": "not an orchestration: one synthesis call cannot run in parallel with "
        "anything, so a hop adds a second Lambda waiting on the first, an Express request and "
        "a cold start, and saves nothing",
    }
    print(json.dumps(report["measured"], indent=2))
    for row in report["priced"]:
        print(
            f"synthesis {row['synthesis_s']:>4.1f} s: inline ${row['inline_usd']:.9f}, as an "
            f"Express task ${row['as_express_task_usd']:.9f} (x{row['ratio']}), "
            f"+${row['extra_usd_per_million_answers']:.2f} per million answers"
        )
    out = RESULTS / "ask_hop.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
