"""Ask a prepared answer set through one checkout of tanda (the one on ``PYTHONPATH``): the half of
``bench/answers.py`` that runs inside the code measured, so the same harness runs before and after.

It uses only what every version of the service since wave 2 has — ``build_runtime``,
``ingest_paths`` with the structure layers, ``answer_v2`` and ``ask_v1`` — and writes each raw
response; the figures are computed by ``bench/answers.py`` with the current scorer
(``tanda.service.answers_eval``).

    python bench/answers_driver.py DOCS.jsonl QUESTIONS.jsonl OUT.jsonl --route v2|v1 \
        [--repeat N]

``DOCS.jsonl``: ``{document_id, title, text}`` a line; ``QUESTIONS.jsonl``: ``{id, text}``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("docs")
    parser.add_argument("questions")
    parser.add_argument("out")
    parser.add_argument("--route", choices=("v2", "v1"), default="v2")
    parser.add_argument("--repeat", type=int, default=1, help="ask each question N times")
    parser.add_argument("--docs-are-paths", action="store_true", help="DOCS is a folder to ingest")
    args = parser.parse_args()

    from tanda.auth import Principal
    from tanda.contract import QueryV2Request
    from tanda.contract.v1_ask import V1AskRequest
    from tanda.errors import TandaError
    from tanda.service.answer_v2 import answer_v2
    from tanda.service.ask_v1 import ask_v1
    from tanda.service.ingest import StructureLayers, ingest_paths
    from tanda.settings import Settings
    from tanda.wiring import build_runtime

    with tempfile.TemporaryDirectory(prefix="tanda-bench-answers-") as tmp:
        home = Path(tmp)
        runtime = build_runtime(Settings(home=home, v1_rate_per_minute=1_000_000))
        source = Path(args.docs)
        if not args.docs_are_paths:
            source = home / "set.jsonl"
            source.write_text(Path(args.docs).read_text(encoding="utf-8"), encoding="utf-8")
        started = time.perf_counter()
        ingest_paths(
            runtime.search_index,
            None,
            [source],
            tenant="bench",
            layers=StructureLayers(model=runtime.model),
        )
        ingest_s = time.perf_counter() - started
        user = Principal(tenant_id="bench", partner_id="bench", subject="bench", is_test=True)
        questions = [
            json.loads(line)
            for line in Path(args.questions).read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        with Path(args.out).open("w", encoding="utf-8") as out:
            out.write(json.dumps({"ingest_s": ingest_s}) + "\n")
            for _ in range(args.repeat):
                for question in questions:
                    started = time.perf_counter()
                    row: dict[str, object] = {"id": question["id"]}
                    try:
                        if args.route == "v2":
                            body = answer_v2(runtime, user, QueryV2Request(query=question["text"]))
                        else:
                            body = ask_v1(runtime, user, V1AskRequest(query=question["text"]))
                        row["response"] = json.loads(body.model_dump_json())
                    except TandaError as error:
                        row["error"] = error.code
                    row["latency_ms"] = (time.perf_counter() - started) * 1000
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
