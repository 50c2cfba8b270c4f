"""Lambda entry point for ``POST /query/v2/stream`` (Server-Sent Events).

Why no Mangum handler here: Mangum turns one API Gateway event into one buffered response, so
SSE frames would reach the client only when the answer is complete. This function instead runs
the ASGI app under uvicorn inside the Lambda, behind the AWS Lambda Web Adapter (LWA) layer:

* the function's handler is ``run.sh``; ``AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap`` lets LWA
  start it and proxy each invocation to ``http://127.0.0.1:$PORT``;
* ``AWS_LWA_INVOKE_MODE=response_stream`` makes LWA forward the body chunk by chunk as uvicorn
  writes it, and the API Gateway REST integration uses ``ResponseTransferMode: RESPONSE_STREAM``
  (the ``response-streaming-invocations`` Lambda API), so every frame reaches the client as
  soon as it is written.

SnapStart: the adapter, not the Python runtime, sees the snapshot; it POSTs the two hook paths
of ``tanda.snapstart.install_lwa_hooks`` before the snapshot and after a restore.

Wiring only (DESIGN §2): no settings are read and no adapter is built at import.
"""

from tanda import snapstart
from tanda.api.app import create_app
from tanda.api.routes.query_v2 import router
from tanda.observability import RequestLog
from tanda.wiring import snapshot_primes

app = create_app(routers=[router])
snapstart.install_lwa_hooks(app, prime_modules=snapshot_primes("query_v2_stream"))
# One `invocation` log line per request, as instrumented() writes for the buffered routes.
app.add_middleware(RequestLog, name="query_v2_stream")
