"""Bulk imports on AWS (issue 26): ``infra/statemachines/bulk_ingest.asl.json`` executed by moto's
Step Functions interpreter — a Distributed Map reading the tenant's imports folder (a prefix, or
a JSON manifest), each object a child execution of the real IngestFunction handler (called
in-process behind moto's Lambda) on DynamoDB, S3 and the in-memory OpenSearch. A child that fails
counts against the tolerated failure percentage; the import is started by the route and by
``tanda ingest --remote``."""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tanda.pipeline.runners.bulk_ingest import StepFunctionsImports
from tanda.service.imports import start_import
from tests.aws import REGION, REPO
from tests.aws_ingest import BUCKET, NOTE, TENANT, AwsIngest, LambdaContext, aws_ingest

pytestmark = pytest.mark.integration

ASL = REPO / "infra" / "statemachines" / "bulk_ingest.asl.json"
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
FUNCTION = "tanda-ingest"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[AwsIngest]:
    config = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}
    with aws_ingest(monkeypatch, tmp_path / "home", config=config) as state:
        serve_ingest(state, monkeypatch)
        yield state


def serve_ingest(state: AwsIngest, monkeypatch: pytest.MonkeyPatch) -> None:
    """moto's Lambda invokes the real IngestFunction handler; an exception is a function error
    whose ``errorType`` is its name, as the Python runtime reports it."""
    from moto.awslambda_simple.models import LambdaSimpleBackend

    def invoke(
        self: Any, function_name: str, qualifier: Any, body: Any, headers: Any, response: Any
    ) -> bytes:
        try:
            result = state.handler(json.loads(body), LambdaContext())
        except Exception as error:
            response["x-amz-function-error"] = "Unhandled"
            return json.dumps(
                {"errorType": type(error).__name__, "errorMessage": str(error)}
            ).encode()
        return json.dumps(result).encode()

    monkeypatch.setattr(LambdaSimpleBackend, "invoke", invoke)


def deploy(tolerated: int, concurrency: int = 2) -> tuple[Any, str]:
    import boto3

    iam = boto3.client("iam", region_name=REGION)
    role = iam.create_role(
        RoleName=f"bulk-{uuid.uuid4().hex[:6]}",
        AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}),
    )["Role"]["Arn"]
    lam = boto3.client("lambda", region_name=REGION)
    with contextlib.suppress(lam.exceptions.ResourceConflictException):
        lam.create_function(
            FunctionName=FUNCTION,
            Runtime="python3.12",
            Role=role,
            Handler="app.handler",
            Code={"ZipFile": b"ingest"},
        )
    definition = ASL.read_text(encoding="utf-8")
    for key, value in {
        "IngestFunctionArn": f"arn:aws:lambda:{REGION}:123456789012:function:{FUNCTION}",
        "UploadsBucket": BUCKET,
        "MaxConcurrency": str(concurrency),
        "ToleratedFailurePercentage": str(tolerated),
    }.items():
        definition = definition.replace("${" + key + "}", value)
    sfn = boto3.client("stepfunctions", region_name=REGION)
    arn = sfn.create_state_machine(
        name=f"bulk-{uuid.uuid4().hex[:6]}", definition=definition, roleArn=role, type="STANDARD"
    )["stateMachineArn"]
    return sfn, arn


def wait(sfn: Any, execution_arn: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        described: dict[str, Any] = sfn.describe_execution(executionArn=execution_arn)
        if described["status"] != "RUNNING" or time.monotonic() > deadline:
            return described
        time.sleep(0.1)


def put_imports(aws: AwsIngest, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        aws.s3.put_object(Bucket=BUCKET, Key=f"tenants/{TENANT}/imports/set/{name}", Body=data)


GOOD = {
    "a.md": NOTE.encode(),
    "b.md": NOTE.encode() + b"\nLampiran B.\n",
    "c.md": NOTE.encode() + b"\nLampiran C.\n",
}


def test_a_prefix_import_ingests_every_object_through_the_per_document_handler(
    aws: AwsIngest,
) -> None:
    # Given three files in the tenant's imports folder and the import started as the route does,
    put_imports(aws, GOOD)
    sfn, machine = deploy(tolerated=0)
    started = start_import(StepFunctionsImports(sfn, machine), TENANT, "b7", prefix="set/")

    # when the Distributed Map has run,
    (execution,) = sfn.list_executions(stateMachineArn=machine)["executions"]
    done = wait(sfn, execution["executionArn"])

    # then it succeeded, each object is an indexed document of the batch,
    assert done["status"] == "SUCCEEDED", done
    assert started.source == f"tenants/{TENANT}/imports/set/"
    assert execution["name"] == started.import_id
    assert aws.store.upload_counts(TENANT, "b7") == {"indexed": 3}
    assert len(aws.indexed()) == 3
    # whose original now sits at its upload key (an erasure deletes it there).
    page = aws.store.uploads(TENANT, limit=10, batch_id="b7")
    for upload in page.uploads:
        assert aws.originals.read(TENANT, upload.document_id) in GOOD.values()


def map_run(sfn: Any, execution_arn: str) -> dict[str, Any]:
    (run,) = sfn.list_map_runs(executionArn=execution_arn)["mapRuns"]
    described: dict[str, Any] = sfn.describe_map_run(mapRunArn=run["mapRunArn"])
    return described


def test_a_failing_child_counts_against_the_tolerated_percentage(aws: AwsIngest) -> None:
    # Given three good files and a PDF named .csv (its document ends failed, its child fails),
    put_imports(aws, {**GOOD, "harga.csv": PDF})
    sfn, machine = deploy(tolerated=50, concurrency=3)

    # when imported,
    start_import(StepFunctionsImports(sfn, machine), TENANT, "b1", prefix="set")
    (execution,) = sfn.list_executions(stateMachineArn=machine)["executions"]
    done = wait(sfn, execution["executionArn"])

    # then the map run ran under the template's limits and counted one failed item of four —
    # within 50 %: the import succeeds with the three indexed and the one failed with its reason.
    run = map_run(sfn, execution["executionArn"])
    assert (run["maxConcurrency"], run["toleratedFailurePercentage"]) == (3, 50.0)
    assert (run["itemCounts"]["failed"], run["itemCounts"]["total"]) == (1, 4)
    assert done["status"] == "SUCCEEDED"
    assert aws.store.upload_counts(TENANT, "b1") == {"indexed": 3, "failed": 1}
    (failed,) = aws.store.uploads(TENANT, limit=10, statuses=("failed",)).uploads
    assert failed.reason == "named .csv but the content is a PDF"
    # Past the percentage, Step Functions fails the Map state (States.ExceedToleratedFailure-
    # Threshold) and, with no Catch, the execution — the BulkIngestStateMachineFailed alarm.
    # moto counts the failures but does not apply the threshold: the definition is checked.
    definition = json.loads(ASL.read_text(encoding="utf-8"))
    for name in ("FromPrefix", "FromManifest"):
        state = definition["States"][name]
        assert state["ToleratedFailurePercentagePath"] == "$.limits.tolerated_failure_percentage"
        assert "Catch" not in state and state["End"] is True


def test_a_manifest_import_reads_only_the_tenants_own_objects(aws: AwsIngest) -> None:
    # Given a manifest naming two of the tenant's objects and one of another tenant's,
    put_imports(aws, GOOD)
    aws.s3.put_object(Bucket=BUCKET, Key="tenants/t2/imports/set/secret.md", Body=b"# rahasia")
    manifest = [
        {"key": f"tenants/{TENANT}/imports/set/a.md"},
        {"key": f"tenants/{TENANT}/imports/set/b.md"},
        {"key": "tenants/t2/imports/set/secret.md"},
    ]
    aws.s3.put_object(
        Bucket=BUCKET,
        Key=f"tenants/{TENANT}/imports/manifests/m.json",
        Body=json.dumps(manifest).encode(),
    )
    sfn, machine = deploy(tolerated=50)

    start_import(StepFunctionsImports(sfn, machine), TENANT, "b3", manifest="manifests/m.json")
    (execution,) = sfn.list_executions(stateMachineArn=machine)["executions"]
    done = wait(sfn, execution["executionArn"])

    # then the two are indexed and the other tenant's object was refused (a failed child),
    # never read into this tenant.
    assert done["status"] == "SUCCEEDED"
    assert aws.store.upload_counts(TENANT, "b3") == {"indexed": 2}
    assert aws.store.uploads("t2", limit=5).uploads == ()


def test_the_same_import_started_twice_is_one_execution(aws: AwsIngest) -> None:
    put_imports(aws, {"a.md": GOOD["a.md"]})
    sfn, machine = deploy(tolerated=0)
    imports = StepFunctionsImports(sfn, machine)
    first = start_import(imports, TENANT, "b4", prefix="set/")
    second = start_import(imports, TENANT, "b4", prefix="set/")
    assert first == second
    assert len(sfn.list_executions(stateMachineArn=machine)["executions"]) == 1
