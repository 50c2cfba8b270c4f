"""``/query/v2/stream``: time to first frame and to ``done``, and frame throughput (issue 5).

Run from the repository root: ``.venv/bin/python bench/stream.py`` → prints a table, writes
``bench/results/stream.json``.

The app runs under uvicorn on loopback with the scripted model and a real SQLite index; an SSE
client (httpx-sse) reads every frame over a new connection. (1) zero model latency and (2) 500 ms
per model call (agent ×2, framing check, judge, guard): time to the first frame (a live
``tool.started``), to ``message.start`` and to ``done``, beside the JSON route's total time.
(3) a 500-segment answer at zero latency: frames per second from ``message.start`` to ``done``.
The peer for (1)–(2) is the JSON route in the same run: the stream should reach ``done`` in about
the JSON route's time, and show its first frame long before.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ed25519  # noqa: E402
from httpx_sse import connect_sse  # noqa: E402
from tests.corpus import QUESTION, add_qanun  # noqa: E402
from tests.integration.credentials import partner_headers, settings_for  # noqa: E402
from tests.servers import serving  # noqa: E402

from tanda.adapters.scripted import AgentScript, Scenario, ScriptedModel, ScriptedToolCall  # noqa: E402
from tanda.api.app import create_app  # noqa: E402
from tanda.contract.common import Layout, SegmentKind  # noqa: E402
from tanda.contract.segments import Segment  # noqa: E402
from tanda.wiring import Runtime  # noqa: E402

RUNS = 20
FACT = "Anggaran pendidikan 2023 adalah Rp 5 miliar."


def scenario(segments: int, latency_ms: int) -> Scenario:
    body = [Segment(text="Berikut datanya.", kind=SegmentKind.framing, layout=Layout.paragraph)]
    body += [
        Segment(text=FACT, kind=SegmentKind.fact, cites=["P1"], layout=Layout.list_item)
        for _ in range(segments)
    ]
    roles = ("agent", "framing_check", "judge", "guard")
    return Scenario(
        agent=AgentScript(
            tool_calls=[ScriptedToolCall(query="anggaran pendidikan")], segments=body
        ),
        latency_ms=dict.fromkeys(roles, latency_ms),
    )


def measure_stream(base: str, headers: dict[str, str]) -> dict[str, float]:
    marks: dict[str, float] = {}
    frames = 0
    started = time.perf_counter()
    with (
        httpx.Client(timeout=120) as client,
        connect_sse(
            client, "POST", f"{base}/query/v2/stream", json={"query": QUESTION}, headers=headers
        ) as source,
    ):
        for event in source.iter_sse():
            frames += 1
            now = time.perf_counter() - started
            marks.setdefault("first_frame", now)
            marks.setdefault(event.event, now)
    marks["frames"] = frames
    return marks


def measure_json(base: str, headers: dict[str, str]) -> float:
    started = time.perf_counter()
    response = httpx.post(
        f"{base}/query/v2", json={"query": QUESTION}, headers=headers, timeout=120
    )
    response.raise_for_status()
    return time.perf_counter() - started


def main() -> int:
    key = ed25519.Ed25519PrivateKey.generate()
    results: dict[str, Any] = {"python": sys.version.split()[0], "machine": platform.machine()}
    with tempfile.TemporaryDirectory() as home:
        settings = settings_for(
            Path(home),
            key,
            model=f"scripted:{ROOT / 'tests' / 'scenarios'}",
            request_deadline_s=60.0,
            model_call_budget=200,
            judge_batch_size=25,
        )
        runtime = Runtime(settings=settings)
        add_qanun(runtime.search_index, "acme")
        model = ScriptedModel(
            {
                "zero": scenario(10, 0),
                "slow": scenario(10, 500),
                "big": scenario(500, 0),
            }
        )
        runtime.__dict__["model"] = model
        stack = ExitStack()
        base = stack.enter_context(serving(create_app(runtime)))

        def headers(name: str) -> dict[str, str]:
            return {**partner_headers(key), "X-Tanda-Scenario": name}

        for label, name, runs in (("zero_latency", "zero", RUNS), ("latency_500ms", "slow", 3)):
            measure_stream(base, headers(name))  # warm-up
            streams = [measure_stream(base, headers(name)) for _ in range(runs)]
            jsons = [measure_json(base, headers(name)) for _ in range(runs)]
            row = {
                key_: round(statistics.median(s[key_] for s in streams) * 1000, 1)
                for key_ in ("first_frame", "message.start", "done")
            }
            row["json_total_ms"] = round(statistics.median(jsons) * 1000, 1)
            row["done_over_json"] = round(row["done"] / row["json_total_ms"], 2)
            row["runs"] = runs
            results[label] = row
            print(
                f"{label:>14}: first frame {row['first_frame']} ms, message.start "
                f"{row['message.start']} ms, done {row['done']} ms; JSON route "
                f"{row['json_total_ms']} ms (done/JSON {row['done_over_json']})"
            )
        big = [measure_stream(base, headers("big")) for _ in range(3)]
        best = min(big, key=lambda m: m["done"] - m["message.start"])
        span = best["done"] - best["message.start"]
        results["segments_500"] = {
            "frames": int(best["frames"]),
            "message_start_to_done_ms": round(span * 1000, 1),
            "frames_per_s": round(best["frames"] / span) if span else None,
            "total_ms": round(best["done"] * 1000, 1),
        }
        print(f"  500 segments: {results['segments_500']}")
        stack.close()
    out = ROOT / "bench" / "results" / "stream.json"
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
