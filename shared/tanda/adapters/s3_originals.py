"""``Originals`` on S3 (issue 26): the bytes partners upload, one object per document at
``tenants/<tenant>/uploads/<document_id>`` in the uploads bucket (``TANDA_UPLOADS_BUCKET``,
template.yaml ``UploadsBucket``). docs/documents.md "On AWS".

The partner sends the bytes to S3 itself, with a **presigned POST** whose policy S3 enforces:
exactly this key, exactly the declared ``Content-Type``, a body of exactly the declared size
(``content-length-range`` [size, size]: a larger or smaller body is refused by S3 before any byte
is stored) and an expiry. The object's arrival is an S3 event → EventBridge → the ingest queue.
Small files sent through the API are put here by the route (:meth:`S3Originals.put`).

The bucket is versioned: :meth:`S3Originals.delete` deletes every version and delete marker of
the key (an erasure leaves no version behind; the lifecycle expires any noncurrent version
within a day as well). The client is injected (moto in tests).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from tanda.adapters.aws_errors import error_code
from tanda.records.imports import import_key_of, upload_key
from tanda.records.uploads import OriginalRefused, StoredOriginal, UploadTarget

if TYPE_CHECKING:
    from tanda.settings import Settings

DELETE_BATCH = 1000
"""Keys one ``DeleteObjects`` request takes at most."""
MIN_EXPIRY_S = 1


class S3Originals:
    """``client`` is a boto3 S3 client; ``clock`` gives epoch seconds (for the POST's expiry)."""

    def __init__(self, client: Any, bucket: str, *, clock: Callable[[], float] = time.time) -> None:
        if not bucket:
            raise ValueError("TANDA_UPLOADS_BUCKET: the uploads bucket is required")
        self.client = client
        self.bucket = bucket
        self.clock = clock

    @classmethod
    def from_settings(cls, settings: Settings, client: Any | None = None) -> S3Originals:
        if client is None:
            from botocore.config import Config  # lazily: only an AWS deployment pays for it

            from tanda.adapters.aws_sdk import client as aws_client

            # SigV4 everywhere: a presigned POST signed with v2 is refused by newer regions.
            client = aws_client("s3", config=Config(signature_version="s3v4"))
        return cls(client, settings.uploads_bucket or "")

    # --- Originals ------------------------------------------------------------------------

    def upload_target(
        self,
        tenant_id: str,
        document_id: str,
        *,
        content_type: str,
        size_bytes: int,
        expires_at: float,
        base_url: str,
    ) -> UploadTarget:
        """A presigned POST: S3 accepts exactly ``size_bytes`` bytes of ``content_type`` at this
        document's key until ``expires_at``, and nothing else (``base_url`` is not used: the
        partner posts to S3, not to the API)."""
        key = upload_key(tenant_id, document_id)
        expires_in = max(MIN_EXPIRY_S, math.floor(expires_at - self.clock()))
        post = self.client.generate_presigned_post(
            Bucket=self.bucket,
            Key=key,
            Fields={"Content-Type": content_type},
            Conditions=[
                {"Content-Type": content_type},
                ["content-length-range", size_bytes, size_bytes],
            ],
            ExpiresIn=expires_in,
        )
        return UploadTarget(
            url=str(post["url"]),
            method="POST",
            fields={str(k): str(v) for k, v in post["fields"].items()},
            expires_at=expires_at,
        )

    def verify_target(
        self,
        tenant_id: str,
        document_id: str,
        query: Mapping[str, str],
        *,
        content_type: str,
        size_bytes: int,
        now: float,
    ) -> bool:
        """S3 checks its own targets: the API never serves one."""
        return False

    def put(
        self, tenant_id: str, document_id: str, body: Iterable[bytes], *, size_bytes: int
    ) -> StoredOriginal:
        """One ``PutObject`` of exactly ``size_bytes`` bytes (S3 writes an object whole or not
        at all); refused before anything is sent when the body is of another size."""
        key = upload_key(tenant_id, document_id)
        digest = hashlib.sha256()
        parts: list[bytes] = []
        received = 0
        for part in body:
            received += len(part)
            if received > size_bytes:
                raise OriginalRefused(
                    f"the body is larger than the declared {size_bytes} bytes", too_large=True
                )
            digest.update(part)
            parts.append(part)
        if received != size_bytes:
            raise OriginalRefused(f"the body has {received} bytes, {size_bytes} were declared")
        self.client.put_object(
            Bucket=self.bucket, Key=key, Body=b"".join(parts), ContentLength=size_bytes
        )
        return StoredOriginal(size_bytes=size_bytes, sha256=digest.hexdigest())

    def read(self, tenant_id: str, document_id: str) -> bytes | None:
        return self.read_key(upload_key(tenant_id, document_id))

    def read_import(self, tenant_id: str, key: str) -> bytes | None:
        """The bytes of an object of a bulk import — only one under the tenant's own imports
        (``ValueError`` otherwise); ``None`` when absent."""
        return self.read_key(import_key_of(tenant_id, key))

    def read_key(self, key: str) -> bytes | None:
        try:
            found = self.client.get_object(Bucket=self.bucket, Key=key)
        except Exception as error:
            if error_code(error) in ("NoSuchKey", "404", "NotFound"):
                return None
            raise
        data: bytes = found["Body"].read()
        return data

    def delete(self, tenant_id: str, document_id: str) -> bool:
        """Delete every version and delete marker of the document's object (a versioned bucket
        keeps the bytes of a plainly deleted object as a noncurrent version)."""
        key = upload_key(tenant_id, document_id)
        versions: list[dict[str, str]] = []
        request: dict[str, Any] = {"Bucket": self.bucket, "Prefix": key}
        while True:
            page = self.client.list_object_versions(**request)
            for entry in [*page.get("Versions", []), *page.get("DeleteMarkers", [])]:
                if entry["Key"] == key:  # the prefix also matches longer keys
                    versions.append({"Key": key, "VersionId": entry["VersionId"]})
            if not page.get("IsTruncated"):
                break
            request["KeyMarker"] = page.get("NextKeyMarker")
            request["VersionIdMarker"] = page.get("NextVersionIdMarker")
        existed = any(True for _ in versions)
        for start in range(0, len(versions), DELETE_BATCH):
            answer = self.client.delete_objects(
                Bucket=self.bucket,
                Delete={"Objects": versions[start : start + DELETE_BATCH], "Quiet": True},
            )
            if answer.get("Errors"):
                raise RuntimeError(f"S3 kept {len(answer['Errors'])} version(s) of {key}")
        return existed
