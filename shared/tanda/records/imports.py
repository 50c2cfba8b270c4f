"""Where uploaded originals and bulk imports live in the uploads bucket, and what a bulk import
is (issue 26; docs/documents.md "On AWS").

* ``tenants/<tenant>/uploads/<document_id>``: one document's original (a presigned POST puts it,
  an erasure deletes every version of it);
* ``tenants/<tenant>/imports/…``: what a tenant's bulk imports read — objects under a prefix, or
  the keys a JSON manifest there lists (``[{"key": "tenants/<tenant>/imports/…"}, …]``);
* ``results/<map run id>/``: the Distributed Map's results — ids and statuses, never text (kept
  30 days).

A key is never taken on trust: an import item outside its own tenant's imports is refused
(:func:`import_key_of`), whatever a manifest says.
"""

from __future__ import annotations

import hashlib
import json
import re

from pydantic import BaseModel, ConfigDict, Field

TENANTS_FOLDER = "tenants"
UPLOADS_FOLDER = "uploads"
IMPORTS_FOLDER = "imports"
EXECUTION_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


def _segment(value: str, what: str) -> str:
    if not value or "/" in value or value in (".", ".."):
        raise ValueError(f"{what} {value!r} cannot name an S3 key segment")
    return value


def upload_key(tenant_id: str, document_id: str) -> str:
    """The object of one document's original."""
    tenant, document = _segment(tenant_id, "tenant id"), _segment(document_id, "document id")
    return f"{TENANTS_FOLDER}/{tenant}/{UPLOADS_FOLDER}/{document}"


def parse_upload_key(key: str) -> tuple[str, str] | None:
    """``(tenant, document id)`` of an upload key; ``None`` for any other key."""
    parts = key.split("/")
    if len(parts) != 4 or parts[0] != TENANTS_FOLDER or parts[2] != UPLOADS_FOLDER:
        return None
    if not parts[1] or not parts[3] or parts[3] in (".", ".."):
        return None
    return parts[1], parts[3]


def imports_prefix(tenant_id: str) -> str:
    """``tenants/<tenant>/imports/``: everything a tenant's bulk imports may read."""
    return f"{TENANTS_FOLDER}/{_segment(tenant_id, 'tenant id')}/{IMPORTS_FOLDER}/"


def import_key_of(tenant_id: str, key: str) -> str:
    """``key`` when it names an object (not a folder) under the tenant's own imports."""
    prefix = imports_prefix(tenant_id)
    if not key.startswith(prefix) or key.endswith("/") or ".." in key.split("/"):
        raise ValueError("the object is not under the tenant's imports")
    return key


def execution_name(tenant_id: str, batch_id: str, source: str) -> str:
    """The import's execution name: the same import (tenant, batch, source) started twice is
    one execution (Step Functions starts a name once)."""
    digest = hashlib.sha256(json.dumps([tenant_id, batch_id, source]).encode()).hexdigest()
    return f"import-{digest[:40]}"


class ImportItem(BaseModel):
    """One object of a bulk import, as the Distributed Map hands it to ``IngestFunction``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(min_length=1)
    tenant_id: str = Field(min_length=1)
    batch_id: str = Field(min_length=1)
    selections: tuple[str, ...] = ()


class ImportInput(BaseModel):
    """The execution input of the bulk-ingestion state machine (``bulk_ingest.asl.json``):
    ``prefix`` or ``manifest``, full keys under the tenant's imports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tenant_id: str
    batch_id: str
    selections: tuple[str, ...] = ()
    prefix: str | None = None
    manifest: str | None = None

    def execution_input(self) -> dict[str, object]:
        """The JSON the machine starts with (only one of ``prefix`` / ``manifest``: its
        Choice state reads which is present)."""
        return self.model_dump(mode="json", exclude_none=True)
