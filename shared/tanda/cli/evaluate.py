"""``tanda eval retrieval|judge|numbers|proof|answers`` (issues 3, 17, 14 and 22): the use cases
are :mod:`tanda.service.retrieval_eval`, :mod:`tanda.service.judge_eval`,
:mod:`tanda.service.numbers_eval`, :mod:`tanda.service.proof_eval` and
:mod:`tanda.service.answers_eval`; the scratch index, the runtime and the model come from the one
factory."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from tanda.model_calls import ChatModel
from tanda.service.judge_eval import JudgeBudget, run_set, set_report, verdict_key
from tanda.service.judge_sets import JudgeSetError, load_judge_set, set_files
from tanda.service.numbers_eval import numbers_report
from tanda.service.proof_eval import evaluate_proofs, load_tatqa
from tanda.service.retrieval_eval import beir_documents, evaluate_index, load_beir
from tanda.settings import Settings, load_settings
from tanda.wiring import build_runtime, scratch_search_index


def eval_retrieval_command(args: argparse.Namespace) -> int:
    """``tanda eval retrieval DIR [--lang L]``: prints one JSON object with the figures."""
    folder = Path(args.dir)
    lang: str | None = getattr(args, "lang", None)
    try:
        beir = load_beir(folder)
    except (OSError, ValueError, KeyError) as error:
        print(f"tanda eval retrieval: cannot read BEIR folder {folder}: {error}", file=sys.stderr)
        return 2
    with (
        tempfile.TemporaryDirectory(prefix="tanda-eval-") as tmp,
        scratch_search_index(Path(tmp) / "index.sqlite") as index,
    ):
        for document, chunks in beir_documents(beir, lang=lang):
            index.upsert_document(document, chunks)
        scores = evaluate_index(index, beir, lang=lang)
    print(json.dumps(scores.as_json()))
    return 0


def build_model(settings: Settings, spec: str | None) -> ChatModel:
    """The adapter ``spec`` names (as ``TANDA_MODEL`` does), else the configured one."""
    chosen = settings if spec is None else settings.model_copy(update={"model": spec})
    return build_runtime(chosen).model


def eval_judge_command(args: argparse.Namespace) -> int:
    """Prints one JSON object per set; ``--details FILE`` writes one JSON line per statement."""
    settings = load_settings()
    try:
        model = build_model(settings, args.model)
    except ValueError as error:
        print(f"tanda eval judge: {error}", file=sys.stderr)
        return 2
    budget = JudgeBudget.from_settings(settings)
    try:
        files = [f for path in args.paths for f in set_files(Path(path))]
        sets = [load_judge_set(f, limit=args.limit) for f in files]
    except (OSError, JudgeSetError) as error:
        print(f"tanda eval judge: cannot read the set: {error}", file=sys.stderr)
        return 2
    details = Path(args.details).open("w", encoding="utf-8") if args.details else None  # noqa: SIM115
    try:
        for judge_set in sets:
            run = run_set(model, judge_set.cases, budget, workers=args.workers)
            print(json.dumps(set_report(judge_set, run, model.name)), flush=True)
            if details is not None:
                for r in run.results:
                    row = {
                        "set": judge_set.name,
                        "id": r.case.case_id,
                        "label": r.case.label,
                        "supported": r.case.supported,
                        "verdict": verdict_key(r.outcome),
                    }
                    if r.case.edit_types:
                        row["edit_types"] = list(r.case.edit_types)
                    details.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if details is not None:
            details.close()
    return 0


def eval_numbers_command(args: argparse.Namespace) -> int:
    """Prints one JSON object: the share correct, by language, and the misses."""
    path = Path(args.path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            raise ValueError(
                "expected a JSON array of TAT-QA entries (table, paragraphs, questions)"
            )
        report = numbers_report(data, misses=args.misses)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"tanda eval numbers: cannot read {path}: {error}", file=sys.stderr)
        return 2
    print(json.dumps(report, ensure_ascii=False))
    return 0


def eval_proof_command(args: argparse.Namespace) -> int:
    """``tanda eval proof PATH [--misses N]``: prints one JSON object with the figures."""
    path = Path(args.path)
    try:
        questions = load_tatqa(path)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"tanda eval proof: cannot read TAT-QA file {path}: {error}", file=sys.stderr)
        return 2
    print(json.dumps(evaluate_proofs(questions).as_json(misses=max(0, args.misses))))
    return 0


def eval_answers_command(args: argparse.Namespace) -> int:
    """``tanda eval answers PATH [--route v2|v1] [--limit N] [--seed S] [--model M] [--json]
    [--details FILE]``: the set ingested into a throwaway home, every question (or N of each
    kind) asked through the route's use case in-process; prints the figures."""
    from tanda.service.answers_eval import (
        AnswerRecord,
        AnswerSetError,
        load_answer_set,
        pick_questions,
        run_answers,
        throwaway_home,
    )

    path = Path(args.path)
    try:
        answer_set = load_answer_set(path)
    except AnswerSetError as error:
        print(f"tanda eval answers: {error}", file=sys.stderr)
        return 2
    questions = pick_questions(answer_set.questions, args.limit, seed=args.seed)
    settings = load_settings()
    with throwaway_home() as home:
        scratch = settings.model_copy(
            update={
                "home": home,
                "index": "sqlite",
                "store": "sqlite",
                "runner": "inprocess",
                # The throwaway tenant shares its /v1 throttle with nobody.
                "v1_rate_per_minute": 1_000_000,
                **({"model": args.model} if args.model else {}),
            }
        )
        try:
            runtime = build_runtime(scratch)
            runtime.model  # noqa: B018 — an unknown --model is a usage error, before any work
        except ValueError as error:
            print(f"tanda eval answers: {error}", file=sys.stderr)
            return 2
        details = Path(args.details).open("w", encoding="utf-8") if args.details else None  # noqa: SIM115
        progress = _AnswerProgress(len(questions), enabled=sys.stderr.isatty())

        def on_answer(record: AnswerRecord) -> None:
            progress.advance()
            if details is not None:
                details.write(json.dumps(record.as_json(), ensure_ascii=False) + "\n")

        try:
            run = run_answers(
                runtime, answer_set, questions, route=args.route, home=home, on_answer=on_answer
            )
        finally:
            progress.close()
            if details is not None:
                details.close()
    report = run.report()
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return 0
    for name, value in report.items():
        shown = "—" if value is None else value
        print(f"{name:>22}  {shown}")
    return 0


class _AnswerProgress:
    """A progress bar on a terminal's stderr (tqdm), nothing otherwise."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self._bar = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc="answers", unit="q", file=sys.stderr, leave=False)

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
