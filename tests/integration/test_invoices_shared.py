"""The EN 16931 examples of the shared data (19 UBL, 15 CII; EUPL 1.2, read in place, altered
only as copies under tmp_path) through the invoice reader, the rules and ``tanda ingest`` into a
real SQLite index (issue 18)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from defusedxml.ElementTree import fromstring

from tanda.adapters.offline import OfflineModel
from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.invoices import (
    Invoice,
    NotAnInvoice,
    TextPart,
    evaluate_rules,
    line_summary,
    read_invoice,
    render_invoice,
)
from tanda.invoices.render import total_lines
from tanda.invoices.xml import CII_NS
from tanda.records.documents import SearchQuery, SearchScope
from tanda.records.structure import ClaimRecord, RecordQuery, TableRecord
from tanda.service.ingest import StructureLayers, ingest_paths
from tests.corpus import SHARED_DATA, shared_data
from tests.unit.invoices.samples import ubl_tr

pytestmark = pytest.mark.integration

_EXAMPLES_DIR = SHARED_DATA / "corpus" / "invoices_en16931"
EXAMPLES = sorted(
    p.relative_to(_EXAMPLES_DIR).as_posix()
    for p in _EXAMPLES_DIR.glob("*/*")
    if p.suffix.lower() == ".xml"
)
DUE_BEFORE_ISSUE = {
    # These two examples state a due date before their issue date, as shipped: the due-date
    # rule says so rather than pretend otherwise — as a warning (UYARI): it is tanda's own
    # check, not an EN 16931 rule (issue 23).
    "cii/CII_business_example_02.xml": "2013-05-10 < 2013-08-25",
    "cii/XRechnung-O.xml": "2021-01-01 < 2021-01-14",
}
CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
UDT = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"
NS = {"cac": CAC, "cbc": CBC, "ram": RAM, "udt": UDT, "rsm": CII_NS}


def test_the_shared_data_holds_the_34_examples() -> None:
    shared_data("corpus", "invoices_en16931")
    assert len(EXAMPLES) == 34
    assert sum(1 for e in EXAMPLES if e.startswith("ubl/")) == 19


@cache
def _example(name: str) -> Invoice:
    invoice = read_invoice((shared_data("corpus", "invoices_en16931") / name).read_bytes())
    assert not isinstance(invoice, NotAnInvoice), invoice
    return invoice


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_reads_with_every_line_and_its_totals(name: str) -> None:
    data = (_EXAMPLES_DIR / name).read_bytes()
    invoice = _example(name)
    root = fromstring(data)
    xml_lines = (
        root.findall("cac:InvoiceLine", NS)
        + root.findall("cac:CreditNoteLine", NS)
        + root.findall("rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem", NS)
    )
    assert len(invoice.lines) == len(xml_lines) > 0
    assert all(line.net_amount is not None for line in invoice.lines)
    assert invoice.number and invoice.issue_date and invoice.currency
    assert invoice.seller.name and invoice.buyer.name
    assert invoice.totals.payable is not None
    summary = line_summary(invoice)
    assert summary.line_count == len(xml_lines)
    assert summary.agrees is True


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_holds_every_rule(name: str) -> None:
    checks = evaluate_rules(_example(name))
    broken = [(c.rule_id, c.evaluation, c.expression) for c in checks if c.evaluation != "sağlandı"]
    if name in DUE_BEFORE_ISSUE:
        assert broken == [("DUE-DATE", "UYARI", DUE_BEFORE_ISSUE[name])]
    else:
        assert broken == []
    assert {"BR-CO-10", "BR-CO-13", "BR-CO-15", "BR-CO-16", "BR-CO-17"} <= {
        c.rule_id for c in checks
    }


# --- altered copies ----


def _altered(name: str, alter: Callable[[ET.Element], None]) -> Invoice:
    root = fromstring((_EXAMPLES_DIR / name).read_bytes())
    alter(root)
    invoice = read_invoice(ET.tostring(root))
    assert not isinstance(invoice, NotAnInvoice)
    return invoice


def _plus(element: ET.Element | None, delta: str) -> None:
    assert element is not None and element.text is not None
    value = Decimal(element.text.strip())
    places = len(element.text.strip().partition(".")[2])
    element.text = format((value + Decimal(delta)).quantize(Decimal(1).scaleb(-places)), "f")


def _first_line_amount(root: ET.Element) -> ET.Element | None:
    for path in (
        "cac:InvoiceLine/cbc:LineExtensionAmount",
        "cac:CreditNoteLine/cbc:LineExtensionAmount",
        "rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/"
        "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/"
        "ram:LineTotalAmount",
    ):
        found = root.find(path, NS)
        if found is not None:
            return found
    return None


def _vat_total(root: ET.Element) -> ET.Element | None:
    found = root.find("cac:TaxTotal/cbc:TaxAmount", NS)
    if found is None:
        found = root.find(
            "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/"
            "ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:TaxTotalAmount",
            NS,
        )
    return found


def _rules_broken(invoice: Invoice) -> set[str]:
    return {c.rule_id for c in evaluate_rules(invoice) if c.evaluation == "IHLAL"}


@pytest.mark.parametrize("name", EXAMPLES)
def test_an_altered_line_amount_breaks_br_co_10(name: str) -> None:
    invoice = _altered(name, lambda root: _plus(_first_line_amount(root), "1"))
    broken = _rules_broken(invoice) - {"DUE-DATE"}
    assert broken == {"BR-CO-10"}
    assert line_summary(invoice).agrees is False


WITH_VAT_TOTAL = [
    name
    for name in EXAMPLES
    if _vat_total(fromstring((_EXAMPLES_DIR / name).read_bytes())) is not None
]


@pytest.mark.parametrize("name", WITH_VAT_TOTAL)
def test_a_wrong_vat_total_breaks_br_co_14_and_br_co_15(name: str) -> None:
    invoice = _altered(name, lambda root: _plus(_vat_total(root), "10"))
    broken = _rules_broken(invoice) - {"DUE-DATE"}
    assert broken == {"BR-CO-14", "BR-CO-15"}


def test_only_invoices_without_vat_due_leave_out_the_vat_total() -> None:
    assert sorted(set(EXAMPLES) - set(WITH_VAT_TOTAL)) == [
        "cii/CII_example7.xml",
        "cii/XRechnung-O.xml",
    ]


def _first_subtotal_tax(root: ET.Element) -> ET.Element | None:
    found = root.find("cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount", NS)
    if found is None:
        found = root.find(
            "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/"
            "ram:ApplicableTradeTax/ram:CalculatedAmount",
            NS,
        )
    return found


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_wrong_vat_subtotal_breaks_br_co_17(name: str) -> None:
    invoice = _altered(name, lambda root: _plus(_first_subtotal_tax(root), "10"))
    broken = _rules_broken(invoice) - {"DUE-DATE"}
    expected = {"BR-CO-17", "BR-CO-14"} if name in WITH_VAT_TOTAL else {"BR-CO-17"}
    assert broken == expected
    (check,) = [
        c for c in evaluate_rules(invoice) if c.evaluation == "IHLAL" and c.rule_id == "BR-CO-17"
    ]
    assert check.subject is not None and "≠" in check.expression


def _due_date_element(root: ET.Element) -> tuple[ET.Element, ET.Element] | None:
    due = root.find("cbc:DueDate", NS)
    if due is not None:
        issued = root.find("cbc:IssueDate", NS)
    else:
        due = root.find(
            ".//ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString", NS
        )
        issued = root.find("rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString", NS)
    return (due, issued) if due is not None and issued is not None else None


WITH_DUE_DATE = [
    name
    for name in EXAMPLES
    if name not in DUE_BEFORE_ISSUE
    and _due_date_element(fromstring((_EXAMPLES_DIR / name).read_bytes()))
]


@pytest.mark.parametrize("name", WITH_DUE_DATE)
def test_a_due_date_before_the_issue_date_is_a_due_date_warning_not_a_violation(name: str) -> None:
    def alter(root: ET.Element) -> None:
        found = _due_date_element(root)
        assert found is not None
        due, issued = found
        year = int((issued.text or "").strip()[:4]) - 1
        due.text = f"{year}{(issued.text or '').strip()[4:]}"

    invoice = _altered(name, alter)
    assert _rules_broken(invoice) == set()
    assert {c.rule_id for c in evaluate_rules(invoice) if c.evaluation == "UYARI"} == {"DUE-DATE"}


def test_most_examples_state_a_due_date() -> None:
    assert len(WITH_DUE_DATE) >= 25


# --- ingest ----


def test_given_the_examples_folder_when_ingested_then_every_invoice_is_a_document(
    tmp_path: Path,
) -> None:
    index = SqliteSearchIndex(tmp_path / "index.sqlite")
    try:
        report = ingest_paths(index, None, [shared_data("corpus", "invoices_en16931")], tenant="t1")
        assert report.added == 34
        assert [s.reason for s in report.skipped] == [
            "unsupported file type .2"
        ]  # LICENSE.EUPL-1.2
        scope = SearchScope(tenant_id="t1")
        documents = {d.title: d for d in index.documents(scope)}
        koksmaat = documents["Invoice 12115118 — De Koksmaat → ODIN 59 (2015-01-09)"]
        assert koksmaat.identity.seller == "De Koksmaat (VAT NL8200.98.395.B.01)"
        assert koksmaat.metadata["format"] in {"UBL 2.1", "UN/CEFACT CII"}
        hits = index.search(
            SearchQuery(text="KRAT BIER", scope=SearchScope(tenant_id="t1"), top_k=3)
        )
        assert hits and "KRAT BIER" in hits[0].chunk.text
        assert hits[0].chunk.kind == "table"
        assert hits[0].chunk.identity.number == "12115118"
    finally:
        index.close()


def test_given_an_invoice_with_an_embedded_pdf_when_ingested_then_the_pdf_is_not_text(
    tmp_path: Path,
) -> None:
    index = SqliteSearchIndex(tmp_path / "index.sqlite")
    name = "FT_G2G_TD01_Allegato_Bonifico_Split_Payment.xml"
    try:
        ingest_paths(
            index, None, [shared_data("corpus", "invoices_en16931", "ubl", name)], tenant="t1"
        )
        (document,) = index.documents(SearchScope(tenant_id="t1"))
        scope = SearchScope(tenant_id="t1", document_ids=(document.document_id,))
        hits = index.search(SearchQuery(text="1316/85 Attachment", scope=scope, top_k=20))
        text = "\n".join(hit.chunk.text for hit in hits)
        assert len(text) < 5_000  # the source is 3.3 MB, nearly all of it a base64 PDF
        assert (
            "mappatura_ubl_sdi.pdf (1; application/pdf, 2464230 bytes, embedded file, not text)"
            in text
        )
        assert "JVBERi0" not in text  # the start of any base64 PDF
    finally:
        index.close()


# --- structure records (ASK-14) ------------------------------------------------------------------


def _records(tmp_path: Path, path: Path) -> list[Any]:
    index = SqliteSearchIndex(tmp_path / "records.sqlite")
    try:
        report = ingest_paths(
            index, None, [path], tenant="t1", layers=StructureLayers(OfflineModel())
        )
        assert report.added == 1, report.skipped
        assert report.structure is not None and not report.structure.failed
        return index.records(RecordQuery(scope=SearchScope(tenant_id="t1")))
    finally:
        index.close()


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_ingests_with_line_items_entities_and_rules(
    tmp_path: Path, name: str
) -> None:
    records = _records(tmp_path, _EXAMPLES_DIR / name)
    invoice = _example(name)
    items = [r for r in records if r.kind == "line_item"]
    assert [r.item_no for r in items] == [line.line_id for line in invoice.lines]
    assert all(r.text.startswith("KALEM: kalem no=") and "tutar=" in r.text for r in items)
    (summary,) = [r for r in records if r.kind == "line_item_summary"]
    assert summary.item_count == len(invoice.lines)
    assert summary.agrees is True
    # The line table is a table record, the one its line items and KALEM ÖZETİ belong to (ASK-08
    # finds an item table by it), its cells typed, its amounts exact.
    (table,) = [r for r in records if isinstance(r, TableRecord)]
    assert {r.parent_id for r in [*items, summary]} == {table.node_id}
    assert len(table.rows) == len(invoice.lines) and table.caption.endswith(" > Lines")
    net = [c.role for c in table.columns].index("amount")
    assert [v[net] for v in table.values] == [
        line.net_amount.value if line.net_amount else None for line in invoice.lines
    ]
    assert table.quote.startswith(" | ".join(table.header))
    assert summary.text.startswith(f"KALEM ÖZETİ: {len(invoice.lines)} kalem")
    entities = [r for r in records if r.kind == "entity"]
    assert {"PARTY", "DATE", "AMOUNT", "REFERENCE"} <= {e.entity_type for e in entities}
    rules = [r for r in records if r.kind == "rule"]
    broken = [(r.rule_id, r.evaluation) for r in rules if r.evaluation != "sağlandı"]
    assert broken == ([("DUE-DATE", "UYARI")] if name in DUE_BEFORE_ISSUE else [])
    assert len(rules) == len(evaluate_rules(invoice))
    # Every totals line is a claim the invoice states, quoted whole (XC-3: what a cross-check
    # compares); the notes' claims are the model's.
    stated = [r for r in records if isinstance(r, ClaimRecord) and r.proposed_by == "invoice"]
    assert set(total_lines(invoice)) <= {c.statement for c in stated}
    assert all(c.quote == c.statement and ": " in c.statement for c in stated)
    assert not [
        c for c in stated if c.section and c.section.endswith((" > Notes", " > Attachments"))
    ]
    proposed = [r for r in records if isinstance(r, ClaimRecord) and r.proposed_by != "invoice"]
    assert (
        not [  # a proposal inside a statement of the invoice is not a second claim
            (p.statement, c.statement)
            for p in proposed
            for c in stated
            if p.chunk_id == c.chunk_id and c.span.start <= p.span.start <= p.span.end <= c.span.end
        ]
    )
    for record in records:  # every record is anchored in the stored text
        assert record.quote and record.span.end > record.span.start


def test_an_altered_copy_is_ingested_with_the_violated_rule_named(tmp_path: Path) -> None:
    copy = tmp_path / "altered.xml"
    root = fromstring((_EXAMPLES_DIR / "ubl" / "ubl-tc434-example1.xml").read_bytes())
    _plus(_first_line_amount(root), "1")
    copy.write_bytes(ET.tostring(root))

    records = _records(tmp_path, copy)

    (violation,) = [r for r in records if r.kind == "rule" and r.evaluation == "IHLAL"]
    assert violation.rule_id == "BR-CO-10"
    assert violation.text.startswith("KURAL BR-CO-10")
    assert "= 230.60 ≠ 229.60 (stated)" in violation.text
    assert violation.quote == "Sum of line net amounts: 229.60 EUR"
    assert violation.violations[0].value == "229.60"
    (summary,) = [r for r in records if r.kind == "line_item_summary"]
    assert summary.agrees is False
    assert summary.text.endswith("kalemlerin toplamı=230.60; UYUŞMUYOR")


def test_a_ubl_tr_invoice_states_its_labelled_lines_as_claims(tmp_path: Path) -> None:
    path = tmp_path / "efatura.xml"
    path.write_bytes(ubl_tr())

    records = _records(tmp_path, path)

    stated = [r.statement for r in records if isinstance(r, ClaimRecord)]
    invoice_claims = [
        r.statement for r in records if isinstance(r, ClaimRecord) and r.proposed_by == "invoice"
    ]
    # A party's statement keeps its ids, tax office and address; each header fact is one claim.
    assert invoice_claims[:8] == [
        "Fatura tipi: TEVKIFAT",
        "Senaryo: TICARIFATURA",
        "Düzenleme tarihi: 2024-05-02",
        "Son ödeme tarihi: 2024-06-01",
        "Para birimi: TRY",
        "Satıcı: Anadolu Yazılım A.Ş. · VKN 1234567890 · MERSISNO 0123456789000015 · "
        "vergi dairesi: Çankaya · Atatürk Bulvarı No:1, Ankara, Türkiye",
        "Alıcı: Ayşe Yılmaz · TCKN 12345678901 · vergi dairesi: Kadıköy · İstanbul, Türkiye",
        "Sipariş no: SIP-2024-77",
    ]
    assert {"Tevkifat tutarı: 100.00 TRY", "Ödenecek tutar: 1100.00 TRY"} <= set(invoice_claims)
    # The notes ("Yalnız: Bin Yüz Türk Lirası…") are prose: the model's to propose, not a label.
    assert not [s for s in invoice_claims if s.startswith("Yalnız")]
    assert len(stated) >= len(invoice_claims)


@pytest.mark.parametrize("number", ["2", "4"])
def test_one_invoice_in_ubl_and_in_cii_states_its_parties_alike(number: str) -> None:
    # CII writes a party's ids in another order than UBL; the rendering orders them by kind (tax,
    # legal, other) so that a cross-check finds the same statement in both (XC-4).
    ubl, cii = (
        _example(f"ubl/ubl-tc434-example{number}.xml"),
        _example(f"cii/CII_example{number}.xml"),
    )
    for party in ("Seller", "Buyer"):
        (in_ubl,) = [s for s in _header_lines(ubl) if s.startswith(f"{party}: ")]
        (in_cii,) = [s for s in _header_lines(cii) if s.startswith(f"{party}: ")]
        assert in_ubl == in_cii


def _header_lines(invoice: Invoice) -> tuple[str, ...]:
    header = render_invoice(invoice).parts[0]
    assert isinstance(header, TextPart)
    return header.lines
