#!/bin/sh
# Bootstrap started by the Lambda Web Adapter (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap): serve the
# ASGI app on the port LWA proxies to. See app.py for why this route is not a Mangum handler.
# Layers (deps with uvicorn, tanda code) unpack under /opt/python, which a plain `python` does not
# search: the Python runtime adds it for its own handlers, this script is not one of them.
cd "${LAMBDA_TASK_ROOT:-$(dirname "$0")}" || exit 1
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}/opt/python"
# The request head limit of `tanda serve` (tanda.api.serve.uvicorn_options, docs/requests.md).
exec python -m uvicorn app:app --host 0.0.0.0 --port "${PORT:-8080}" --no-access-log \
  --http h11 --h11-max-incomplete-event-size 65536
