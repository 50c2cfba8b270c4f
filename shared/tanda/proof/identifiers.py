"""Identifiers an answer writes, which are not quantities (ASK-11, issue 23).

An invoice number, an order or buyer reference, a tax or legal id, an IBAN or a document uuid is
a name written with digits: ``Invoice no = 0`` states no value that could be observed, computed
or missed, so the proof chain neither counts it as an ``observed`` step (``0`` found in the
invoice said nothing about the answer being right) nor reports it as a hole. A date inside such
an identifier (``Order 2023-01-15/4``) is part of the name too. Dates, amounts and counts that
are not named as an identifier stay values.

Two forms are read: an evidence line of the structure layer (``REFERENCE: Buyer reference =
04011000-12345-34``, docs/evidence.md), whose whole value is the identifier, and an identifier
named in prose — a label ending in an identifier noun (``invoice no. 12115118``, ``seller tax id
DE123456789``, ``order reference: PO-4711``, ``fatura no ABC2009000000123``) or an invoice named
with its number (``invoice 20150483``).
"""

from __future__ import annotations

import re
from typing import Final

_EVIDENCE_LINE: Final = re.compile(r"REFERENCE:[^=\n]*=[ \t]*(?P<value>[^\n\[]*[^\s\[])")
_QUALIFIER: Final = (
    r"(?:invoice|credit\s+note|order|purchase\s+order|buyer|seller|customer|supplier|party|"
    r"tax|vat|legal|contract|despatch|dispatch|delivery|document|account|registration|"
    r"fatura|sipariş|vergi|faktur|pesanan|sözleşme)"
)
_NOUN: Final = (
    r"(?:no\.?|nr\.?|number|num\.?|id|identifier|reference|ref\.?|uuid|iban|ettn|"
    r"numarası|numarasi|nomor|kimlik(?:\s+no)?)"
)
_VALUE: Final = r"(?P<value>[A-Za-z0-9][A-Za-z0-9./_:-]*[A-Za-z0-9]|[0-9])"
_NAMED: Final = re.compile(
    rf"\b(?:{_QUALIFIER}\s+){{1,3}}{_NOUN}(?!\s+of\b)\s*(?:[:=#]|is)?\s*{_VALUE}", re.IGNORECASE
)
_STANDALONE: Final = re.compile(rf"\b(?:uuid|iban|ettn)\s*[:=#]?\s*{_VALUE}", re.IGNORECASE)
_INVOICE_NUMBER: Final = re.compile(
    r"\b(?:invoice|fatura|faktur)\s+(?P<value>[A-Za-z0-9][A-Za-z0-9/_-]*\d[A-Za-z0-9/_-]*)"
    r"(?![.,]\d)",
    re.IGNORECASE,
)


def identifier_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` writes identifiers: ``(start, end)`` code point offsets, in order."""
    spans = {
        m.span("value")
        for pattern in (_EVIDENCE_LINE, _NAMED, _STANDALONE, _INVOICE_NUMBER)
        for m in pattern.finditer(text)
    }
    return sorted(spans)


def overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """``[start, end)`` overlaps one of ``spans``: a number read from an identifier (``no.
    12115118`` read as an ordinal spans the identifier's label too)."""
    return any(start < e and s < end for s, e in spans)
