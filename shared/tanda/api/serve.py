"""``tanda serve``: every route in one local uvicorn server."""

from __future__ import annotations

import sys


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
        proxy_headers=False,
        server_header=False,
    )
    return 0
