"""Integration fixtures: the app under a real uvicorn server on loopback (DESIGN §8)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn
from cryptography.hazmat.primitives.asymmetric import ed25519

ServeApp = Callable[[Any], str]


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # the test thread is not the main thread
        pass


@pytest.fixture
def serve_app() -> Iterator[ServeApp]:
    """``serve_app(app)`` starts ``app`` under uvicorn on 127.0.0.1 (a free port) in a thread and
    returns its base URL; every server started is stopped at teardown."""
    running: list[tuple[_Server, threading.Thread, socket.socket]] = []

    def start(app: Any) -> str:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="off", server_header=False)
        server = _Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        running.append((server, thread, sock))
        return f"http://127.0.0.1:{port}"

    yield start
    for server, thread, sock in running:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def raw_http(base_url: str, request: bytes) -> bytes:
    """Send ``request`` bytes as-is (e.g. a header line twice) and return the whole response."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture(scope="module")
def signing_key() -> ed25519.Ed25519PrivateKey:
    """A partner/admin signing key made at test time (no key is committed)."""
    return ed25519.Ed25519PrivateKey.generate()
