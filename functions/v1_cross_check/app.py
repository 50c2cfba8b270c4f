"""Lambda entry point for ``POST /v1/cross-check``, ``GET /v1/cross-check`` and
``GET /v1/cross-check/{job_id}`` (XC-1, XC-2; docs/cross-check.md): the POST stores and charges
the job and starts one execution of the STANDARD cross-check state machine; the GETs read it.
It also serves ``GET /v1/usage`` (issue 27; docs/credits.md), which reads the same tenant's
ledger entries.

Wiring only (DESIGN §2, STYLE "Thin entry points"): mount the one router, wrap it for API
Gateway, log and measure each invocation, prepare the SnapStart snapshot (``tanda.snapstart``).
No settings are read and no adapter is built here.
"""

from mangum import Mangum

from tanda import snapstart
from tanda.api.app import create_app
from tanda.api.routes.v1_cross_check import router
from tanda.api.routes.v1_usage import router as usage_router
from tanda.observability import instrumented
from tanda.wiring import snapshot_primes

app = create_app(routers=[router, usage_router])
handler = instrumented("v1_cross_check")(Mangum(app, lifespan="off"))
snapstart.register(prime_modules=snapshot_primes("v1_cross_check"))
