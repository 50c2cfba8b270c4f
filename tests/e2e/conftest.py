"""E2E fixtures: the whole app (every route of ``tanda serve``) under uvicorn on loopback with the
scripted model and a small corpus, plus test-only stub streams; Debian's headless Chromium driven
by Playwright's Python client. No browser is ever downloaded: without /usr/bin/chromium the tests
are skipped with the reason."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.service.ingest import StructureLayers, ingest_paths
from tanda.wiring import Runtime, build_model
from tests.corpus import add_qanun
from tests.fakes import scripted_model
from tests.integration.credentials import API_KEY, V1_KEY, settings_for, sign
from tests.servers import serving

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HERE = Path(__file__).parent
SCENARIOS = HERE.parent / "scenarios"
E2E_SCENARIOS = HERE / "scenarios"
ASK_SCENARIOS = SCENARIOS / "ask"
LIVE_V1_KEY = "dip_live_e2e-key"
BROKE_V1_KEY = "dip_live_e2e-broke-key"
EVIDENCE_V1_KEY = "dip_live_e2e-evidence-key"
"""Tenant ``evidence``: one invoice ingested with the structure layers (ASK-08)."""
INVOICE = (
    "# Faktur 12\n\nPembayaran dilakukan paling lambat 14 hari setelah tanggal faktur. "
    "Jangka waktu pembayaran 30 hari.\n\n"
    "| No | Uraian | Jumlah (Rp) |\n|---|---|---:|\n| 1 | Kertas A4 | 500.000 |\n"
    "| 2 | Tinta | 300.000 |\n| | Total | 800.000 |\n"
)
"""A live key of a tenant whose balance is spent: its asks are 402 (ASK-12)."""
ARTIFACTS = HERE / "artifacts"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(
        reason=f"{CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium)"
    )
    for item in items:
        if item.get_closest_marker("e2e"):
            item.add_marker(skip)


# ------------------------------------------------------------------ stub streams (test-only)

STUB_ANSWER = "Berikut datanya. Anggaran pendidikan 2023 adalah Rp 5 miliar."


def _frame(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _counts(verification: str, claims: list[dict[str, Any]]) -> dict[str, Any]:
    supported = sum(c["verdict"] == "supported" for c in claims)
    return {
        "mechanism": "annotate-v2",
        "judge_status": "complete",
        "framing_check": "complete",
        "claims_total": len(claims),
        "supported": supported,
        "unsupported": 0,
        "unverified": 0,
        "uncited": 0,
        "invalid_citation": 0,
        "from_conversation": 0,
        "unverified_reasons": {},
        "framing_total": 1,
        "unlocated_total": 0,
        "verification": verification,
        "grounding": {
            "claims_supported": supported,
            "claims_total": len(claims),
            "grounding_rate": 1.0,
        },
        "fallback_used": False,
        "fallback_reason": None,
    }


def _span(start: int, end: int, **extra: Any) -> dict[str, Any]:
    return {"start": start, "end": end, "start_utf16": start, "end_utf16": end, **extra}


SUPPORTED_CLAIM = _span(
    17,
    61,
    kind="fact",
    layout="continue",
    citation_keys=["P1"],
    verdict="supported",
    unverified_reason=None,
    invalid_citation_keys=[],
)
FULL_ANNOTATIONS = {
    **_counts("full", [SUPPORTED_CLAIM]),
    "claims": [SUPPORTED_CLAIM],
    "framing": [_span(0, 16, layout="paragraph")],
}


def stub_frames(case: str) -> list[bytes]:
    """Streams the server never sends, for the client rules about missing or foreign data."""
    start = {"conversation_id": "stub-conversation", "message_id": "stub-1"}
    deltas = [
        _frame("answer.delta", {"text": STUB_ANSWER[:30]}),
        _frame("answer.delta", {"text": STUB_ANSWER[30:]}),
    ]
    done = _frame("done", {"finish_reason": "stop", "history_truncated": False})
    if case == "no_annotations":  # CC-5
        return [_frame("message.start", {**start, "schema": "annotate-v2"}), *deltas, done]
    if case == "other_schema":  # CC-1: well-formed "full" annotations, but another contract
        return [
            _frame("message.start", {**start, "schema": "annotate-v3"}),
            _frame("annotations", FULL_ANNOTATIONS),
            *deltas,
            done,
        ]
    if case == "error_after_annotations":  # V2-21: the text that arrived keeps its marks
        return [
            _frame("message.start", {**start, "schema": "annotate-v2"}),
            _frame("annotations", FULL_ANNOTATIONS),
            _frame("answer.delta", {"text": STUB_ANSWER[:16]}),
            _frame("error", {"code": "upstream_failed", "message": "A model did not answer."}),
        ]
    raise KeyError(case)


def stub_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.post("/__e2e/stream/{case}")
    def stub_stream(case: str) -> StreamingResponse:
        frames = stub_frames(case)
        return StreamingResponse(iter(frames), media_type="text/event-stream")

    return router


# ------------------------------------------------------------------ the server


class Served:
    """The running app: its URL and the credentials a user would paste into the page."""

    def __init__(self, base_url: str, key: ed25519.Ed25519PrivateKey) -> None:
        self.base_url = base_url
        self.key = key
        self.api_key = API_KEY
        self.v1_key = V1_KEY
        self.live_v1_key = LIVE_V1_KEY
        self.broke_v1_key = BROKE_V1_KEY
        self.evidence_v1_key = EVIDENCE_V1_KEY

    def token(self) -> str:
        return sign(self.key)

    def headers(self, scenario: str | None = None) -> dict[str, str]:
        out = {"X-API-Key": self.api_key, "Authorization": f"Bearer {self.token()}"}
        if scenario:
            out["X-Tanda-Scenario"] = scenario
        return out


@pytest.fixture(scope="session")
def served() -> Iterator[Served]:
    home = Path(tempfile.mkdtemp(prefix="tanda-e2e-"))
    scenarios = home / "scenarios"
    scenarios.mkdir()
    for path in [*SCENARIOS.glob("*.json"), *E2E_SCENARIOS.glob("*.json")]:
        shutil.copy(path, scenarios / path.name)
    for path in ASK_SCENARIOS.glob("*.json"):  # the /v1/ask mode's, as ask_<name>
        shutil.copy(path, scenarios / f"ask_{path.name}")
    key = ed25519.Ed25519PrivateKey.generate()
    settings = settings_for(
        home,
        key,
        model=f"scripted:{scenarios}",
        request_deadline_s=5.0,
        v1_api_key_hashes={
            hash_api_key(V1_KEY): "acme",
            hash_api_key(LIVE_V1_KEY): "acme",
            hash_api_key(BROKE_V1_KEY): "broke",
            hash_api_key(EVIDENCE_V1_KEY): "evidence",
        },
    )
    runtime = Runtime(settings=settings)
    runtime.__dict__["model"] = scripted_model(scenarios)  # latencies on a manual clock
    add_qanun(runtime.search_index, "acme")
    add_qanun(runtime.search_index, "broke")
    invoice = home / "evidence-docs" / "faktur.md"
    invoice.parent.mkdir()
    invoice.write_text(INVOICE, encoding="utf-8")
    layers = StructureLayers(build_model("offline"))
    ingest_paths(runtime.search_index, None, [invoice.parent], tenant="evidence", layers=layers)
    opening = settings.initial_credits
    runtime.store.charge("broke", "ask", opening, opening=opening)
    app = create_app(runtime)  # every route `tanda serve` mounts, the web client included
    app.include_router(stub_router())

    try:
        with serving(app) as url:
            yield Served(url, key)
    finally:
        shutil.rmtree(home, ignore_errors=True)


# ------------------------------------------------------------------ the browser


# Package scope: Playwright's sync API keeps an event loop running on this thread, so it is
# stopped when the browser tests end rather than at the end of the whole session.
@pytest.fixture(scope="package")
def browser_context() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="tanda-chromium-")  # a fresh --user-data-dir
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1100, "height": 900},
            locale="id-ID",
        )
        # Nothing leaves the machine: any request off loopback is refused.
        context.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith("http://127.0.0.1:")
                else route.abort()
            ),
        )
        try:
            yield context
        finally:
            context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page_errors() -> list[str]:
    """Script errors and console errors of the page; any left at teardown fail the test."""
    return []


@pytest.fixture
def page(browser_context: Any, page_errors: list[str]) -> Iterator[Any]:
    """A fresh tab (its own sessionStorage)."""
    tab = browser_context.new_page()
    tab.on("pageerror", lambda exc: page_errors.append(str(exc)))
    tab.on("console", lambda msg: page_errors.append(msg.text) if msg.type == "error" else None)
    yield tab
    tab.close()
    assert not page_errors, page_errors


@pytest.fixture
def screenshot() -> Callable[[Any, str], Path]:
    def save(tab: Any, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        tab.screenshot(path=str(path), full_page=True)
        return path

    return save
