"""Lambda entry point for ``POST /query/v2`` (buffered JSON answer).

Wiring only (DESIGN §2, STYLE "Thin entry points"): mount the one router, wrap it for API
Gateway. No settings are read and no adapter is built here — the app builds its runtime on the
first request that needs one, so this module imports without AWS credentials.
"""

from mangum import Mangum

from tanda.api.app import create_app
from tanda.api.routes.query_v2 import router

app = create_app(routers=[router])
handler = Mangum(app, lifespan="off")
