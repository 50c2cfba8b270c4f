"""``tanda eval retrieval DIR [--lang L]`` (issue 3): the use case is
:mod:`tanda.service.retrieval_eval`; the scratch index comes from the one factory.
``tanda eval proof PATH`` (ASK-11, issue 14): :mod:`tanda.service.proof_eval`."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from tanda.service.proof_eval import evaluate_proofs, load_tatqa
from tanda.service.retrieval_eval import beir_documents, evaluate_index, load_beir
from tanda.wiring import scratch_search_index


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
