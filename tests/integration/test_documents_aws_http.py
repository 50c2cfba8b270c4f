"""The document lifecycle over HTTP on the AWS adapters (issue 26): ``/v1/documents`` served on
uvicorn by the app V1DocumentsFunction mounts, its runtime on DynamoDB and the uploads bucket
(moto, from template.yaml) and the in-memory OpenSearch — the partner starts an upload and gets
an S3 presigned POST, the bytes arrive and IngestFunction's real handler indexes them, the
batch shows its progress, and the erasure takes every version of the original with it."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.records.imports import upload_key
from tanda.wiring import Runtime
from tests.aws_ingest import (
    BUCKET,
    NOTE,
    TENANT,
    AwsIngest,
    LambdaContext,
    aws_ingest,
    s3_event,
    sqs_batch,
)

from .conftest import ServeApp
from .credentials import settings_for

pytestmark = pytest.mark.integration

KEY = "dip_live_documents-aws"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[AwsIngest]:
    with aws_ingest(monkeypatch, tmp_path / "home") as state:
        yield state


def served(serve_app: ServeApp, aws: AwsIngest, signing_key: ed25519.Ed25519PrivateKey) -> str:
    settings = settings_for(
        aws.runtime.settings.home,
        signing_key,
        v1_api_key_hashes={hash_api_key(KEY): TENANT},
        store="dynamodb",
        uploads_bucket=BUCKET,
        structure_layers=False,
    )
    runtime = Runtime(settings=settings)
    adapters = ("store", "search_index", "originals", "embedder")
    runtime.__dict__.update({name: aws.runtime.__dict__[name] for name in adapters})
    return serve_app(create_app(runtime))


def call(base: str, method: str, path: str, **options: object) -> httpx.Response:
    headers = {"Authorization": f"Bearer {KEY}"}
    return httpx.request(method, f"{base}{path}", headers=headers, timeout=30, **options)  # type: ignore[arg-type]


def test_upload_status_batch_and_erasure_on_the_aws_adapters(
    serve_app: ServeApp, aws: AwsIngest, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    base = served(serve_app, aws, signing_key)
    data = NOTE.encode()

    # Given a partner starting an upload,
    started = call(
        base,
        "POST",
        "/v1/documents",
        json={
            "filename": "catatan.md",
            "content_type": "text/markdown",
            "size_bytes": len(data),
            "batch_id": "b1",
        },
    )
    # then it gets an S3 presigned POST for exactly those bytes at its document's key,
    assert started.status_code == 201, started.text
    body = started.json()
    document_id = body["document_id"]
    target = body["upload"]
    assert target["method"] == "POST" and BUCKET in target["url"]
    assert target["fields"]["key"] == upload_key(TENANT, document_id)
    policy = json.loads(base64.b64decode(target["fields"]["policy"]))
    assert ["content-length-range", len(data), len(data)] in policy["conditions"]
    status = call(base, "GET", f"/v1/documents/{document_id}").json()
    assert status["status"] == "awaiting_upload"

    # when the bytes arrive (the POST to S3) and their event reaches IngestFunction,
    aws.s3.put_object(Bucket=BUCKET, Key=upload_key(TENANT, document_id), Body=data)
    assert aws.handler(sqs_batch(s3_event(document_id)), LambdaContext()) == {
        "batchItemFailures": []
    }

    # then the document is indexed, listed and counted in its batch,
    shown = call(base, "GET", f"/v1/documents/{document_id}").json()
    assert shown["status"] == "indexed" and shown["chunks"] >= 1
    progress = call(base, "GET", "/v1/batches/b1").json()
    assert (progress["total"], progress["done"], progress["progress"]) == (1, 1, 1.0)
    listed = call(base, "GET", "/v1/documents?batch_id=b1").json()
    assert [d["document_id"] for d in listed["documents"]] == [document_id]

    # and its erasure leaves no version of the original, nothing indexed, a receipt.
    erased = call(base, "DELETE", f"/v1/documents/{document_id}")
    assert erased.status_code == 200, erased.text
    versions = aws.s3.list_object_versions(Bucket=BUCKET, Prefix=upload_key(TENANT, document_id))
    assert versions.get("Versions", []) == [] and versions.get("DeleteMarkers", []) == []
    assert aws.indexed() == set()
    assert call(base, "GET", f"/v1/documents/{document_id}").status_code == 404
    assert call(base, "DELETE", f"/v1/documents/{document_id}").status_code == 404
