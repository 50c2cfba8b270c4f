"""Compose + aggregate throughput and latency for answers of 5, 50 and 500 segments.

Run: ``.venv/bin/python bench/compose.py`` → prints a table, writes ``bench/results/compose.json``.
Latency per call is wall time of the call on an otherwise idle interpreter (median of many calls,
so the 2 shared cores' noise mostly washes out); the 5/50/500 ratios show the cost is linear.
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

from tanda.annotate.aggregate import aggregate
from tanda.annotate.compose import compose
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract import (
    Citation,
    Layout,
    Segment,
    SegmentKind,
    StageStatus,
    UnverifiedReason,
    Verdict,
)

SENTENCES = [
    "Anggaran pendidikan 2023 adalah Rp 5 miliar.",
    "Naik 9 persen dari 2022.",
    "Realisasi belanja pegawai mencapai **Rp871,67 miliar** 📈.",
    "Pasal 12 ayat (2) UU 27/2022 mengatur pemrosesan data pribadi.",
    "Bütçe gerçekleşmesi %94,3 oldu.",
    "The regency spent 4.874,35 M on infrastructure.",
]
SIZES = (5, 50, 500)


def make_answer(n: int, rng: random.Random) -> tuple[list[Segment], list[SegmentOutcome]]:
    segments: list[Segment] = []
    outcomes: list[SegmentOutcome] = []
    i = 0
    while len(segments) < n:
        block = rng.choice(["paragraph", "list", "table"])
        if block == "table" and n - len(segments) >= 4:
            segments.append(
                Segment(
                    text="Akun | Anggaran | Realisasi",
                    kind=SegmentKind.framing,
                    layout=Layout.table_header,
                )
            )
            outcomes.append(SegmentOutcome.framing())
            for _ in range(3):
                segments.append(
                    Segment(
                        text=f"Belanja {i} | Rp {i},5 M | {i}%",
                        kind=SegmentKind.fact,
                        cites=["P1"],
                        layout=Layout.table_row,
                    )
                )
                outcomes.append(SegmentOutcome(Verdict.supported))
                i += 1
            continue
        layout = Layout.list_item if block == "list" else Layout.paragraph
        for j in range(min(3, n - len(segments))):
            text = rng.choice(SENTENCES)
            segments.append(
                Segment(
                    text=text,
                    kind=SegmentKind.fact,
                    cites=["P1", "P2"],
                    layout=layout if j == 0 else Layout.continue_,
                )
            )
            roll = rng.random()
            if roll < 0.7:
                outcomes.append(SegmentOutcome(Verdict.supported))
            elif roll < 0.85:
                outcomes.append(SegmentOutcome(Verdict.unverified, UnverifiedReason.disputed))
            else:
                outcomes.append(SegmentOutcome(Verdict.unsupported))
    return segments, outcomes


def measure(n: int, *, serialize: bool, budget_s: float = 1.5) -> dict[str, float]:
    rng = random.Random(n)
    segments, outcomes = make_answer(n, rng)
    citations = {
        "P1": Citation(citation_key="P1", chunk_id="c1"),
        "P2": Citation(citation_key="P2", chunk_id="c2"),
    }
    samples: list[int] = []
    deadline = time.perf_counter() + budget_s
    while time.perf_counter() < deadline or len(samples) < 50:
        t0 = time.perf_counter_ns()
        composed = compose(segments)
        annotation = aggregate(
            composed, segments, outcomes, citations, framing_check=StageStatus.complete
        )
        if serialize:
            for claim in annotation.claims:
                claim.model_dump_json()
            annotation.faithfulness.model_dump_json()
        samples.append(time.perf_counter_ns() - t0)
    samples.sort()
    p50 = statistics.median(samples) / 1e3
    p99 = samples[int(len(samples) * 0.99) - 1] / 1e3
    return {
        "segments": n,
        "calls": len(samples),
        "p50_us": round(p50, 1),
        "p99_us": round(p99, 1),
        "per_segment_us": round(p50 / n, 2),
        "throughput_per_s": round(1e6 / p50, 1),
        "answer_chars": len(compose(segments).answer),
    }


def main() -> int:
    results: dict[str, object] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "note": "compose+aggregate per answer; wall time, median of repeated calls in one process",
    }
    for label, serialize in (("compose_aggregate", False), ("compose_aggregate_serialize", True)):
        rows = [measure(n, serialize=serialize) for n in SIZES]
        by = {r["segments"]: r for r in rows}
        results[label] = {
            "sizes": rows,
            "ratio_50_to_5": round(by[50]["p50_us"] / by[5]["p50_us"], 2),
            "ratio_500_to_50": round(by[500]["p50_us"] / by[50]["p50_us"], 2),
        }
        summary = results[label]
        print(f"\n{label}")
        print(f"{'segments':>9} {'p50 µs':>10} {'p99 µs':>10} {'µs/seg':>8} {'answers/s':>10}")
        for r in rows:
            print(
                f"{r['segments']:>9} {r['p50_us']:>10} {r['p99_us']:>10} "
                f"{r['per_segment_us']:>8} {r['throughput_per_s']:>10}"
            )
        assert isinstance(summary, dict)
        print(
            f"ratio 50/5 = {summary['ratio_50_to_5']}, 500/50 = {summary['ratio_500_to_50']} "
            "(each step is 10× the segments; 10 = linear)"
        )
    out = Path(__file__).parent / "results" / "compose.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
