"""The documents' AWS resources in ``template.yaml`` (issue 26): the uploads bucket (no public
access, TLS only, SSE, no version outliving an erasure, events to EventBridge), the upload rule →
queue (dead-letter queue after IngestMaxReceives) → IngestFunction (partial batch failures), the
bulk-ingestion Distributed Map wired to the same function, and what each function may touch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from samtranslator.yaml_helper import yaml_parse

from tanda.records.imports import ImportInput, imports_prefix, parse_upload_key, upload_key
from tanda.settings import Settings

REPO = Path(__file__).resolve().parents[2]
ASL = REPO / "infra" / "statemachines" / "bulk_ingest.asl.json"
TEMPLATE: dict[str, Any] = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]


def properties(name: str) -> dict[str, Any]:
    found: dict[str, Any] = RESOURCES[name]["Properties"]
    return found


def statements(function: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for policy in properties(function)["Policies"]:
        found += policy.get("Statement", [])
    return found


def actions(statement: dict[str, Any]) -> list[str]:
    action = statement.get("Action", [])
    return [action] if isinstance(action, str) else list(action)


def test_the_uploads_bucket_is_private_encrypted_tls_only_and_keeps_no_old_version() -> None:
    bucket = properties("UploadsBucket")
    assert set(bucket["PublicAccessBlockConfiguration"].values()) == {True}
    (rule,) = bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"  # SSE-S3, documented
    rules = {r["Id"]: r for r in bucket["LifecycleConfiguration"]["Rules"]}
    assert rules["no-versions-after-erasure"]["NoncurrentVersionExpiration"]["NoncurrentDays"] == 1
    assert rules["abort-incomplete-multipart-uploads"]["AbortIncompleteMultipartUpload"] == {
        "DaysAfterInitiation": 1
    }
    assert bucket["NotificationConfiguration"]["EventBridgeConfiguration"] == {
        "EventBridgeEnabled": True
    }
    (tls,) = properties("UploadsBucketPolicy")["PolicyDocument"]["Statement"]
    assert (tls["Effect"], tls["Action"]) == ("Deny", "s3:*")
    assert tls["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_an_upload_event_reaches_the_ingest_function_through_a_queue_with_a_dead_letter_queue() -> (
    None
):
    rule = properties("UploadsRule")
    pattern = rule["EventPattern"]
    assert pattern["detail-type"] == ["Object Created"]
    (wildcard,) = pattern["detail"]["object"]["key"]
    # the rule's pattern is the upload key's shape (and imports, results are not ingested twice)
    assert wildcard == {"wildcard": "tenants/*/uploads/*"}
    assert parse_upload_key(upload_key("t1", "doc_1")) == ("t1", "doc_1")
    assert parse_upload_key(imports_prefix("t1") + "a.md") is None
    (target,) = rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": ["IngestQueue", "Arn"]}
    queue = properties("IngestQueue")
    assert queue["RedrivePolicy"]["maxReceiveCount"] == {"Ref": "IngestMaxReceives"}
    # a document interrupted TANDA_XC_MAX_ATTEMPTS times is failed by the next receive, before
    # its message could be dead-lettered
    assert TEMPLATE["Parameters"]["IngestMaxReceives"]["MinValue"] > Settings().xc_max_attempts
    ingest = properties("IngestFunction")
    (event,) = ingest["Events"].values()
    assert event["Type"] == "SQS"
    assert event["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert event["Properties"]["ScalingConfig"] == {
        "MaximumConcurrency": {"Ref": "IngestQueueConcurrency"}
    }
    assert queue["VisibilityTimeout"] >= 6 * ingest["Timeout"]  # Lambda's guidance for SQS


def test_the_bulk_machine_is_a_distributed_map_over_the_same_handler_within_its_limits() -> None:
    machine = properties("BulkIngestStateMachine")
    assert machine["Type"] == "STANDARD"
    assert machine["Logging"]["IncludeExecutionData"] is False
    substitutions = machine["DefinitionSubstitutions"]
    assert substitutions["IngestFunctionArn"] == {"Ref": "IngestFunction.Alias"}
    assert substitutions["MaxConcurrency"] == {"Ref": "IngestMaxConcurrency"}
    assert substitutions["ToleratedFailurePercentage"] == {
        "Ref": "IngestToleratedFailurePercentage"
    }
    definition = json.loads(ASL.read_text(encoding="utf-8"))
    limits = definition["States"]["Limits"]["Parameters"]
    assert "${MaxConcurrency}" in limits["max_concurrency.$"]
    readers = set()
    for name in ("FromPrefix", "FromManifest"):
        state = definition["States"][name]
        assert state["ItemProcessor"]["ProcessorConfig"]["Mode"] == "DISTRIBUTED"
        assert state["MaxConcurrencyPath"] == "$.limits.max_concurrency"
        assert state["ResultWriter"]["Resource"] == "arn:aws:states:::s3:putObject"
        (task,) = state["ItemProcessor"]["States"].values()
        assert task["Resource"] == "${IngestFunctionArn}"
        assert "Lambda.TooManyRequestsException" in task["Retry"][0]["ErrorEquals"]
        # a child killed mid-document, or finding it under a live lease, is retried once the
        # lease ran out (it takes the document over, or finds it finished)
        (after_lease,) = [r for r in task["Retry"] if "DocumentBusy" in r["ErrorEquals"]]
        assert "Sandbox.Timedout" in after_lease["ErrorEquals"]
        assert after_lease["IntervalSeconds"] > Settings().xc_lease_s
        assert task["TimeoutSeconds"] > properties("IngestFunction")["Timeout"]
        assert set(state["ItemSelector"]) == {"import_item"}
        readers.add(state["ItemReader"]["Resource"])
    assert readers == {"arn:aws:states:::s3:listObjectsV2", "arn:aws:states:::s3:getObject"}
    # what the route starts is what the machine reads
    request = ImportInput(tenant_id="t1", batch_id="b", prefix=imports_prefix("t1"))
    assert set(request.execution_input()) <= {"tenant_id", "batch_id", "selections", "prefix"}


def test_the_machine_reads_only_the_tenants_imports_and_runs_only_its_own_children() -> None:
    found = {a: s for s in statements("BulkIngestStateMachine") for a in actions(s)}
    assert found["s3:ListBucket"]["Condition"] == {
        "StringLike": {"s3:prefix": ["tenants/*/imports/*"]}
    }
    assert found["s3:GetObject"]["Resource"] != {"Fn::Sub": "${UploadsBucket.Arn}/*"}
    start = found["states:StartExecution"]["Resource"]["Fn::Sub"]
    assert start.endswith(":stateMachine:${AWS::StackName}-bulk-ingest")
    assert properties("BulkIngestStateMachine")["Name"] == {
        "Fn::Sub": "${AWS::StackName}-bulk-ingest"
    }


def test_the_ingest_function_touches_documents_erases_replaced_versions_and_writes_the_index() -> (
    None
):
    every = [a for s in statements("IngestFunction") for a in actions(s)]
    assert "dynamodb:Scan" not in every and "states:StartExecution" not in every
    deletes = [s for s in statements("IngestFunction") if "s3:DeleteObject" in actions(s)]
    assert [s["Resource"] for s in deletes] == [
        {"Fn::Sub": "${UploadsBucket.Arn}/tenants/*/uploads/*"}
    ]
    # what an erasure touches (a new version replaces the old as DELETE would), no more
    (dynamo,) = [s for s in statements("IngestFunction") if "dynamodb:Query" in actions(s)]
    ingest = dynamo["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
    (route,) = [s for s in statements("V1DocumentsFunction") if "dynamodb:Query" in actions(s)]
    documents = route["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
    assert set(ingest) == set(documents) - {"RATE#*", "KEYS"}
    policy = properties("SearchAccessPolicy")["Policy"]["Fn::Sub"]
    assert "IngestFunctionRole.Arn" in policy and "aoss:WriteDocument" in policy


def test_the_documents_function_erases_without_a_scan_and_starts_only_imports() -> None:
    every = [a for s in statements("V1DocumentsFunction") for a in actions(s)]
    assert "dynamodb:Scan" not in every
    assert {"s3:DeleteObject", "s3:DeleteObjectVersion", "s3:ListBucketVersions"} <= set(every)
    (start,) = [
        s for s in statements("V1DocumentsFunction") if "states:StartExecution" in actions(s)
    ]
    assert start["Resource"] == {"Ref": "BulkIngestStateMachine"}
    variables = properties("V1DocumentsFunction")["Environment"]["Variables"]
    assert variables["TANDA_UPLOADS_BUCKET"] == {"Ref": "UploadsBucket"}
    assert variables["TANDA_BULK_INGEST_STATE_MACHINE_ARN"] == {"Ref": "BulkIngestStateMachine"}
    assert (
        Settings.model_fields["uploads_bucket"]
        and Settings.model_fields["bulk_ingest_state_machine_arn"]
    )
