"""What every request body shares (issue 11, V2-02, PG-2, ASK-02): strict JSON types, valid Unicode
everywhere, visible text in questions and prompts, one ``document_ids`` type."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pytest
from pydantic import ValidationError

from tanda.contract.conversations import CreateConversationRequest
from tanda.contract.playground import PlaygroundRequest
from tanda.contract.query import QueryV2Request
from tanda.contract.query_v1 import QueryV1Request
from tanda.contract.request_body import VISIBLE_TEXT_PATTERN, RequestBody
from tanda.contract.v1_ask import V1AskRequest
from tanda.contract.v1_search import V1SearchRequest

ANSWER_BODIES: list[tuple[type[RequestBody], dict[str, Any]]] = [
    (QueryV2Request, {"query": "q"}),
    (QueryV1Request, {"query": "q"}),
    (PlaygroundRequest, {"query": "q", "editorial_prompt": "Jawab singkat."}),
]
EVERY_BODY: list[tuple[type[RequestBody], dict[str, Any]]] = [
    *ANSWER_BODIES,
    (CreateConversationRequest, {}),
    (V1SearchRequest, {"query": "q"}),
    (V1AskRequest, {"query": "q"}),
]


def errors_of(model: type[RequestBody], body: Any) -> list[dict[str, Any]]:
    with pytest.raises(ValidationError) as raised:
        model.model_validate(body)
    return [dict(e) for e in raised.value.errors()]


def test_every_request_body_is_a_request_body() -> None:
    # Given the base carries the rules, every body of every route must stand on it.
    for model, minimal in EVERY_BODY:
        assert issubclass(model, RequestBody)
        model.model_validate(minimal)


# --- booleans are JSON booleans ------------------------------------------------------------------


@pytest.mark.parametrize("value", ["yes", "true", "false", 1, 0, "1", None])
@pytest.mark.parametrize("field", ["include_grounding", "include_provenance"])
@pytest.mark.parametrize(("model", "minimal"), ANSWER_BODIES)
def test_a_boolean_field_takes_only_true_or_false(
    model: type[RequestBody], minimal: dict[str, Any], field: str, value: object
) -> None:
    errors = errors_of(model, {**minimal, field: value})
    assert [(e["loc"], e["type"]) for e in errors] == [((field,), "bool_type")]


@pytest.mark.parametrize("value", ["yes", "true", 1, 0, None])
def test_include_proof_takes_only_true_or_false(value: object) -> None:
    errors = errors_of(QueryV2Request, {"query": "q", "include_proof": value})
    assert [(e["loc"], e["type"]) for e in errors] == [(("include_proof",), "bool_type")]


@pytest.mark.parametrize("value", [0, 0.0, "false", None])
def test_offer_artifacts_false_is_the_boolean_false_only(value: object) -> None:
    errors = errors_of(QueryV2Request, {"query": "q", "offer_artifacts": value})
    assert [e["loc"] for e in errors] == [("offer_artifacts",)]


@pytest.mark.parametrize("value", ["true", 1])
def test_v1_offer_artifacts_is_a_strict_boolean_too(value: object) -> None:
    errors = errors_of(QueryV1Request, {"query": "q", "offer_artifacts": value})
    assert [(e["loc"], e["type"]) for e in errors] == [(("offer_artifacts",), "bool_type")]


@pytest.mark.parametrize("value", ["5", True, 5.5, None, [5]])
def test_top_k_is_a_json_integer(value: object) -> None:
    errors = errors_of(V1SearchRequest, {"query": "q", "top_k": value})
    assert [e["loc"] for e in errors] == [("top_k",)]


def test_an_integer_written_as_a_float_is_an_integer_as_json_schema_says() -> None:
    # JSON Schema's "integer" includes 5.0; the OpenAPI document promises no more than that.
    assert V1SearchRequest.model_validate({"query": "q", "top_k": 5.0}).top_k == 5


def test_true_false_and_omitted_booleans_still_work() -> None:
    body = QueryV2Request.model_validate(
        {"query": "q", "include_grounding": True, "include_provenance": False}
    )
    assert body.include_grounding is True and body.include_provenance is False
    assert QueryV1Request.model_validate({"query": "q", "offer_artifacts": True}).offer_artifacts


# --- a question has a visible character ----------------------------------------------------------

INVISIBLE = [
    "\x00",
    "\x00\x00\x00",
    " \t\r\n",
    "\u200b",
    "\u200b\u200c\u200d\u2060",
    "\ufeff",
    "\u00ad",
    "\u202e\u202c",
    "\u3000\u00a0",
    "\u2800",
    "\u3164\u115f",
    "\ufe0f",
    "\x7f\x85",
]


@pytest.mark.parametrize("text", INVISIBLE)
@pytest.mark.parametrize(
    ("model", "minimal", "field"),
    [
        (QueryV2Request, {}, "query"),
        (QueryV1Request, {}, "query"),
        (PlaygroundRequest, {"editorial_prompt": "p"}, "query"),
        (PlaygroundRequest, {"query": "q"}, "editorial_prompt"),
        (V1SearchRequest, {}, "query"),
    ],
)
def test_text_without_a_visible_character_is_refused(
    model: type[RequestBody], minimal: dict[str, Any], field: str, text: str
) -> None:
    errors = errors_of(model, {**minimal, field: text})
    assert [(e["loc"], e["type"]) for e in errors] == [((field,), "string_not_visible")]


@pytest.mark.parametrize("text", ["a", " x ", "\u200bx", "é", "٣", "😀", "\u0301", "?"])
def test_text_with_one_visible_character_is_accepted(text: str) -> None:
    assert QueryV2Request.model_validate({"query": text}).query == text


def test_the_published_pattern_covers_every_control_format_and_space_character() -> None:
    # Given the OpenAPI `pattern` is the rule itself, every BMP character of these categories
    # (and every whitespace) alone must fail it, and nothing of another category may.
    visible = re.compile(VISIBLE_TEXT_PATTERN)
    fillers = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F}
    fillers |= {0x2800, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10)}
    for code in range(0x10000):
        char = chr(code)
        category = unicodedata.category(char)
        if category == "Cs":
            continue
        invisible = category in {"Cc", "Cf", "Zs", "Zl", "Zp"} or char.isspace()
        invisible = invisible or code in fillers or code == 0x2065  # U+2065: reserved format
        assert (visible.search(char) is None) == invisible, f"U+{code:04X} {category}"


# --- every string is valid Unicode --------------------------------------------------------------

LONE = "\ud800"


@pytest.mark.parametrize(
    ("model", "body", "loc"),
    [
        (QueryV2Request, {"query": "x", "document_ids": [LONE]}, ("document_ids", 0)),
        (QueryV2Request, {"query": "x", "document_ids": ["a", "b" + LONE]}, ("document_ids", 1)),
        (QueryV2Request, {"query": "x" + LONE}, ("query",)),
        (QueryV2Request, {"query": "x", "selection": LONE}, ("selection",)),
        (QueryV2Request, {"query": "x", "conversation_id": "\udfff"}, ("conversation_id",)),
        (QueryV2Request, {"query": "x", "mcp_servers": ["ok", LONE]}, ("mcp_servers", 1)),
        (QueryV2Request, {"query": "x", "sources": [LONE]}, ("sources", 0)),
        (QueryV1Request, {"query": "x", "document_ids": [LONE]}, ("document_ids", 0)),
        (PlaygroundRequest, {"query": "x", "editorial_prompt": LONE}, ("editorial_prompt",)),
        (CreateConversationRequest, {"document_ids": [LONE]}, ("document_ids", 0)),
        (CreateConversationRequest, {"selection": LONE}, ("selection",)),
        (V1SearchRequest, {"query": "x", "batch_id": LONE}, ("batch_id",)),
        (V1SearchRequest, {"query": "x", "lang": LONE}, ("lang",)),
        (QueryV2Request, {"query": "x", LONE: 1}, ("\\ud800",)),
        (QueryV2Request, {"query": "x", "extra": {"deep": [LONE]}}, ("extra", "deep", 0)),
    ],
)
def test_a_lone_surrogate_anywhere_is_string_unicode(
    model: type[RequestBody], body: dict[str, Any], loc: tuple[object, ...]
) -> None:
    errors = errors_of(model, body)
    assert [(e["loc"], e["type"]) for e in errors] == [(loc, "string_unicode")]
    assert all(e["input"] is None for e in errors)  # the bad text is never echoed


def test_a_surrogate_pair_as_written_in_json_is_one_valid_character() -> None:
    import json

    body = json.loads('{"query": "\\ud83d\\ude00"}')
    assert QueryV2Request.model_validate(body).query == "😀"


def test_a_body_nested_deeper_than_the_stack_is_a_validation_error() -> None:
    # Given the unicode walk runs on top of the request stack, it must not recurse.
    nested: Any = "x"
    for _ in range(20_000):
        nested = [nested]
    errors = errors_of(QueryV2Request, {"query": "x", "document_ids": nested})
    assert errors and errors[0]["loc"][0] == "document_ids"


# --- one document_ids type ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ids",
    [["", "", ""], [""], ["a", "a"], ["x" * 129], ["a"] * 2 + ["b"], [f"d{i}" for i in range(101)]],
)
@pytest.mark.parametrize(("model", "minimal"), [*ANSWER_BODIES, (CreateConversationRequest, {})])
def test_document_ids_are_unique_ids_of_1_to_128_characters_everywhere(
    model: type[RequestBody], minimal: dict[str, Any], ids: list[str]
) -> None:
    errors = errors_of(model, {**minimal, "document_ids": ids})
    assert all(e["loc"][0] == "document_ids" for e in errors)


def test_every_body_publishes_the_same_document_ids_schema() -> None:
    schemas = [
        model.model_json_schema()["properties"]["document_ids"]
        for model in (QueryV2Request, QueryV1Request, PlaygroundRequest, CreateConversationRequest)
    ]
    array = next(s for s in schemas[0]["anyOf"] if s.get("type") == "array")
    assert array["uniqueItems"] is True
    assert array["items"] == {"type": "string", "minLength": 1, "maxLength": 128}
    assert all(s["anyOf"] == schemas[0]["anyOf"] for s in schemas)


@pytest.mark.parametrize("sources", [["documents", "documents"], ["portal", "documents", "portal"]])
def test_sources_are_unique(sources: list[str]) -> None:
    # Given two kinds of source, a longer list only repeats them: the body stays bounded
    errors = errors_of(QueryV2Request, {"query": "q", "sources": sources})
    assert [e["loc"] for e in errors] == [("sources",)]
    schema = QueryV2Request.model_json_schema()["properties"]["sources"]["anyOf"][0]
    assert schema["uniqueItems"] is True and schema["maxItems"] == 2


def test_a_conversation_with_valid_document_ids_is_accepted() -> None:
    body = CreateConversationRequest.model_validate({"document_ids": ["a", "b"]})
    assert body.document_ids == ["a", "b"]


# --- /v1/search scope ----------------------------------------------------------------------------


def test_search_schema_says_document_id_and_batch_id_not_both() -> None:
    schema = V1SearchRequest.model_json_schema()
    both = schema["not"]
    assert set(both["required"]) == {"document_id", "batch_id"}
    errors = errors_of(V1SearchRequest, {"query": "q", "document_id": "d", "batch_id": "b"})
    assert len(errors) == 1
    one = V1SearchRequest.model_validate({"query": "q", "document_id": "d", "batch_id": None})
    assert one.document_id == "d"
