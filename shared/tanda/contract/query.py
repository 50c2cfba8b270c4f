"""``POST /query/v2`` and ``/query/v2/stream`` request body (V2-02)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_core import PydanticCustomError

from tanda.contract.request_body import DocumentIds, RequestBody, VisibleText, unique_items

MAX_QUERY_CHARS = 4000
MAX_MCP_SERVER_CHARS = 128


def _a_boolean(value: object) -> object:
    # A literal is compared by equality, and `0 == False`: strict mode alone lets 0 through.
    if not isinstance(value, bool):
        raise PydanticCustomError("bool_type", "Input should be a valid boolean")
    return value


class QueryV2Request(RequestBody):
    """Same body as ``/query``; unknown fields are rejected with 422."""

    query: VisibleText = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="The question, in any language; at least one visible character (not only "
        "whitespace, control or zero-width characters).",
    )
    conversation_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Continue this conversation. It must belong to this route (V2-19, else 409).",
    )
    document_ids: DocumentIds | None = Field(
        default=None,
        description="Restrict retrieval to these documents of the caller's tenant (unique ids of "
        "1–128 characters).",
    )
    selection: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="A named selection of documents. Empty or inaccessible → the fixed "
        "`source_scope_empty` refusal before any tool or model call (V2-20).",
    )
    sources: (
        Annotated[
            list[Literal["documents", "portal"]],
            AfterValidator(unique_items),
            Field(max_length=2, json_schema_extra={"uniqueItems": True}),
        ]
        | None
    ) = Field(
        default=None, description="Which source kinds the agent may use (default: documents)."
    )
    mcp_servers: (
        list[Annotated[str, Field(min_length=1, max_length=MAX_MCP_SERVER_CHARS)]] | None
    ) = Field(default=None, max_length=20, description="MCP servers the agent may call, by name.")
    include_grounding: bool = Field(
        default=False, description="JSON only: add `grounding` (the passages shown, by key)."
    )
    include_provenance: bool = Field(
        default=False,
        description="JSON only: add `used_docs`, `tool_call_audit` and `model_call_log`.",
    )
    include_proof: bool = Field(
        default=False,
        description="JSON only: add `proof`, the answer's proof chain (ASK-11). A segment that "
        "states a computation the chain refutes is then never `supported`. The stream ignores it.",
    )
    offer_artifacts: Annotated[Literal[False], BeforeValidator(_a_boolean)] = Field(
        default=False, description="Only `false`: /query/v2 never makes files."
    )
    accept_annotations: bool | None = Field(
        default=None,
        description="Accepted and ignored: every caller receives annotations. Kept so that "
        "clients written for 21–23 Oct 2026 keep working.",
    )
