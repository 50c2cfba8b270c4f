"""The committed OpenAPI document is the one the contract models generate (docs/openapi.json)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from tanda.api.app import render_openapi

COMMITTED = Path(__file__).parents[3] / "docs" / "openapi.json"


@cache
def rendered() -> str:
    """The document the contract models generate, rendered once per run (it takes ~0.3 s)."""
    return render_openapi()


def test_committed_openapi_document_is_current() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == rendered(), (
        "docs/openapi.json is stale: run `tanda openapi` and commit it"
    )


def test_document_describes_the_v2_request_and_response() -> None:
    document = json.loads(rendered())
    schemas = document["components"]["schemas"]
    assert schemas["QueryV2Request"]["additionalProperties"] is False
    assert "claim_map" not in schemas["QueryV2Response"]["properties"]
    for frame in ("AnnotationsFrame", "MessageStartFrame", "DoneFrame", "ErrorFrame"):
        assert frame in schemas


# --- what the server enforces, the document says (issue 11) ---------------------------------------


def served_document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(rendered())
    return document


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    ]


def test_every_route_with_a_body_documents_what_the_body_gate_answers() -> None:
    document = served_document()
    with_body = [(m, p, o) for m, p, o in operations(document) if "requestBody" in o]
    assert {p for _, p, _ in with_body} == {
        "/conversations",
        "/query",
        "/query/stream",
        "/query/v2",
        "/query/v2/stream",
        "/playground",
        "/v1/search",
        "/v1/ask",
        "/v1/cross-check",
        "/v1/batches/{batch_id}/import",
        "/v1/documents",
        "/v1/documents/{document_id}/content",
    }
    for _, path, operation in with_body:
        for status in ("400", "413", "415", "422"):
            response = operation["responses"][status]
            schema = response["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (path, status)
        # an upload's bytes have their own limit (issue 26)
        limit = "TANDA_MAX_UPLOAD_BYTES" if path.endswith("/content") else "TANDA_MAX_BODY_BYTES"
        assert limit in operation["responses"]["413"]["description"]


def test_each_route_names_the_credentials_its_dependency_checks() -> None:
    # Given the document is generated, the security of each operation must follow the
    # dependency that authenticates the route, not a list kept beside it.
    from fastapi.routing import APIRoute

    from tanda.api import security
    from tanda.api.routes import all_routers

    expected = {
        security.partner_principal: [{"ApiKey": [], "PartnerJWT": []}],
        security.admin_principal: [{"ApiKey": [], "AdminJWT": []}],
        security.v1_principal: [{"V1ApiKey": []}],
    }
    document = served_document()
    schemes = document["components"]["securitySchemes"]
    assert schemes["ApiKey"] == {**schemes["ApiKey"], "type": "apiKey", "in": "header"}
    assert schemes["ApiKey"]["name"] == "X-API-Key"
    for name in ("PartnerJWT", "AdminJWT", "V1ApiKey"):
        assert (schemes[name]["type"], schemes[name]["scheme"]) == ("http", "bearer")
    routes = [
        r
        for router in all_routers()
        for r in router.routes
        if isinstance(r, APIRoute) and r.include_in_schema
    ]
    assert routes
    for route in routes:
        calls = [d.call for d in route.dependant.dependencies]
        wanted = [expected[c] for c in calls if c in expected]
        for method in route.methods:
            operation = document["paths"][route.path][method.lower()]
            assert operation.get("security") == (wanted[0] if wanted else None), route.path


def test_both_streams_name_their_frames_and_the_v1_stream_its_faithfulness_frame() -> None:
    document = served_document()
    schemas = document["components"]["schemas"]

    def events(path: str) -> dict[str, Any]:
        response = document["paths"][path]["post"]["responses"]["200"]
        found: dict[str, Any] = response["content"]["text/event-stream"]["x-sse-events"]
        return found

    v1, v2 = events("/query/stream"), events("/query/v2/stream")
    assert v1["faithfulness"] == {"$ref": "#/components/schemas/V1FaithfulnessFrame"}
    assert "annotations" not in v1 and "faithfulness" not in v2
    assert v1["message.start"] != v2["message.start"]
    for ref in [*v1.values(), *v2.values()]:
        assert ref["$ref"].rsplit("/", 1)[1] in schemas
    everything = document["x-sse-events"]
    assert set(everything) == set(v1) | set(v2)
    assert everything["message.start"] == {"oneOf": [v2["message.start"], v1["message.start"]]}


def test_the_v1_bodies_say_document_id_and_batch_id_are_not_both_set() -> None:
    for name in ("V1SearchRequest", "V1AskRequest"):
        schema = served_document()["components"]["schemas"][name]
        assert set(schema["not"]["required"]) == {"document_id", "batch_id"}


def test_v1_routes_document_credit_and_throttle_refusals() -> None:
    paths = served_document()["paths"]
    for path in ("/v1/search", "/v1/ask"):
        responses = paths[path]["post"]["responses"]
        assert "insufficient_credit" in responses["402"]["description"]
        assert "Retry-After" in responses["429"]["headers"]
    assert "rag_unavailable" in paths["/v1/ask"]["post"]["responses"]["503"]["description"]


def test_questions_publish_the_visible_character_pattern() -> None:
    from tanda.contract.request_body import VISIBLE_TEXT_PATTERN

    schemas = served_document()["components"]["schemas"]
    for model, field in [
        ("QueryV2Request", "query"),
        ("QueryV1Request", "query"),
        ("PlaygroundRequest", "query"),
        ("PlaygroundRequest", "editorial_prompt"),
        ("V1SearchRequest", "query"),
        ("V1AskRequest", "query"),
    ]:
        assert schemas[model]["properties"][field]["pattern"] == VISIBLE_TEXT_PATTERN


def test_the_cross_check_202_links_to_the_operation_that_polls_its_job() -> None:
    # Clients and the fuzzer follow it from POST /v1/cross-check to GET …/{job_id} (issue 15).
    document = served_document()
    accepted = document["paths"]["/v1/cross-check"]["post"]["responses"]["202"]
    link = accepted["links"]["GetCrossCheckJob"]
    poll = document["paths"]["/v1/cross-check/{job_id}"]["get"]
    assert link["operationId"] == poll["operationId"]
    assert link["parameters"] == {"job_id": "$response.body#/id"}
    assert accepted["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/V1CrossCheckAccepted"
    }
