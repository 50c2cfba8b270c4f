"""Cross-check between an invoice and a second invoice or a credit note with the same order
reference (issue 18, XC-3, XC-4): the examples of ``../shared/data`` (read in place, altered only
as copies under tmp_path) ingested with the structure layers — each `Label: value` line of an
invoice is a claim it states — and cross-checked in-process with the offline judge, which reads a
label as the attribute its value is of. Differing amounts are contradictions; the order reference
and the amounts both state alike are support; two different totals are never compared."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from defusedxml.ElementTree import fromstring

from tanda.adapters.offline import OfflineModel
from tanda.auth import Principal
from tanda.contract.v1_cross_check import CrossCheckFinding, V1CrossCheckJob, V1CrossCheckRequest
from tanda.service.cross_check import cross_check_status, run_queued_job, start_cross_check
from tanda.service.ingest import StructureLayers, ingest_paths
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.corpus import shared_data
from tests.unit.invoices.samples import ubl_tr

pytestmark = pytest.mark.integration

TENANT = "acme"
OPERATOR = Principal(tenant_id=TENANT, partner_id="local-cli", subject="local-cli", is_test=True)
EXAMPLES = ("corpus", "invoices_en16931")
CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
RSM = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
SUMMATION = (
    f"{{{RSM}}}SupplyChainTradeTransaction/{{{RAM}}}ApplicableHeaderTradeSettlement/"
    f"{{{RAM}}}SpecifiedTradeSettlementHeaderMonetarySummation"
)
INVOICE = shared_data(*EXAMPLES, "ubl", "ubl-tc434-example2.xml")
"""Invoice TOSL108, order reference 123: 1801.78 NOK with VAT, 1000.00 paid, 801.78 due."""


def _set(root: ET.Element, path: str, value: str) -> None:
    element = root.find(path)
    assert element is not None, path
    element.text = value


def _second_invoice(folder: Path) -> Path:
    """Invoice TOSL109 for the same order 123: the same lines and totals, 950.00 paid, 851.78 due
    (its own rules all hold)."""
    root = fromstring(INVOICE.read_bytes())
    _set(root, f"{{{CBC}}}ID", "TOSL109")
    _set(root, f"{{{CAC}}}LegalMonetaryTotal/{{{CBC}}}PrepaidAmount", "950.00")
    _set(root, f"{{{CAC}}}LegalMonetaryTotal/{{{CBC}}}PayableAmount", "851.78")
    path = folder / "TOSL109.xml"
    path.write_bytes(ET.tostring(root))
    return path


def _credit_note(folder: Path) -> Path:
    """The CII copy of TOSL108 as a credit note (type 381) for order 123: 1400 paid, 401.78 due."""
    root = fromstring(shared_data(*EXAMPLES, "cii", "CII_example2.xml").read_bytes())
    _set(root, f"{{{RSM}}}ExchangedDocument/{{{RAM}}}ID", "CN-TOSL108")
    _set(root, f"{{{RSM}}}ExchangedDocument/{{{RAM}}}TypeCode", "381")
    _set(root, f"{SUMMATION}/{{{RAM}}}TotalPrepaidAmount", "1400")
    _set(root, f"{SUMMATION}/{{{RAM}}}DuePayableAmount", "401.78")
    path = folder / "CN-TOSL108.xml"
    path.write_bytes(ET.tostring(root))
    return path


def _second_e_fatura(folder: Path) -> tuple[Path, Path]:
    """The e-Fatura of the samples for order SIP-2024-77, and a second one for the same order
    without the withholding: 1200.00 TRY to pay instead of 1100.00 (its own rules all hold)."""
    first = folder / "ABC2024000000123.xml"
    first.write_bytes(ubl_tr())
    root = fromstring(ubl_tr())
    _set(root, f"{{{CBC}}}ID", "ABC2024000000124")
    withholding = root.find(f"{{{CAC}}}WithholdingTaxTotal")
    assert withholding is not None
    root.remove(withholding)
    _set(root, f"{{{CAC}}}LegalMonetaryTotal/{{{CBC}}}PayableAmount", "1200.00")
    second = folder / "ABC2024000000124.xml"
    second.write_bytes(ET.tostring(root))
    return first, second


def _cross_check(
    tmp_path: Path, other: Path, first: Path = INVOICE, lang: str = "en"
) -> V1CrossCheckJob:
    runtime = Runtime(settings=Settings(home=tmp_path / "home"))
    report = ingest_paths(
        runtime.search_index,
        None,
        [first, other],
        tenant=TENANT,
        layers=StructureLayers(OfflineModel()),
    )
    assert report.added == 2 and report.structure is not None
    assert report.structure.violations == 0  # both documents are right by their own numbers
    ids = [o.document_id for o in report.outcomes]
    request = V1CrossCheckRequest(document_ids=ids, lang=lang)
    accepted = start_cross_check(runtime, OPERATOR, request, launch=False)
    assert run_queued_job(runtime, TENANT, accepted.id)
    job = cross_check_status(runtime, OPERATOR, accepted.id)
    assert job.status == "completed" and job.findings is not None
    return job


def _quotes(findings: list[CrossCheckFinding], kind: str) -> list[tuple[str, str]]:
    return [(f.a.quote, f.b.quote) for f in findings if f.kind == kind]


def test_a_second_invoice_for_the_same_order_contradicts_on_the_amounts_that_differ(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "invoices"
    folder.mkdir()

    job = _cross_check(tmp_path, _second_invoice(folder))

    assert job.findings is not None
    assert _quotes(job.findings, "contradiction") == [
        ("Paid amount: 1000.00 NOK", "Paid amount: 950.00 NOK"),
        ("Amount due: 801.78 NOK", "Amount due: 851.78 NOK"),
    ]
    due = job.findings[1]
    assert due.explanation == (
        'Both state "Amount due", with different values: 801.78 in A, 851.78 in B.'
    )
    support = _quotes(job.findings, "support")
    for same in ("Order reference: 123", "Total VAT: 365.28 NOK", "Total with VAT: 1801.78 NOK"):
        assert (same, same) in support
    _never_two_totals_compared(job.findings)


def test_a_credit_note_for_the_same_order_contradicts_on_the_amounts_that_differ(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "invoices"
    folder.mkdir()

    # A UBL invoice against a CII credit note: one rendering, so one label for one amount.
    job = _cross_check(tmp_path, _credit_note(folder))

    assert job.findings is not None
    assert _quotes(job.findings, "contradiction") == [
        ("Paid amount: 1000.00 NOK", "Paid amount: 1400 NOK"),
        ("Amount due: 801.78 NOK", "Amount due: 401.78 NOK"),
    ]
    # Its parties are stated alike though CII writes their ids in another order than UBL.
    support = _quotes(job.findings, "support")
    assert ("Order reference: 123", "Order reference: 123") in support
    buyer = "Buyer: The Buyercompany · VAT NO987654321MVA · 987654321 · 0088 3456789012098"
    assert [a for a, b in support if a == b and a.startswith(buyer)]
    _never_two_totals_compared(job.findings)


def _never_two_totals_compared(findings: list[CrossCheckFinding]) -> None:
    """ "Total VAT" and "Total with VAT" (or any two labels) are two attributes, never one."""
    for finding in findings:
        a, b = (side.quote.split(": ", 1)[0] for side in (finding.a, finding.b))
        if ": " in finding.a.quote and ": " in finding.b.quote:
            assert a == b, (finding.a.quote, finding.b.quote)


def test_two_e_faturas_for_one_order_contradict_on_the_amount_to_pay(tmp_path: Path) -> None:
    folder = tmp_path / "invoices"
    folder.mkdir()
    first, second = _second_e_fatura(folder)

    # Turkish labels, read the same way: the label before the colon names the amount.
    job = _cross_check(tmp_path, second, first, lang="tr")

    assert job.findings is not None
    assert _quotes(job.findings, "contradiction") == [
        ("Ödenecek tutar: 1100.00 TRY", "Ödenecek tutar: 1200.00 TRY")
    ]
    assert "Ödenecek tutar" in job.findings[0].explanation
    support = _quotes(job.findings, "support")
    total = "Vergiler dahil toplam tutar: 1200.00 TRY"
    assert (total, total) in support
    assert ("Hesaplanan KDV: 200.00 TRY", "Hesaplanan KDV: 200.00 TRY") in support
    _never_two_totals_compared(job.findings)
