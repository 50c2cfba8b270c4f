"""``POST /query/v2`` and ``/query/v2/stream``: the request body (V2-02) and the JSON response
(V2-14 and the seed's JSON example), made of the annotation shapes of
:mod:`tanda.contract.response`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic_core import PydanticCustomError

from tanda.contract.common import (
    Citation,
    FallbackReason,
    SchemaName,
    WireModel,
    omitted_when_none,
)
from tanda.contract.proof import Proof
from tanda.contract.request_body import DocumentIds, RequestBody, VisibleText, unique_items
from tanda.contract.response import (
    Claim,
    Faithfulness,
    FramingSpan,
    ModelCallRecord,
    ToolCallAudit,
)

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


class GroundingPassage(WireModel):
    """Opt-in ``grounding``: a passage shown to the agent, by its key."""

    citation_key: str
    chunk_id: str | None = None
    document_id: str | None = None
    text: str


class UsedDoc(WireModel):
    document_id: str
    document_title: str | None = None
    cited: bool


class AnnotatedFields(WireModel):
    """The annotate-v2 fields every v2 answer carries (also the playground's)."""

    schema_: SchemaName = Field(default="annotate-v2", alias="schema")
    answer: str
    trace_id: str
    history_truncated: bool = False
    history_exchanges_in_view: int = Field(default=0, ge=0)
    citations: list[Citation] = Field(default_factory=list)
    tool: str | None = None
    tool_executed: bool = False
    fallback_used: bool = False
    fallback_reason: FallbackReason | None = None
    claims: list[Claim] = Field(default_factory=list)
    framing: list[FramingSpan] = Field(default_factory=list)
    faithfulness: Faithfulness
    claims_supported: int = Field(ge=0)
    claims_total: int = Field(ge=0)
    grounding_rate: float | None = Field(ge=0.0, le=1.0)
    grounding: list[GroundingPassage] | None = omitted_when_none(
        "Opt-in (`include_grounding`): the passages shown to the agent, by key."
    )
    used_docs: list[UsedDoc] | None = omitted_when_none("Opt-in (`include_provenance`).")
    tool_call_audit: list[ToolCallAudit] | None = omitted_when_none(
        "Opt-in (`include_provenance`)."
    )
    model_call_log: list[ModelCallRecord] | None = omitted_when_none(
        "Opt-in (`include_provenance`): every model call with role, latency and outcome."
    )
    proof: Proof | None = Field(
        default=None,
        description="Opt-in (`include_proof`): the answer's proof chain (ASK-11); `null` when "
        "the answer states no value, shows no operation and relies on no rule. Absent when not "
        "asked for.",
    )

    # No return annotation on purpose: pydantic would take it for the response's schema.
    @model_serializer(mode="wrap")
    def _proof_only_when_asked(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        # `proof: null` (asked, nothing to prove) differs from no `proof` (not asked).
        data: dict[str, Any] = handler(self)
        if "proof" not in self.model_fields_set:
            data.pop("proof", None)
        return data

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)


class QueryV2Response(AnnotatedFields):
    """``POST /query/v2`` 200 body. v1 gate fields (``claim_map``…) are absent by design."""

    conversation_id: str
    message_id: str
