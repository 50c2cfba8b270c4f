"""An electronic invoice as read from its XML (UBL 2.1, UN/CEFACT CII, UBL-TR e-Fatura): one model
for every syntax, so the rendering, the identity and the rules never look at XML again.

Every amount keeps the surface the document wrote (``19.9`` stays ``19.9``) beside its exact
``Decimal`` value: the rendering quotes the surface, the rules compute on the value and round at
the precision the document writes (issue 18).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

Syntax = Literal["UBL", "CII"]
DocumentKind = Literal["invoice", "credit_note"]


@dataclass(frozen=True, slots=True)
class Amount:
    """A number as the document writes it (``surface``) and its exact value."""

    value: Decimal
    surface: str
    currency: str | None = None

    @property
    def decimals(self) -> int:
        """How many decimals the surface shows: the precision its rules compare at."""
        _, _, fraction = self.surface.partition(".")
        return len(fraction)


@dataclass(frozen=True, slots=True)
class PartyId:
    """One identifier of a party: a VAT number, a Turkish VKN or TCKN, a legal registration, a
    GLN… ``scheme`` as written (``VAT``, ``VA``, ``VKN``, ``TCKN``, ``0088``), ``None`` when
    unstated."""

    value: str
    scheme: str | None = None
    kind: Literal["tax", "legal", "party"] = "party"

    def label(self) -> str:
        return f"{self.scheme} {self.value}" if self.scheme else self.value


@dataclass(frozen=True, slots=True)
class Party:
    name: str | None
    ids: tuple[PartyId, ...] = ()
    street: str | None = None
    city: str | None = None
    postcode: str | None = None
    country: str | None = None
    tax_office: str | None = None
    """UBL-TR: the vergi dairesi (``PartyTaxScheme/TaxScheme/Name``)."""

    @property
    def tax_ids(self) -> tuple[PartyId, ...]:
        return tuple(i for i in self.ids if i.kind == "tax")

    def display(self) -> str:
        """``De Koksmaat (VAT NL8200.98.395.B.01)``: the name and its tax ids."""
        name = self.name or "?"
        tax = ", ".join(i.label() for i in self.tax_ids)
        return f"{name} ({tax})" if tax else name

    def address(self) -> str | None:
        place = " ".join(p for p in (self.postcode, self.city) if p)
        return ", ".join(p for p in (self.street, place, self.country) if p) or None


@dataclass(frozen=True, slots=True)
class AllowanceCharge:
    """A document- or line-level allowance (a reduction) or charge (an addition)."""

    is_charge: bool
    amount: Amount | None
    reason: str | None = None
    base: Amount | None = None
    percent: Decimal | None = None
    tax_category: str | None = None
    tax_rate: Decimal | None = None

    @property
    def label(self) -> str:
        return "charge" if self.is_charge else "allowance"


@dataclass(frozen=True, slots=True)
class InvoiceLine:
    line_id: str
    name: str | None
    net_amount: Amount | None
    quantity: Amount | None = None
    unit: str | None = None
    price: Amount | None = None
    price_base_quantity: Amount | None = None
    description: str | None = None
    seller_item_id: str | None = None
    tax_category: str | None = None
    tax_rate: Decimal | None = None
    allowances_charges: tuple[AllowanceCharge, ...] = ()
    note: str | None = None
    order_line: str | None = None


@dataclass(frozen=True, slots=True)
class TaxSubtotal:
    """One line of the tax breakdown: a category and rate, its taxable base and its tax.

    EN 16931 categories (``S``, ``Z``, ``E``, ``AE``, ``K``, ``G``, ``O``, ``L``, ``M``) are in
    ``category``; UBL-TR names the tax by ``type_code`` (``0015`` KDV, ``9015`` KDV tevkifatı) and
    ``scheme`` (its name)."""

    base: Amount | None
    tax: Amount | None
    category: str | None = None
    rate: Decimal | None = None
    scheme: str | None = None
    type_code: str | None = None
    exemption_reason: str | None = None
    withholding: bool = False

    def label(self) -> str:
        name = self.scheme or "VAT"
        if self.type_code and self.scheme:
            name = f"{self.scheme} ({self.type_code})"
        category = f" {self.category}" if self.category else ""
        rate = f" {_percent(self.rate)}" if self.rate is not None else ""
        return f"{name}{category}{rate}".strip()


def _percent(rate: Decimal) -> str:
    text = format(rate.normalize(), "f") if rate == rate.to_integral() else format(rate, "f")
    return f"{text}%"


def percent_text(rate: Decimal) -> str:
    """``21`` → ``21%``, ``19.00`` → ``19%``, ``5.5`` → ``5.5%``."""
    return _percent(rate)


@dataclass(frozen=True, slots=True)
class Totals:
    """The document totals (EN 16931 BG-22). ``None``: the document does not state it."""

    line_net: Amount | None = None
    allowances: Amount | None = None
    charges: Amount | None = None
    tax_exclusive: Amount | None = None
    tax: Amount | None = None
    tax_inclusive: Amount | None = None
    prepaid: Amount | None = None
    rounding: Amount | None = None
    payable: Amount | None = None
    withholding: Amount | None = None  # UBL-TR: tevkifat, withheld from what is paid


@dataclass(frozen=True, slots=True)
class Attachment:
    """A document the invoice carries or points to. Embedded bytes are never text: only their
    name, type and size are kept."""

    reference: str | None
    description: str | None = None
    filename: str | None = None
    mime_type: str | None = None
    size_bytes: int | None = None
    uri: str | None = None


@dataclass(frozen=True, slots=True)
class Invoice:
    syntax: Syntax
    kind: DocumentKind
    number: str | None
    type_code: str | None
    issue_date: str | None
    currency: str | None
    seller: Party
    buyer: Party
    lines: tuple[InvoiceLine, ...]
    totals: Totals
    tax_subtotals: tuple[TaxSubtotal, ...] = ()
    allowances_charges: tuple[AllowanceCharge, ...] = ()
    due_date: str | None = None
    tax_point_date: str | None = None
    delivery_date: str | None = None
    period: tuple[str | None, str | None] | None = None
    customization_id: str | None = None
    profile_id: str | None = None
    order_reference: str | None = None
    buyer_reference: str | None = None
    contract_reference: str | None = None
    preceding_invoices: tuple[str, ...] = ()
    despatch_references: tuple[str, ...] = ()
    payment_terms: tuple[str, ...] = ()
    payment_accounts: tuple[str, ...] = ()
    payment_reference: str | None = None
    notes: tuple[str, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    tax_currency: str | None = None
    uuid: str | None = None  # UBL-TR: ETTN
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def is_ubl_tr(self) -> bool:
        """UBL-TR e-Fatura / e-Arşiv: ``CustomizationID`` ``TR1.x``."""
        return bool(self.customization_id and self.customization_id.upper().startswith("TR1."))

    @property
    def kind_label(self) -> str:
        if self.is_ubl_tr:
            return "e-Fatura"
        return "Credit note" if self.kind == "credit_note" else "Invoice"

    @property
    def line_label(self) -> str:
        return "credit note line" if self.kind == "credit_note" else "invoice line"
