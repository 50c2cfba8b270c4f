"""Answers that answer (issue 22), before and after, in one run: ``bench/results/answers.json``.

For each evaluation set — ``eval/qa/idk_mrc_valid.json`` (answerable and unanswerable questions)
and the retrieval sets' answers (``tydiqa_id``, ``xquad_tr``) — and each route (``/query/v2``,
``/v1/ask``), the same harness (``bench/answers_driver.py``) ingests the set into a throwaway home
and asks every question, once through a checkout of the baseline (``--baseline``, default the
commit before issue 22) and once through this tree; the figures are computed by the current
scorer (``tanda.service.answers_eval``), so both sides are counted the same way. In the
baseline, the offline model's own "nothing found" sentences count as holding back too.

Beside them: retrieval nDCG@10 on both dev sets (``tanda eval retrieval`` of each checkout), and
``tanda ask`` latency on the demo corpus (``../shared/data/corpus``): p50 of the demo questions,
each asked five times in-process after one ingest, in three rounds that alternate before and after
(the order flipped each round); the ratio is the median of the rounds' p50 ratios.

And budget lines (issue 22): questions generated from the demo corpus's budget tables — ``Berapa
anggaran <line> <Kabupaten/Kota X> tahun <Y>?`` for a fixed set of lines, a seeded sample of
:data:`BUDGET_LINE_QUESTIONS` — asked of the demo corpus through both checkouts; *right* when the
first supported claim holds the table's value, *held back* when the answer says the documents do
not answer, *wrong* otherwise (an error is counted apart). Surabaya and Batu are left out: their
2021–2023 files, and so their titles, do not say whether they are a city.

    python bench/answers.py [--data ../shared/data] [--baseline REV] [--limit N]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tanda.contract.query import QueryV2Response
from tanda.contract.v1_ask import V1AskResponse
from tanda.not_found import says_not_found
from tanda.service.answers_eval import (
    ROUTES,
    AnswerRecord,
    AnswerSet,
    EvalQuestion,
    error_record,
    load_answer_set,
    pick_questions,
    score_records,
    v1_record,
    v2_record,
)
from tanda.service.retrieval_eval import percentile

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "bench" / "results" / "answers.json"
DRIVER = ROOT / "bench" / "answers_driver.py"
BASELINE = "f74b1a2"
"""main before issue 22's first commit."""
SETS = {
    "idk_mrc_valid": ("eval", "qa", "idk_mrc_valid.json"),
    "tydiqa_id": ("eval", "retrieval", "tydiqa_id"),
    "xquad_tr": ("eval", "retrieval", "xquad_tr"),
}
LEGACY_NOTICES = (
    # The baseline offline model's own "nothing found" sentences (agent and /v1/ask synthesis).
    "Dokumen yang ditemukan tidak memuat kalimat yang menjawab pertanyaan ini.",
    "Bu bilgi belgelerde bulunamadı.",
    "Informasi ini tidak ditemukan dalam dokumen.",
    "This information was not found in the documents.",
)
DEMO_QUESTIONS = (
    "Berapa realisasi pendapatan daerah Surabaya tahun 2023?",
    "Apa yang dimaksud dengan data pribadi?",
    "Berapa anggaran pendidikan Jawa Timur tahun 2023?",
    "Berapa realisasi Pajak Daerah Surabaya 2023?",
    "Apa sanksi bagi pengendali data pribadi yang melanggar?",
    "What is the amount due on invoice 20150483?",
    "Siapa yang berwenang mengawasi pelindungan data pribadi?",
    "Berapa belanja pegawai Kota Malang tahun 2022?",
)
BUDGET_LINES = (
    "Pendapatan Daerah",
    "PAD",
    "Pajak Daerah",
    "Retribusi Daerah",
    "Belanja Daerah",
    "Belanja Pegawai",
    "Belanja Modal",
    "Belanja Barang dan Jasa",
    "Belanja Hibah",
    "Pembiayaan Daerah",
)
BUDGET_LINE_QUESTIONS = 80
LATENCY_REPEAT = 5
LATENCY_ROUNDS = 3  # before/after alternated, the order flipped each round


def checkout(rev: str, where: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(where), rev],
        check=True,
        capture_output=True,
    )
    return where


def drive(tree: Path, args: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(tree / "shared")}
    env.pop("TANDA_HOME", None)
    subprocess.run([sys.executable, str(DRIVER), *args], check=True, env=env)


def prepare(answer_set: AnswerSet, questions: list[EvalQuestion], folder: Path) -> None:
    with (folder / "docs.jsonl").open("w", encoding="utf-8") as out:
        for doc_id, title, text in answer_set.documents:
            row = {"document_id": doc_id, "title": title or None, "text": text}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (folder / "questions.jsonl").open("w", encoding="utf-8") as out:
        for q in questions:
            out.write(json.dumps({"id": q.question_id, "text": q.text}, ensure_ascii=False) + "\n")


def records_of(
    out: Path, questions: list[EvalQuestion], route: str, *, legacy: bool
) -> tuple[list[AnswerRecord], float]:
    by_id = {q.question_id: q for q in questions}
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    ingest_s = float(lines[0]["ingest_s"])
    records: list[AnswerRecord] = []
    for row in lines[1:]:
        question = by_id[row["id"]]
        latency = float(row["latency_ms"])
        if "error" in row:
            records.append(error_record(question, row["error"], latency))
            continue
        if route == "v2":
            record = v2_record(question, QueryV2Response.model_validate(row["response"]), latency)
        else:
            record = v1_record(question, V1AskResponse.model_validate(row["response"]), latency)
        if legacy and any(text in record.answer for text in LEGACY_NOTICES):
            record = AnswerRecord(
                question, record.verified, True, False, None, latency, record.answer
            )
        records.append(record)
    return records, ingest_s


def answers(data: Path, trees: dict[str, Path], tmp: Path, limit: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, parts in SETS.items():
        answer_set = load_answer_set(data.joinpath(*parts))
        questions = pick_questions(answer_set.questions, limit)
        folder = tmp / name
        folder.mkdir()
        prepare(answer_set, questions, folder)
        for route in ROUTES:
            row: dict[str, Any] = {}
            for side, tree in trees.items():
                result = folder / f"{side}-{route}.jsonl"
                drive(
                    tree,
                    [
                        str(folder / "docs.jsonl"),
                        str(folder / "questions.jsonl"),
                        str(result),
                        "--route",
                        route,
                    ],
                )
                records, ingest_s = records_of(result, questions, route, legacy=side == "before")
                row[side] = score_records(records).as_json() | {"ingest_s": round(ingest_s, 2)}
            out[f"{name}/{route}"] = row
            indent = " " * (len(name) + len(route) + 2)
            print(f"{name} {route}: before {row['before']}\n{indent}after  {row['after']}")
    return out


def retrieval(data: Path, trees: dict[str, Path]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("tydiqa_id", "xquad_tr"):
        row: dict[str, Any] = {}
        for side, tree in trees.items():
            env = {**os.environ, "PYTHONPATH": str(tree / "shared")}
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "tanda.cli",
                    "eval",
                    "retrieval",
                    str(data / "eval" / "retrieval" / name),
                ],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            )
            row[side] = json.loads(done.stdout)["ndcg@10"]
        out[name] = row
        print(f"nDCG@10 {name}: before {row['before']} after {row['after']}")
    return out


def ask_latency(data: Path, trees: dict[str, Path], tmp: Path) -> dict[str, Any]:
    """p50/p95 of ``tanda ask`` on the demo corpus, before and after in alternating rounds.

    The machine is shared and noisy: each round runs both sides one after the other (the order
    flips every round), so a burst of load falls on both; the ratio is the median of the rounds'
    p50 ratios, beside the p50 over every round's asks.
    """
    questions = tmp / "demo_questions.jsonl"
    questions.write_text(
        "".join(json.dumps({"id": str(n), "text": q}) + "\n" for n, q in enumerate(DEMO_QUESTIONS)),
        encoding="utf-8",
    )
    latencies: dict[str, list[float]] = {side: [] for side in trees}
    ratios: list[float] = []
    sides = list(trees)
    for round_no in range(LATENCY_ROUNDS):
        p50: dict[str, float] = {}
        for side in sides if round_no % 2 == 0 else sides[::-1]:
            result = tmp / f"demo-{side}-{round_no}.jsonl"
            drive(
                trees[side],
                [
                    str(data / "corpus"),
                    str(questions),
                    str(result),
                    "--docs-are-paths",
                    "--repeat",
                    str(LATENCY_REPEAT),
                ],
            )
            rows = [json.loads(line) for line in result.read_text(encoding="utf-8").splitlines()]
            these = [float(r["latency_ms"]) for r in rows[1:]]
            latencies[side].extend(these)
            p50[side] = percentile(these, 50)
        ratios.append(p50["after"] / p50["before"])
    out: dict[str, Any] = {
        side: {
            "p50_ms": round(percentile(values, 50), 2),
            "p95_ms": round(percentile(values, 95), 2),
            "asks": len(values),
        }
        for side, values in latencies.items()
    }
    out["rounds"] = LATENCY_ROUNDS
    out["p50_ratio_by_round"] = [round(r, 3) for r in ratios]
    out["p50_ratio_after_before"] = round(sorted(ratios)[len(ratios) // 2], 3)
    print(f"tanda ask on the demo corpus: {out}")
    return out


def budget_line_questions(data: Path, limit: int = BUDGET_LINE_QUESTIONS) -> list[tuple[str, str]]:
    """(question, the table's ``anggaran`` value) for a seeded sample of the demo tables' lines."""
    out: list[tuple[str, str]] = []
    for path in sorted((data / "corpus" / "apbd_jatim").glob("*/*.csv")):
        name = path.stem.replace("_", " ")
        if name in ("Surabaya", "Batu"):
            continue
        place = name if name.startswith("Kota ") else f"Kabupaten {name}"
        with path.open(encoding="utf-8") as table:
            rows = {row["akun"].strip(): row for row in csv.DictReader(table)}
        for line in BUDGET_LINES:
            if line in rows:
                question = f"Berapa anggaran {line} {place} tahun {path.parent.name}?"
                out.append((question, rows[line]["anggaran"]))
    random.Random(7).shuffle(out)
    return out[:limit]


def budget_lines(data: Path, trees: dict[str, Path], tmp: Path) -> dict[str, Any]:
    """Right / held back / wrong first answers to the generated budget-line questions."""
    asked = budget_line_questions(data)
    questions = tmp / "budget_lines.jsonl"
    questions.write_text(
        "".join(json.dumps({"id": str(n), "text": q}) + "\n" for n, (q, _) in enumerate(asked)),
        encoding="utf-8",
    )
    out: dict[str, Any] = {"questions": len(asked)}
    for side, tree in trees.items():
        result = tmp / f"budget-lines-{side}.jsonl"
        drive(tree, [str(data / "corpus"), str(questions), str(result), "--docs-are-paths"])
        rows = [json.loads(line) for line in result.read_text(encoding="utf-8").splitlines()[1:]]
        counts = {"right": 0, "held_back": 0, "wrong": 0, "errors": 0}
        for row, (_, value) in zip(rows, asked, strict=True):
            response = (
                QueryV2Response.model_validate(row["response"]) if "response" in row else None
            )
            if response is None or says_not_found(response.answer):
                counts["held_back"] += 1
                continue
            verified = [c.text for c in response.claims if c.verdict == "supported"]
            counts["right" if verified and value in verified[0] else "wrong"] += 1
        out[side] = counts
    print(f"budget lines: {out}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--baseline", default=BASELINE, help="the commit measured as before")
    parser.add_argument("--limit", type=int, default=None, help="N questions of each kind")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tanda-bench-answers-") as tmp_name:
        tmp = Path(tmp_name)
        before = checkout(args.baseline, tmp / "baseline")
        trees = {"before": before, "after": ROOT}
        try:
            results: dict[str, Any] = {
                "baseline": args.baseline,
                "model": "offline",
                "limit_per_kind": args.limit,
                "answers": answers(args.data, trees, tmp, args.limit),
                "retrieval_ndcg@10": retrieval(args.data, trees),
                "tanda_ask_demo_corpus": ask_latency(args.data, trees, tmp),
                "budget_lines": budget_lines(args.data, trees, tmp),
            }
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                check=False,
                capture_output=True,
            )
    results["took_s"] = round(time.perf_counter() - started, 1)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
