"""Reading invoice XML (issue 18): detection by root element and namespace, UBL-TR specifics, the
hardened parser (an XXE file and a billion-laughs bomb are refused with a reason, and nothing is
read from disk or network), other XML skipped, attachments never text."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from tanda.invoices import NotAnInvoice, read_invoice
from tanda.retrieval.ingest.parsed import ParsedDocument, Skipped
from tanda.retrieval.ingest.readers import read_xml
from tests.unit.invoices.samples import cii, ubl_tr

# --- what the parser touches ----

_EVENTS: list[tuple[str, str]] | None = None


def _audit(event: str, args: tuple[object, ...]) -> None:
    if _EVENTS is not None and event in ("open", "socket.connect", "urllib.Request"):
        _EVENTS.append((event, repr(args[:1])))


sys.addaudithook(_audit)  # audit hooks cannot be removed; it records only inside `io_seen`


@pytest.fixture
def io_seen() -> Iterator[list[tuple[str, str]]]:
    """Every file opened and socket connected while the test body runs."""
    global _EVENTS
    _EVENTS = []
    try:
        yield _EVENTS
    finally:
        _EVENTS = None


def _secret_file(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-PAYROLL", encoding="utf-8")
    return secret


def test_given_an_xxe_invoice_when_read_then_refused_and_the_file_is_never_opened(
    tmp_path: Path, io_seen: list[tuple[str, str]]
) -> None:
    secret = _secret_file(tmp_path)
    assert [event for event in io_seen if str(secret) in event[1]]  # the hook sees a file opened
    io_seen.clear()
    data = (
        '<?xml version="1.0"?>\n'
        f'<!DOCTYPE Invoice [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
        '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"'
        ' xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">'
        "<cbc:ID>&xxe;</cbc:ID></Invoice>"
    ).encode()

    result = read_xml(data)

    assert isinstance(result, Skipped)
    assert result.failed
    assert result.reason.startswith("XML refused: it declares a DTD")
    assert "TOP-SECRET" not in result.reason
    assert not [event for event in io_seen if str(secret) in event[1]]
    assert not [event for event in io_seen if event[0] != "open"]


def test_given_an_external_dtd_when_read_then_refused_without_a_connection(
    io_seen: list[tuple[str, str]],
) -> None:
    data = (
        b'<?xml version="1.0"?>\n<!DOCTYPE Invoice SYSTEM "http://127.0.0.1:9/evil.dtd">\n'
        b'<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'
    )

    result = read_xml(data)

    assert isinstance(result, Skipped)
    assert result.reason.startswith("XML refused")
    assert io_seen == []


def test_given_a_billion_laughs_bomb_when_read_then_refused_before_any_expansion(
    io_seen: list[tuple[str, str]],
) -> None:
    # lol9 expands to 10^9 "lol": three gigabytes, were it ever expanded
    entities = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10)
    ]
    data = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [' + "".join(entities) + "]>\n"
        '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&lol9;</Invoice>'
    ).encode()

    result = read_xml(data)

    assert isinstance(result, Skipped)
    assert result.failed
    assert result.reason.startswith("XML refused")
    assert io_seen == []


def test_given_entities_without_a_doctype_keyword_when_read_then_not_well_formed() -> None:
    result = read_xml(b"<Invoice>&undefined;</Invoice>")
    assert isinstance(result, Skipped)
    assert result.failed
    assert result.reason.startswith("not well-formed XML")


def test_given_xml_that_is_not_an_invoice_when_read_then_skipped_not_failed() -> None:
    result = read_xml(b'<?xml version="1.0"?><catalog xmlns="urn:example:books"><b/></catalog>')
    assert result == Skipped(
        "XML but not an invoice (root element catalog in urn:example:books)", failed=False
    )


def test_given_an_invoice_element_in_another_namespace_when_read_then_not_an_invoice() -> None:
    # Detection is by root element AND namespace: a look-alike is not read as UBL.
    result = read_invoice(b'<Invoice xmlns="urn:example:not-ubl"><ID>1</ID></Invoice>')
    assert isinstance(result, NotAnInvoice)
    assert "Invoice in urn:example:not-ubl" in result.reason


# --- UBL-TR ----


def test_given_a_ubl_tr_efatura_when_read_then_its_profile_type_and_tax_numbers_are_kept() -> None:
    invoice = read_invoice(ubl_tr())
    assert not isinstance(invoice, NotAnInvoice)
    assert invoice.is_ubl_tr
    assert (invoice.profile_id, invoice.type_code) == ("TICARIFATURA", "TEVKIFAT")
    assert invoice.uuid == "5c1f3b2a-8d7e-4f6a-9b0c-1d2e3f4a5b6c"
    assert [i.label() for i in invoice.seller.tax_ids] == ["VKN 1234567890"]
    assert invoice.seller.tax_office == "Çankaya"
    assert invoice.buyer.name == "Ayşe Yılmaz"  # a person: TCKN and Person name
    assert [i.label() for i in invoice.buyer.tax_ids] == ["TCKN 12345678901"]
    assert invoice.due_date == "2024-06-01"  # UBL-TR: PaymentMeans/PaymentDueDate
    kdv, withholding = invoice.tax_subtotals
    assert (kdv.scheme, kdv.type_code, kdv.rate, kdv.withholding) == (
        "KDV",
        "0015",
        Decimal(20),
        False,
    )
    assert (withholding.type_code, withholding.rate, withholding.withholding) == (
        "602",
        Decimal(50),
        True,
    )
    assert invoice.totals.withholding is not None
    assert invoice.totals.withholding.surface == "100.00"
    assert [line.tax_rate for line in invoice.lines] == [Decimal(20), Decimal(20)]


def test_given_a_ubl_tr_efatura_when_rendered_then_turkish_labels_and_identity() -> None:
    parsed = read_xml(ubl_tr())
    assert isinstance(parsed, ParsedDocument)
    assert parsed.lang == "tr"
    assert (
        parsed.title
        == "e-Fatura ABC2024000000123 — Anadolu Yazılım A.Ş. → Ayşe Yılmaz (2024-05-02)"
    )
    identity = parsed.identity
    assert identity.document_type == "e-Fatura (TICARIFATURA, TEVKIFAT)"
    assert (identity.number, identity.year, identity.issue_date) == (
        "ABC2024000000123",
        2024,
        "2024-05-02",
    )
    assert identity.seller == "Anadolu Yazılım A.Ş. (VKN 1234567890)"
    assert identity.buyer == "Ayşe Yılmaz (TCKN 12345678901)"
    assert identity.currency == "TRY"
    text = _text(parsed)
    assert "Ödenecek tutar: 1100.00 TRY" in text
    assert "Tevkifat: KDV TEVKİFAT (602) | 50% | 200.00 | 100.00" in text
    assert "Satıcı: Anadolu Yazılım A.Ş. · VKN 1234567890" in text


def test_given_an_earsiv_profile_when_read_then_the_type_says_e_arsiv() -> None:
    parsed = read_xml(ubl_tr(profile="EARSIVFATURA", type_code="SATIS"))
    assert isinstance(parsed, ParsedDocument)
    assert parsed.identity.document_type == "e-Arşiv fatura (EARSIVFATURA, SATIS)"


def test_given_an_embedded_attachment_when_rendered_then_only_its_name_and_size_are_text() -> None:
    parsed = read_xml(ubl_tr())
    assert isinstance(parsed, ParsedDocument)
    text = _text(parsed)
    assert "Ek: fatura.xslt (XSLT; application/xml, 30 bytes, gömülü dosya, metin değil)" in text
    assert "PHhzbDpzdHlsZXNoZWV0" not in text  # the base64 content
    assert "secret" not in text  # what it decodes to


# --- CII ----


def test_given_a_cii_invoice_when_read_then_lines_taxes_and_totals() -> None:
    invoice = read_invoice(cii())
    assert not isinstance(invoice, NotAnInvoice)
    assert (invoice.syntax, invoice.kind, invoice.number) == ("CII", "invoice", "CII-1")
    assert (invoice.issue_date, invoice.due_date, invoice.currency) == (
        "2024-01-10",
        "2024-02-09",
        "EUR",
    )
    assert invoice.order_reference == "PO-9"
    (line,) = invoice.lines
    assert (line.name, line.unit, line.tax_category, line.tax_rate) == (
        "Widget",
        "C62",
        "S",
        Decimal(19),
    )
    assert line.quantity is not None and line.quantity.surface == "8"
    assert invoice.totals.payable is not None and invoice.totals.payable.surface == "119.00"


def test_given_a_cii_credit_note_type_when_read_then_it_is_a_credit_note() -> None:
    invoice = read_invoice(cii(type_code="381"))
    assert not isinstance(invoice, NotAnInvoice)
    assert invoice.kind == "credit_note"
    parsed = read_xml(cii(type_code="381"))
    assert isinstance(parsed, ParsedDocument)
    assert parsed.title is not None and parsed.title.startswith("Credit note CII-1")


DUTCH_NOTE = (
    "Vriendelijk verzoeken wij u ervoor te zorgen dat het bedrag voor de vervaldatum op onze "
    "rekening staat onder vermelding van het factuurnummer. Gelieve bij navraag en "
    "correspondentie uw firma naam en factuurnummer vermelden."
)


@pytest.mark.parametrize(
    ("note", "lang"),
    [
        # Dutch says Turkish `de` and `en` three times: it had been stemmed as Turkish, and
        # "Who is the seller on invoice …?" met none of its English labels (`seller` is `sel`)
        (DUTCH_NOTE, "en"),
        (None, "en"),
        (
            "Pembayaran dilakukan paling lambat pada tanggal jatuh tempo ke rekening yang "
            "tercantum.",
            "id",
        ),
    ],
)
def test_given_an_invoice_its_language_is_its_notes_when_they_say_ours_else_its_labels_english(
    note: str | None, lang: str
) -> None:  # issue 22
    parsed = read_xml(cii(note=note))
    assert isinstance(parsed, ParsedDocument)
    assert parsed.lang == lang


def _text(parsed: ParsedDocument) -> str:
    from tanda.retrieval.ingest.chunking import chunk_blocks

    return "\n".join(draft.text for draft in chunk_blocks(parsed.blocks))
