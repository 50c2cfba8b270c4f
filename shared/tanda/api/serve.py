"""``tanda serve``: every route in one local uvicorn server."""

from __future__ import annotations

import sys
from typing import Any

MAX_REQUEST_HEAD_BYTES = 64 * 1024
"""The server's hard limit on a request head (request line and headers), h11's
``max_incomplete_event_size`` (h11's own default is 16 KiB). A head over it is refused by uvicorn
before the app sees it: a plain-text 400, or a reset connection when the client is still sending.
Below it the app's gate (``tanda.api.body_gate``) refuses too many or too large headers with 431
in the error shape, so the gate's limits must stay well under this one."""


def uvicorn_options() -> dict[str, Any]:
    """The options ``tanda serve`` runs uvicorn with (the loopback test server uses them too).

    ``http="h11"`` names the protocol whose head limit is set here: with uvicorn's default
    ``"auto"``, installing ``httptools`` would swap in a parser with limits of its own.
    """
    return {
        "http": "h11",
        "h11_max_incomplete_event_size": MAX_REQUEST_HEAD_BYTES,
        "proxy_headers": False,
        "server_header": False,
    }


def run_server(host: str | None = None, port: int | None = None) -> int:
    """Serve :func:`tanda.api.app.create_app` on ``host:port`` (default: settings) until stopped."""
    import uvicorn

    from tanda.api.app import create_app
    from tanda.auth import AuthConfigError
    from tanda.wiring import build_runtime

    runtime = build_runtime()
    settings = runtime.settings
    try:
        authenticator = runtime.authenticator  # unusable keys stop the start, not a request
    except AuthConfigError as exc:
        print(f"tanda: {exc}", file=sys.stderr)
        return 2
    if not (authenticator.partner_configured or authenticator.v1_configured):
        from tanda.auth import NOT_CONFIGURED_MESSAGE

        print(f"tanda: {NOT_CONFIGURED_MESSAGE}", file=sys.stderr)
    # XC-2: the cross-check worker pool starts with the server, resuming (or failing) the jobs
    # an earlier process left queued or running.
    runtime.cross_check_jobs  # noqa: B018
    uvicorn.run(
        create_app(runtime),
        host=host if host is not None else settings.host,
        port=port if port is not None else settings.port,
        **uvicorn_options(),
    )
    return 0
