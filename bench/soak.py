"""Stream soak (issue 11): RSS and open file descriptors of a ``tanda serve`` process before and
after 2000 answer streams, beside the JSON route as the peer in the same run.

Run from the repository root: ``.venv/bin/python bench/soak.py`` → prints a table, writes
``bench/results/stream_soak.json``.

The server is ``tanda serve`` itself, in its own process (so its figures are the server's alone),
on loopback, with the scripted model at zero latency and a real SQLite index and store. Four
clients send the requests: on the stream routes (``/query/v2/stream`` and ``/query/stream`` in
turn) two in three read to ``done`` and one in three hangs up after the first frame, as a user
closing the tab. Then the same number of ``/query/v2`` JSON requests. RSS and descriptors are read
from ``/proc/PID`` after a warm-up, every 500 requests, and at the end.

``--compare SRC`` runs the same soak once more with the server importing ``tanda`` from another
source tree (e.g. ``git archive <commit> shared | tar -x -C /tmp/old``, then ``/tmp/old/shared``)
and records it under ``compared`` — how the figures of an earlier commit were measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ed25519  # noqa: E402
from httpx_sse import connect_sse  # noqa: E402
from tests.corpus import QUESTION, add_qanun  # noqa: E402
from tests.integration.credentials import API_KEY, PARTNER, partner_headers  # noqa: E402

from tanda.adapters.sqlite_index import SqliteSearchIndex  # noqa: E402
from tanda.auth.api_keys import hash_api_key  # noqa: E402
from tanda.auth.tokens import public_jwk  # noqa: E402

REQUESTS = 2000
WARMUP = 100
CLIENTS = 4
SAMPLE_EVERY = 500
STREAM_ROUTES = ("/query/v2/stream", "/query/stream")
SERVE = "import sys; from tanda.cli import main; sys.exit(main())"
"""``tanda serve`` from whichever ``tanda`` ``PYTHONPATH`` finds first (see ``--compare``)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server_env(
    home: Path, port: int, key: ed25519.Ed25519PrivateKey, source: Path
) -> dict[str, str]:
    jwks = {"keys": [{**public_jwk(key.public_key()), "kid": "k1"}]}
    return {
        **os.environ,
        "PYTHONPATH": str(source),
        "TANDA_HOME": str(home),
        "TANDA_PORT": str(port),
        "TANDA_MODEL": f"scripted:{ROOT / 'tests' / 'scenarios'}",
        "TANDA_API_KEY_HASHES": hash_api_key(API_KEY),
        "TANDA_JWT_PUBLIC_KEYS": json.dumps(jwks),
        "TANDA_JWT_ISSUERS": json.dumps({PARTNER: "acme"}),
    }


def usage(pid: int) -> dict[str, float]:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        rss_kb = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    threads = len(os.listdir(f"/proc/{pid}/task"))
    return {
        "rss_mb": round(rss_kb / 1024, 1),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "threads": threads,
    }


def one_stream(client: httpx.Client, base: str, path: str, hang_up: bool) -> str:
    """The last event read: ``done`` for a whole stream, the first event when hanging up."""
    with connect_sse(client, "POST", f"{base}{path}", json={"query": QUESTION}) as source:
        if source.response.status_code != 200:
            return f"http {source.response.status_code}"
        last = ""
        for event in source.iter_sse():
            last = event.event
            if hang_up:
                break
    return last


def one_json(client: httpx.Client, base: str) -> str:
    response = client.post(f"{base}/query/v2", json={"query": QUESTION})
    return "done" if response.status_code == 200 else f"http {response.status_code}"


def drive(base: str, headers: dict[str, str], count: int, streams: bool) -> dict[str, int]:
    """``count`` requests from ``CLIENTS`` clients; the outcome of each, counted."""
    outcomes: dict[str, int] = {}
    lock = threading.Lock()

    def client_loop(client_id: int) -> None:
        with httpx.Client(timeout=60, headers=headers) as client:
            for n in range(client_id, count, CLIENTS):
                try:
                    if streams:
                        hang_up = n % 3 == 2
                        last = one_stream(client, base, STREAM_ROUTES[n % 2], hang_up)
                        outcome = "hung_up" if hang_up and last else last
                    else:
                        outcome = one_json(client, base)
                except httpx.HTTPError as error:
                    outcome = type(error).__name__
                with lock:
                    outcomes[outcome] = outcomes.get(outcome, 0) + 1

    threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def soak(pid: int, base: str, headers: dict[str, str], streams: bool) -> dict[str, Any]:
    drive(base, headers, WARMUP, streams)
    time.sleep(1)  # hung-up answers finish
    before = usage(pid)
    samples = [{"requests": 0, **before}]
    outcomes: dict[str, int] = {}
    started = time.perf_counter()
    for done in range(SAMPLE_EVERY, REQUESTS + 1, SAMPLE_EVERY):
        for outcome, n in drive(base, headers, SAMPLE_EVERY, streams).items():
            outcomes[outcome] = outcomes.get(outcome, 0) + n
        samples.append({"requests": done, **usage(pid)})
    seconds = time.perf_counter() - started
    time.sleep(1)
    after = usage(pid)
    return {
        "requests": REQUESTS,
        "outcomes": dict(sorted(outcomes.items())),
        "before": before,
        "after": after,
        "rss_mb_delta": round(after["rss_mb"] - before["rss_mb"], 1),
        "fds_delta": int(after["fds"] - before["fds"]),
        "samples": samples,
        "requests_per_s": round(REQUESTS / seconds, 1),
    }


def run(source: Path) -> dict[str, Any]:
    key = ed25519.Ed25519PrivateKey.generate()
    headers = partner_headers(key)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        index = SqliteSearchIndex(home / "index.sqlite")
        add_qanun(index, "acme")
        index.close()
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from tanda.cli import main; sys.exit(main())",
                "serve",
            ],
            env=server_env(home, port, key, source),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("tanda serve did not start")
                time.sleep(0.1)
            streams = soak(server.pid, base, headers, streams=True)
            json_route = soak(server.pid, base, headers, streams=False)
        finally:
            server.terminate()
            server.wait(30)
    return {"streams": streams, "json_route": json_route}


def show(label: str, figures: dict[str, Any]) -> None:
    for route in ("streams", "json_route"):
        row = figures[route]
        b, a = row["before"], row["after"]
        print(
            f"{label:>9} {route:>10}: RSS {b['rss_mb']} → {a['rss_mb']} MB "
            f"({row['rss_mb_delta']:+}), fds {b['fds']} → {a['fds']} ({row['fds_delta']:+}), "
            f"threads {b['threads']} → {a['threads']}, {row['requests_per_s']} req/s, "
            f"{row['outcomes']}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", type=Path, help="another source tree's shared/ folder")
    parser.add_argument("--compare-label", default="compared", help="what that tree is")
    args = parser.parse_args()
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "requests_per_route": REQUESTS,
        "clients": CLIENTS,
        "stream_hang_ups": "one in three, after the first frame",
    }
    results.update(run(ROOT / "shared"))
    show("this", results)
    if args.compare is not None:
        compared = run(args.compare.resolve())
        results["compared"] = {"source": args.compare_label, **compared}
        show("compared", compared)
    out = ROOT / "bench" / "results" / "stream_soak.json"
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
