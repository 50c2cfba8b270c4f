"""Lambda entry point for ``/v1/documents`` and ``/v1/batches`` (issue 26; docs/documents.md): a
tenant's documents — start an upload (an S3 presigned POST, or a small file itself), read one,
list them, erase one with its receipt — and a batch's progress and bulk import.

Wiring only (DESIGN §2, STYLE "Thin entry points"): mount the routers, wrap them for API
Gateway, log and measure each invocation, prepare the SnapStart snapshot (``tanda.snapstart``).
No settings are read and no adapter is built here.
"""

from mangum import Mangum

from tanda import snapstart
from tanda.api.app import create_app
from tanda.api.routes.v1_documents import router
from tanda.api.routes.v1_imports import router as imports_router
from tanda.observability import instrumented
from tanda.wiring import snapshot_primes

app = create_app(routers=[router, imports_router])
handler = instrumented("v1_documents")(Mangum(app, lifespan="off"))
snapstart.register(prime_modules=snapshot_primes("v1_documents"))
