"""Bytes → an :class:`~tanda.invoices.model.Invoice`, or why they are not read as one."""

from __future__ import annotations

from tanda.invoices.cii import read_cii
from tanda.invoices.model import Invoice
from tanda.invoices.ubl import read_ubl
from tanda.invoices.xml import NotAnInvoice, parse_invoice_tree


def read_invoice(data: bytes) -> Invoice | NotAnInvoice:
    """UBL 2.1 ``Invoice`` / ``CreditNote`` (UBL-TR included) or CII ``CrossIndustryInvoice``,
    told apart by the root element and its namespace; any other XML, a malformed file, or one
    declaring a DTD or entities is :class:`NotAnInvoice` with the reason."""
    parsed = parse_invoice_tree(data)
    if isinstance(parsed, NotAnInvoice):
        return parsed
    flavour, root = parsed
    if flavour == "cii":
        return read_cii(root)
    return read_ubl(root, credit_note=flavour == "ubl_credit_note")
