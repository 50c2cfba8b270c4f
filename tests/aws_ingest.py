"""The AWS ingestion path under moto (issue 26): DynamoDB tables and the uploads bucket made from
template.yaml, the in-memory OpenSearch on loopback (every request checked against OpenSearch's
spec at teardown), and ``functions/ingest/app.py`` — the real IngestFunction handler — on a
runtime of those adapters."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult

import pytest

from tanda.adapters.dynamodb_store import DynamoStore
from tanda.adapters.opensearch_index import OpenSearchIndex, build_client
from tanda.adapters.s3_originals import S3Originals
from tanda.records.documents import SearchScope
from tanda.records.imports import upload_key
from tanda.records.uploads import DocumentUpload, new_document_id
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.aws import REGION, REPO, ItemAtomicClient, create_table_from_template, template_resources
from tests.opensearch_memory import MemoryOpenSearch, serve_json

INDEX = "tanda-chunks"
BUCKET = "tanda-uploads-test"
TENANT = "t1"
NOTE = (
    "# Catatan gudang\n\nKertas A4 disimpan di rak tiga. Zorblaxquintine menjaga rak itu.\n\n"
    "## Tinta\n\nTinta hitam dipesan setiap bulan.\n"
)


def create_bucket_from_template(client: Any, name: str) -> None:
    """The uploads bucket as the template makes it: versioned, with its lifecycle."""
    properties = template_resources()["UploadsBucket"]["Properties"]
    client.create_bucket(Bucket=name)
    client.put_bucket_versioning(
        Bucket=name, VersioningConfiguration=properties["VersioningConfiguration"]
    )


@dataclass
class AwsIngest:
    runtime: Runtime
    store: DynamoStore
    originals: S3Originals
    s3: Any
    opensearch: MemoryOpenSearch
    handler: Callable[[dict[str, Any], Any], Any]
    fail_bulk_of: set[str] = field(default_factory=set)
    """Document ids whose ``_bulk`` writes the OpenSearch answers 500 to."""

    def upload(
        self,
        data: bytes,
        filename: str = "catatan.md",
        *,
        arrive: bool = True,
        **changes: Any,
    ) -> DocumentUpload:
        """``POST /v1/documents`` as far as the Store (``awaiting_upload``), then the partner's
        POST of the bytes to S3 (``arrive``)."""
        now = time.time()
        upload = DocumentUpload(
            tenant_id=TENANT,
            document_id=new_document_id(now),
            filename=filename,
            content_type="text/markdown",
            size_bytes=len(data),
            created_at=now,
            updated_at=now,
            expires_at=now + 900,
        ).model_copy(update=changes)
        self.store.create_upload(upload, now=now)
        if arrive:
            self.s3.put_object(Bucket=BUCKET, Key=upload_key(TENANT, upload.document_id), Body=data)
        return upload

    def indexed(self) -> set[str]:
        return {
            d.document_id
            for d in self.runtime.search_index.documents(SearchScope(tenant_id=TENANT))
        }

    def chunk_writes(self, document_id: str) -> int:
        """``_bulk`` requests that indexed chunks of the document."""
        return sum(
            1
            for method, path, body in self.opensearch.requests
            if path.endswith("/_bulk")
            and any(line.get("document_id") == document_id for line in body[1::2])
        )


def s3_event(document_id: str, tenant_id: str = TENANT) -> dict[str, Any]:
    """The EventBridge event S3 sends for an Object Created (as the queue delivers its body)."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Object Created",
        "source": "aws.s3",
        "account": "123456789012",
        "time": "2026-12-02T06:00:00Z",
        "region": REGION,
        "resources": [f"arn:aws:s3:::{BUCKET}"],
        "detail": {
            "version": "0",
            "bucket": {"name": BUCKET},
            "object": {
                "key": upload_key(tenant_id, document_id),
                "size": 1,
                "etag": "e",
                "sequencer": "0",
            },
            "request-id": "r",
            "requester": "123456789012",
            "reason": "PostObject",
        },
    }


def sqs_batch(*events: dict[str, Any], receives: int = 1) -> dict[str, Any]:
    """An SQS event source batch of the queue's messages (their bodies the EventBridge events)."""
    return {
        "Records": [
            {
                "messageId": f"m{n}-{uuid.uuid4().hex[:8]}",
                "receiptHandle": "h",
                "body": json.dumps(event),
                "attributes": {
                    "ApproximateReceiveCount": str(receives),
                    "SentTimestamp": "0",
                    "SenderId": "events",
                    "ApproximateFirstReceiveTimestamp": "0",
                },
                "messageAttributes": {},
                "md5OfBody": hashlib.md5(json.dumps(event).encode()).hexdigest(),
                "eventSource": "aws:sqs",
                "eventSourceARN": f"arn:aws:sqs:{REGION}:123456789012:ingest",
                "awsRegion": REGION,
            }
            for n, event in enumerate(events)
        ]
    }


class LambdaContext:
    function_name = "tanda-ingest"
    memory_limit_in_mb = 2048
    invoked_function_arn = f"arn:aws:lambda:{REGION}:123456789012:function:tanda-ingest:live"
    aws_request_id = "req-1"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


def load_ingest_handler(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``functions/ingest/app.py`` as deployed, its runtime replaced by ``runtime``."""
    path = REPO / "functions" / "ingest" / "app.py"
    spec = importlib.util.spec_from_file_location(f"ingest_app_{uuid.uuid4().hex}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "runtime", lambda: runtime)
    return module.handler


@contextmanager
def aws_ingest(
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    *,
    lease_s: float = 30.0,
    config: dict[str, Any] | None = None,
) -> Iterator[AwsIngest]:
    import boto3
    from moto import mock_aws

    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(variable, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    memory = MemoryOpenSearch()
    holder: dict[str, AwsIngest] = {}

    def answer(method: str, url: SplitResult, headers: dict[str, str], body: Any) -> Any:
        state = holder.get("state")
        refused = state.fail_bulk_of if state and url.path.endswith("/_bulk") else set()
        if refused and any(line.get("document_id") in refused for line in body[1::2]):
            memory.requests.append((method, url.path, body))
            return 500, {"error": {"type": "internal"}, "status": 500}
        return memory.reply(method, url.path, body)

    with mock_aws(config=config), serve_json(answer) as url:  # type: ignore[arg-type]
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        create_table_from_template(dynamodb, "TandaTable", "tanda-test")
        create_table_from_template(dynamodb, "ReceiptsTable", "tanda-test-receipts")
        s3 = boto3.client("s3", region_name=REGION)
        create_bucket_from_template(s3, BUCKET)
        settings = Settings(
            home=home,
            store="dynamodb",
            index=f"opensearch:{url}",
            uploads_bucket=BUCKET,
            structure_layers=False,
            xc_lease_s=lease_s,
        )
        store = DynamoStore(
            ItemAtomicClient(dynamodb), table="tanda-test", receipts_table="tanda-test-receipts"
        )
        index = OpenSearchIndex(
            build_client(url, service=None, region=None),
            INDEX,
            auto_create=False,
            fusion_place="client",
        )
        originals = S3Originals(s3, BUCKET)
        runtime = Runtime(settings=settings)
        runtime.__dict__.update(store=store, search_index=index, originals=originals, embedder=None)
        state = AwsIngest(
            runtime=runtime,
            store=store,
            originals=originals,
            s3=s3,
            opensearch=memory,
            handler=load_ingest_handler(runtime, monkeypatch),
        )
        holder["state"] = state
        yield state
