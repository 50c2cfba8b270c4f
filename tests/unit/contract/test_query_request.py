"""The /query/v2 request body (V2-02): what is accepted, what is a 422."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tanda.contract import QueryV2Request


def test_minimal_body_is_the_seed_curl_example() -> None:
    body = QueryV2Request.model_validate({"query": "Berapa anggaran pendidikan Aceh tahun 2023?"})
    assert body.offer_artifacts is False
    assert body.include_grounding is False and body.include_provenance is False
    assert body.include_proof is False


def test_every_documented_field_is_accepted() -> None:
    body = QueryV2Request.model_validate(
        {
            "query": "Apa tugas utama Pemerintah Aceh?",
            "conversation_id": "conv-1",
            "document_ids": ["d1", "d2"],
            "selection": "qanun-2023",
            "sources": ["documents", "portal"],
            "mcp_servers": ["bps"],
            "include_grounding": True,
            "include_provenance": True,
            "include_proof": True,
            "offer_artifacts": False,
            "accept_annotations": True,
        }
    )
    assert body.document_ids == ["d1", "d2"]


def test_accept_annotations_is_accepted_and_changes_nothing() -> None:
    with_flag = QueryV2Request.model_validate({"query": "q", "accept_annotations": False})
    without = QueryV2Request.model_validate({"query": "q"})
    assert with_flag.model_dump(exclude={"accept_annotations"}) == without.model_dump(
        exclude={"accept_annotations"}
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "q", "offer_artifacts": True}, "offer_artifacts"),
        ({"query": "q", "claim_map": {}}, "claim_map"),
        ({}, "query"),
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "x" * 4001}, "query"),
        ({"query": "q", "document_ids": ["a", "a"]}, "document_ids"),
        ({"query": "q", "document_ids": [""]}, "document_ids"),
        ({"query": "q", "sources": ["web"]}, "sources"),
        ({"query": 42}, "query"),
        ({"query": "q", "include_grounding": "maybe"}, "include_grounding"),
    ],
)
def test_invalid_body_is_rejected_naming_the_field(body: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        QueryV2Request.model_validate(body)
    assert field in {str(part) for e in raised.value.errors() for part in e["loc"]}
