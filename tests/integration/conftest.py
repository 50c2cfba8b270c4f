"""Integration fixtures: the app under a real uvicorn server on loopback (DESIGN §8)."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.adapters.dynamodb_store import DynamoStore
from tanda.settings import load_settings
from tests.aws import moto_dynamo_store
from tests.homes import use_home
from tests.servers import serving

ServeApp = Callable[[Any], str]


@pytest.fixture
def serve_app() -> Iterator[ServeApp]:
    """``serve_app(app)`` starts ``app`` under uvicorn on 127.0.0.1 (a free port) in a thread and
    returns its base URL; every server started is stopped at teardown."""
    with ExitStack() as stack:
        yield lambda app: stack.enter_context(serving(app))


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


@pytest.fixture
def dynamo_store(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoStore]:
    """A ``DynamoStore`` under moto, its tables created from template.yaml."""
    with moto_dynamo_store(monkeypatch) as store:
        yield store


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh home on the embedded defaults for the CLI (a module may define its own)."""
    use_home(monkeypatch, tmp_path / "home")
    yield tmp_path / "home"
    load_settings.cache_clear()
