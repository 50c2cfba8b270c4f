"""``tanda mcp``: the knowledge tools for a local MCP host, over stdio (docs/mcp.md).

The host starts it and speaks MCP on its stdin and stdout; nothing else may be written to
stdout. The caller is a local operator of one tenant (``--tenant``, else ``TANDA_MCP_TENANT``):
its ``ask`` and ``cross_check`` calls are metered like a ``dip_test_`` key's, never charged
(ASK-12), as ``tanda search`` and ``tanda ask --v1`` are.
"""

from __future__ import annotations

import argparse


def mcp_command(args: argparse.Namespace) -> int:
    from tanda.auth import Principal
    from tanda.mcp.server import build_server
    from tanda.wiring import build_runtime

    runtime = build_runtime()
    tenant = args.tenant or runtime.settings.mcp_tenant
    operator = Principal(
        tenant_id=tenant, partner_id="local-mcp", subject="local-mcp", is_test=True
    )
    build_server(lambda: runtime, lambda: operator).run("stdio")
    return 0
