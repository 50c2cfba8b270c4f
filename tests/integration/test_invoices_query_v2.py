"""/query/v2 over an ingested invoice (issue 18, V2-07, V2-08): a segment about the invoice is
judged against the rendered passage it cites, shown with the invoice's identity — number, issue
date, seller, buyer, currency. Uvicorn on loopback, a real SQLite index, the offline
(deterministic, strict) judge."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.adapters.offline import OfflineModel
from tanda.adapters.scripted import AgentScript, Scenario, ScriptedModel, ScriptedToolCall
from tanda.api.app import create_app
from tanda.contract.segments import Segment
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole
from tanda.service.ingest import ingest_paths
from tanda.wiring import Runtime
from tests.corpus import shared_data

from .conftest import ServeApp
from .credentials import partner_headers, settings_for

pytestmark = pytest.mark.integration

QUESTION = "What is the amount due on invoice 20150483?"


class JudgedBy:
    """The agent (and what else the scenario scripts) from a script, every ``judge`` and
    ``recheck`` call from the offline judge; every request kept."""

    name = "judged-by-offline"

    def __init__(self, agent: Any, judge: OfflineModel) -> None:
        self.agent, self.judge = agent, judge
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.requests.append(request)
        if request.role in (ModelRole.judge, ModelRole.recheck):
            return self.judge.complete(request)
        return self.agent.complete(request)

    def judge_prompts(self) -> list[str]:
        return [
            "\n".join(m.content or "" for m in r.messages)
            for r in self.requests
            if r.role == ModelRole.judge
        ]


def _runtime(
    tmp_path: Path, key: ed25519.Ed25519PrivateKey, agent: Any
) -> tuple[Runtime, JudgedBy]:
    runtime = Runtime(settings=settings_for(tmp_path, key, request_deadline_s=10.0))
    invoice = shared_data("corpus", "invoices_en16931", "ubl", "ubl-tc434-example9.xml")
    report = ingest_paths(runtime.search_index, None, [invoice], tenant="acme")
    assert report.added == 1
    model = JudgedBy(agent, OfflineModel())
    runtime.__dict__["model"] = model
    return runtime, model


def _ask(base_url: str, key: ed25519.Ed25519PrivateKey) -> dict[str, Any]:
    response = httpx.post(
        f"{base_url}/query/v2",
        json={"query": QUESTION, "include_grounding": True},
        headers=partner_headers(key),
        timeout=30,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _scripted(*segments: str) -> ScriptedModel:
    script = AgentScript(
        tool_calls=[ScriptedToolCall(tool="search", query="amount due invoice 20150483")],
        segments=[
            Segment(text=text, kind="fact", cites=["P1"], layout="paragraph") for text in segments
        ],
    )
    return ScriptedModel({"default": Scenario(agent=script)})


def test_the_offline_agent_answers_from_the_totals_and_the_judge_sees_the_invoices_identity(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    runtime, model = _runtime(tmp_path, signing_key, OfflineModel())
    body = _ask(serve_app(create_app(runtime)), signing_key)

    due = next(c for c in body["claims"] if c["text"] == "Amount due: 177.87 EUR")
    assert due["verdict"] == "supported"
    citation = due["citations"][0]["citation"]
    assert citation["section"] == "Invoice 20150483 > Totals"
    assert citation["document_title"] == (
        "Invoice 20150483 — Bluem BV → Provide Verzekeringen (2015-04-01)"
    )
    (prompt,) = [p for p in model.judge_prompts() if "Amount due: 177.87 EUR" in p]
    for identity in (
        "Jenis dokumen: Invoice (380)",
        "Nomor: 20150483",
        "Tanggal terbit: 2015-04-01",
        "Penjual: Bluem BV (VAT NL809163160B01)",
        "Pembeli: Provide Verzekeringen",
        "Mata uang: EUR",
    ):
        assert identity in prompt


def test_a_segment_with_the_wrong_amount_is_not_supported_by_the_invoice(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    agent = _scripted("Amount due: 177.87 EUR", "Amount due: 187.87 EUR")
    runtime, model = _runtime(tmp_path, signing_key, agent)
    body = _ask(serve_app(create_app(runtime)), signing_key)

    verdicts = {c["text"]: c["verdict"] for c in body["claims"]}
    assert verdicts["Amount due: 177.87 EUR"] == "supported"
    assert verdicts["Amount due: 187.87 EUR"] == "unsupported"
    assert body["faithfulness"]["verification"] == "partial"
    grounding = body["grounding"][0]
    assert "Amount due: 177.87 EUR" in grounding["text"]
    assert any("Nomor: 20150483" in p for p in model.judge_prompts())
