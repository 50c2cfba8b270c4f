"""A real uvicorn server on loopback in a thread, for integration tests, browser tests and
benchmarks (DESIGN §8)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from tanda.api.serve import uvicorn_options


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # not the main thread
        pass


def listening_socket() -> socket.socket:
    """A bound TCP socket on 127.0.0.1 (a free port), listening, whose connections send small
    writes at once (TCP_NODELAY, inherited by accepted sockets on Linux; the explicit protocol
    lets asyncio set it too). Without it a response written in two parts waited for the
    client's delayed ACK: about 40 ms on every request."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port) until the block ends; yields the base URL."""
    sock = listening_socket()
    port = sock.getsockname()[1]
    # The options of `tanda serve` (its protocol and request head limit, issue 23).
    config = uvicorn.Config(app, log_level="warning", lifespan="off", **uvicorn_options())
    server = _Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
