"""Bulk imports (issue 26; docs/documents.md "Bulk imports"): start the Distributed Map over a
tenant's import objects — ``POST /v1/batches/{batch_id}/import`` and ``tanda ingest --remote``.
The documents it makes are uploads of the batch: ``GET /v1/batches/{batch_id}`` counts them."""

from __future__ import annotations

from typing import Protocol

from tanda.contract.v1_imports import V1ImportStarted, relative_path
from tanda.errors import Conflict, ServiceUnavailable
from tanda.records.imports import (
    ImportInput,
    execution_name,
    imports_prefix,
)


class ImportLauncher(Protocol):
    """What starts an import (``tanda.pipeline.runners.bulk_ingest.StepFunctionsImports``)."""

    def start(self, request: ImportInput) -> str: ...


class BulkImportUnavailable(ServiceUnavailable):
    code = "bulk_import_unavailable"
    message = (
        "Bulk imports run on AWS (TANDA_BULK_INGEST_STATE_MACHINE_ARN); embedded, "
        "`tanda ingest` reads a folder itself."
    )


class ImportStarted(Conflict):
    code = "import_already_started"
    message = "This batch's import of that source was started with other selections."


def start_import(
    launcher: ImportLauncher | None,
    tenant_id: str,
    batch_id: str,
    *,
    prefix: str | None = None,
    manifest: str | None = None,
    selections: tuple[str, ...] = (),
) -> V1ImportStarted:
    """Start the import of ``prefix`` (every object under it) or ``manifest`` (the keys it
    lists), both relative to the tenant's imports folder, into ``batch_id``. The same import
    started again is the same execution. ``ValueError`` for a path outside the folder."""
    from tanda.pipeline.runners.bulk_ingest import ImportAlreadyStarted

    if launcher is None:
        raise BulkImportUnavailable()
    base = imports_prefix(tenant_id)
    request = ImportInput(
        tenant_id=tenant_id,
        batch_id=batch_id,
        selections=selections,
        prefix=None if prefix is None else base + relative_path(prefix),
        manifest=None if manifest is None else base + relative_path(manifest),
    )
    source = request.manifest or request.prefix or base
    try:
        launcher.start(request)
    except ImportAlreadyStarted as started:
        raise ImportStarted() from started
    return V1ImportStarted(
        batch_id=batch_id,
        import_id=execution_name(tenant_id, batch_id, source),
        status="started",
        source=source,
    )
