"""Issue 25: ``mcp.<server>.<tool>`` is offered to real model APIs, whose tool names allow no dot
(``^[a-zA-Z0-9_-]{1,64}$``): on the wire it is ``mcp__<server>__<tool>``, and a call of that name
comes back under the name the agent offered."""

from __future__ import annotations

from tanda.adapters.bedrock import converse_request, parse_converse_response
from tanda.adapters.openai_compat import chat_completions_body, parse_chat_completion
from tanda.model_calls import (
    ChatMessage,
    ChatRequest,
    ModelRole,
    ToolCall,
    ToolSpec,
    tools_named_from_wire,
)

TOOLS = [
    ToolSpec(name="search", description="d", parameters={"type": "object"}),
    ToolSpec(name="mcp.partner.search", description="d", parameters={"type": "object"}),
]
EARLIER = ToolCall(id="call_1", name="mcp.partner.search", arguments={"query": "q"})
REQUEST = ChatRequest(
    role=ModelRole.agent,
    messages=[
        ChatMessage(role="user", content="q"),
        ChatMessage(role="assistant", tool_calls=[EARLIER]),
        ChatMessage(role="tool", content="{}", tool_call_id="call_1"),
    ],
    tools=TOOLS,
)


def test_openai_compatible_servers_see_names_without_dots_and_the_agent_gets_its_own_back() -> None:
    body = chat_completions_body("m", REQUEST)
    assert [t["function"]["name"] for t in body["tools"]] == ["search", "mcp__partner__search"]
    assert body["messages"][1]["tool_calls"][0]["function"]["name"] == "mcp__partner__search"
    reply = {
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {
                            "id": "c2",
                            "function": {"name": "mcp__partner__search", "arguments": "{}"},
                        }
                    ]
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    parsed = tools_named_from_wire(parse_chat_completion(reply), TOOLS)
    assert [c.name for c in parsed.tool_calls] == ["mcp.partner.search"]


def test_bedrock_sees_names_without_dots_and_the_agent_gets_its_own_back() -> None:
    params = converse_request("model", REQUEST)
    names = [t["toolSpec"]["name"] for t in params["toolConfig"]["tools"]]
    assert "mcp__partner__search" in names and "mcp.partner.search" not in names
    reply = {
        "output": {
            "message": {
                "content": [
                    {"toolUse": {"toolUseId": "u1", "name": "mcp__partner__search", "input": {}}}
                ]
            }
        },
        "stopReason": "tool_use",
    }
    parsed = tools_named_from_wire(parse_converse_response(reply, output_tool=None), TOOLS)
    assert [c.name for c in parsed.tool_calls] == ["mcp.partner.search"]
