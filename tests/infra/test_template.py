"""``template.yaml`` is valid CloudFormation + SAM, and every function points at real code
(DESIGN §8 ``infra/``). No AWS account or network: cfn-lint and the SAM translator run locally."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "template.yaml"
REGION = "us-east-1"
LOCAL_URI_KEYS = {
    "AWS::Serverless::Function": "CodeUri",
    "AWS::Serverless::LayerVersion": "ContentUri",
}
EXPECTED_ROUTES = {
    ("/healthz", "get"): "HealthFunction",
    ("/query/v2", "post"): "QueryV2Function",
    ("/query/v2/stream", "post"): "QueryV2StreamFunction",
    ("/query", "post"): "QueryV1Function",
    ("/query/stream", "post"): "QueryV1StreamFunction",
    ("/conversations", "post"): "ConversationsFunction",
    ("/conversations/{conversation_id}", "get"): "ConversationsFunction",
    ("/playground", "post"): "PlaygroundFunction",
    ("/v1/search", "post"): "V1SearchFunction",
    ("/v1/ask", "post"): "V1AskFunction",
    ("/v1/cross-check", "post"): "V1CrossCheckFunction",
    ("/v1/cross-check", "get"): "V1CrossCheckFunction",
    ("/v1/cross-check/{job_id}", "get"): "V1CrossCheckFunction",
    ("/v1/usage", "get"): "V1CrossCheckFunction",
    ("/mcp", "post"): "McpFunction",
    ("/v1/documents", "get"): "V1DocumentsFunction",
    ("/v1/documents", "post"): "V1DocumentsFunction",
    ("/v1/documents/{document_id}", "get"): "V1DocumentsFunction",
    ("/v1/documents/{document_id}", "delete"): "V1DocumentsFunction",
    ("/v1/batches/{batch_id}", "get"): "V1DocumentsFunction",
    ("/v1/batches/{batch_id}/import", "post"): "V1DocumentsFunction",
}
STREAM_ROUTES = {
    "/query/v2/stream": "QueryV2StreamFunction",
    "/query/stream": "QueryV1StreamFunction",
}
ALIAS = "Aliaslive"  # the logical id suffix SAM gives the AutoPublishAlias `live`
BUFFERED_FUNCTIONS = sorted(set(EXPECTED_ROUTES.values()) - set(STREAM_ROUTES.values()))


def load_template() -> dict[str, Any]:
    template: dict[str, Any] = yaml_parse(TEMPLATE.read_text(encoding="utf-8"))
    return template


def functions_of(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: resource["Properties"]
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
    }


FUNCTIONS = functions_of(load_template())


@pytest.fixture(autouse=True)
def _region(monkeypatch: pytest.MonkeyPatch) -> None:
    # cfn-lint and the translator build ARNs and pick region specs; no credentials are needed.
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)


class _NoManagedPolicies:
    """The translator asks IAM for managed-policy ARNs only when a template names one."""

    def load(self) -> dict[str, str]:
        return {}


def packaged(template: dict[str, Any]) -> dict[str, Any]:
    """The template as ``sam package`` hands it to CloudFormation: local code folders replaced
    by S3 URIs. Fails if a folder the template points at does not exist."""
    for name, resource in template["Resources"].items():
        key = LOCAL_URI_KEYS.get(resource["Type"])
        if key is None:
            continue
        local = resource["Properties"][key]
        assert (REPO / local).is_dir(), f"{name}.{key} points at a missing folder: {local}"
        resource["Properties"][key] = f"s3://tanda-artifacts/{name}.zip"
    for name, resource in template["Resources"].items():
        if resource["Type"] == "AWS::Serverless::StateMachine":
            local = resource["Properties"]["DefinitionUri"]
            assert (REPO / local).is_file(), f"{name}.DefinitionUri missing: {local}"
            resource["Properties"]["DefinitionUri"] = {
                "Bucket": "tanda-artifacts",
                "Key": f"{name}.asl.json",
            }
    return template


def load_module_file(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, f"cannot load {path}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def handler_target(function: dict[str, Any]) -> tuple[Path, str]:
    """The entry module file and the attribute the function's handler ends up calling.

    ``module.attr`` is the Python runtime's own handler; a ``*.sh`` handler is the Lambda Web
    Adapter bootstrap, and the ASGI app is the ``module:attr`` it gives to uvicorn."""
    code = REPO / function["CodeUri"]
    handler: str = function["Handler"]
    if handler.endswith(".sh"):
        script = code / handler
        assert script.is_file(), f"missing bootstrap script {script}"
        assert os.access(script, os.X_OK), f"{script} is not executable"
        found = re.search(r"uvicorn\s+(?:\S+\s+)*?([\w.]+):(\w+)", script.read_text())
        assert found, f"{script} does not start uvicorn on a module:attribute"
        module, attribute = found.groups()
    else:
        module, _, attribute = handler.rpartition(".")
    return code / (module.replace(".", "/") + ".py"), attribute


def test_cfn_lint_reports_nothing() -> None:
    # Given the template, when cfn-lint checks it, then it has no error, warning or info.
    matches = lint(
        TEMPLATE.read_text(encoding="utf-8"),
        regions=[REGION],
        config=ManualArgs(regions=[REGION], include_checks=["I"]),
    )
    assert [str(match) for match in matches] == []


def test_sam_translator_expands_every_route_to_a_lambda_integration() -> None:
    # Given the packaged template, when the SAM translator transforms it,
    expanded = transform(packaged(load_template()), {}, _NoManagedPolicies())

    # then each route of the REST API invokes its own function.
    resources = expanded["Resources"]
    apis = [r for r in resources.values() if r["Type"] == "AWS::ApiGateway::RestApi"]
    assert len(apis) == 1
    paths = apis[0]["Properties"]["Body"]["paths"]
    integrations = {
        (path, method): str(operation["x-amazon-apigateway-integration"]["uri"])
        for path, item in paths.items()
        for method, operation in item.items()
    }
    assert set(integrations) == set(EXPECTED_ROUTES)
    for route, function in EXPECTED_ROUTES.items():
        # through the function's `live` alias: SnapStart resumes published versions only.
        assert f"${{{function}{ALIAS}}}" in integrations[route], route
        assert resources[function]["Type"] == "AWS::Lambda::Function"
        assert resources[function + ALIAS]["Type"] == "AWS::Lambda::Alias"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_resumes_from_a_snapstart_snapshot_by_default(name: str) -> None:
    # Given the template with its default parameters, when translated,
    expanded = transform(packaged(load_template()), {}, _NoManagedPolicies())
    resources = expanded["Resources"]

    # then the function has SnapStart on published versions and an alias on its version.
    function = resources[name]["Properties"]
    assert function["SnapStart"] == {"ApplyOn": {"Ref": "SnapStart"}}
    assert load_template()["Parameters"]["SnapStart"]["Default"] == "PublishedVersions"
    alias = resources[name + ALIAS]["Properties"]
    version = alias["FunctionVersion"]["Fn::GetAtt"][0]
    assert resources[version]["Type"] == "AWS::Lambda::Version"


@pytest.mark.parametrize(("path", "function"), sorted(STREAM_ROUTES.items()))
def test_stream_routes_are_streamed_end_to_end(path: str, function: str) -> None:
    # Given the packaged template, when translated, then API Gateway streams the stream route
    # and the function runs under the Lambda Web Adapter in response_stream mode.
    expanded = transform(packaged(load_template()), {}, _NoManagedPolicies())
    resources = expanded["Resources"]
    api = next(r for r in resources.values() if r["Type"] == "AWS::ApiGateway::RestApi")
    integration = api["Properties"]["Body"]["paths"][path]["post"][
        "x-amazon-apigateway-integration"
    ]
    assert integration["responseTransferMode"] == "STREAM"
    assert "response-streaming-invocations" in str(integration["uri"])
    assert integration["timeoutInMillis"] > 29_000
    variables = resources[function]["Properties"]["Environment"]["Variables"]
    assert variables["AWS_LWA_INVOKE_MODE"] == "response_stream"
    assert variables["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap"
    assert "LambdaAdapterLayer" in str(resources[function]["Properties"]["Layers"])


@pytest.mark.parametrize("function", sorted(STREAM_ROUTES.values()))
def test_stream_functions_post_the_snapstart_hooks_their_app_serves(function: str) -> None:
    # Given a stream function (the Lambda Web Adapter owns the runtime API, so the Python
    # runtime's hooks never run there), then the adapter POSTs the paths tanda.snapstart serves.
    from tanda import snapstart

    variables = FUNCTIONS[function]["Environment"]["Variables"]
    assert variables["AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH"] == (
        snapstart.LWA_BEFORE_CHECKPOINT_PATH
    )
    assert variables["AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH"] == snapstart.LWA_AFTER_RESTORE_PATH
    entry, attribute = handler_target(FUNCTIONS[function])
    app = getattr(load_module_file(entry, f"tanda_entry_{function}_hooks"), attribute)
    paths = {getattr(route, "path", None) for route in app.routes}
    assert {snapstart.LWA_BEFORE_CHECKPOINT_PATH, snapstart.LWA_AFTER_RESTORE_PATH} <= paths


@pytest.mark.parametrize("function", BUFFERED_FUNCTIONS)
def test_buffered_routes_are_not_streamed(function: str) -> None:
    expanded = transform(packaged(load_template()), {}, _NoManagedPolicies())
    variables = expanded["Resources"][function]["Properties"]["Environment"]["Variables"]
    assert "AWS_LWA_INVOKE_MODE" not in variables
    assert FUNCTIONS[function]["Handler"] == "app.handler"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_handler_points_at_a_real_attribute(name: str) -> None:
    # Given a function of the template, when its entry module file is imported,
    entry, attribute = handler_target(FUNCTIONS[name])
    assert entry.is_file(), f"{name}: no entry module {entry.relative_to(REPO)}"
    module = load_module_file(entry, f"tanda_entry_{name}")

    # then the attribute the handler names exists and can be called.
    assert callable(getattr(module, attribute, None)), f"{name}: {entry}:{attribute} missing"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_entry_module_imports_without_credentials_or_settings(name: str) -> None:
    # Given an environment without AWS credentials or TANDA_* settings,
    entry, _ = handler_target(FUNCTIONS[name])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TANDA_"))}
    probe = (
        "import runpy, sys; runpy.run_path(sys.argv[1]);"
        "from tanda.settings import load_settings;"
        "assert load_settings.cache_info().currsize == 0, 'settings read at import'"
    )
    # when the entry module is imported in a fresh interpreter, then it succeeds without
    # having read the settings (DESIGN §7: never at import).
    result = subprocess.run(
        [sys.executable, "-c", probe, str(entry)],
        env=env,
        cwd=entry.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_health_handler_answers_a_rest_api_event() -> None:
    # Given the health entry point and an API Gateway REST proxy event for GET /healthz,
    entry, attribute = handler_target(FUNCTIONS["HealthFunction"])
    handler = getattr(load_module_file(entry, "tanda_entry_health_invoke"), attribute)
    event = rest_api_event("GET", "/healthz")

    # when Lambda invokes the handler — on a thread of its own, as the Lambda runtime does (a
    # browser test's event loop may still be set on this one), then it answers 200.
    results: list[dict[str, Any]] = []

    def invoke() -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        results.append(handler(event, LambdaContext()))

    worker = threading.Thread(target=invoke)
    worker.start()
    worker.join(timeout=30)
    (response,) = results
    assert response["statusCode"] == 200, response
    assert '"status":"ok"' in response["body"].replace(" ", "")


class LambdaContext:
    function_name = "tanda-health"
    memory_limit_in_mb = 256
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:tanda-health"
    aws_request_id = "00000000-0000-0000-0000-000000000000"

    def get_remaining_time_in_millis(self) -> int:
        return 5000


def rest_api_event(method: str, path: str) -> dict[str, Any]:
    """The minimal API Gateway REST (payload v1) proxy event Mangum recognises."""
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": {"Host": "example.execute-api.us-east-1.amazonaws.com", "Accept": "*/*"},
        "multiValueHeaders": {
            "Host": ["example.execute-api.us-east-1.amazonaws.com"],
            "Accept": ["*/*"],
        },
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": path,
            "httpMethod": method,
            "path": f"/v1{path}",
            "stage": "v1",
            "requestId": "test-request",
            "identity": {"sourceIp": "203.0.113.7", "userAgent": "tests"},
        },
        "body": None,
        "isBase64Encoded": False,
    }


def test_the_managed_domain_runs_rrf_and_upgrades_in_place() -> None:
    # ASK-02: the RRF search pipeline (score-ranker-processor) needs OpenSearch 2.19; on 2.15
    # it fell back to min-max. A version change must upgrade the retained domain in place: a
    # replacement would leave the chunks behind in the old domain and a new, empty endpoint.
    domain = load_template()["Resources"]["SearchDomain"]
    engine, _, version = domain["Properties"]["EngineVersion"].partition("_")
    assert engine == "OpenSearch"
    assert tuple(int(part) for part in version.split(".")) >= (2, 19)
    assert domain["UpdatePolicy"] == {"EnableVersionUpgrade": True}


def _actions(function: dict[str, Any]) -> set[str]:
    actions: set[str] = set()
    for policy in function.get("Policies", []):
        for statement in policy.get("Statement", []):
            found = statement.get("Action", [])
            actions.update([found] if isinstance(found, str) else found)
    return actions


@pytest.mark.parametrize("name", ["V1SearchFunction", "AgentStepFunction", "McpFunction"])
def test_functions_that_search_may_call_a_bedrock_reranker(name: str) -> None:
    # ASK-06: the floor runs wherever retrieval runs; a bedrock: reranker needs both actions.
    assert {"bedrock:Rerank", "bedrock:InvokeModel"} <= _actions(FUNCTIONS[name])


def test_the_reranker_and_its_floor_are_parameters_of_every_function() -> None:
    template = load_template()
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["TANDA_RERANKER"] == {"Ref": "TandaReranker"}
    assert template["Parameters"]["TandaReranker"]["Default"] == "lexical"
    assert "TANDA_RERANK_MIN_SCORE" in variables
