"""A job interrupted by a restart is resumed or failed — never left ``running`` (XC-2): ``tanda
serve`` as a real process, killed (SIGKILL) while its worker pool runs a job, then started again
on the same files."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from tanda.auth.api_keys import hash_api_key
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.cross_check import ingest_statutes

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / "cross_check"
KEY = "dip_live_restart"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``tanda serve`` in a process of its own."""

    def __init__(self, home: Path, **settings: str) -> None:
        self.port = free_port()
        self.env = {
            **os.environ,
            "TANDA_HOME": str(home),
            "TANDA_PORT": str(self.port),
            "TANDA_MODEL": f"scripted:{SCENARIOS}",
            "TANDA_STORE": "sqlite",
            "TANDA_INDEX": "sqlite",
            "TANDA_RUNNER": "inprocess",
            "TANDA_V1_API_KEY_HASHES": json.dumps({hash_api_key(KEY): "acme"}),
            "TANDA_INITIAL_CREDITS": "1",
            # One pair per batch and one batch at a time: a job of many slow judge calls.
            "TANDA_XC_BATCH_SIZE": "1",
            "TANDA_XC_JUDGE_CONCURRENCY": "1",
            "TANDA_XC_LEASE_S": "1",
            **settings,
        }
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tanda.cli", "serve"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._healthy, "the server never answered /healthz")
        return self

    def _healthy(self) -> bool:
        assert self.process is not None and self.process.poll() is None, "the server exited"
        try:
            return httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind, as a crash or an OOM kill."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {KEY}", "X-Tanda-Scenario": "slow"}
        return httpx.request(method, f"{self.url}{path}", headers=headers, timeout=10, **kwargs)


def wait_until(condition: Callable[[], bool], failure: str, timeout_s: float = 60.0) -> None:
    """Wait for the other process to get somewhere (never a deadline of the code under test)."""
    limit = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < limit, failure
        time.sleep(0.05)


def uninterrupted_findings(home: Path, documents: list[str]) -> list[dict[str, Any]]:
    """The findings of the same job run here without interruption (its latencies on a manual
    clock), as GET shows them."""
    from dataclasses import replace

    from tanda.auth import Principal
    from tanda.contract.v1_cross_check import V1CrossCheckRequest
    from tanda.pipeline.cross_check import XcJobRef
    from tanda.pipeline.runners.cross_check import run_cross_check
    from tanda.service.cross_check import cross_check_status, start_cross_check
    from tests.fakes import scripted_model

    runtime = Runtime(settings=Settings(home=home, model=f"scripted:{SCENARIOS}"))
    operator = Principal(tenant_id="acme", partner_id="t", subject="t", is_test=True)
    body = V1CrossCheckRequest(document_ids=documents)
    job_id = start_cross_check(runtime, operator, body, scenario="slow", launch=False).id
    ports = replace(runtime.cross_check_ports(), model=scripted_model(SCENARIOS))
    run_cross_check(ports, XcJobRef(tenant_id="acme", job_id=job_id))
    view = cross_check_status(runtime, operator, job_id)
    return [f.model_dump(mode="json") for f in view.findings or []]


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.kill()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def documents(home: Path, tmp_path: Path) -> list[str]:
    return ingest_statutes(Runtime(settings=Settings(home=home)).search_index, tmp_path / "laws")


def interrupt_a_running_job(
    home: Path, documents: list[str], servers: list[Server], **settings: str
) -> str:
    """Start a job on a server, kill the server while the job runs; the job's id."""
    first = Server(home, **settings)
    servers.append(first)
    first.start()
    accepted = first.request("POST", "/v1/cross-check", json={"document_ids": documents})
    assert accepted.status_code == 202, accepted.text
    job_id: str = accepted.json()["id"]
    wait_until(
        lambda: first.request("GET", f"/v1/cross-check/{job_id}").json()["status"] == "running",
        "the job never started",
    )
    first.kill()
    job = Runtime(settings=Settings(home=home)).store.job("acme", job_id)
    assert job is not None and job.status == "running" and job.attempts == 1  # left behind
    return job_id


def test_a_job_interrupted_by_a_restart_is_resumed_and_completes(
    home: Path, documents: list[str], servers: list[Server]
) -> None:
    # Given a job running when its server was killed,
    job_id = interrupt_a_running_job(home, documents, servers)

    # when the server starts again on the same files,
    second = Server(home)
    servers.append(second)
    second.start()

    # then once the dead worker's lease has run out the job is resumed and completes, with the
    # findings an uninterrupted run gives, charged once.
    def ended() -> bool:
        status: str = second.request("GET", f"/v1/cross-check/{job_id}").json()["status"]
        return status in ("completed", "failed")

    wait_until(ended, "the job was never resumed")
    view = second.request("GET", f"/v1/cross-check/{job_id}").json()
    assert view["status"] == "completed", view
    assert view["findings"] == uninterrupted_findings(home, documents)
    assert view["findings"] and view["findings"][0]["kind"] == "contradiction"
    runtime = Runtime(settings=Settings(home=home))
    job = runtime.store.job("acme", job_id)
    assert job is not None and job.attempts == 2
    account = runtime.store.credit_account("acme", opening=Decimal(1))
    assert account.balance == Decimal("0.80") and account.usage_of("cross_check").charged == 1


def test_a_job_interrupted_on_its_last_attempt_is_failed_and_refunded(
    home: Path, documents: list[str], servers: list[Server]
) -> None:
    # Given a job that may start once, running when its server was killed,
    job_id = interrupt_a_running_job(home, documents, servers, TANDA_XC_MAX_ATTEMPTS="1")

    # when the server starts again,
    second = Server(home, TANDA_XC_MAX_ATTEMPTS="1")
    servers.append(second)
    second.start()

    # then the job is failed as interrupted, and its charge is given back.
    wait_until(
        lambda: second.request("GET", f"/v1/cross-check/{job_id}").json()["status"] == "failed",
        "the job was never failed",
    )
    view = second.request("GET", f"/v1/cross-check/{job_id}").json()
    assert view["error"]["code"] == "interrupted"
    account = Runtime(settings=Settings(home=home)).store.credit_account("acme", opening=Decimal(1))
    assert account.balance == Decimal("1.00") and account.usage_of("cross_check").refunded == 1
