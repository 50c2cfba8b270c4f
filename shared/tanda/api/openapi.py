"""The OpenAPI document, generated from the contract models (never written by hand).

FastAPI builds paths and bodies from the routes; this module adds what routes cannot say: the
one error shape for 422 (FastAPI's default validation schema is replaced), and every SSE frame
of ``/query/v2/stream`` as a named schema (``x-sse-events`` maps event names to them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from tanda.contract.errors import ErrorResponse
from tanda.contract.frames import STREAM_FRAMES

_ERROR_REF = {"$ref": "#/components/schemas/ErrorResponse"}


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
                response["description"] = "The body is not valid; `error.fields` names each field."
                response["content"] = {"application/json": {"schema": _ERROR_REF}}
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    models: list[type[BaseModel]] = [*STREAM_FRAMES.values(), ErrorResponse]
    _, frame_schemas = models_json_schema(
        [(model, "serialization") for model in models],
        ref_template="#/components/schemas/{model}",
    )
    for name, schema in frame_schemas.get("$defs", {}).items():
        components.setdefault(name, schema)
    document["x-sse-events"] = {
        event: {"$ref": f"#/components/schemas/{model.__name__}"}
        for event, model in STREAM_FRAMES.items()
    }
    return document


def install_openapi(app: FastAPI) -> None:
    """Serve the generated document at the app's ``openapi_url``."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def render_openapi() -> str:
    from tanda.api.app import create_app

    document = build_openapi(create_app())
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def write_openapi(out: str | Path) -> int:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_openapi(), encoding="utf-8")
    print(f"wrote {path}")
    return 0
