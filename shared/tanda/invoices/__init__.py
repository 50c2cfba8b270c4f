"""Invoices as documents (issue 18): UBL 2.1 ``Invoice`` / ``CreditNote``, UN/CEFACT CII
``CrossIndustryInvoice`` (EN 16931) and UBL-TR e-Fatura, read with a hardened XML parser into one
model, rendered as readable text, given the identity the judge sees, and checked against their
own arithmetic (EN 16931 BR-CO rules, the due date, each tax subtotal).

Pure domain (DESIGN §2): bytes in, values out; no I/O, no clock. See docs/invoices.md.
"""

from tanda.invoices.identity import invoice_identity
from tanda.invoices.model import Amount, Invoice, InvoiceLine, Party, TaxSubtotal, Totals
from tanda.invoices.read import read_invoice
from tanda.invoices.render import Rendering, TablePart, TextPart, render_invoice
from tanda.invoices.rules import LineSummary, RuleCheck, evaluate_rules, line_summary
from tanda.invoices.xml import NotAnInvoice

__all__ = [
    "Amount",
    "Invoice",
    "InvoiceLine",
    "LineSummary",
    "NotAnInvoice",
    "Party",
    "Rendering",
    "RuleCheck",
    "TablePart",
    "TaxSubtotal",
    "TextPart",
    "Totals",
    "evaluate_rules",
    "invoice_identity",
    "line_summary",
    "read_invoice",
    "render_invoice",
]
