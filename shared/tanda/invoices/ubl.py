"""UBL 2.1 ``Invoice`` / ``CreditNote`` → :class:`~tanda.invoices.model.Invoice`, UBL-TR e-Fatura
included (``CustomizationID`` ``TR1.x``: VKN/TCKN party ids, KDV subtotals at the subtotal's
``Percent``, withholding — tevkifat — in ``WithholdingTaxTotal``, the ETTN in ``UUID``)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tanda.invoices.model import (
    AllowanceCharge,
    Amount,
    Attachment,
    Invoice,
    InvoiceLine,
    Party,
    PartyId,
    TaxSubtotal,
    Totals,
)
from tanda.invoices.xml import Tree, amount_of, base64_size

CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
_TREE = Tree({"cac": CAC, "cbc": CBC})
_TR_PARTY_SCHEMES = {"VKN", "TCKN"}
"""UBL-TR: the tax number of a company (VKN) or a person (TCKN), in ``PartyIdentification``."""


def read_ubl(root: ET.Element, *, credit_note: bool) -> Invoice:
    t = _TREE
    currency = t.text(root, "cbc:DocumentCurrencyCode")
    line_tag = "cac:CreditNoteLine" if credit_note else "cac:InvoiceLine"
    quantity_tag = "cbc:CreditedQuantity" if credit_note else "cbc:InvoicedQuantity"
    period = t.one(root, "cac:InvoicePeriod")
    tax_totals = _document_tax_totals(root, currency)
    withholding_totals = t.all(root, "cac:WithholdingTaxTotal")
    monetary = t.one(root, "cac:LegalMonetaryTotal")
    type_code = t.text(root, "cbc:CreditNoteTypeCode" if credit_note else "cbc:InvoiceTypeCode")
    return Invoice(
        syntax="UBL",
        kind="credit_note" if credit_note else "invoice",
        number=t.text(root, "cbc:ID"),
        type_code=type_code,
        issue_date=t.text(root, "cbc:IssueDate"),
        currency=currency,
        seller=_party(t.one(root, "cac:AccountingSupplierParty/cac:Party")),
        buyer=_party(t.one(root, "cac:AccountingCustomerParty/cac:Party")),
        lines=tuple(_line(el, quantity_tag, currency) for el in t.all(root, line_tag)),
        totals=Totals(
            line_net=t.amount(monetary, "cbc:LineExtensionAmount", currency),
            allowances=t.amount(monetary, "cbc:AllowanceTotalAmount", currency),
            charges=t.amount(monetary, "cbc:ChargeTotalAmount", currency),
            tax_exclusive=t.amount(monetary, "cbc:TaxExclusiveAmount", currency),
            tax=_first_amount(tax_totals, currency),
            tax_inclusive=t.amount(monetary, "cbc:TaxInclusiveAmount", currency),
            prepaid=t.amount(monetary, "cbc:PrepaidAmount", currency),
            rounding=t.amount(monetary, "cbc:PayableRoundingAmount", currency),
            payable=t.amount(monetary, "cbc:PayableAmount", currency),
            withholding=_first_amount(withholding_totals, currency),
        ),
        tax_subtotals=(
            *(
                _subtotal(s, currency, withholding=False)
                for total in tax_totals
                for s in t.all(total, "cac:TaxSubtotal")
            ),
            *(
                _subtotal(s, currency, withholding=True)
                for total in withholding_totals
                for s in t.all(total, "cac:TaxSubtotal")
            ),
        ),
        allowances_charges=tuple(
            _allowance_charge(el, currency) for el in t.all(root, "cac:AllowanceCharge")
        ),
        due_date=t.text(root, "cbc:DueDate") or t.text(root, "cac:PaymentMeans/cbc:PaymentDueDate"),
        tax_point_date=t.text(root, "cbc:TaxPointDate"),
        delivery_date=t.text(root, "cac:Delivery/cbc:ActualDeliveryDate"),
        period=(t.text(period, "cbc:StartDate"), t.text(period, "cbc:EndDate"))
        if period is not None
        else None,
        customization_id=t.text(root, "cbc:CustomizationID"),
        profile_id=t.text(root, "cbc:ProfileID"),
        order_reference=t.text(root, "cac:OrderReference/cbc:ID"),
        buyer_reference=t.text(root, "cbc:BuyerReference"),
        contract_reference=t.text(root, "cac:ContractDocumentReference/cbc:ID"),
        preceding_invoices=t.texts(
            root, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID"
        ),
        despatch_references=t.texts(root, "cac:DespatchDocumentReference/cbc:ID"),
        payment_terms=t.texts(root, "cac:PaymentTerms/cbc:Note"),
        payment_accounts=t.texts(root, "cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID"),
        payment_reference=t.text(root, "cac:PaymentMeans/cbc:PaymentID"),
        notes=t.texts(root, "cbc:Note"),
        attachments=tuple(_attachment(el) for el in t.all(root, "cac:AdditionalDocumentReference")),
        tax_currency=t.text(root, "cbc:TaxCurrencyCode"),
        uuid=t.text(root, "cbc:UUID"),
    )


def _document_tax_totals(root: ET.Element, currency: str | None) -> list[ET.Element]:
    """The ``TaxTotal`` in the document currency: a second one in the tax currency (BT-111) only
    restates the VAT for the tax authority, it is not another tax."""
    totals = _TREE.all(root, "cac:TaxTotal")
    in_currency = [
        total
        for total in totals
        if (amount := _TREE.one(total, "cbc:TaxAmount")) is not None
        and amount.get("currencyID") in (None, currency)
    ]
    return in_currency or totals[:1]


def _first_amount(totals: list[ET.Element], currency: str | None) -> Amount | None:
    amounts = [_TREE.amount(total, "cbc:TaxAmount", currency) for total in totals]
    found = [a for a in amounts if a is not None]
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    value = sum((a.value for a in found), start=found[0].value * 0)
    return Amount(value=value, surface=format(value, "f"), currency=found[0].currency)


def _party(party: ET.Element | None) -> Party:
    t = _TREE
    ids: list[PartyId] = []
    for identification in t.all(party, "cac:PartyIdentification/cbc:ID"):
        text = (identification.text or "").strip()
        if text:
            scheme_id = identification.get("schemeID")
            tax = scheme_id in _TR_PARTY_SCHEMES
            ids.append(PartyId(value=text, scheme=scheme_id, kind="tax" if tax else "party"))
    for tax_scheme in t.all(party, "cac:PartyTaxScheme"):
        value = t.text(tax_scheme, "cbc:CompanyID")
        if value:
            scheme = t.text(tax_scheme, "cac:TaxScheme/cbc:ID")
            ids.append(PartyId(value=value, scheme=scheme, kind="tax"))
    legal = t.text(party, "cac:PartyLegalEntity/cbc:CompanyID")
    if legal:
        ids.append(PartyId(value=legal, scheme=None, kind="legal"))
    person = " ".join(
        p
        for p in (
            t.text(party, "cac:Person/cbc:FirstName"),
            t.text(party, "cac:Person/cbc:FamilyName"),
        )
        if p
    )
    address = t.one(party, "cac:PostalAddress")
    return Party(
        name=t.text(party, "cac:PartyLegalEntity/cbc:RegistrationName")
        or t.text(party, "cac:PartyName/cbc:Name")
        or person
        or None,
        ids=tuple(_unique(ids)),
        street=t.text(address, "cbc:StreetName"),
        city=t.text(address, "cbc:CityName"),
        postcode=t.text(address, "cbc:PostalZone"),
        country=t.text(address, "cac:Country/cbc:IdentificationCode")
        or t.text(address, "cac:Country/cbc:Name"),
        tax_office=t.text(party, "cac:PartyTaxScheme/cac:TaxScheme/cbc:Name"),
    )


def _unique(ids: list[PartyId]) -> list[PartyId]:
    seen: set[tuple[str, str | None]] = set()
    out = []
    for party_id in ids:
        key = (party_id.value, party_id.scheme)
        if key not in seen:
            seen.add(key)
            out.append(party_id)
    return out


def _line(line: ET.Element, quantity_tag: str, currency: str | None) -> InvoiceLine:
    t = _TREE
    quantity = t.one(line, quantity_tag)
    category = t.one(line, "cac:Item/cac:ClassifiedTaxCategory")
    # UBL-TR states a line's KDV in the line's own TaxTotal, not in ClassifiedTaxCategory.
    line_rate = t.decimal(category, "cbc:Percent")
    if line_rate is None:
        line_rate = t.decimal(line, "cac:TaxTotal/cac:TaxSubtotal/cbc:Percent")
    return InvoiceLine(
        line_id=t.text(line, "cbc:ID") or "?",
        name=t.text(line, "cac:Item/cbc:Name"),
        net_amount=t.amount(line, "cbc:LineExtensionAmount", currency),
        quantity=amount_of(quantity),
        unit=quantity.get("unitCode") if quantity is not None else None,
        price=t.amount(line, "cac:Price/cbc:PriceAmount", currency),
        price_base_quantity=t.amount(line, "cac:Price/cbc:BaseQuantity"),
        description=t.text(line, "cac:Item/cbc:Description"),
        seller_item_id=t.text(line, "cac:Item/cac:SellersItemIdentification/cbc:ID"),
        tax_category=t.text(category, "cbc:ID"),
        tax_rate=line_rate,
        allowances_charges=tuple(
            _allowance_charge(el, currency) for el in t.all(line, "cac:AllowanceCharge")
        ),
        note=t.text(line, "cbc:Note"),
        order_line=t.text(line, "cac:OrderLineReference/cbc:LineID"),
    )


def _allowance_charge(element: ET.Element, currency: str | None) -> AllowanceCharge:
    t = _TREE
    amount = t.amount(element, "cbc:Amount", currency)
    return AllowanceCharge(
        is_charge=(t.text(element, "cbc:ChargeIndicator") or "").lower() == "true",
        amount=amount,
        reason=t.text(element, "cbc:AllowanceChargeReason")
        or t.text(element, "cbc:AllowanceChargeReasonCode"),
        base=t.amount(element, "cbc:BaseAmount", currency),
        percent=t.decimal(element, "cbc:MultiplierFactorNumeric"),
        tax_category=t.text(element, "cac:TaxCategory/cbc:ID"),
        tax_rate=t.decimal(element, "cac:TaxCategory/cbc:Percent"),
    )


def _subtotal(element: ET.Element, currency: str | None, *, withholding: bool) -> TaxSubtotal:
    t = _TREE
    category = t.one(element, "cac:TaxCategory")
    rate = t.decimal(category, "cbc:Percent")
    if rate is None:
        rate = t.decimal(element, "cbc:Percent")  # UBL-TR puts the rate on the subtotal
    tax = t.amount(element, "cbc:TaxAmount", currency)
    return TaxSubtotal(
        base=t.amount(element, "cbc:TaxableAmount", currency),
        tax=tax,
        category=t.text(category, "cbc:ID"),
        rate=rate,
        scheme=t.text(category, "cac:TaxScheme/cbc:Name")
        or t.text(category, "cac:TaxScheme/cbc:ID"),
        type_code=t.text(category, "cac:TaxScheme/cbc:TaxTypeCode"),
        exemption_reason=t.text(category, "cbc:TaxExemptionReason")
        or t.text(category, "cbc:TaxExemptionReasonCode"),
        withholding=withholding,
    )


def _attachment(reference: ET.Element) -> Attachment:
    t = _TREE
    embedded = t.one(reference, "cac:Attachment/cbc:EmbeddedDocumentBinaryObject")
    return Attachment(
        reference=t.text(reference, "cbc:ID"),
        description=t.text(reference, "cbc:DocumentDescription")
        or t.text(reference, "cbc:DocumentType"),
        filename=embedded.get("filename") if embedded is not None else None,
        mime_type=embedded.get("mimeCode") if embedded is not None else None,
        size_bytes=base64_size(embedded.text) if embedded is not None else None,
        uri=t.text(reference, "cac:Attachment/cac:ExternalReference/cbc:URI"),
    )
