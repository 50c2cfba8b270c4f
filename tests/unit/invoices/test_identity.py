"""The identity of an invoice passage, as the agent and the judge see it (V2-07, issue 18)."""

from __future__ import annotations

from tanda.passages import passage_from_chunk
from tanda.records.documents import Chunk
from tanda.retrieval.ingest.parsed import ParsedDocument
from tanda.retrieval.ingest.readers import read_xml
from tests.unit.invoices.samples import cii


def test_given_an_invoice_chunk_when_shown_then_its_number_parties_and_currency_are_shown() -> None:
    parsed = read_xml(cii())
    assert isinstance(parsed, ParsedDocument)
    chunk = Chunk(
        chunk_id="c1",
        document_id="d1",
        tenant_id="t1",
        ordinal=0,
        title=parsed.title or "",
        identity=parsed.identity,
        text="1 | Widget | 8 | C62 | 12.50 | 100.00 | S 19%",
        kind="table",
    )

    lines = passage_from_chunk("P1", chunk).identity_lines()

    assert lines == [
        "Dokumen: Invoice CII-1 — Seller GmbH → Buyer AG (2024-01-10)",
        "Jenis dokumen: Invoice (380)",
        "Nomor: CII-1",
        "Tahun: 2024",
        "Tanggal terbit: 2024-01-10",
        "Penjual: Seller GmbH (VAT DE123456789)",
        "Pembeli: Buyer AG",
        "Mata uang: EUR",
    ]
