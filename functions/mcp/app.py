"""Lambda entry point for ``/mcp`` — the MCP server over streamable HTTP, stateless, JSON
responses (knowledge queries for agent hosts; docs/mcp.md).

Wiring only (DESIGN §2, STYLE "Thin entry points"): mount the one router, wrap it for API
Gateway, log and measure each invocation, prepare the SnapStart snapshot (``tanda.snapstart``).
No settings are read and no adapter is built here. Each request is served whole by its own
transport, so no lifespan runs (Mangum ``lifespan="off"``).
"""

from mangum import Mangum

from tanda import snapstart
from tanda.api.app import create_app
from tanda.api.routes.mcp import router
from tanda.observability import instrumented
from tanda.wiring import snapshot_primes

app = create_app(routers=[router])
handler = instrumented("mcp")(Mangum(app, lifespan="off"))
snapstart.register(prime_modules=snapshot_primes("mcp"))
