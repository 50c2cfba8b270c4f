"""The corpora of the tests: a small budget corpus shared by pipeline and HTTP tests (one Qanun
with identity, put into any ``SearchIndex`` under a tenant), and the shared data beside the
checkout (statute PDFs, budget CSVs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tanda.ports import SearchIndex
from tanda.records.documents import Chunk, Document, LegalIdentity

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
"""``../shared/data``, beside the checkout (the README's layout; a git worktree at …/wt/<name>
finds it through …/wt/shared)."""


def shared_data(*parts: str) -> Path:
    """The path ``parts`` inside ``../shared/data``. CI always has the shared data, so a test that
    needs it fails with this message when it is missing, and never skips (issue 12)."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.fail(
            f"../shared/data is missing: {path} does not exist. Tests that read the shared data "
            "(statute PDFs, budget CSVs) need it beside the checkout, as CI has it.",
            pytrace=False,
        )
    return path


QUESTION = "Berapa anggaran pendidikan Aceh tahun 2023?"
QANUN = LegalIdentity(
    legal_reference="Qanun Aceh Nomor 1 Tahun 2023 tentang APBA Tahun Anggaran 2023",
    regulation_type="Qanun",
    number="1",
    year=2023,
    publisher="Pemerintah Aceh",
)
TEXTS = [
    "Anggaran pendidikan 2023 adalah Rp 5 miliar. Anggaran kesehatan 2023 adalah Rp 3 miliar.",
    "Belanja pegawai tahun 2022 mencapai Rp 871.667.219.294.",
]


def add_qanun(
    index: SearchIndex,
    tenant: str,
    doc_id: str = "qanun-2023",
    texts: list[str] | None = None,
    selections: tuple[str, ...] = (),
    batch_id: str | None = None,
) -> None:
    texts = TEXTS if texts is None else texts
    document = Document(
        document_id=doc_id,
        tenant_id=tenant,
        title="Qanun Anggaran",
        source=f"{doc_id}.pdf",
        content_hash=f"{doc_id}:{len(texts)}",
        identity=QANUN,
        selections=selections,
        batch_id=batch_id,
    )
    chunks = [
        Chunk(
            chunk_id=f"{tenant}:{doc_id}#{i}",
            document_id=doc_id,
            tenant_id=tenant,
            ordinal=i,
            title="Qanun Anggaran",
            identity=QANUN,
            page_no=i + 1,
            section="BAB II > Pasal 5",
            text=text,
            selections=selections,
            batch_id=batch_id,
        )
        for i, text in enumerate(texts)
    ]
    index.upsert_document(document, chunks)
