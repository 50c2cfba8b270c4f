"""The tools, the rules resource and the MCP server that offers them (docs/mcp.md).

:func:`build_server` takes how to get the process's runtime and the caller: a fixed operator for
``tanda mcp`` (stdio), the ``dip_…`` key's principal of each HTTP request for ``/mcp``. Each
tool is one call into ``tanda.service.knowledge``; its input and output JSON schemas are the
contract models (``tanda.contract.knowledge``). A domain error becomes a tool error whose text is
the :class:`~tanda.contract.errors.ErrorResponse` JSON every route answers with; anything
unexpected is logged and answered as ``internal_error``, never with a stack trace.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar, cast

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from tanda import __version__
from tanda.contract.errors import ErrorDetail, ErrorResponse
from tanda.contract.knowledge import (
    SEARCH_LIMIT_DEFAULT,
    SEARCH_LIMIT_MAX,
    AnswerValidation,
    Budget,
    KnowledgeScope,
    NeighbourRequest,
    NodeResult,
    NodeType,
    QuoteCitation,
    QuoteVerification,
    RulesResult,
    SearchResult,
    ServiceStatus,
    SourcesResult,
    StructuredAnswer,
)
from tanda.contract.v1_ask import V1AskResponse
from tanda.contract.v1_cross_check import CrossCheckDocumentIds, V1CrossCheckJob
from tanda.errors import TandaError
from tanda.service import knowledge

if TYPE_CHECKING:
    from tanda.auth import Principal
    from tanda.service.runtime import Runtime

log = logging.getLogger(__name__)

SERVER_NAME = "tanda"
RULES_URI = "tanda://rules"
INSTRUCTIONS = (
    "Read-only knowledge queries over the caller's documents. Establish an explicit scope and a "
    "budget; check service_status; search (node_types, stale_only facets) and list_sources under "
    "the same scope; follow an advancing next_cursor while budget.status is BUDGET_TRUNCATED "
    "(a truncated page is incomplete coverage, never absence); inspect decisive nodes with "
    "get_node; quote exactly (verify_quote) and validate structured answers (validate_answer) "
    "before delivering them. Governing rules: list_rules or the tanda://rules resource."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

P = ParamSpec("P")
R = TypeVar("R")

Query = Annotated[str, Field(min_length=1, max_length=2000, description="The question's words.")]
Cursor = Annotated[
    str | None,
    Field(default=None, max_length=512, description="`budget.next_cursor` of the previous page."),
]


def tool_error(error: TandaError) -> CallToolResult:
    """A tool error whose text (and structured content) is the ErrorResponse of ``error``: the
    shape every route's errors have."""
    detail = ErrorDetail(code=error.code, message=error.message, **error.detail())
    body = ErrorResponse(error=detail)
    return CallToolResult(
        content=[TextContent(type="text", text=body.model_dump_json(exclude_none=True))],
        structured_content=body.model_dump(mode="json", exclude_none=True),
        is_error=True,
    )


def _tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(fn)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except TandaError as error:
            failed = tool_error(error)
        except Exception:
            log.exception("MCP tool %s failed", fn.__name__)
            failed = tool_error(TandaError())
        # The SDK passes a CallToolResult through as the tool's result (an error result is not
        # checked against the tool's output schema).
        return cast(R, failed)

    return guarded


def build_server(
    runtime: Callable[[], Runtime], principal: Callable[[], Principal]
) -> MCPServer[Any]:
    """The MCP server of the knowledge tools; ``runtime()`` and ``principal()`` are called on
    every tool call (the principal is the caller of that call)."""
    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        title="tanda knowledge queries",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )

    @server.tool(annotations=READ_ONLY)
    @_tool_errors
    def service_status(scope: KnowledgeScope | None = None) -> ServiceStatus:
        """KB-01: actual availability of the index, the embedder (hybrid, or lexical-only =
        degraded), the reranker, the models and the job runner; index generation and freshness
        of the scope (newest indexed_at, stale documents)."""
        return knowledge.kb_service_status(runtime(), principal(), scope=scope)

    @server.tool(annotations=READ_ONLY)
    @_tool_errors
    def search(
        query: Query,
        scope: KnowledgeScope,
        node_types: list[NodeType] | None = None,
        stale_only: bool = False,
        limit: Annotated[int, Field(ge=1, le=SEARCH_LIMIT_MAX)] = SEARCH_LIMIT_DEFAULT,
        budget: Budget | None = None,
        cursor: Cursor = None,
    ) -> SearchResult:
        """KB-02, KB-03: accepted candidates in the explicit scope, each with its complete
        citation group (document identity, page, section, node id, span, verbatim text). Facets:
        node_types, stale_only. The filters, index metadata and degraded-mode / freshness
        warnings come back with every page; the result is fitted to `budget` (code points of
        its JSON): follow `budget.next_cursor` while `budget.status` is BUDGET_TRUNCATED."""
        return knowledge.kb_search(
            runtime(),
            principal(),
            query=query,
            scope=scope,
            node_types=node_types,
            stale_only=stale_only,
            limit=limit,
            budget=budget,
            cursor=cursor,
        )

    @server.tool(annotations=READ_ONLY)
    @_tool_errors
    def list_sources(
        scope: KnowledgeScope, budget: Budget | None = None, cursor: Cursor = None
    ) -> SourcesResult:
        """KB-02: the documents in the explicit scope (identity, batch, selections, index time,
        stale), fitted to `budget` with cursors like `search`."""
        return knowledge.kb_list_sources(
            runtime(), principal(), scope=scope, budget=budget, cursor=cursor
        )

    @server.tool(annotations=READ_ONLY)
    @_tool_errors
    def get_node(
        node_id: Annotated[str, Field(min_length=1, max_length=512)],
        neighbours: NeighbourRequest | None = None,
    ) -> NodeResult:
        """KB-04: a decisive node and a bounded set of typed neighbours: `established`
        relationships (the passages before and after it, its section) kept apart from
        `suggested` ones (similar text elsewhere)."""
        return knowledge.kb_get_node(runtime(), principal(), node_id=node_id, neighbours=neighbours)

    @server.tool(annotations=READ_ONLY)
    @_tool_errors
    def verify_quote(
        node_id: Annotated[str, Field(min_length=1, max_length=512)],
        start: Annotated[int, Field(ge=0)],
        end: Annotated[int, Field(ge=0)],
        quote: Annotated[str, Field(min_length=1, max_length=20_000)],
    ) -> QuoteVerification:
        """KB-05: true only if `quote` is the complete normalised text of the node at
        [start, end) (code points). A shortened quote with the original wider offsets fails; the
        result says why and offers the verified narrower span when there is one."""
        citation = QuoteCitation(node_id=node_id, start=start, end=end, quote=quote)
        return knowledge.kb_verify_quote(runtime(), principal(), citation)

    @server.tool(annotations=READ_ONLY)
    @_tool_errors
    def validate_answer(answer: StructuredAnswer) -> AnswerValidation:
        """KB-05, KB-06: the binding verifier of a structured answer. Every citation's quote
        must verify; `evidence_gap: true` marks a deliberate gap; a citation-free answer must
        carry `answer_basis {kind: "governing_rule", rules: [{rule_id, quote}]}` with a
        registered rule id and its exact text (list_rules); a factual answer labelled
        governing-rule is refused."""
        return knowledge.kb_validate_answer(runtime(), principal(), answer)

    @server.tool(annotations=READ_ONLY)
    @_tool_errors
    def list_rules() -> RulesResult:
        """KB-06: the registered governing rules and their exact texts (also the resource
        tanda://rules)."""
        return knowledge.kb_rules()

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False
        )
    )
    @_tool_errors
    def ask(
        query: Annotated[str, Field(min_length=1, max_length=4000)],
        scope: KnowledgeScope,
        lang: Annotated[str | None, Field(max_length=16)] = None,
    ) -> V1AskResponse:
        """POST /v1/ask as a tool: one answer citing its sources as [S#], over one document
        (`scope.document_ids` with one id) or one batch. Throttled and charged like the route
        (ASK-12, ASK-13)."""
        return knowledge.kb_ask(runtime(), principal(), query=query, scope=scope, lang=lang)

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False
        )
    )
    @_tool_errors
    def cross_check(
        document_ids: CrossCheckDocumentIds,
        lang: Annotated[str | None, Field(max_length=16)] = None,
    ) -> V1CrossCheckJob:
        """XC-5: POST /v1/cross-check as a tool that polls its job itself: contradictions and
        support between the claims of two or more of the caller's documents, as GET
        /v1/cross-check/{id} shows the finished job. Charged once, like the route. When the job
        has not finished within the server's wait, the result is its id and status: read it on
        with GET /v1/cross-check/{id}. `lang` applies to the explanations only."""
        return knowledge.kb_cross_check(
            runtime(), principal(), document_ids=document_ids, lang=lang
        )

    @server.resource(RULES_URI, name="governing_rules", mime_type="application/json")
    def governing_rules() -> str:
        """KB-06: the registered governing rules (rule_id, exact quote)."""
        return knowledge.kb_rules().model_dump_json()

    return server
