"""What authenticating a /v1 call costs with keys as data (issue 27), on the embedded Store.

Run: ``.venv/bin/python bench/auth_keys.py`` → prints a table, writes
``bench/results/auth_keys.json``. Each figure is the median wall time of ``Authenticator.v1`` over
many calls, for a key of the settings (the bootstrap path: a digest compared in memory), a key of
the Store read through the cache (``TANDA_AUTH_CACHE_S=60``: what nearly every request pays),
and the same key with the cache off (``0``: one key read and one tenant read per request — the
price of one request per key per minute with the default). The last use is written by the
background thread, off these figures.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tanda.auth import Authenticator
from tanda.auth.api_keys import hash_api_key
from tanda.auth.authenticator import Credentials
from tanda.auth.keys_admin import issue_key
from tanda.settings import Settings
from tanda.wiring import Runtime

CALLS = 2000
BOOTSTRAP_KEY = "dip_live_bench-bootstrap-key"


def median_us(authenticator: Authenticator, key: str, calls: int) -> float:
    credentials = Credentials(authorizations=(f"Bearer {key}",))
    authenticator.v1(credentials)  # first read, then the measured ones
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        authenticator.v1(credentials)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def main() -> int:
    rows: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as home:
        for cache_s in (60.0, 0.0):
            settings = Settings(
                home=Path(home),
                auth_cache_s=cache_s,
                v1_api_key_hashes={hash_api_key(BOOTSTRAP_KEY): "bench"},
            )
            runtime = Runtime(settings=settings)
            store = runtime.store
            issued = issue_key(
                store, tenant_id="bench", kind="v1_live", created_by="bench", now=time.time()
            )
            authenticator = Authenticator.from_settings(settings, store=store)
            if cache_s:
                rows["settings key (bootstrap)"] = median_us(authenticator, BOOTSTRAP_KEY, CALLS)
                rows["Store key, cached (60 s)"] = median_us(authenticator, issued.secret, CALLS)
            else:
                rows["Store key, no cache (0 s)"] = median_us(authenticator, issued.secret, CALLS)
    print(f"{'credential':<28} {'median µs per authentication':>30}")
    for name, value in rows.items():
        print(f"{name:<28} {value:>30.1f}")
    out = Path(__file__).parent / "results" / "auth_keys.json"
    out.write_text(
        json.dumps(
            {
                "calls": CALLS,
                "median_us": {name: round(value, 1) for name, value in rows.items()},
                "python": sys.version.split()[0],
                "machine": platform.machine(),
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
