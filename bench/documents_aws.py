"""The AWS ingestion path (issue 26): IngestFunction's per-document handler, its time and memory
in a Lambda-like process, and from them a model of the bulk import's Distributed Map wall time for
100 000 documents at MaxConcurrency 50 and 200. Writes the ``aws`` key of
``bench/results/documents.json`` (the embedded figures beside it are ``bench/documents.py``'s).

    PYTHONPATH=shared:. python bench/documents_aws.py

**Measured**, in a fresh interpreter that imports what the function imports (``functions/ingest/
app.py``) — moto's DynamoDB and S3 (tables and bucket as template.yaml makes them) and the
in-memory OpenSearch on loopback, the template's defaults (offline model, structure layers on,
no embedder) — one bulk-import item (``import_item``: read the object, make the upload, copy it
to its upload key, claim, read, chunk, structure, ``_bulk``, ``indexed``) per document, for the
20-page statute PDF and the 500-row CSV of ``bench/documents.py`` and small notes: wall and CPU
time per document, the AWS and OpenSearch requests each one makes, the process's peak RSS (what
Lambda reports as "Max Memory Used") and the entry module's import time (an on-demand cold start's
import; SnapStart takes it out). moto and the fake answer in-process: their CPU is inside the
figures, their network latency is not.

**Modelled** (stated, not measured): Lambda runs the handler at least as fast as this host (a
2048 MB function gets ~1.2 vCPU); each request the handler makes costs the stated round trip
(DynamoDB 6 ms, S3 25 ms, OpenSearch ``_bulk``/search 30 ms) on top of the local time; every
child execution adds Step Functions' and Lambda's start overhead (0.15 s, assumed); each of the
MaxConcurrency Lambda environments starts cold once (the measured import). Then

    wall = ceil(N / C) x (t_doc + requests x round trips + child overhead) + t_cold

for N documents and C = MaxConcurrency — i.e. the map is bound by per-document latency, not by
Step Functions (a Distributed Map runs up to 10 000 children at once). It assumes the OpenSearch
domain absorbs C concurrent ``_bulk`` writers without 429s (beyond that the backoff stretches
t_doc: size MaxConcurrency to the domain — docs/documents.md "Sizing").
"""

from __future__ import annotations

import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "documents.json"
DOCUMENTS = 100_000
CONCURRENCY = (50, 200)
ROUND_TRIP_MS = {"dynamodb": 6.0, "s3": 25.0, "opensearch": 30.0}
CHILD_OVERHEAD_MS = 150.0
RUNS = {"pdf_20_pages": 5, "csv_500_rows": 5, "small_note": 20}


def child() -> dict[str, Any]:
    """Runs in the fresh interpreter: the measurements, as JSON on stdout."""
    started = time.perf_counter()
    import importlib.util

    spec = importlib.util.spec_from_file_location("ingest_app", ROOT / "functions/ingest/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import_ms = (time.perf_counter() - started) * 1000
    rss_after_import_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    import boto3
    from bench.documents import rows_csv, small_note, statute_pdf
    from moto import mock_aws
    from tests.aws import REGION, create_table_from_template
    from tests.aws_ingest import BUCKET, LambdaContext, create_bucket_from_template
    from tests.opensearch_memory import MemoryOpenSearch, serve_json

    from tanda.adapters.dynamodb_store import DynamoStore
    from tanda.adapters.opensearch_index import OpenSearchIndex, build_client
    from tanda.adapters.s3_originals import S3Originals
    from tanda.settings import Settings
    from tanda.wiring import Runtime

    os.environ.update(
        AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION=REGION
    )
    memory = MemoryOpenSearch()
    calls: dict[str, int] = {"dynamodb": 0, "s3": 0}

    def count(service: str) -> Any:
        def counted(**_: Any) -> None:
            calls[service] += 1

        return counted

    samples: dict[str, list[dict[str, float]]] = {}
    with (
        mock_aws(),
        serve_json(lambda m, u, h, b: memory.reply(m, u.path, b), contract=False) as url,
    ):
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        create_table_from_template(dynamodb, "TandaTable", "tanda-bench")
        create_table_from_template(dynamodb, "ReceiptsTable", "tanda-bench-receipts")
        s3 = boto3.client("s3", region_name=REGION)
        create_bucket_from_template(s3, BUCKET)
        for client, service in ((dynamodb, "dynamodb"), (s3, "s3")):
            client.meta.events.register("before-call.*", count(service))
        settings = Settings(store="dynamodb", index=f"opensearch:{url}", uploads_bucket=BUCKET)
        runtime = Runtime(settings=settings)
        runtime.__dict__.update(
            store=DynamoStore(dynamodb, table="tanda-bench", receipts_table="tanda-bench-receipts"),
            search_index=OpenSearchIndex(
                build_client(url, service=None, region=None),
                "tanda-chunks",
                auto_create=False,
                fusion_place="client",
            ),
            originals=S3Originals(s3, BUCKET),
            embedder=None,
        )
        module.runtime = lambda: runtime
        makers = {
            "pdf_20_pages": ("statuta.pdf", lambda n: statute_pdf(f"KODE{n:05d}")),
            "csv_500_rows": ("barang.csv", lambda n: rows_csv(f"K{n:05d}")),
            "small_note": ("catatan.md", small_note),
        }
        for kind, (name, make) in makers.items():
            for n in range(RUNS[kind]):
                key = f"tenants/bench/imports/{kind}/{n}-{name}"
                s3.put_object(Bucket=BUCKET, Key=key, Body=make(n))
                before = dict(calls)
                requests = len(memory.requests)
                wall, cpu = time.perf_counter(), time.process_time()
                result = module.handler(
                    {"import_item": {"key": key, "tenant_id": "bench", "batch_id": kind}},
                    LambdaContext(),
                )
                assert result["status"] == "indexed", result
                samples.setdefault(kind, []).append(
                    {
                        "wall_ms": (time.perf_counter() - wall) * 1000,
                        "cpu_ms": (time.process_time() - cpu) * 1000,
                        "dynamodb": calls["dynamodb"] - before["dynamodb"],
                        "s3": calls["s3"] - before["s3"],
                        "opensearch": len(memory.requests) - requests,
                    }
                )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "import_ms": round(import_ms, 1),
        "rss_after_import_mb": round(rss_after_import_mb, 1),
        "peak_rss_mb": round(peak_mb, 1),
        "samples": samples,
    }


def summary(samples: list[dict[str, float]]) -> dict[str, float]:
    walls = [s["wall_ms"] for s in samples]
    return {
        "runs": len(samples),
        "p50_wall_ms": round(statistics.median(walls), 1),
        "max_wall_ms": round(max(walls), 1),
        "p50_cpu_ms": round(statistics.median(s["cpu_ms"] for s in samples), 1),
        "requests": {k: round(statistics.median(s[k] for s in samples)) for k in ROUND_TRIP_MS},
    }


def model(document: dict[str, Any], cold_ms: float) -> dict[str, Any]:
    network = sum(document["requests"][k] * ROUND_TRIP_MS[k] for k in ROUND_TRIP_MS)
    per_doc = document["p50_wall_ms"] + network + CHILD_OVERHEAD_MS
    out: dict[str, Any] = {"per_document_ms": round(per_doc, 1)}
    for concurrency in CONCURRENCY:
        rounds = math.ceil(DOCUMENTS / concurrency)
        seconds = (rounds * per_doc + cold_ms) / 1000
        out[f"max_concurrency_{concurrency}"] = {
            "wall_s": round(seconds),
            "wall_h": round(seconds / 3600, 2),
            "documents_per_s": round(DOCUMENTS / seconds, 1),
        }
    return out


def main() -> int:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'shared'}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, __file__, "--child"], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        print(done.stderr[-4000:], file=sys.stderr)
        return 1
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    handler = {kind: summary(samples) for kind, samples in measured["samples"].items()}
    result = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "measured": {
            "entry_import_ms": measured["import_ms"],
            "rss_after_import_mb": measured["rss_after_import_mb"],
            "peak_rss_mb": measured["peak_rss_mb"],
            "handler": handler,
        },
        "model_inputs": {
            "documents": DOCUMENTS,
            "round_trip_ms": ROUND_TRIP_MS,
            "child_overhead_ms": CHILD_OVERHEAD_MS,
            "cold_start_ms": measured["import_ms"],
            "note": "stated assumptions: Lambda at least as fast as this host; the domain "
            "absorbs MaxConcurrency concurrent _bulk writers without 429s",
        },
        "model_100k": {
            kind: model(document, measured["import_ms"]) for kind, document in handler.items()
        },
    }
    existing = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    existing["aws"] = result
    RESULTS.write_text(json.dumps(existing, indent=1) + "\n", encoding="utf-8")
    print(f"entry import {measured['import_ms']} ms, peak RSS {measured['peak_rss_mb']} MB")
    print(f"{'document':<14}{'p50 ms':>9}{'cpu ms':>9}  requests (ddb/s3/os)   100k@50    100k@200")
    for kind, document in handler.items():
        modelled = result["model_100k"][kind]
        r = document["requests"]
        print(
            f"{kind:<14}{document['p50_wall_ms']:>9}{document['p50_cpu_ms']:>9}"
            f"  {r['dynamodb']:>4}/{r['s3']:>3}/{r['opensearch']:>3}"
            f"  {modelled['max_concurrency_50']['wall_h']:>9} h"
            f"{modelled['max_concurrency_200']['wall_h']:>9} h"
        )
    return 0


if __name__ == "__main__":
    if "--child" in sys.argv:
        print(json.dumps(child()))
        sys.exit(0)
    sys.exit(main())
