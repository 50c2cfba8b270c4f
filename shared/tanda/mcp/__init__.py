"""The MCP server for agent hosts (KB-01 … KB-07, docs/mcp.md): protocol glue only — the tools
call the use cases of ``tanda.service.knowledge``. Built on the official MCP Python SDK
(``mcp``, MIT): stdio for ``tanda mcp``, streamable HTTP (stateless, JSON responses) at ``/mcp``
through ``tanda.api.routes.mcp``."""
