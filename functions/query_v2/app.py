"""Lambda entry point for ``POST /query/v2`` (buffered JSON answer).

Wiring only (DESIGN §2, STYLE "Thin entry points"): mount the one router, wrap it for API
Gateway, log and measure each invocation, prepare the SnapStart snapshot (``tanda.snapstart``).
No settings are read and no adapter is built here.
"""

from mangum import Mangum

from tanda import snapstart
from tanda.api.app import create_app
from tanda.api.routes.query_v2 import router
from tanda.observability import instrumented
from tanda.wiring import snapshot_primes

app = create_app(routers=[router])
handler = instrumented("query_v2")(Mangum(app, lifespan="off"))
snapstart.register(prime_modules=snapshot_primes("query_v2"))
