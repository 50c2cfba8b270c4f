"""The body gate as plain ASGI (issue 11), without a server: what a Lambda event (Mangum) hands it
— a whole body in one message, with or without a ``Content-Length`` — is gated the same way."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter
from starlette.types import Message, Receive, Scope, Send

from tanda.api.body_gate import (
    MAX_HEADER_BYTES,
    MAX_HEADER_FIELDS,
    BodyGate,
    is_json_media_type,
    json_body_routes,
)
from tanda.api.serve import MAX_REQUEST_HEAD_BYTES, uvicorn_options
from tanda.contract.conversations import CreateConversationRequest

LIMIT = 1024
router = APIRouter()


@router.post("/t")
def create(body: CreateConversationRequest) -> dict[str, str]:
    return {}


@router.get("/t")
def read() -> dict[str, str]:
    return {}


class App:
    """Records what reached it."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = await receive()
        self.bodies.append(message["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


LOOKUPS: list[str] = []


def limit_of(scope: Scope) -> int:
    LOOKUPS.append(scope["path"])
    return LIMIT


def call(
    method: str, body: bytes, headers: dict[str, str], pieces: int = 1
) -> tuple[int, dict[str, Any] | None, App]:
    app = App()
    gate = BodyGate(app, max_body_bytes=limit_of, json_routes=json_body_routes(router.routes))
    size = max(1, -(-len(body) // pieces))
    messages: list[Message] = [
        {"type": "http.request", "body": body[i : i + size], "more_body": i + size < len(body)}
        for i in range(0, max(len(body), 1), size)
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": "/t",
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    asyncio.run(gate(scope, receive, send))
    status = sent[0]["status"]
    payload = b"".join(m.get("body", b"") for m in sent[1:])
    return status, (json.loads(payload) if status != 200 else None), app


JSON = {"Content-Type": "application/json"}


def test_a_lambda_body_without_content_length_over_the_limit_is_413() -> None:
    status, error, app = call("POST", b" " * (LIMIT + 1), JSON)
    assert status == 413 and error == {
        "error": {"code": "payload_too_large", "message": "The request body is too large."}
    }
    assert app.bodies == []


def test_a_lambda_body_without_content_type_is_415() -> None:
    status, error, app = call("POST", b"{}", {})
    assert status == 415 and error is not None
    assert error["error"]["code"] == "unsupported_media_type"
    assert app.bodies == []


def test_a_body_in_pieces_reaches_the_app_whole() -> None:
    body = b'{"selection": "' + b"x" * 900 + b'"}'
    status, _, app = call("POST", body, {**JSON, "Content-Length": str(len(body))}, pieces=7)
    assert status == 200 and app.bodies == [body]


def test_a_body_in_pieces_over_the_limit_stops_being_read() -> None:
    status, _, app = call(
        "POST", b" " * (4 * LIMIT), {**JSON, "Transfer-Encoding": "chunked"}, pieces=40
    )
    assert status == 413 and app.bodies == []


def test_a_declared_length_over_the_limit_is_413_and_nothing_is_read() -> None:
    status, _, app = call("POST", b"{}", {**JSON, "Content-Length": str(LIMIT + 1)})
    assert status == 413 and app.bodies == []


def test_a_get_passes_with_an_empty_body_and_never_looks_the_limit_up() -> None:
    # Given the limit is a setting, a bodiless request (GET /healthz on its own Lambda, with no
    # settings) must not make the gate read the settings.
    LOOKUPS.clear()
    for headers in ({}, {"Content-Length": "0"}, {"Content-Type": "text/plain"}):
        status, _, app = call("GET", b"", headers)
        assert status == 200 and app.bodies == [b""]
    assert LOOKUPS == []


@pytest.mark.parametrize(
    ("content_type", "is_json"),
    [
        ("application/json", True),
        ("application/json; charset=utf-8", True),
        ('application/json; charset="UTF-8"', True),
        ("APPLICATION/JSON", True),
        ("application/vnd.api+json", True),
        ("application/json; charset=utf-16", False),
        ("application/jsonp", False),
        ("text/json", False),
        ("text/plain", False),
        ("", False),
    ],
)
def test_json_media_types(content_type: str, is_json: bool) -> None:
    assert is_json_media_type(content_type) is is_json


def largest_value(schema: dict[str, Any], defs: dict[str, Any], salt: int = 0) -> Any:
    """The largest JSON value ``schema`` allows, every character astral (12 bytes escaped)."""
    if "$ref" in schema:
        return largest_value(defs[schema["$ref"].rsplit("/", 1)[1]], defs, salt)
    if "anyOf" in schema:
        values = [largest_value(s, defs, salt) for s in schema["anyOf"]]
        return max(values, key=lambda v: len(json.dumps(v)))
    kind = schema.get("type")
    if kind == "string":
        if "enum" in schema or "const" in schema:
            values = sorted(schema.get("enum", [schema.get("const")]), key=len, reverse=True)
            return values[salt % len(values)]  # unique items take the next value
        length = schema["maxLength"]  # every string of a body is bounded
        return "\U0001f600" * (length - 1) + chr(0x10000 + salt)
    if kind == "array":
        items = schema["items"]
        return [largest_value(items, defs, salt=i) for i in range(schema["maxItems"])]
    if kind == "object":
        return {k: largest_value(s, defs) for k, s in schema["properties"].items()}
    return {"boolean": False, "integer": 20, "null": None}[kind]


@pytest.mark.parametrize(
    "model", ["QueryV2Request", "QueryV1Request", "PlaygroundRequest", "V1SearchRequest"]
)
def test_the_default_limit_holds_the_largest_valid_body_with_room(model: str) -> None:
    # Given every field at its maximum, every character written as a JSON escape
    from tanda.contract.playground import PlaygroundRequest
    from tanda.contract.query import QueryV2Request
    from tanda.contract.query_v1 import QueryV1Request
    from tanda.contract.v1_search import V1SearchRequest
    from tanda.settings import Settings

    models = {
        m.__name__: m for m in (QueryV2Request, QueryV1Request, PlaygroundRequest, V1SearchRequest)
    }
    schema = models[model].model_json_schema()
    body = largest_value(schema, schema.get("$defs", {}))
    if model == "V1SearchRequest":
        body["batch_id"] = None  # not both (ASK-02)
    models[model].model_validate(body)
    size = len(json.dumps(body).encode())
    # Then the default limit holds it twice over (docs/requests.md: about 261 KB)
    assert size * 2 < Settings().max_body_bytes, size


# --- headers (issue 23) --------------------------------------------------------------------------


def test_more_header_fields_than_the_limit_are_431_and_nothing_is_read() -> None:
    # Given a Lambda event (no server limit in front of the gate) with one field too many
    headers = {f"X-Probe-{n}": "1" for n in range(MAX_HEADER_FIELDS + 1)}
    status, error, app = call("POST", b"{}", {**JSON, **headers})
    assert status == 431 and error is not None
    assert error["error"]["code"] == "request_header_fields_too_large"
    assert app.bodies == []


def test_header_bytes_over_the_limit_are_431_and_exactly_the_limit_passes() -> None:
    name = "x-fill"
    at_limit = {name: "a" * (MAX_HEADER_BYTES - len(name))}
    over = {name: "a" * (MAX_HEADER_BYTES - len(name) + 1)}
    assert call("GET", b"", at_limit)[0] == 200
    assert call("GET", b"", over)[0] == 431


def test_the_gates_header_limits_sit_well_below_the_servers_head_limit() -> None:
    # The gate can only answer in the error shape what the server lets through (docs/requests.md):
    # the most the gate accepts, as it travels (": " and CRLF per field), leaves the server room
    # for a long request line and for heads well over the gate's limits (a 431, not a 400).
    largest_accepted = MAX_HEADER_BYTES + 4 * MAX_HEADER_FIELDS
    assert largest_accepted + 16 * 1024 < MAX_REQUEST_HEAD_BYTES
    assert uvicorn_options()["h11_max_incomplete_event_size"] == MAX_REQUEST_HEAD_BYTES
    assert uvicorn_options()["http"] == "h11"


@pytest.mark.parametrize("function", ["query_v1_stream", "query_v2_stream"])
def test_the_stream_functions_run_uvicorn_with_the_same_head_limit(function: str) -> None:
    run_sh = (Path(__file__).parents[2] / "functions" / function / "run.sh").read_text()
    assert "--http h11" in run_sh
    assert f"--h11-max-incomplete-event-size {MAX_REQUEST_HEAD_BYTES}" in run_sh
