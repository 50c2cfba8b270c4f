"""``/v1/ask`` over ingested invoices (issue 18, ASK-04, ASK-05, ASK-08, ASK-11): the answer quotes
the rendered totals of the invoice asked about, each line marked ``[S#]``, the citation names the
invoice's Totals section, and the proof chain recomputes the line sums and the VAT an answer shows
against the invoice's line table, tax breakdown and totals. With the structure layers built at
ingest, "list the items" is answered from the invoice's line items and KALEM ÖZETİ, and a rule the
invoice breaks is reported though not asked. Uvicorn on loopback, a real SQLite index, the offline
model or a scripted answer; altered invoices are copies made under tmp_path."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from defusedxml.ElementTree import fromstring

from tanda.adapters.scripted import AskScript, Scenario, ScriptedModel
from tanda.api.app import create_app
from tanda.ask.lang import RULE_VIOLATION
from tanda.service.ingest import StructureLayers, ingest_paths
from tanda.wiring import Runtime, build_model
from tests.corpus import shared_data

from .conftest import ServeApp
from .credentials import V1_KEY, settings_for
from .test_ask_evidence_http import RecordingModel

pytestmark = pytest.mark.integration

EXAMPLES = ("corpus", "invoices_en16931", "ubl")
CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"


def _serve(
    serve_app: ServeApp,
    tmp_path: Path,
    key: ed25519.Ed25519PrivateKey,
    examples: list[str],
    model: ScriptedModel | None = None,
) -> str:
    settings = settings_for(
        tmp_path,
        key,
        ask_model="offline" if model is None else None,
        initial_credits=Decimal("5.00"),
        rerank_min_score=0.0,
    )
    runtime = Runtime(settings=settings)
    invoices = [shared_data(*EXAMPLES, name) for name in examples]
    report = ingest_paths(runtime.search_index, None, invoices, tenant="acme")
    assert report.added == len(examples)
    if model is not None:
        runtime.__dict__["model"] = model
    return serve_app(create_app(runtime))


@pytest.fixture
def base_url(serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> str:
    # 20150483 (amount due 177.87 EUR) and 12115118 (amount due 250.33 EUR)
    examples = ["ubl-tc434-example9.xml", "ubl-tc434-example1.xml"]
    return _serve(serve_app, tmp_path, signing_key, examples)


def _ask(base_url: str, query: str, document_id: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {V1_KEY}"}
    request: dict[str, str] = {"query": query}
    if document_id is not None:
        request["document_id"] = document_id
    response = httpx.post(f"{base_url}/v1/ask", json=request, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _cited(body: dict[str, Any], line: str) -> dict[str, Any]:
    """The citation the answer's ``line [S#]`` points to."""
    match = re.search(re.escape(line) + r" \[S(\d+)\]", body["answer"])
    assert match, body["answer"]
    return next(c for c in body["citations"] if c["source_no"] == int(match.group(1)))


def test_the_amount_due_of_the_invoice_asked_about_is_quoted_from_its_totals(
    base_url: str,
) -> None:
    body = _ask(base_url, "What is the amount due on invoice 20150483?")

    citation = _cited(body, "Amount due: 177.87 EUR")
    assert citation["section"] == "Invoice 20150483 > Totals"
    assert "Amount due: 177.87 EUR" in citation["snippet"]
    # Every cited source is one of the two invoices' passages, never an attachment's bytes.
    assert all(c["section"].startswith("Invoice ") for c in body["citations"])
    # The proof chain finds the stated amount in the source it cites, exactly (ASK-11).
    (step,) = [s for s in body["proof"]["steps"] if s["value"] == "177.87 EUR"]
    assert (step["kind"], step["ground"]) == ("observed", "exact")
    assert step["source_no"] == citation["source_no"]


def test_a_vat_question_in_indonesian_is_answered_from_a_totals_section_with_its_currency(
    base_url: str,
) -> None:
    body = _ask(base_url, "Berapa total PPN?")

    # "PPN" is VAT: the answer quotes a stated VAT total, cited from that invoice's Totals.
    totals = {"Total VAT: 20.73 EUR": "12115118", "Total VAT: 30.87 EUR": "20150483"}
    quoted = [line for line in totals if line in body["answer"]]
    assert quoted, body["answer"]
    for line in quoted:
        assert _cited(body, line)["section"] == f"Invoice {totals[line]} > Totals"


# --- the proof chain over an invoice (ASK-11) ---------------------------------------------------

# ubl-tc434-example4.xml, invoice TOSL110: lines 1000.00, 500.00, 2500.00; VAT 25% on 1500.00 and
# 12% on 2500.00; 675.00 VAT; 4675.00 with VAT.
SUMS = "Lines 1000.00 + 500.00 + 2500.00 = 4000.00 [S1][S2][S3]"
TOTAL = "total with VAT 4000.00 + 675.00 = 4675.00 [S1][S2][S3]."
RIGHT_VAT = "VAT 1500.00 × 25% = 375.00 and 2500.00 × 12% = 300.00, 375.00 + 300.00 = 675.00"
WRONG_VAT = "VAT 1500.00 × 25% = 375.00 and 2500.00 × 12% = 250.00, 375.00 + 300.00 = 675.00"
QUESTION = "What are the invoice lines, the VAT and the total with VAT?"


def _answering(
    serve_app: ServeApp, tmp_path: Path, key: ed25519.Ed25519PrivateKey, vat: str
) -> str:
    """A server whose synthesis answers the line sum, ``vat`` and the total with VAT."""
    answer = f"{SUMS}; {vat} [S1][S2][S3]; {TOTAL}"
    model = ScriptedModel({"default": Scenario(ask=AskScript(answer=answer))})
    return _serve(serve_app, tmp_path, key, ["ubl-tc434-example4.xml"], model)


def _computed(body: dict[str, Any]) -> dict[str, tuple[str, str]]:
    steps = body["proof"]["steps"]
    return {
        s["expression"]: (s["ground"], s["recomputed"])
        for s in steps
        if s["kind"] == "computed" and s["inputs_grounded"]
    }


def test_the_line_sum_and_the_vat_an_answer_shows_recompute_from_the_invoice(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = _ask(_answering(serve_app, tmp_path, signing_key, RIGHT_VAT), QUESTION)

    assert {c["section"] for c in body["citations"]} == {
        "Invoice TOSL110 > Lines > rows 1–3",
        "Invoice TOSL110 > VAT breakdown > rows 1–2",
        "Invoice TOSL110 > Totals",
    }
    assert _computed(body) == {
        "1000.00 + 500.00 + 2500.00 = 4000.00": ("exact", "4000.00"),
        "1500.00 × 25% = 375.00": ("exact", "375.00"),
        "2500.00 × 12% = 300.00": ("exact", "300.00"),
        "375.00 + 300.00 = 675.00": ("exact", "675.00"),
        "4000.00 + 675.00 = 4675.00": ("exact", "4675.00"),
    }
    assert body["proof"]["verdict"] == "verified"


def test_a_wrong_vat_amount_in_the_answer_is_refuted_with_the_invoices_value(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = _ask(_answering(serve_app, tmp_path, signing_key, WRONG_VAT), QUESTION)

    assert _computed(body)["2500.00 × 12% = 250.00"] == ("refuted", "300.00")
    assert (body["proof"]["verdict"], body["proof"]["stats"]["computed_refuted"]) == ("broken", 1)


def test_an_invoice_s_number_is_no_proof_step_and_its_own_vat_rounding_is_verified(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given a forint invoice (21/001003559/996) that rounds its VAT to whole forints, and an
    # answer naming the invoice by its number and showing that VAT (issue 23),
    answer = "Invoice no. 21/001003559/996: VAT 69180.00 × 27 % = 18679.00 HUF [S1][S2][S3]."
    model = ScriptedModel({"default": Scenario(ask=AskScript(answer=answer))})
    url = _serve(serve_app, tmp_path, signing_key, ["../cii/huf_example_cii.xml"], model)

    # when it is asked,
    body = _ask(url, "What is the VAT of the invoice?")

    # then the VAT's operation holds at the invoice's precision, as BR-CO-17 holds it,
    proof = body["proof"]
    assert _computed(body) == {"69180.00 × 27 % = 18679.00": ("exact", "18678.60")}
    # the invoice number is no observed value (nor a hole), and the chain is verified.
    observed = [s["value"] for s in proof["steps"] if s["kind"] == "observed"]
    assert not [v for v in observed if v.strip("no. ") in "21/001003559/996"]
    assert (proof["verdict"], proof["holes"]) == ("verified", [])


# --- the evidence layers: line items, the KALEM ÖZETİ, unasked violations (ASK-08) --------------

LIST_ITEMS = "Faturadaki kalemleri listele"
"""Turkish, of an English invoice: no passage shares its words."""
SUMMARY = (
    "KALEM ÖZETİ: 20 kalem (20 satır); belge toplamı (Sum of line net amounts)=229.60; "
    "kalemlerin toplamı=229.60; uyuşuyor"
)
FIRST_ITEM = (
    "KALEM: kalem no=1, tanim=PATAT FRITES 10MM 10KG, miktar=2 (EA), birim fiyat=9.95, "
    "tutar=19.90, KDV=S 6%"
)
ITEMS_ANSWER = (
    "Faturada 20 kalem var, toplamı 229.60 [S:line_item_summary]. "
    "1. PATAT FRITES 10MM 10KG: 2 × 9.95 = 19.90 [S:line_item:1]. "
    "2. PKAAS 50PL. JONG BEL. 1KG: 9.85 [S:line_item:2]."
)


def _layered(
    serve_app: ServeApp,
    tmp_path: Path,
    key: ed25519.Ed25519PrivateKey,
    invoices: list[Path],
    answer: str | None = None,
) -> tuple[str, RecordingModel, list[str]]:
    """A server over ``invoices`` ingested with the structure layers: the offline model, or a
    scripted ``answer``; the model recorded; the invoices' document ids."""
    settings = settings_for(
        tmp_path / "home",
        key,
        model="offline" if answer is None else f"scripted:{tmp_path / 'scenarios'}",
        embedder="none",
        initial_credits=Decimal("5.00"),
        rerank_min_score=0.0,
    )
    if answer is not None:
        (tmp_path / "scenarios").mkdir()
        scenario = {"ask": {"answer": answer}}
        (tmp_path / "scenarios" / "default.json").write_text(json.dumps(scenario), "utf-8")
    runtime = Runtime(settings=settings)
    report = ingest_paths(
        runtime.search_index,
        None,
        invoices,
        tenant="acme",
        layers=StructureLayers(build_model("offline")),
    )
    assert report.added == len(invoices)
    model = RecordingModel(runtime.model)
    runtime.__dict__["model"] = model
    return serve_app(create_app(runtime)), model, [o.document_id for o in report.outcomes]


def test_the_items_of_an_invoice_asked_in_turkish_are_its_line_items_and_kalem_ozeti(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given invoice 12115118 (20 lines) ingested with the layers, and a scripted synthesis
    invoice = shared_data(*EXAMPLES, "ubl-tc434-example1.xml")
    url, model, (document_id,) = _layered(serve_app, tmp_path, signing_key, [invoice], ITEMS_ANSWER)

    # when asked, of that invoice, to list its items in Turkish (no passage shares a word),
    response = httpx.post(
        f"{url}/v1/ask",
        json={"query": LIST_ITEMS, "document_id": document_id},
        headers={"Authorization": f"Bearer {V1_KEY}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    body = response.json()

    # then the model is shown the KALEM ÖZETİ and all 20 line items, in the table's order,
    shown = model.shown()
    assert [s["kind"] for s in shown] == ["line_item_summary"] + ["line_item"] * 20
    assert shown[0]["text"] == SUMMARY
    assert shown[1]["text"] == FIRST_ITEM
    assert [s["text"].split(",", 1)[0] for s in shown[1:]] == [
        f"KALEM: kalem no={n}" for n in range(1, 21)
    ]
    # the answer cites them, each citation the item's text and the stored row it was read from,
    assert body["answer"].startswith("Faturada 20 kalem var, toplamı 229.60 [S1]. ")
    assert "2 × 9.95 = 19.90 [S2]" in body["answer"] and "9.85 [S3]" in body["answer"]
    cited = {c["source_no"]: c for c in body["citations"]}
    assert [(n, cited[n]["record_kind"], cited[n]["kind"]) for n in sorted(cited)] == [
        (1, "line_item_summary", "table"),
        (2, "line_item", "table"),
        (3, "line_item", "table"),
    ]
    assert cited[2]["text"] == FIRST_ITEM
    assert cited[2]["quote"] == "1 | PATAT FRITES 10MM 10KG | 2 | EA | 9.95 | 19.90 | S 6%"
    assert {c["section"] for c in cited.values()} == {"Invoice 12115118 > Lines > rows 1–20"}
    assert body["evidence_trail"]["tables"] == 3
    # and the proof chain finds the values in the items and recomputes the line amount.
    proof = body["proof"]
    computed = [s for s in proof["steps"] if s["kind"] == "computed"]
    assert [(s["expression"], s["ground"]) for s in computed] == [("2 × 9.95 = 19.90", "exact")]
    observed = {s["value"]: s for s in proof["steps"] if s["kind"] == "observed"}
    assert observed["229.60"]["ground"] == "exact" and observed["229.60"]["source_no"] == 1
    assert observed["9.85"]["layer"] == "line_item" and observed["9.85"]["source_no"] == 3
    assert proof["verdict"] == "verified"


def test_the_offline_model_answers_the_items_with_the_kalem_ozeti(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    invoices = [
        shared_data(*EXAMPLES, n) for n in ("ubl-tc434-example1.xml", "ubl-tc434-example9.xml")
    ]
    url, model, _ = _layered(serve_app, tmp_path, signing_key, invoices)

    # Unscoped: the invoice number finds its passages, and its items come with them.
    body = _ask(url, "Fatura 12115118 kalemlerini listele")

    summary = next(c for c in body["citations"] if c.get("record_kind") == "line_item_summary")
    assert summary["text"] == SUMMARY
    assert f"{SUMMARY} [S{summary['source_no']}]" in body["answer"]
    rows = [s for s in model.shown() if s.get("kind") == "line_item"]
    assert len(rows) == 20 and rows[0]["text"] == FIRST_ITEM  # only invoice 12115118's lines


def _altered_copy(tmp_path: Path) -> Path:
    """Invoice 12115118 with its first line amount one euro more than shipped (19.90 → 20.90): the
    lines no longer sum to the stated 229.60 (BR-CO-10)."""
    root = fromstring(shared_data(*EXAMPLES, "ubl-tc434-example1.xml").read_bytes())
    amount = root.find(f"{{{CAC}}}InvoiceLine/{{{CBC}}}LineExtensionAmount")
    assert amount is not None and amount.text == "19.90"
    amount.text = "20.90"
    copy = tmp_path / "invoices" / "12115118-altered.xml"
    copy.parent.mkdir()
    copy.write_bytes(ET.tostring(root))
    return copy


def test_a_broken_rule_of_the_invoice_is_reported_though_not_asked(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given the altered invoice beside a shipped one, both with the layers
    shipped = shared_data(*EXAMPLES, "ubl-tc434-example9.xml")
    url, _, (altered, other) = _layered(
        serve_app, tmp_path, signing_key, [_altered_copy(tmp_path), shipped]
    )

    # when asked only for its amount due,
    body = _ask(url, "What is the amount due?", altered)

    # then the answer quotes it, and the server adds the violated rule in its own sentence,
    # quoting the engine's result and citing the rule;
    assert "Amount due: 250.33 EUR [S" in body["answer"]
    rule = next(c for c in body["citations"] if c.get("record_kind") == "rule")
    assert rule["text"].startswith("KURAL BR-CO-10 (")
    assert "= 230.60 ≠ 229.60 (stated) → IHLAL" in rule["text"]
    assert rule["quote"] == "Sum of line net amounts: 229.60 EUR"
    violation = rule["text"].split("\n", 1)[0]
    assert f"{RULE_VIOLATION['tr']} {violation} [S{rule['source_no']}]" in body["answer"]
    # the proof chain carries the engine's result as a rule step;
    rule_steps = {s["source_no"]: s for s in body["proof"]["steps"] if s["kind"] == "rule"}
    step = rule_steps[rule["source_no"]]
    assert (step["outcome"], step["engine"]) == ("IHLAL", "deterministic")
    assert step["statement"] == ("BR-CO-10 Sum of invoice line net amounts = total line net amount")
    assert step["quote"] == "Sum of line net amounts: 229.60 EUR"
    # and the shipped invoice, asked the same, has nothing to report.
    shipped_answer = _ask(url, "What is the amount due?", other)["answer"]
    assert "Amount due: 177.87 EUR [S" in shipped_answer
    assert "⚠" not in shipped_answer and "IHLAL" not in shipped_answer


def test_the_altered_invoices_items_say_they_do_not_sum_to_its_total(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    url, _, _ = _layered(serve_app, tmp_path, signing_key, [_altered_copy(tmp_path)])
    body = _ask(url, "Fatura 12115118 kalemlerini listele")
    summary = next(c for c in body["citations"] if c.get("record_kind") == "line_item_summary")
    assert summary["text"].endswith("kalemlerin toplamı=230.60; UYUŞMUYOR")
    assert RULE_VIOLATION["tr"] in body["answer"]
