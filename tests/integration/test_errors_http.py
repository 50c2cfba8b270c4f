"""Every error answers in the ErrorResponse shape with a stable code and no stack trace (V2-19)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi import APIRouter
from pydantic import BaseModel, Field

from tanda import errors
from tanda.api.app import create_app
from tanda.contract.errors import ErrorResponse
from tanda.settings import Settings
from tanda.wiring import Runtime

from .conftest import ServeApp

pytestmark = pytest.mark.integration

SECRET_INPUT = "do-not-echo-this-value"


class Body(BaseModel):
    query: str = Field(min_length=1, max_length=5)
    top_k: int = 5


def failing_router() -> APIRouter:
    router = APIRouter()

    @router.post("/t/validate")
    def validate(body: Body) -> dict[str, str]:
        return {"query": body.query}

    @router.get("/t/boom")
    def boom() -> None:
        raise RuntimeError("secret internals /etc/passwd")

    @router.post("/t/both")
    def post_both() -> None:
        return None

    @router.get("/t/both")
    def get_both() -> None:
        return None

    @router.get("/t/domain/{name}")
    def domain(name: str) -> None:
        raise getattr(errors, name)()

    return router


@pytest.fixture
def base_url(serve_app: ServeApp, tmp_path: Path) -> str:
    app = create_app(Runtime(settings=Settings(home=tmp_path)), routers=[failing_router()])
    return serve_app(app)


def error_of(response: httpx.Response) -> ErrorResponse:
    assert "Traceback" not in response.text
    return ErrorResponse.model_validate(response.json())


def test_given_an_invalid_body_then_422_lists_fields_without_echoing_input(base_url: str) -> None:
    response = httpx.post(f"{base_url}/t/validate", json={"query": SECRET_INPUT, "top_k": "x"})

    assert response.status_code == 422
    body = error_of(response)
    assert body.error.code == "validation_error"
    assert body.error.fields is not None
    assert {tuple(f.loc) for f in body.error.fields} == {("body", "query"), ("body", "top_k")}
    assert SECRET_INPUT not in response.text


def test_given_malformed_json_then_422_in_the_error_shape(base_url: str) -> None:
    response = httpx.post(
        f"{base_url}/t/validate",
        content=b"{not json",
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert error_of(response).error.code == "validation_error"


def test_given_an_unexpected_exception_then_500_internal_error_with_a_fixed_message(
    base_url: str,
) -> None:
    response = httpx.get(f"{base_url}/t/boom")

    assert response.status_code == 500
    body = error_of(response)
    assert body.error.code == "internal_error"
    assert "secret internals" not in response.text
    assert "RuntimeError" not in response.text


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("BadRequest", 400),
        ("MissingCredentials", 401),
        ("Forbidden", 403),
        ("NotFound", 404),
        ("Conflict", 409),
        ("PayloadTooLarge", 413),
        ("RateLimited", 429),
        ("UpstreamFailed", 502),
        ("ServiceUnavailable", 503),
        ("TandaError", 500),
    ],
)
def test_given_a_domain_error_then_its_one_mapped_status_and_code(
    base_url: str, name: str, status: int
) -> None:
    response = httpx.get(f"{base_url}/t/domain/{name}")

    assert response.status_code == status
    assert error_of(response).error.code == getattr(errors, name).code


def test_given_an_unknown_route_then_404_in_the_error_shape(base_url: str) -> None:
    response = httpx.get(f"{base_url}/no/such/route")
    assert response.status_code == 404
    assert error_of(response).error.code == "not_found"


def test_given_a_wrong_method_then_405_in_the_error_shape(base_url: str) -> None:
    response = httpx.delete(f"{base_url}/t/boom")
    assert response.status_code == 405
    assert error_of(response).error.code == "method_not_allowed"


def test_given_a_path_two_routes_serve_then_the_405_allows_the_methods_of_both(
    base_url: str,
) -> None:
    # POST and GET /v1/cross-check are two routes; Starlette's 405 names the first one's only,
    # and the OpenAPI fuzzer holds `Allow` to the document (issue 15).
    response = httpx.request("OPTIONS", f"{base_url}/t/both")
    assert response.status_code == 405
    assert error_of(response).error.code == "method_not_allowed"
    assert response.headers["allow"] == "GET, POST"


def test_given_the_default_app_then_healthz_openapi_and_docs_are_served(
    serve_app: ServeApp, tmp_path: Path
) -> None:
    from tanda import __version__

    url = serve_app(create_app(Runtime(settings=Settings(home=tmp_path))))

    assert httpx.get(f"{url}/healthz").json() == {"status": "ok", "version": __version__}
    assert "/healthz" in httpx.get(f"{url}/openapi.json").json()["paths"]
    assert httpx.get(f"{url}/docs").status_code == 200


def test_given_no_runtime_then_the_app_builds_it_on_the_first_request_that_needs_it(
    serve_app: ServeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tanda.api.security import partner_principal

    built: list[Settings] = []

    def fake_build_runtime(settings: Settings | None = None) -> Runtime:
        runtime = Runtime(settings=Settings(home=tmp_path))
        built.append(runtime.settings)
        return runtime

    monkeypatch.setattr("tanda.wiring.build_runtime", fake_build_runtime)
    router = APIRouter()
    router.add_api_route("/t/p", partner_principal)
    app = create_app(routers=[router])
    url = serve_app(app)
    assert built == []

    response = httpx.get(f"{url}/t/p")
    httpx.get(f"{url}/t/p")

    assert response.json()["error"]["code"] == "auth_not_configured"
    assert len(built) == 1
