"""What the agent and the judge see as an invoice passage's source (V2-07, issue 18): the
document type, its number and issue date, the seller and the buyer with their tax ids, and the
currency — so a statement about "invoice 12115118 of De Koksmaat" is judged against that invoice
and no other."""

from __future__ import annotations

from tanda.invoices.model import Invoice
from tanda.records.documents import LegalIdentity


def invoice_identity(invoice: Invoice) -> LegalIdentity:
    year = invoice.issue_date[:4] if invoice.issue_date else ""
    return LegalIdentity(
        document_type=document_type(invoice),
        number=invoice.number,
        year=int(year) if year.isdecimal() else None,
        issue_date=invoice.issue_date,
        seller=invoice.seller.display(),
        buyer=invoice.buyer.display(),
        currency=invoice.currency,
    )


def document_type(invoice: Invoice) -> str:
    """``Invoice (380)``, ``Credit note (381)``, ``e-Fatura (TICARIFATURA, SATIS)``,
    ``e-Arşiv fatura (EARSIVFATURA, IADE)``."""
    if invoice.is_ubl_tr:
        archive = (invoice.profile_id or "").upper() == "EARSIVFATURA"
        name = "e-Arşiv fatura" if archive else "e-Fatura"
        codes = [c for c in (invoice.profile_id, invoice.type_code) if c]
    else:
        name = invoice.kind_label
        codes = [invoice.type_code] if invoice.type_code else []
    return f"{name} ({', '.join(codes)})" if codes else name
