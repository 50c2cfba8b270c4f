"""Reading invoice XML safely: a hardened parser, detection by root element and namespace, and the
small helpers both syntaxes use to walk a tree.

``defusedxml`` refuses any DTD, entity declaration and external reference before anything is
resolved: an XXE file or a billion-laughs bomb is a reason in the ingest report, and nothing is
read from disk or network (issue 18).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden
from defusedxml.ElementTree import fromstring

from tanda.invoices.model import Amount

UBL_INVOICE_NS = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
UBL_CREDIT_NOTE_NS = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
CII_NS = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"

Flavour = Literal["ubl_invoice", "ubl_credit_note", "cii"]
_ROOTS: dict[str, Flavour] = {
    f"{{{UBL_INVOICE_NS}}}Invoice": "ubl_invoice",
    f"{{{UBL_CREDIT_NOTE_NS}}}CreditNote": "ubl_credit_note",
    f"{{{CII_NS}}}CrossIndustryInvoice": "cii",
}

NOT_AN_INVOICE_PREFIX = "XML but not an invoice"
REFUSED_REASON = "XML refused: {what} (DTDs, entities and external references are never read)"


@dataclass(frozen=True, slots=True)
class NotAnInvoice:
    """Why an XML source is not read as an invoice (one line of the ingest report)."""

    reason: str


def parse_invoice_tree(data: bytes) -> tuple[Flavour, ET.Element] | NotAnInvoice:
    """The root element of an invoice and which syntax it is, or why it is not read.

    ``forbid_dtd``: even an innocent ``<!DOCTYPE>`` is refused, since an invoice never needs one
    and a DTD is where entity bombs and external references live."""
    try:
        root = fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DTDForbidden:
        return NotAnInvoice(REFUSED_REASON.format(what="it declares a DTD"))
    except EntitiesForbidden:
        return NotAnInvoice(REFUSED_REASON.format(what="it declares entities"))
    except DefusedXmlException as exc:
        return NotAnInvoice(REFUSED_REASON.format(what=type(exc).__name__))
    except ET.ParseError as exc:
        return NotAnInvoice(f"not well-formed XML ({_one_line(str(exc))})")
    flavour = _ROOTS.get(root.tag)
    if flavour is None:
        return NotAnInvoice(f"{NOT_AN_INVOICE_PREFIX} (root element {_readable_tag(root.tag)})")
    return flavour, root


def _readable_tag(tag: str) -> str:
    namespace, _, local = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    return f"{local} in {namespace}" if namespace else local


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()[:160] or "no detail"


class Tree:
    """Namespace-prefixed paths over one element (``cac:Party/cbc:Name``)."""

    def __init__(self, namespaces: dict[str, str]) -> None:
        self.ns = namespaces

    def all(self, element: ET.Element | None, path: str) -> list[ET.Element]:
        return [] if element is None else element.findall(path, self.ns)

    def one(self, element: ET.Element | None, path: str) -> ET.Element | None:
        return None if element is None else element.find(path, self.ns)

    def text(self, element: ET.Element | None, path: str) -> str | None:
        """The text at ``path``, whitespace-collapsed; ``None`` when absent or empty."""
        found = self.one(element, path)
        if found is None or found.text is None:
            return None
        text = re.sub(r"\s+", " ", found.text).strip()
        return text or None

    def texts(self, element: ET.Element | None, path: str) -> tuple[str, ...]:
        out = []
        for found in self.all(element, path):
            text = re.sub(r"\s+", " ", found.text or "").strip()
            if text:
                out.append(text)
        return tuple(out)

    def amount(
        self, element: ET.Element | None, path: str, currency: str | None = None
    ) -> Amount | None:
        found = self.one(element, path)
        return amount_of(found, currency)

    def decimal(self, element: ET.Element | None, path: str) -> Decimal | None:
        text = self.text(element, path)
        return decimal_of(text)


def decimal_of(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def amount_of(element: ET.Element | None, currency: str | None = None) -> Amount | None:
    """An amount element → ``Amount``; its ``currencyID`` wins over the document's currency.
    ``None`` when absent or not a number."""
    if element is None or element.text is None:
        return None
    surface = element.text.strip()
    value = decimal_of(surface)
    if value is None:
        return None
    return Amount(value=value, surface=surface, currency=element.get("currencyID") or currency)


def base64_size(encoded: str | None) -> int | None:
    """The size in bytes of base64 content, counted without decoding or keeping it: an embedded
    attachment is not text (issue 18)."""
    if not encoded:
        return None
    length = 0
    padding = 0
    for part in encoded.split():
        length += len(part)
        padding = len(part) - len(part.rstrip("="))
    return max(length * 3 // 4 - padding, 0)
