"""``POST /v1/batches/{batch_id}/import`` and ``tanda ingest --remote`` (issue 26) over HTTP on
uvicorn: on AWS they start the bulk-ingestion Distributed Map (moto's Step Functions) with the
tenant's own imports folder — never another tenant's, whatever path is sent; embedded they
answer 503 ``bulk_import_unavailable``; a path that climbs out of the folder is a 422."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.pipeline.runners.bulk_ingest import StepFunctionsImports
from tanda.wiring import Runtime
from tests.aws import REGION

from .conftest import ServeApp
from .credentials import assert_error, settings_for

pytestmark = pytest.mark.integration

ACME = "dip_live_imports-acme"
DEFINITION = {"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> Runtime:
    settings = settings_for(
        tmp_path / "home", signing_key, v1_api_key_hashes={hash_api_key(ACME): "acme"}
    )
    return Runtime(settings=settings)


@pytest.fixture
def sfn(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, str]]:
    import boto3
    from moto import mock_aws

    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(variable, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        client = boto3.client("stepfunctions", region_name=REGION)
        arn = client.create_state_machine(
            name="bulk",
            definition=json.dumps(DEFINITION),
            roleArn="arn:aws:iam::123456789012:role/bulk",
            type="STANDARD",
        )["stateMachineArn"]
        yield client, arn


def post(base: str, batch: str, body: Any) -> httpx.Response:
    return httpx.post(
        f"{base}/v1/batches/{batch}/import",
        headers={"Authorization": f"Bearer {ACME}"},
        json=body,
        timeout=30,
    )


def test_an_import_starts_the_distributed_map_on_the_callers_imports_only(
    serve_app: ServeApp, runtime: Runtime, sfn: tuple[Any, str]
) -> None:
    client, arn = sfn
    runtime.__dict__["bulk_imports"] = StepFunctionsImports(client, arn)
    base = serve_app(create_app(runtime))

    response = post(base, "b-2026", {"prefix": "/kvkk/2026/", "selections": ["kvkk"]})

    assert response.status_code == 202, response.text
    started = response.json()
    assert started["status"] == "started" and started["batch_id"] == "b-2026"
    assert started["source"] == "tenants/acme/imports/kvkk/2026/"
    (execution,) = client.list_executions(stateMachineArn=arn)["executions"]
    assert execution["name"] == started["import_id"]
    sent = json.loads(client.describe_execution(executionArn=execution["executionArn"])["input"])
    assert sent == {
        "tenant_id": "acme",
        "batch_id": "b-2026",
        "selections": ["kvkk"],
        "prefix": "tenants/acme/imports/kvkk/2026/",
    }
    # the same import again is the same execution; a manifest is another one
    assert post(base, "b-2026", {"prefix": "kvkk/2026/", "selections": ["kvkk"]}).json() == started
    manifest = post(base, "b-2026", {"manifest": "lists/m.json"})
    assert manifest.status_code == 202
    assert manifest.json()["source"] == "tenants/acme/imports/lists/m.json"
    # with other selections, the started import is a conflict
    assert_error(post(base, "b-2026", {"prefix": "kvkk/2026/"}), 409, "import_already_started")


@pytest.mark.parametrize(
    "body",
    [
        {"prefix": "../other/imports/"},
        {"prefix": "a/../../b/"},
        {"manifest": ".."},
        {"prefix": "a", "manifest": "b.json"},
        {},
        {"prefix": 7},
    ],
)
def test_a_path_out_of_the_folder_or_an_unclear_source_is_a_422(
    serve_app: ServeApp, runtime: Runtime, body: dict[str, Any]
) -> None:
    base = serve_app(create_app(runtime))
    assert post(base, "b1", body).status_code == 422


def test_embedded_a_bulk_import_is_unavailable(serve_app: ServeApp, runtime: Runtime) -> None:
    base = serve_app(create_app(runtime))
    assert_error(post(base, "b1", {"prefix": ""}), 503, "bulk_import_unavailable")
    assert_error(
        httpx.post(f"{base}/v1/batches/b1/import", json={"prefix": ""}, timeout=30),
        401,
        "missing_api_key",
    )


def test_tanda_ingest_remote_starts_the_same_import(
    sfn: tuple[Any, str],
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tanda.cli import main
    from tanda.settings import load_settings

    client, arn = sfn
    monkeypatch.setenv("TANDA_BULK_INGEST_STATE_MACHINE_ARN", arn)
    load_settings.cache_clear()

    # Given an operator's shell on the stack's settings, when it imports a prefix,
    code = main(["ingest", "--remote", "kvkk/", "--tenant", "acme", "--batch", "b9"])

    # then the Distributed Map is started with the tenant's folder, as the route starts it.
    assert code == 0
    started = json.loads(capsys.readouterr().out)
    assert started["source"] == "tenants/acme/imports/kvkk/"
    (execution,) = client.list_executions(stateMachineArn=arn)["executions"]
    assert execution["name"] == started["import_id"]
    # usage errors: PATHs with --remote, or a path out of the folder
    assert main(["ingest", "docs", "--remote", "kvkk/", "--tenant", "acme"]) == 2
    assert main(["ingest", "--remote", "../x", "--tenant", "acme"]) == 2
    monkeypatch.delenv("TANDA_BULK_INGEST_STATE_MACHINE_ARN")
    load_settings.cache_clear()
    assert main(["ingest", "--remote", "kvkk/", "--tenant", "acme"]) == 2  # embedded
