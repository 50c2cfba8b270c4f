"""The strict judge on public data (issue 17): IndoNLI (id), WiCE and SummEdits (en).

Run from the repository root: ``.venv/bin/python bench/judge.py [--data DIR] [--model SPEC]`` →
prints one line per set, writes ``bench/results/judge.json`` (``--data``: the folder of sets, by
default ``../shared/data/eval/judge``; ``--model``: an adapter as ``TANDA_MODEL``, default
``offline``). It runs exactly what ``tanda eval judge`` runs (``tanda.service.judge_eval``) with the
default settings, and adds each set's figures on two halves split by a hash of the statement's id,
so a reader sees how much the figures move between halves of the same set (the held-out halves of
these sets are measured elsewhere).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
from pathlib import Path
from typing import Any

from tanda.cli.evaluate import build_model
from tanda.service.judge_eval import JudgeBudget, run_set, score, set_report
from tanda.service.judge_sets import load_judge_set, set_files
from tanda.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "eval" / "judge"
RESULTS = ROOT / "bench" / "results" / "judge.json"
ANCHOR = {
    "source": "LLM-AggreFact leaderboard: the best small fact-checkers reach about 77 % balanced "
    "accuracy",
    "balanced_accuracy": 0.77,
}
HALF_FIGURES = ("n", "balanced_accuracy", "supported_recall", "false_support_rate")


def half_of(case_id: str) -> str:
    return "a" if hashlib.sha256(case_id.encode()).digest()[0] % 2 == 0 else "b"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--model", default="offline")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    settings = Settings()
    model = build_model(settings, args.model)
    budget = JudgeBudget.from_settings(settings)
    sets: dict[str, Any] = {}
    for path in set_files(args.data):
        judge_set = load_judge_set(path)
        run = run_set(model, judge_set.cases, budget)
        report = set_report(judge_set, run, model.name)
        halves = {
            half: {
                key: value
                for key, value in score(
                    [r for r in run.results if half_of(r.case.case_id) == half]
                ).items()
                if key in HALF_FIGURES
            }
            for half in ("a", "b")
        }
        sets[judge_set.name] = {**report, "halves": halves}
        print(
            f"{judge_set.name:24} n={report['n']:5}  balanced={report['balanced_accuracy']}  "
            f"false_support={report['false_support_rate']}  recall={report['supported_recall']}  "
            f"{report['wall_s']} s"
        )
    results = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "model": model.name,
        "settings": {
            "judge_batch_size": settings.judge_batch_size,
            "request_deadline_s": settings.request_deadline_s,
            "model_call_budget": settings.model_call_budget,
            "judge_share": settings.judge_share,
            "agent_context_chars": settings.agent_context_chars,
        },
        "anchor": ANCHOR,
        "sets": sets,
    }
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
