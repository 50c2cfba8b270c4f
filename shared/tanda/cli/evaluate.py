"""``tanda eval retrieval|judge|numbers|proof`` (issues 3, 17 and 14): the use cases are
:mod:`tanda.service.retrieval_eval`, :mod:`tanda.service.judge_eval`,
:mod:`tanda.service.numbers_eval` and :mod:`tanda.service.proof_eval`; the scratch index and the
model come from the one factory."""

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
