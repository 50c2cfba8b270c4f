"""The OpenAPI document, generated from the contract models (never written by hand).

FastAPI builds paths and bodies from the routes; this module adds what routes cannot say: the
one error shape for 422 (FastAPI's default validation schema is replaced); what every route with
a body answers before the body reaches it (400, 413, 415 — :mod:`tanda.api.body_gate`); the
credentials (``securitySchemes``; each route names its own in ``security``); and every SSE frame
of both streams as a named schema (``x-sse-events`` maps event names to them: on each stream
operation for that stream, and at the top for both).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from tanda.api.body_gate import BODY_LIMIT_EXTENSION
from tanda.api.security import SECURITY_SCHEMES
from tanda.contract.errors import ErrorResponse
from tanda.contract.frames import STREAM_FRAMES
from tanda.contract.query_v1 import V1_STREAM_FRAMES

_ERROR_REF = {"$ref": "#/components/schemas/ErrorResponse"}
_STREAMS = (STREAM_FRAMES, V1_STREAM_FRAMES)
BODY_RESPONSES: dict[str, str] = {
    "400": "The body is not UTF-8, or its JSON nests deeper than the parser goes (`bad_request`).",
    "413": "The body is larger than `TANDA_MAX_BODY_BYTES` (`payload_too_large`; refused before "
    "it is read, and before authentication).",
    "415": "The body is not JSON: `Content-Type` missing, or not `application/json` in UTF-8 "
    "(`unsupported_media_type`; before authentication).",
}
"""What a route with a body can answer before its handler runs (docs/requests.md)."""


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _add_body_responses(operation: dict[str, Any]) -> None:
    responses = operation.setdefault("responses", {})
    gate = dict(BODY_RESPONSES)
    own_limit = operation.pop(BODY_LIMIT_EXTENSION, None)
    if own_limit is not None:
        gate["413"] = (
            f"The body is larger than {own_limit} (`payload_too_large`; refused before it is read)."
        )
        del gate["415"]
    for status, description in gate.items():
        response = responses.get(status)
        if response is None:
            content = {"application/json": {"schema": _ERROR_REF}}
            responses[status] = {"description": description, "content": content}
        elif description not in response["description"]:
            also = description[0].lower() + description[1:]
            response["description"] = f"{response['description']} Or: {also}"


def _sse_events() -> dict[str, Any]:
    """Event name → frame schema of both streams; an event whose frame differs between them
    (``message.start``) is ``oneOf`` the two."""
    events: dict[str, list[type[BaseModel]]] = {}
    for frames in _STREAMS:
        for event, model in frames.items():
            models = events.setdefault(event, [])
            if model not in models:
                models.append(model)
    return {
        event: _ref(models[0]) if len(models) == 1 else {"oneOf": [_ref(m) for m in models]}
        for event, models in events.items()
    }


def build_openapi(app: FastAPI) -> dict[str, Any]:
    document = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    components = document.setdefault("components", {}).setdefault("schemas", {})
    for methods in document.get("paths", {}).values():
        for operation in methods.values():
            response = operation.get("responses", {}).get("422")
            if response is not None:
                if response.get("description") == "Validation Error":  # FastAPI's, not a route's
                    response["description"] = (
                        "The body is not valid; `error.fields` names each field."
                    )
                response["content"] = {"application/json": {"schema": _ERROR_REF}}
            if "requestBody" in operation:
                _add_body_responses(operation)
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    document["components"]["securitySchemes"] = SECURITY_SCHEMES
    frame_models = {model for frames in _STREAMS for model in frames.values()}
    models: list[type[BaseModel]] = [
        *sorted(frame_models, key=lambda m: m.__name__),
        ErrorResponse,
    ]
    _, frame_schemas = models_json_schema(
        [(model, "serialization") for model in models],
        ref_template="#/components/schemas/{model}",
    )
    for name, schema in frame_schemas.get("$defs", {}).items():
        components.setdefault(name, schema)
    document["x-sse-events"] = _sse_events()
    return document


def install_openapi(app: FastAPI) -> None:
    """Serve the generated document at the app's ``openapi_url``."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
