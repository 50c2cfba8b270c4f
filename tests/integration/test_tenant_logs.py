"""Issue 27: API Gateway's access log cannot name the tenant (tanda authenticates in the
functions, there is no authorizer), so each function's ``invocation`` line does — the tenant the
request's credentials were resolved to, joinable to the access log line by API Gateway's request
id, and never a key, a token or a digest.

The buffered routes run as in Lambda: the app behind Mangum, wrapped by ``instrumented`` exactly
as ``functions/*/app.py`` wrap it, invoked with API Gateway events, Powertools writing its lines
to stdout (``AWS_LAMBDA_FUNCTION_NAME`` set). The stream routes run under uvicorn on loopback
with the ``RequestLog`` middleware of their functions, the Lambda Web Adapter's request-context
header sent as the adapter sends it."""

from __future__ import annotations

import io
import json
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from mangum import Mangum
from samtranslator.yaml_helper import yaml_parse

from tanda import observability
from tanda.api.app import create_app
from tanda.api.routes.health import router as health_router
from tanda.api.routes.query_v2 import router as query_v2_router
from tanda.api.routes.v1_search import router as v1_search_router
from tanda.auth.api_keys import hash_api_key
from tanda.records.keys import key_id_of
from tanda.wiring import Runtime
from tests.corpus import QUESTION, add_qanun
from tests.fakes import scripted_model

from .conftest import ServeApp
from .credentials import API_KEY, V1_KEY, settings_for, sign

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios"
TEMPLATE = Path(__file__).parents[2] / "template.yaml"
V1_TENANT = "globex"  # the /v1 key's tenant; the partner JWT's is "acme"


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> Runtime:
    settings = settings_for(
        tmp_path,
        signing_key,
        model=f"scripted:{SCENARIOS}",
        request_deadline_s=5.0,
        v1_api_key_hashes={hash_api_key(V1_KEY): V1_TENANT},
    )
    runtime = Runtime(settings=settings)
    runtime.__dict__["model"] = scripted_model()
    for tenant in ("acme", V1_TENANT):
        add_qanun(runtime.search_index, tenant, selections=("anggaran",), batch_id="b1")
    return runtime


@pytest.fixture
def as_lambda(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """Run as a Lambda function; yields what Powertools' logger writes (its JSON lines)."""
    variables = yaml_parse(TEMPLATE.read_text(encoding="utf-8"))["Globals"]["Function"][
        "Environment"
    ]["Variables"]
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "tanda-tenant-logs")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", variables["POWERTOOLS_METRICS_NAMESPACE"])
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", variables["POWERTOOLS_SERVICE_NAME"])
    observability.logger.cache_clear()
    # Powertools configures the "tanda" logger once per process: its handler still writes to the
    # stdout of whichever test made it first, so point it at a stream of this test's own.
    handler = observability.logger().registered_handler
    logs = io.StringIO()
    # Assigned, not setStream: that flushes the old stream first, and the test that made the
    # handler may have closed it (pytest's capture of its stdout) — then leave the process's own.
    handler.stream = logs
    yield logs
    handler.stream = sys.__stdout__
    observability.logger.cache_clear()


Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


@pytest.fixture
def handler(runtime: Runtime, as_lambda: io.StringIO) -> Handler:
    """One warm function serving the three route families, wrapped as the functions wrap it."""
    app = create_app(runtime, routers=[query_v2_router, v1_search_router, health_router])
    return observability.instrumented("tenant_logs")(Mangum(app, lifespan="off"))


def event(method: str, path: str, headers: dict[str, str], body: Any = None) -> dict[str, Any]:
    """An API Gateway (REST, proxy integration) event, with a request id of its own."""
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {name: [value] for name, value in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "requestId": str(uuid.uuid4()),
            "resourcePath": path,
            "httpMethod": method,
            "stage": "Prod",
            "path": f"/Prod{path}",
            "identity": {"sourceIp": "192.0.2.1"},
        },
        "body": None if body is None else json.dumps(body),
        "isBase64Encoded": False,
    }


def invocations(output: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("message") == "invocation"]


def assert_no_credential(output: str, *secrets: str) -> None:
    for secret in secrets:
        assert secret not in output
        assert hash_api_key(secret) not in output  # nor its stored digest


def test_each_route_family_logs_the_tenant_it_authenticated_under_the_request_id(
    handler: Handler,
    as_lambda: io.StringIO,
    signing_key: ed25519.Ed25519PrivateKey,
    capsys: pytest.CaptureFixture[str],
) -> None:
    token = sign(signing_key)
    partner = {"X-API-Key": API_KEY, "Authorization": f"Bearer {token}"}
    json_body = {"Content-Type": "application/json"}
    requests = [
        # a partner's answer (V2-01): the JWT names the tenant
        (event("POST", "/query/v2", {**partner, **json_body}, {"query": QUESTION}), 200, "acme"),
        # a /v1 key (ASK-01): the key names the tenant
        (
            event(
                "POST",
                "/v1/search",
                {"Authorization": f"Bearer {V1_KEY}", **json_body},
                {"query": QUESTION, "batch_id": "b1"},
            ),
            200,
            V1_TENANT,
        ),
        # refused: an unknown /v1 key, a shared key without its token, nothing at all
        (
            event(
                "POST",
                "/v1/search",
                {"Authorization": "Bearer dip_live_not-a-key", **json_body},
                {"query": QUESTION, "batch_id": "b1"},
            ),
            403,
            None,
        ),
        (
            event("POST", "/query/v2", {"X-API-Key": API_KEY, **json_body}, {"query": QUESTION}),
            401,
            None,
        ),
        # and a route that asks for no credentials
        (event("GET", "/healthz", {}), 200, None),
    ]
    capsys.readouterr()
    for request, status, _ in requests:
        response = handler(request, None)
        assert response["statusCode"] == status, response["body"]
    lines = invocations(as_lambda.getvalue())
    captured = capsys.readouterr()
    # everything written: the log lines, the EMF blobs, anything else on stdout or stderr
    output = as_lambda.getvalue() + captured.out + captured.err

    assert len(lines) == len(requests)
    for line, (request, status, tenant) in zip(lines, requests, strict=True):
        # the line joins the access log's request_id ($context.requestId)
        assert line["request_id"] == request["requestContext"]["requestId"]
        assert line["trace_id"] == request["requestContext"]["requestId"]
        assert line["status"] == status
        # the tenant the credentials were resolved to; absent (null) when refused or not asked
        assert line.get("tenant") == tenant, line
    # the /v1 key is named by its public id, never by itself or its digest
    assert lines[1]["key_id"] == key_id_of(hash_api_key(V1_KEY))
    assert "key_id" not in lines[0]  # the settings' shared key has no record, the JWT no key id
    assert_no_credential(output, API_KEY, V1_KEY, token, "dip_live_not-a-key")
    assert QUESTION not in output  # nor a body


def test_a_tenant_never_outlives_its_invocation(handler: Handler, as_lambda: io.StringIO) -> None:
    # Given a warm function that has just served a /v1 key's request,
    search = {"query": QUESTION, "batch_id": "b1"}
    headers = {"Authorization": f"Bearer {V1_KEY}", "Content-Type": "application/json"}
    assert handler(event("POST", "/v1/search", headers, search), None)["statusCode"] == 200
    # when the next invocation on it is refused, or needs no credentials,
    refused = {"Authorization": "Bearer dip_test_unknown", "Content-Type": "application/json"}
    assert handler(event("POST", "/v1/search", refused, search), None)["statusCode"] == 403
    assert handler(event("GET", "/healthz", {}), None)["statusCode"] == 200
    first, *rest = invocations(as_lambda.getvalue())
    # then only the first names a tenant: the next ones start empty.
    assert first["tenant"] == V1_TENANT
    assert [line.get("tenant") for line in rest] == [None, None]
    assert [line.get("key_id") for line in rest] == [None, None]
    # and outside an invocation, nothing holds a caller to note.
    observability.note_caller("acme", key_id="key_x")
    assert observability._caller.get() is None


def test_the_stream_routes_log_the_tenant_under_the_adapters_request_id(
    runtime: Runtime,
    as_lambda: io.StringIO,
    serve_app: ServeApp,
    signing_key: ed25519.Ed25519PrivateKey,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given the stream function's app (uvicorn behind the Lambda Web Adapter) with its middleware,
    app = create_app(runtime, routers=[query_v2_router])
    app.add_middleware(observability.RequestLog, name="query_v2_stream")
    base_url = serve_app(app)
    token = sign(signing_key)
    partner = {"X-API-Key": API_KEY, "Authorization": f"Bearer {token}"}
    request_ids = [str(uuid.uuid4()), str(uuid.uuid4())]
    capsys.readouterr()
    # when a partner streams an answer, then a request without its token is refused,
    for request_id, headers, status in (
        (request_ids[0], partner, 200),
        (request_ids[1], {"X-API-Key": API_KEY}, 401),
    ):
        context = {"requestId": request_id, "stage": "Prod", "resourcePath": "/query/v2/stream"}
        response = httpx.post(
            f"{base_url}/query/v2/stream",
            json={"query": QUESTION},
            headers={**headers, "x-amzn-request-context": json.dumps(context)},
            timeout=30,
        )
        assert response.status_code == status, response.text
    # (the server writes a request's line once its response has gone: wait for the last one)
    deadline = time.monotonic() + 5
    while len(invocations(as_lambda.getvalue())) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    captured = capsys.readouterr()
    output = as_lambda.getvalue() + captured.out + captured.err
    # then each request has its invocation line: the adapter's request id, status, tenant.
    lines = invocations(as_lambda.getvalue())
    assert [(line["request_id"], line["status"], line.get("tenant")) for line in lines] == [
        (request_ids[0], 200, "acme"),
        (request_ids[1], 401, None),
    ]
    assert all(line["route"] == "query_v2_stream" for line in lines)
    assert_no_credential(output, API_KEY, token)
    assert QUESTION not in output
