"""ASK-08 over HTTP: ``POST /v1/ask`` with evidence items from the structure records built at
ingest — uvicorn on loopback, real SQLite files written by ``ingest_paths`` with the layers, the
scripted model (tests/scenarios/ask) and the offline model on the demo corpus."""

from __future__ import annotations

import json
import re
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.ask.evidence import MAX_CLAIMS, MAX_ENTITIES, MAX_EVIDENCE, MAX_RULES, MAX_TABLES
from tanda.ask.lang import RULE_VIOLATION
from tanda.auth.api_keys import hash_api_key
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole
from tanda.records.documents import SearchScope
from tanda.service.ingest import StructureLayers, ingest_paths
from tanda.wiring import Runtime, build_model

from .conftest import ServeApp
from .credentials import settings_for

pytestmark = pytest.mark.integration

ASK_SCENARIOS = Path(__file__).parents[1] / "scenarios" / "ask"
DEMO = Path(__file__).resolve().parents[2] / "demo" / "corpus"
KEY = "dip_live_evidence-key"
OTHER_KEY = "dip_live_evidence-other"
INVOICE = (
    "# Faktur 12\n\nPembayaran dilakukan paling lambat 14 hari setelah tanggal faktur. "
    "Jangka waktu pembayaran {days} hari.\n\n"
    "| No | Uraian | Jumlah (Rp) |\n|---|---|---:|\n| 1 | {item} | 500.000 |\n"
    "| 2 | Tinta | 300.000 |\n| | Total | 800.000 |\n"
)
"""One invoice: its deadline rule is IHLAL at 30 days, sağlandı at 10."""
VIOLATION = "KURAL (deadline): Pembayaran ≤ 14 hari → IHLAL: Jangka waktu pembayaran = 30 hari"
UNASKED = "Siapa penerbit Faktur 12?"
ITEMS = "Berapa jangka waktu pembayaran dan jumlah uraian Kertas A4 dalam tabel faktur?"
BOTH = f"{ITEMS[:-1]} dan Pajak Daerah?"
NO_MATCH = "Tinta"
"""Retrieves the invoice's table passage; names none of its records."""


class RecordingModel:
    """Passes calls on and keeps every ``ask`` request (what the model was shown)."""

    name = "recording"

    def __init__(self, model: Any) -> None:
        self.model = model
        self.asks: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.role is ModelRole.ask:
            self.asks.append(request)
        response: ChatResponse = self.model.complete(request)
        return response

    def shown(self) -> list[dict[str, Any]]:
        """The sources of the last ask call, in ``[S#]`` order."""
        return list((self.asks[-1].items or [{}])[0]["sources"])


def write_invoice(folder: Path, *, days: int, item: str, document_id: str | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "faktur.md").write_text(INVOICE.format(days=days, item=item), encoding="utf-8")
    if document_id is not None:  # a sidecar names the id: two tenants may share one
        sidecar = {"document_id": document_id}
        (folder / "faktur.md.meta.json").write_text(json.dumps(sidecar), encoding="utf-8")


def ingest(runtime: Runtime, folder: Path, tenant: str, *, layers: bool = True) -> None:
    structure = StructureLayers(build_model("offline")) if layers else None
    report = ingest_paths(runtime.search_index, None, [folder], tenant=tenant, layers=structure)
    assert report.added and not report.skipped


def make_runtime(
    home: Path, key: ed25519.Ed25519PrivateKey, model: str, **overrides: Any
) -> Runtime:
    settings = settings_for(
        home,
        key,
        model=model,
        embedder="none",
        v1_api_key_hashes={hash_api_key(KEY): "acme", hash_api_key(OTHER_KEY): "other"},
        initial_credits=Decimal("10.00"),
        v1_rate_per_minute=1000,
        rerank_min_score=0.0,
        **overrides,
    )
    runtime = Runtime(settings=settings)
    runtime.__dict__["model"] = RecordingModel(runtime.model)
    return runtime


def ask(
    base_url: str, query: str, key: str = KEY, scenario: str | None = None, **body: Any
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    if scenario:
        headers["X-Tanda-Scenario"] = scenario
    response = httpx.post(
        f"{base_url}/v1/ask", json={"query": query, **body}, headers=headers, timeout=30
    )
    assert response.status_code == 200, response.text
    return response


def recorder(runtime: Runtime) -> RecordingModel:
    model = runtime.__dict__["model"]
    assert isinstance(model, RecordingModel)
    return model


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """acme's invoice (its deadline violated) and the 2023 budget of Surabaya (its KALEM ÖZETİ
    does not sum up: a violated items_sum_to_total rule)."""
    root = tmp_path / "docs"
    write_invoice(root / "acme", days=30, item="Kertas A4", document_id="faktur-12")
    (root / "acme" / "apbd" / "2023").mkdir(parents=True)
    shutil.copy(DEMO / "apbd" / "2023" / "Surabaya.csv", root / "acme" / "apbd" / "2023")
    # The other tenant's invoice has the same document id and a met deadline; its item table is
    # the same text, so the same chunk id: only the index's tenant filter keeps them apart.
    write_invoice(root / "other", days=10, item="Kertas A4", document_id="faktur-12")
    return root


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey, docs: Path) -> Runtime:
    runtime = make_runtime(tmp_path / "home", signing_key, f"scripted:{ASK_SCENARIOS}")
    ingest(runtime, docs / "acme", "acme")
    ingest(runtime, docs / "other", "other")
    return runtime


@pytest.fixture
def base_url(serve_app: ServeApp, runtime: Runtime) -> str:
    return serve_app(create_app(runtime))


def cited(response: httpx.Response, source_no: int) -> dict[str, Any]:
    return next(c for c in response.json()["citations"] if c["source_no"] == source_no)


# --- the unasked violation --------------------------------------------------------------------


def test_a_violated_rule_is_reported_though_the_question_does_not_ask(
    base_url: str, runtime: Runtime
) -> None:
    response = ask(base_url, UNASKED, document_id="faktur-12")
    body = response.json()
    shown = recorder(runtime).shown()
    rule_no = next(s["source_no"] for s in shown if s.get("kind") == "rule")
    # The scripted answer cites [S1] only; the server adds the engine's result, quoted, cited.
    assert body["answer"] == (
        f"Anggaran pendidikan 2023 adalah Rp 5 miliar [S1].\n\n"
        f"{RULE_VIOLATION['tr']} {VIOLATION} [S{rule_no}]"
    )
    rule = cited(response, rule_no)
    assert rule["kind"] == "claim" and rule["record_kind"] == "rule"
    assert rule["node_id"] == "faktur-12:r1"
    assert rule["text"].startswith(f"{VIOLATION}\n“Pembayaran dilakukan paling lambat 14 hari")
    assert body["evidence_trail"] == {
        "identity": True,
        "passages": 1,
        "entities": 0,
        "tables": 0,
        "claims": 1,
    }


def test_the_violation_is_in_the_answers_language_and_the_engines_words(
    base_url: str, runtime: Runtime
) -> None:
    body = ask(base_url, UNASKED, document_id="faktur-12", lang="en").json()
    assert f"{RULE_VIOLATION['en']} {VIOLATION} [S" in body["answer"]


def test_a_met_rule_is_not_reported_unasked(base_url: str) -> None:
    body = ask(base_url, UNASKED, key=OTHER_KEY, document_id="faktur-12").json()
    assert "⚠" not in body["answer"] and "IHLAL" not in body["answer"]


# --- numbering, order, quotas -----------------------------------------------------------------


def test_evidence_items_are_numbered_after_the_passages_in_the_order_of_their_kinds(
    base_url: str, runtime: Runtime
) -> None:
    body = ask(base_url, BOTH).json()
    shown = recorder(runtime).shown()
    assert [s["source_no"] for s in shown] == list(range(1, len(shown) + 1))
    kinds = [s.get("kind", "passage") for s in shown]
    passages = kinds.count("passage")
    assert passages and kinds[:passages] == ["passage"] * passages
    # Entities, tables, claims, rules (the violated first), then each item table's summary and rows.
    order = ["passage", "entity", "table", "claim", "rule"]
    quota_kinds = [k for k in kinds if k in order]
    assert quota_kinds == sorted(quota_kinds, key=order.index)
    # Both item tables, the better-ranked document's first, each its KALEM ÖZETİ then its rows.
    items = shown[len(quota_kinds) :]
    summaries = [n for n, s in enumerate(items) if s["kind"] == "line_item_summary"]
    assert len(summaries) == 2 and summaries[0] == 0
    assert items[0]["text"].startswith("KALEM ÖZETİ: 2 kalem")
    assert items[summaries[1]]["text"].startswith("KALEM ÖZETİ: 17 kalem")
    assert {s["kind"] for s in items} == {"line_item_summary", "line_item"}
    # Both violations (the invoice's, the budget's) are shown, though not asked about.
    rules = [s["text"] for s in shown if s.get("kind") == "rule"]
    assert rules[0].startswith(VIOLATION)
    assert rules[1].startswith("KURAL (items_sum_to_total): APBD Surabaya") and "IHLAL" in rules[1]
    assert kinds.count("entity") <= MAX_ENTITIES and kinds.count("table") <= MAX_TABLES
    assert kinds.count("claim") <= MAX_CLAIMS and kinds.count("rule") <= MAX_RULES
    assert len(quota_kinds) - passages <= MAX_EVIDENCE
    assert body["usage"]["sources_shown"] == len(shown)


def test_line_items_come_on_top_of_the_quota_with_their_kalem_ozeti(
    base_url: str, runtime: Runtime
) -> None:
    ask(base_url, ITEMS, document_id="faktur-12")
    shown = recorder(runtime).shown()
    rows = [s["text"] for s in shown if s.get("kind") in ("line_item_summary", "line_item")]
    assert rows[0].startswith("KALEM ÖZETİ: 2 kalem (3 satır)")
    assert rows[1:] == [
        "KALEM: kalem no=1, tanim=Kertas A4, tutar=500.000",
        "KALEM: kalem no=2, tanim=Tinta, tutar=300.000",
        "KALEM: kalem no=3, tanim=Total, tutar=800.000, tür=toplam",
    ]
    quota = [s for s in shown if s.get("kind") in ("entity", "table", "claim", "rule")]
    assert [s["kind"] for s in quota] == ["entity", "table", "rule"]


def test_the_model_is_told_what_evidence_items_are_only_when_it_is_shown_some(
    base_url: str, runtime: Runtime
) -> None:
    ask(base_url, ITEMS, document_id="faktur-12")
    ask(base_url, NO_MATCH, key=OTHER_KEY, document_id="faktur-12")
    with_evidence, without = recorder(runtime).asks[-2:]
    assert "kanit=rule" in with_evidence.messages[1].content
    assert "kanit=" in with_evidence.messages[0].content
    assert "kanit=" not in without.messages[0].content + without.messages[1].content


# --- citations of evidence items --------------------------------------------------------------


def test_an_evidence_citation_keeps_its_kind_its_text_and_the_documents_quote(
    base_url: str, runtime: Runtime
) -> None:
    response = ask(base_url, ITEMS, scenario="evidence", document_id="faktur-12")
    shown = {s["source_no"]: s for s in recorder(runtime).shown()}
    citations = response.json()["citations"]
    # The scripted answer cites the first entity, KALEM ÖZETİ and line item; the server the rule.
    kinds = {c["record_kind"]: c["kind"] for c in citations if "record_kind" in c}
    assert kinds == {
        "entity": "entity",
        "line_item_summary": "table",
        "line_item": "table",
        "rule": "claim",
    }
    chunks = {
        c.chunk_id: c.text
        for c in runtime.search_index.chunks(
            SearchScope(tenant_id="acme"), [c["chunk_id"] for c in citations]
        )
    }
    for citation in citations:
        if "record_kind" not in citation:  # a passage's citation is what it always was
            assert citation["kind"] == "passage" and not {"node_id", "text", "quote"} & set(
                citation
            )
            continue
        assert citation["text"] == shown[citation["source_no"]]["text"]  # verbatim, whole
        assert citation["snippet"] == citation["text"][:200]
        assert citation["quote"] in chunks[citation["chunk_id"]]
    entity = next(c for c in citations if c["kind"] == "entity")
    assert entity["text"] == "DURATION: Jangka waktu pembayaran = 30 hari"
    body = response.json()
    assert body["evidence_trail"] == {
        "identity": True,
        "passages": 1,
        "entities": 1,
        "tables": 2,
        "claims": 1,
    }


# --- nothing shown → exactly as before --------------------------------------------------------


def test_without_the_layers_the_response_is_byte_identical_to_evidence_switched_off(
    tmp_path: Path,
    signing_key: ed25519.Ed25519PrivateKey,
    docs: Path,
    serve_app: ServeApp,
) -> None:
    scripted = f"scripted:{ASK_SCENARIOS}"
    layered = make_runtime(tmp_path / "layered", signing_key, scripted, ask_evidence=False)
    ingest(layered, docs / "acme", "acme")
    plain = make_runtime(tmp_path / "plain", signing_key, scripted)
    ingest(plain, docs / "acme", "acme", layers=False)
    switched_on = make_runtime(tmp_path / "layered", signing_key, scripted)
    urls = [serve_app(create_app(r)) for r in (layered, plain, switched_on)]

    for query, scenario in ((ITEMS, "default"), (UNASKED, "evidence")):
        off, without_layers, on = (ask(url, query, scenario=scenario).content for url in urls)
        assert off == without_layers
        assert json.loads(off)["evidence_trail"] is None
        assert on != off  # the same index with the evidence on: it shows and cites items


def test_nothing_matching_is_byte_identical_to_evidence_switched_off(
    tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey, serve_app: ServeApp
) -> None:
    """A layered document whose records nothing in the question names, and no violation."""
    folder = tmp_path / "docs"
    write_invoice(folder, days=10, item="Kertas A4", document_id="faktur-12")
    scripted = f"scripted:{ASK_SCENARIOS}"
    on = make_runtime(tmp_path / "home", signing_key, scripted)
    ingest(on, folder, "acme")
    off = make_runtime(tmp_path / "home", signing_key, scripted, ask_evidence=False)
    urls = [serve_app(create_app(r)) for r in (on, off)]
    first, second = (ask(url, NO_MATCH, document_id="faktur-12").content for url in urls)
    assert json.loads(first)["usage"]["sources_shown"] >= 1
    assert first == second
    assert "kanit=" not in recorder(on).asks[-1].messages[0].content


# --- tenant isolation -------------------------------------------------------------------------


def test_a_tenant_never_sees_another_tenants_records_of_the_same_document_id(
    base_url: str, runtime: Runtime
) -> None:
    shown: dict[str, list[dict[str, Any]]] = {}
    for tenant, key in (("other", OTHER_KEY), ("acme", KEY)):
        ask(base_url, ITEMS, key=key, document_id="faktur-12")
        shown[tenant] = [s for s in recorder(runtime).shown() if "kind" in s]
    for items in shown.values():  # each record once: none of the other tenant's twin records
        assert len({s["node_id"] for s in items}) == len(items)
        rows = [s["text"] for s in items if s["kind"] == "line_item"]
        assert rows[:2] == [
            "KALEM: kalem no=1, tanim=Kertas A4, tutar=500.000",
            "KALEM: kalem no=2, tanim=Tinta, tutar=300.000",
        ]
    other, acme = (" ".join(s["text"] for s in shown[t]) for t in ("other", "acme"))
    assert "= 10 hari" in other and "IHLAL" not in other and "= 30 hari" not in other
    assert VIOLATION in acme and "= 10 hari" not in acme


# --- the offline model on the demo corpus -----------------------------------------------------


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus ingested once with the layers (offline claims), for tenant acme."""
    home = tmp_path_factory.mktemp("demo")
    runtime = Runtime(settings=settings_for(home, ed25519.Ed25519PrivateKey.generate()))
    ingest(runtime, DEMO, "acme")
    return home


@pytest.fixture
def offline_url(
    demo_home: Path, signing_key: ed25519.Ed25519PrivateKey, serve_app: ServeApp
) -> str:
    return serve_app(create_app(make_runtime(demo_home, signing_key, "offline")))


def test_the_offline_model_answers_an_amount_from_a_line_item_of_the_demo_budget(
    offline_url: str,
) -> None:
    response = ask(offline_url, "Berapa realisasi Pajak Daerah Surabaya 2023?")
    body = response.json()
    item = next(c for c in body["citations"] if c.get("record_kind") == "line_item")
    assert item["kind"] == "table"
    assert item["text"].startswith("KALEM: kalem no=3, tanim=Pajak Daerah")
    assert "tutar (realisasi)=3.520,34 M" in item["text"]
    assert f"{item['text']} [S{item['source_no']}]" in body["answer"]
    # The 2023 budget's items do not sum to its stated financing: reported, unasked.
    violation = next(c for c in body["citations"] if c.get("record_kind") == "rule")
    assert "KURAL (items_sum_to_total): APBD Surabaya" in violation["text"]
    assert re.search(rf"IHLAL.*\[S{violation['source_no']}\]", body["answer"])
    assert body["evidence_trail"]["tables"] >= 1 and body["evidence_trail"]["identity"]


# --- the proof chain over evidence items (ASK-11) ---------------------------------------------


def test_the_proof_reads_values_in_evidence_items_and_carries_the_cited_rule(
    base_url: str, runtime: Runtime
) -> None:
    body = ask(base_url, ITEMS, scenario="evidence", document_id="faktur-12").json()
    by_layer = {c.get("record_kind", "passage"): c for c in body["citations"]}
    proof = body["proof"]
    # `3 satır` is in the KALEM ÖZETİ's evidence line only, not in the chunk it was read from.
    assert proof["verdict"] == "verified" and proof["holes"] == []
    entity = by_layer["entity"]
    assert {
        "kind": "observed",
        "ground": "exact",
        "layer": "entity",
        "source_no": entity["source_no"],
        "value": "30 hari",
    }.items() <= proof["steps"][0].items()
    # The violation the server reported is a rule step: the engine's result, not the model's.
    rule = by_layer["rule"]
    rule_steps = [step for step in proof["steps"] if step["kind"] == "rule"]
    assert rule_steps == [
        {
            "no": len(proof["steps"]),
            "kind": "rule",
            "ground": "exact",
            "statement": "Pembayaran ≤ 14 hari",
            "quote": rule["quote"],
            "outcome": "IHLAL",
            "detail": "Jangka waktu pembayaran = 30 hari",
            "source_no": rule["source_no"],
            "page_no": None,
            "engine": "deterministic",
        }
    ]
    assert proof["stats"]["rule"] == 1


def test_a_rule_shown_but_not_cited_is_no_rule_step(base_url: str, runtime: Runtime) -> None:
    body = ask(base_url, UNASKED, document_id="faktur-12").json()
    shown_rules = [s for s in recorder(runtime).shown() if s.get("kind") == "rule"]
    assert len(shown_rules) == 2  # the violated deadline, and the met items_sum_to_total
    rule_steps = [step for step in body["proof"]["steps"] if step["kind"] == "rule"]
    assert [(step["outcome"], step["source_no"]) for step in rule_steps] == [
        ("IHLAL", shown_rules[0]["source_no"])
    ]
