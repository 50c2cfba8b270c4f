"""Numbers on real tables (issue 17): TAT-QA's scaled answers written as people write them in
en/id/tr, found equal to their table cell and unequal at another scale (V2-08).

Run from the repository root: ``.venv/bin/python bench/tatqa_numbers.py [--data FILE]`` → prints the
share correct, writes ``bench/results/numbers.json`` (``--data``: by default
``../shared/data/eval/arithmetic/tatqa_dev.json``). It runs exactly what ``tanda eval numbers``
runs (``tanda.service.numbers_eval``), every miss listed. (Not ``bench/numbers.py``: that name would
shadow the standard library's ``numbers`` for every script in this folder.)
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from tanda.service.numbers_eval import numbers_report

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "eval" / "arithmetic" / "tatqa_dev.json"
RESULTS = ROOT / "bench" / "results" / "numbers.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    data = json.loads(args.data.read_text(encoding="utf-8"))
    started = time.perf_counter()
    report = numbers_report(data, misses=10_000)
    wall_s = time.perf_counter() - started
    results = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "data": args.data.name,
        **report,
        "wall_s": round(wall_s, 3),
    }
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{report['answers']} answers, {report['checks']} checks: share correct "
        f"{report['share_correct']} ({report['misses_total']} misses) in {wall_s:.2f} s; "
        f"wrote {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
