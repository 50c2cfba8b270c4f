"""Lambda entry point of ``IngestFunction`` (issue 26; docs/documents.md "On AWS"): one document
per S3 upload event (an SQS batch from the uploads rule, partial-batch failures reported) or per
item of a bulk import (a Distributed Map child) — both through
``tanda.service.ingest_events``, which calls the per-document handler the embedded worker runs.

Wiring only: the runtime is built on the first invocation (never at import: SnapStart,
``tanda.snapstart``).
"""

from functools import cache
from typing import Any

from tanda import snapstart
from tanda.observability import instrumented
from tanda.service import ingest_events
from tanda.wiring import Runtime, build_runtime, snapshot_primes


@cache
def runtime() -> Runtime:
    return build_runtime()


@instrumented("ingest", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return ingest_events.handle(event, context, runtime())


snapstart.register(prime_modules=snapshot_primes("ingest"))
