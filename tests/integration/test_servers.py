"""The loopback server the HTTP tests and benchmarks use answers like ``tanda serve``: a small
response leaves at once instead of waiting for the client's delayed ACK (about 40 ms on Linux),
which made every request of bench/*.py look 40 ms slower than the app is (found by
bench/ask.py, issue 13)."""

from __future__ import annotations

import socket

import pytest

from tests.servers import listening_socket

pytestmark = pytest.mark.integration


def test_connections_accepted_by_the_test_server_send_small_writes_at_once() -> None:
    # Given the test server's listening socket and a client connected to it,
    listener = listening_socket()
    port = listener.getsockname()[1]
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        accepted, _ = listener.accept()
        with accepted:
            # then Nagle's algorithm is off on the server's side of the connection, as asyncio
            # turns it off for the sockets `tanda serve` binds.
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
            assert accepted.proto == socket.IPPROTO_TCP
    listener.close()
