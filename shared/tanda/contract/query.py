"""``POST /query/v2`` and ``/query/v2/stream`` request body (V2-02)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from tanda.contract.common import WireModel

MAX_QUERY_CHARS = 4000
MAX_DOCUMENT_IDS = 100


class QueryV2Request(WireModel):
    """Same body as ``/query``; unknown fields are rejected with 422."""

    # Built at import: FastAPI validates request bodies through its own field wrapper, and a
    # deferred build there warns on every first request.
    model_config = ConfigDict(defer_build=False)

    query: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, description="The question, in any language."
    )
    conversation_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Continue this conversation. It must belong to this route (V2-19, else 409).",
    )
    document_ids: list[str] | None = Field(
        default=None,
        max_length=MAX_DOCUMENT_IDS,
        description="Restrict retrieval to these documents of the caller's tenant.",
    )
    selection: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="A named selection of documents. Empty or inaccessible → the fixed "
        "`source_scope_empty` refusal before any tool or model call (V2-20).",
    )
    sources: list[Literal["documents", "portal"]] | None = Field(
        default=None, description="Which source kinds the agent may use (default: documents)."
    )
    mcp_servers: list[str] | None = Field(
        default=None, max_length=20, description="MCP servers the agent may call, by name."
    )
    include_grounding: bool = Field(
        default=False, description="JSON only: add `grounding` (the passages shown, by key)."
    )
    include_provenance: bool = Field(
        default=False,
        description="JSON only: add `used_docs`, `tool_call_audit` and `model_call_log`.",
    )
    offer_artifacts: Literal[False] = Field(
        default=False, description="Only `false`: /query/v2 never makes files."
    )
    accept_annotations: bool | None = Field(
        default=None,
        description="Accepted and ignored: every caller receives annotations. Kept so that "
        "clients written for 21–23 Oct 2026 keep working.",
    )

    @field_validator("query")
    @classmethod
    def _query_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query must contain non-whitespace text")
        return value

    @field_validator("document_ids")
    @classmethod
    def _document_ids_valid(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        if any(not d or len(d) > 128 for d in value):
            raise ValueError("each document id must be 1–128 characters")
        if len(set(value)) != len(value):
            raise ValueError("document ids must be unique")
        return value
