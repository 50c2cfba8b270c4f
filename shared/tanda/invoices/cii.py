"""UN/CEFACT Cross Industry Invoice (D16B, EN 16931) → :class:`~tanda.invoices.model.Invoice`."""

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
from tanda.invoices.xml import CII_NS, Tree, amount_of, base64_size

RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
UDT = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"
_TREE = Tree({"rsm": CII_NS, "ram": RAM, "udt": UDT})
_CREDIT_NOTE_TYPES = {"381", "396", "532"}
_TAX_SCHEMES = {"VA": "VAT", "FC": "FC"}
"""CII ``SpecifiedTaxRegistration/ID@schemeID``: ``VA`` a VAT number, ``FC`` a tax number."""


def read_cii(root: ET.Element) -> Invoice:
    t = _TREE
    document = t.one(root, "rsm:ExchangedDocument")
    transaction = t.one(root, "rsm:SupplyChainTradeTransaction")
    agreement = t.one(transaction, "ram:ApplicableHeaderTradeAgreement")
    delivery = t.one(transaction, "ram:ApplicableHeaderTradeDelivery")
    settlement = t.one(transaction, "ram:ApplicableHeaderTradeSettlement")
    summation = t.one(settlement, "ram:SpecifiedTradeSettlementHeaderMonetarySummation")
    currency = t.text(settlement, "ram:InvoiceCurrencyCode")
    type_code = t.text(document, "ram:TypeCode")
    period = t.one(settlement, "ram:BillingSpecifiedPeriod")
    return Invoice(
        syntax="CII",
        kind="credit_note" if type_code in _CREDIT_NOTE_TYPES else "invoice",
        number=t.text(document, "ram:ID"),
        type_code=type_code,
        issue_date=_date(t.one(document, "ram:IssueDateTime")),
        currency=currency,
        seller=_party(t.one(agreement, "ram:SellerTradeParty")),
        buyer=_party(t.one(agreement, "ram:BuyerTradeParty")),
        lines=tuple(
            _line(el, currency) for el in t.all(transaction, "ram:IncludedSupplyChainTradeLineItem")
        ),
        totals=Totals(
            line_net=t.amount(summation, "ram:LineTotalAmount", currency),
            allowances=t.amount(summation, "ram:AllowanceTotalAmount", currency),
            charges=t.amount(summation, "ram:ChargeTotalAmount", currency),
            tax_exclusive=t.amount(summation, "ram:TaxBasisTotalAmount", currency),
            tax=_tax_total(summation, currency),
            tax_inclusive=t.amount(summation, "ram:GrandTotalAmount", currency),
            prepaid=t.amount(summation, "ram:TotalPrepaidAmount", currency),
            rounding=t.amount(summation, "ram:RoundingAmount", currency),
            payable=t.amount(summation, "ram:DuePayableAmount", currency),
        ),
        tax_subtotals=tuple(
            _subtotal(el, currency) for el in t.all(settlement, "ram:ApplicableTradeTax")
        ),
        allowances_charges=tuple(
            _allowance_charge(el, currency)
            for el in t.all(settlement, "ram:SpecifiedTradeAllowanceCharge")
        ),
        due_date=_date(t.one(settlement, "ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime")),
        tax_point_date=_date(t.one(settlement, "ram:ApplicableTradeTax/ram:TaxPointDate")),
        delivery_date=_date(
            t.one(delivery, "ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime")
        ),
        period=(
            _date(t.one(period, "ram:StartDateTime")),
            _date(t.one(period, "ram:EndDateTime")),
        )
        if period is not None
        else None,
        customization_id=t.text(
            root,
            "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID",
        ),
        profile_id=t.text(
            root,
            "rsm:ExchangedDocumentContext/ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID",
        ),
        order_reference=t.text(agreement, "ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID"),
        buyer_reference=t.text(agreement, "ram:BuyerReference"),
        contract_reference=t.text(agreement, "ram:ContractReferencedDocument/ram:IssuerAssignedID"),
        preceding_invoices=t.texts(
            settlement, "ram:InvoiceReferencedDocument/ram:IssuerAssignedID"
        ),
        despatch_references=t.texts(
            delivery, "ram:DespatchAdviceReferencedDocument/ram:IssuerAssignedID"
        ),
        payment_terms=t.texts(settlement, "ram:SpecifiedTradePaymentTerms/ram:Description"),
        payment_accounts=(
            *t.texts(
                settlement,
                "ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/ram:IBANID",
            ),
            *t.texts(
                settlement,
                "ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/ram:ProprietaryID",
            ),
        ),
        payment_reference=t.text(settlement, "ram:PaymentReference"),
        notes=t.texts(document, "ram:IncludedNote/ram:Content"),
        attachments=tuple(
            _attachment(el) for el in t.all(agreement, "ram:AdditionalReferencedDocument")
        ),
        tax_currency=t.text(settlement, "ram:TaxCurrencyCode"),
    )


def _date(element: ET.Element | None) -> str | None:
    """``<udt:DateTimeString format="102">20150109</…>`` → ``2015-01-09``; other formats
    verbatim."""
    found = _TREE.one(element, "udt:DateTimeString")
    if found is None:
        found = _TREE.one(element, "udt:DateString")  # TaxPointDate
    if found is None or not (found.text or "").strip():
        return None
    text = (found.text or "").strip()
    if found.get("format", "102") == "102" and len(text) == 8 and text.isdigit():
        return f"{text[:4]}-{text[4:6]}-{text[6:]}"
    return text


def _tax_total(summation: ET.Element | None, currency: str | None) -> Amount | None:
    """BT-110, the VAT total in the document currency: CII may state it twice, once per
    currency (BT-111 in the tax currency)."""
    totals = _TREE.all(summation, "ram:TaxTotalAmount")
    for total in totals:
        if total.get("currencyID") in (None, currency):
            return amount_of(total, currency)
    return amount_of(totals[0], currency) if totals else None


def _party(party: ET.Element | None) -> Party:
    t = _TREE
    ids: list[PartyId] = []
    for registration in t.all(party, "ram:SpecifiedTaxRegistration/ram:ID"):
        value = (registration.text or "").strip()
        if value:
            scheme = registration.get("schemeID")
            ids.append(
                PartyId(value=value, scheme=_TAX_SCHEMES.get(scheme or "", scheme), kind="tax")
            )
    legal = t.one(party, "ram:SpecifiedLegalOrganization/ram:ID")
    if legal is not None and (legal.text or "").strip():
        ids.append(
            PartyId(value=(legal.text or "").strip(), scheme=legal.get("schemeID"), kind="legal")
        )
    for path in ("ram:ID", "ram:GlobalID"):
        for found in t.all(party, path):
            if (found.text or "").strip():
                ids.append(PartyId(value=(found.text or "").strip(), scheme=found.get("schemeID")))
    address = t.one(party, "ram:PostalTradeAddress")
    return Party(
        name=t.text(party, "ram:Name"),
        ids=tuple(ids),
        street=t.text(address, "ram:LineOne"),
        city=t.text(address, "ram:CityName"),
        postcode=t.text(address, "ram:PostcodeCode"),
        country=t.text(address, "ram:CountryID"),
    )


def _line(line: ET.Element, currency: str | None) -> InvoiceLine:
    t = _TREE
    agreement = t.one(line, "ram:SpecifiedLineTradeAgreement")
    settlement = t.one(line, "ram:SpecifiedLineTradeSettlement")
    quantity = t.one(line, "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity")
    net_price = t.one(agreement, "ram:NetPriceProductTradePrice")
    return InvoiceLine(
        line_id=t.text(line, "ram:AssociatedDocumentLineDocument/ram:LineID") or "?",
        name=t.text(line, "ram:SpecifiedTradeProduct/ram:Name"),
        net_amount=t.amount(
            settlement,
            "ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount",
            currency,
        ),
        quantity=amount_of(quantity),
        unit=quantity.get("unitCode") if quantity is not None else None,
        price=t.amount(net_price, "ram:ChargeAmount", currency),
        price_base_quantity=t.amount(net_price, "ram:BasisQuantity"),
        description=t.text(line, "ram:SpecifiedTradeProduct/ram:Description"),
        seller_item_id=t.text(line, "ram:SpecifiedTradeProduct/ram:SellerAssignedID"),
        tax_category=t.text(settlement, "ram:ApplicableTradeTax/ram:CategoryCode"),
        tax_rate=t.decimal(settlement, "ram:ApplicableTradeTax/ram:RateApplicablePercent"),
        allowances_charges=tuple(
            _allowance_charge(el, currency)
            for el in t.all(settlement, "ram:SpecifiedTradeAllowanceCharge")
        ),
        note=t.text(line, "ram:AssociatedDocumentLineDocument/ram:IncludedNote/ram:Content"),
        order_line=t.text(agreement, "ram:BuyerOrderReferencedDocument/ram:LineID"),
    )


def _allowance_charge(element: ET.Element, currency: str | None) -> AllowanceCharge:
    t = _TREE
    return AllowanceCharge(
        is_charge=(t.text(element, "ram:ChargeIndicator/udt:Indicator") or "").lower() == "true",
        amount=t.amount(element, "ram:ActualAmount", currency),
        reason=t.text(element, "ram:Reason") or t.text(element, "ram:ReasonCode"),
        base=t.amount(element, "ram:BasisAmount", currency),
        percent=t.decimal(element, "ram:CalculationPercent"),
        tax_category=t.text(element, "ram:CategoryTradeTax/ram:CategoryCode"),
        tax_rate=t.decimal(element, "ram:CategoryTradeTax/ram:RateApplicablePercent"),
    )


def _subtotal(element: ET.Element, currency: str | None) -> TaxSubtotal:
    t = _TREE
    return TaxSubtotal(
        base=t.amount(element, "ram:BasisAmount", currency),
        tax=t.amount(element, "ram:CalculatedAmount", currency),
        category=t.text(element, "ram:CategoryCode"),
        rate=t.decimal(element, "ram:RateApplicablePercent"),
        scheme=t.text(element, "ram:TypeCode"),
        exemption_reason=t.text(element, "ram:ExemptionReason")
        or t.text(element, "ram:ExemptionReasonCode"),
    )


def _attachment(reference: ET.Element) -> Attachment:
    t = _TREE
    embedded = t.one(reference, "ram:AttachmentBinaryObject")
    return Attachment(
        reference=t.text(reference, "ram:IssuerAssignedID"),
        description=t.text(reference, "ram:Name"),
        filename=embedded.get("filename") if embedded is not None else None,
        mime_type=embedded.get("mimeCode") if embedded is not None else None,
        size_bytes=base64_size(embedded.text) if embedded is not None else None,
        uri=t.text(reference, "ram:URIID"),
    )
