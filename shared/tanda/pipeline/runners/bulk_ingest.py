"""The bulk-ingestion state machine (issue 26; ``infra/statemachines/bulk_ingest.asl.json``): a
Distributed Map over a tenant's import objects, each one a child execution of ``IngestFunction``.
This module starts one; the work is the machine's. docs/documents.md "On AWS"."""

from __future__ import annotations

import json
from typing import Any

from tanda.records.imports import ImportInput, execution_name


class ImportAlreadyStarted(Exception):
    """The same import (tenant, batch, source) was started before with another input."""


class StepFunctionsImports:
    """One execution per import, named after it (:func:`~tanda.records.imports.execution_name`):
    the same import started twice is the execution already started (Step Functions starts a
    name once; the same name and input return it). ``client`` is a boto3 ``stepfunctions``
    client (injected in tests)."""

    def __init__(self, client: Any, state_machine_arn: str) -> None:
        if not state_machine_arn:
            raise ValueError("TANDA_BULK_INGEST_STATE_MACHINE_ARN is not set")
        self.client = client
        self.state_machine_arn = state_machine_arn

    def start(self, request: ImportInput) -> str:
        """Start the import; the execution's ARN."""
        source = request.manifest or request.prefix or ""
        name = execution_name(request.tenant_id, request.batch_id, source)
        try:
            started = self.client.start_execution(
                stateMachineArn=self.state_machine_arn,
                name=name,
                input=json.dumps(request.execution_input(), sort_keys=True),
            )
        except Exception as error:
            code = getattr(error, "response", {}).get("Error", {}).get("Code")
            if code == "ExecutionAlreadyExists":
                raise ImportAlreadyStarted(name) from error
            raise
        return str(started["executionArn"])
