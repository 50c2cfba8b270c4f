"""Issue 25: the offline agent uses the request's sources — the portal's search with the
question's focus terms (its year as the period), then a read of the best dataset; and on each MCP
server one search tool taking one text argument, with the question."""

from __future__ import annotations

import json

from tanda.adapters.offline import OfflineModel, first_round, portal_reads
from tanda.agent.source_tools import PORTAL_SPECS
from tanda.agent.tools import TOOL_SPECS
from tanda.model_calls import ChatMessage, ChatRequest, ModelRole, ToolCall, ToolSpec
from tanda.retrieval.question import analyze_question

QUESTION = analyze_question("Berapa anggaran Pendapatan Daerah Kota Surabaya tahun 2022?")
TEXT = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
NODE = {"type": "object", "properties": {"node_id": {"type": "string"}}, "required": ["node_id"]}
MCP = [
    ToolSpec(name="mcp.partner.get_node", description="a node", parameters=NODE),
    ToolSpec(name="mcp.partner.search", description="search", parameters=TEXT),
    ToolSpec(name="mcp.partner.search_more", description="search", parameters=TEXT),
]


def test_the_first_round_searches_documents_portal_and_one_mcp_search_tool() -> None:
    calls = first_round(QUESTION, [*TOOL_SPECS, *PORTAL_SPECS, *MCP])
    assert calls == [
        ("search", {"query": QUESTION.text}),
        ("portal_search", {"query": "pendapatan daerah kota surabaya", "period": "2022"}),
        ("mcp.partner.search", {"query": QUESTION.text}),
    ]


def test_without_sources_the_offline_agent_searches_the_documents_alone() -> None:
    request = ChatRequest(
        role=ModelRole.agent,
        messages=[ChatMessage(role="user", content=QUESTION.text)],
        tools=TOOL_SPECS,
        items=[{"question": QUESTION.text}],
    )
    response = OfflineModel().complete(request)
    assert [(c.id, c.name) for c in response.tool_calls] == [("call_1", "search")]


def test_after_a_portal_search_the_best_datasets_resource_is_read_once() -> None:
    listing = {
        "datasets": [
            {
                "title": "APBD Surabaya Tahun Anggaran 2022",
                "resources": [
                    {"resource_id": "file-csv", "datastore": False},
                    {"resource_id": "in-datastore", "datastore": True},
                ],
            }
        ]
    }
    searched = [
        ChatMessage(
            role="assistant",
            tool_calls=[ToolCall(id="call_2", name="portal_search", arguments={"query": "x"})],
        ),
        ChatMessage(role="tool", content=json.dumps(listing), tool_call_id="call_2"),
    ]
    reads = portal_reads(QUESTION, searched)
    # the datastore resource first, for the strongest focus word the title does not hold
    assert reads == [("portal_read", {"resource_id": "in-datastore", "query": "pendapatan"})]
    read = ChatMessage(
        role="assistant",
        tool_calls=[ToolCall(id="call_3", name="portal_read", arguments={"resource_id": "x"})],
    )
    assert portal_reads(QUESTION, [*searched, read]) == []
