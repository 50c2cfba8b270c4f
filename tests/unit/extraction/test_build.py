"""One document → its records: numbered in document order, anchored in the stored text (ASK-14)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tanda.adapters.offline import OfflineModel
from tanda.extraction import build_structure, claim_batches, quote_matches, read_proposals
from tanda.records.structure import NODE_KINDS, STRUCTURE_RECORD
from tanda.retrieval.ingest.readers import read_csv

from .conftest import from_text, ingested

DEMO = Path(__file__).resolve().parents[3] / "demo" / "corpus"
STATUTE = (
    "UNDANG-UNDANG REPUBLIK INDONESIA NOMOR 7 TAHUN 2024\n\nBAB I\nKETENTUAN UMUM\n\nPasal 1\n"
    "Dalam Undang-Undang ini yang dimaksud dengan data adalah keterangan yang benar.\n\n"
    "Pasal 2\nPemberitahuan disampaikan paling lambat 14 (empat belas) hari sejak diterima.\n\n"
    "Pasal 3\nSetiap orang dipidana dengan denda paling banyak Rp1.000.000.000,00.\n\n"
    "Ditetapkan di Jakarta pada tanggal 2 Januari 2024"
)


def _with_claims(document, chunks):  # type: ignore[no-untyped-def]
    model = OfflineModel()
    proposals = [
        proposal
        for batch in claim_batches(document, chunks)
        for proposal in read_proposals(batch, model.complete(batch.request).content, "offline")
    ]
    return build_structure(document, chunks, proposals)


def test_every_record_is_anchored_in_the_stored_text_of_its_chunk() -> None:
    for document, chunks in (
        from_text(STATUTE),
        ingested(
            read_csv(
                (DEMO / "apbd" / "2023" / "Surabaya.csv").read_bytes(),
                path=PurePosixPath("apbd/2023/Surabaya.csv"),
            ),
            target=400,
        ),
    ):
        records = _with_claims(document, chunks).records
        assert "rule" in {r.kind for r in records}
        by_id = {c.chunk_id: c for c in chunks}
        for record in records:
            stored = by_id[record.chunk_id].text
            assert record.quote == stored[record.span.start : record.span.end], record.node_id
            assert quote_matches(stored, record.span.start, record.span.end, record.quote)
            assert record.page_no == by_id[record.chunk_id].page_no
            assert (record.tenant_id, record.document_id) == (document.tenant_id, "d1")


def test_records_are_numbered_in_document_order_with_unique_node_ids() -> None:
    document, chunks = from_text(STATUTE)
    records = _with_claims(document, chunks).records
    assert [r.ordinal for r in records] == list(range(len(records)))
    assert len({r.node_id for r in records}) == len(records)
    assert all(r.node_id.startswith("d1:") for r in records)
    order = {c.chunk_id: c.ordinal for c in chunks}
    positions = [(order[r.chunk_id], r.span.start) for r in records]
    assert positions == sorted(positions)


def test_the_same_document_gives_the_same_records() -> None:
    document, chunks = from_text(STATUTE)
    assert _with_claims(document, chunks).records == _with_claims(document, chunks).records


def test_every_kind_round_trips_through_its_stored_json() -> None:
    document, chunks = ingested(
        read_csv(
            (DEMO / "apbd" / "2023" / "Surabaya.csv").read_bytes(),
            path=PurePosixPath("apbd/2023/Surabaya.csv"),
        )
    )
    records = [*_with_claims(document, chunks).records, *_with_claims(*from_text(STATUTE)).records]
    assert {r.kind for r in records} == set(NODE_KINDS)
    for record in records:
        assert STRUCTURE_RECORD.validate_json(record.model_dump_json()) == record
