"""ASK-04: numbered context blocks headed with document, page and section, separated by ---."""

from __future__ import annotations

from tanda.ask.context import context_blocks, number_sources, source_header
from tanda.records.documents import Chunk, LegalIdentity


def chunk(n: int, **extra: object) -> Chunk:
    fields: dict[str, object] = {
        "chunk_id": f"c{n}",
        "document_id": "d1",
        "tenant_id": "t",
        "ordinal": n,
        "title": "Fatura 42",
        "text": f"Metin {n}.",
        **extra,
    }
    return Chunk.model_validate(fields)


def test_blocks_are_numbered_headed_and_separated() -> None:
    sources = number_sources(
        [chunk(1, page_no=3, section="Ödeme Koşulları"), chunk(2), chunk(3, page_no=4)]
    )
    assert [s.source_no for s in sources] == [1, 2, 3]
    assert context_blocks(sources) == (
        "[S1] [Kaynak: belge=Fatura 42, sayfa=3, bolum=Ödeme Koşulları]\nMetin 1.\n---\n"
        "[S2] [Kaynak: belge=Fatura 42, sayfa=-, bolum=-]\nMetin 2.\n---\n"
        "[S3] [Kaynak: belge=Fatura 42, sayfa=4, bolum=-]\nMetin 3."
    )


def test_the_header_names_the_legal_reference_and_stays_one_line() -> None:
    identity = LegalIdentity(legal_reference="Qanun Aceh Nomor 1 Tahun 2023")
    (source,) = number_sources([chunk(1, identity=identity, section="BAB II]\n> Pasal 5")])
    assert source_header(source) == (
        "[S1] [Kaynak: belge=Qanun Aceh Nomor 1 Tahun 2023, sayfa=-, bolum=BAB II) > Pasal 5]"
    )
