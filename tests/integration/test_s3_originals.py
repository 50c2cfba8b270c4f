"""``S3Originals`` (issue 26) under moto, on a bucket made as template.yaml makes it (versioned):
the presigned POST whose policy S3 enforces — this key only, the declared type, exactly the
declared size, an expiry — (moto does not enforce a POST policy, so its conditions are read back
and asserted); bytes put whole or refused; every version erased."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from tanda.adapters.s3_originals import S3Originals
from tanda.records.imports import upload_key
from tanda.records.uploads import OriginalRefused
from tests.aws import REGION
from tests.aws_ingest import BUCKET, create_bucket_from_template

pytestmark = pytest.mark.integration


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    import boto3
    from moto import mock_aws

    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(variable, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        client = boto3.client("s3", region_name=REGION)
        create_bucket_from_template(client, BUCKET)
        yield client


def policy_of(fields: dict[str, str]) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(base64.b64decode(fields["policy"]))
    return decoded


def test_the_presigned_post_admits_exactly_the_declared_size_type_key_and_time(s3: Any) -> None:
    now = time.time()  # boto3 dates the POST's policy by the real clock
    originals = S3Originals(s3, BUCKET, clock=lambda: now)
    target = originals.upload_target(
        "t1",
        "doc_0001",
        content_type="application/pdf",
        size_bytes=123_456,
        expires_at=now + 900,
        base_url="https://unused.example",
    )
    assert target.method == "POST" and target.expires_at == now + 900
    assert BUCKET in target.url
    assert target.fields["key"] == "tenants/t1/uploads/doc_0001"
    assert target.fields["Content-Type"] == "application/pdf"
    policy = policy_of(target.fields)
    conditions = policy["conditions"]
    # a body larger (or smaller) than declared is refused by S3 before it is stored,
    assert ["content-length-range", 123_456, 123_456] in conditions
    # another type, another key or another bucket too,
    assert {"Content-Type": "application/pdf"} in conditions
    assert {"key": "tenants/t1/uploads/doc_0001"} in conditions
    assert {"bucket": BUCKET} in conditions
    # and after the expiry (an expired URL is refused by S3 whatever the body).
    expiry = datetime.strptime(policy["expiration"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert expiry.timestamp() == pytest.approx(now + 900, abs=2)


def test_a_post_already_expired_is_signed_for_a_moment_only(s3: Any) -> None:
    now = time.time()
    originals = S3Originals(s3, BUCKET, clock=lambda: now)
    target = originals.upload_target(
        "t1", "doc_0001", content_type="text/csv", size_bytes=1, expires_at=now - 5, base_url=""
    )
    expiry = datetime.strptime(
        policy_of(target.fields)["expiration"], "%Y-%m-%dT%H:%M:%SZ"
    ).replace(tzinfo=UTC)
    assert expiry.timestamp() <= time.time() + 2  # MIN_EXPIRY_S, not a fresh window


def test_put_stores_exactly_the_declared_bytes_or_nothing(s3: Any) -> None:
    originals = S3Originals(s3, BUCKET)
    stored = originals.put("t1", "doc_a", [b"abc", b"def"], size_bytes=6)
    assert stored.size_bytes == 6
    assert originals.read("t1", "doc_a") == b"abcdef"

    sent: list[bytes] = []

    def endless() -> Iterator[bytes]:
        while True:
            sent.append(b"x" * 10)
            yield sent[-1]

    with pytest.raises(OriginalRefused) as refused:
        originals.put("t1", "doc_b", endless(), size_bytes=25)
    assert refused.value.too_large and len(sent) == 3  # stopped as soon as it passed the size
    with pytest.raises(OriginalRefused):
        originals.put("t1", "doc_c", [b"short"], size_bytes=6)
    assert originals.read("t1", "doc_b") is None and originals.read("t1", "doc_c") is None


def test_delete_erases_every_version_of_the_original_and_only_it(s3: Any) -> None:
    originals = S3Originals(s3, BUCKET)
    originals.put("t1", "doc_a", [b"v1"], size_bytes=2)
    originals.put("t1", "doc_a", [b"v2"], size_bytes=2)  # a second version
    s3.delete_object(Bucket=BUCKET, Key=upload_key("t1", "doc_a"))  # and a delete marker
    originals.put("t1", "doc_ab", [b"keep"], size_bytes=4)  # a longer key with that prefix

    assert originals.delete("t1", "doc_a") is True

    left = s3.list_object_versions(Bucket=BUCKET)
    keys = {v["Key"] for v in [*left.get("Versions", []), *left.get("DeleteMarkers", [])]}
    assert keys == {upload_key("t1", "doc_ab")}
    assert originals.delete("t1", "doc_a") is False


def test_an_import_is_read_only_from_its_own_tenants_imports(s3: Any) -> None:
    originals = S3Originals(s3, BUCKET)
    s3.put_object(Bucket=BUCKET, Key="tenants/t1/imports/set/a.md", Body=b"# a")
    s3.put_object(Bucket=BUCKET, Key="tenants/t2/imports/set/b.md", Body=b"# b")
    assert originals.read_import("t1", "tenants/t1/imports/set/a.md") == b"# a"
    for key in (
        "tenants/t2/imports/set/b.md",
        "tenants/t1/uploads/doc_a",
        "tenants/t1/imports/../../t2/imports/set/b.md",
        "tenants/t1/imports/set/",
    ):
        with pytest.raises(ValueError):
            originals.read_import("t1", key)
    assert originals.read_import("t1", "tenants/t1/imports/none.md") is None


@pytest.mark.parametrize("bad", ["", "a/b", "..", "."])
def test_a_key_segment_cannot_escape_its_folder(s3: Any, bad: str) -> None:
    with pytest.raises(ValueError):
        S3Originals(s3, BUCKET).read("t1", bad)
    with pytest.raises(ValueError):
        S3Originals(s3, BUCKET).read(bad, "doc_a")
