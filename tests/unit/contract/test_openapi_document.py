"""The committed OpenAPI document is the one the contract models generate (docs/openapi.json)."""

from __future__ import annotations

from pathlib import Path

from tanda.api.openapi import render_openapi

COMMITTED = Path(__file__).parents[3] / "docs" / "openapi.json"


def test_committed_openapi_document_is_current() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == render_openapi(), (
        "docs/openapi.json is stale: run `tanda openapi` and commit it"
    )


def test_document_describes_the_v2_request_and_response() -> None:
    import json

    document = json.loads(render_openapi())
    schemas = document["components"]["schemas"]
    assert schemas["QueryV2Request"]["additionalProperties"] is False
    assert "claim_map" not in schemas["QueryV2Response"]["properties"]
    for frame in ("AnnotationsFrame", "MessageStartFrame", "DoneFrame", "ErrorFrame"):
        assert frame in schemas
