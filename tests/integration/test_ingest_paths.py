"""ingest_paths end to end over folders on disk (a statute PDF and a budget CSV of the shared
data among them) into the in-memory index: batches survive bad files, re-ingest is idempotent, a
changed file replaces its chunks under the same document id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pypdf import PdfWriter

from tanda.records.documents import SearchScope
from tanda.service.ingest import ingest_paths
from tests.corpus import shared_data
from tests.fakes import HashEmbedder, InMemorySearchIndex

pytestmark = pytest.mark.integration

SCOPE = SearchScope(tenant_id="t1")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    corpus = shared_data("corpus")
    root = tmp_path / "docs"
    (root / "apbd" / "2023").mkdir(parents=True)
    shutil.copy(corpus / "id_laws" / "perpres-83-2025.pdf", root / "perpres-83-2025.pdf")
    shutil.copy(corpus / "apbd_jatim" / "2023" / "Batu.csv", root / "apbd" / "2023" / "Batu.csv")
    (root / "notes.md").write_text("# Catatan\n\n## Rapat\n\nAnggaran disetujui.\n")
    return root


def _only(index: InMemorySearchIndex, title_prefix: str) -> str:
    return next(d.document_id for d in index.documents(SCOPE) if d.title.startswith(title_prefix))


def test_given_corrupt_and_encrypted_pdfs_when_ingested_then_they_are_skipped_and_the_rest_lands(
    folder: Path,
) -> None:
    (folder / "rusak.pdf").write_bytes(b"%PDF-1.7\n garbage \x00\x01\x02 not a pdf at all")
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    writer.encrypt("rahasia")
    with (folder / "terkunci.pdf").open("wb") as fh:
        writer.write(fh)
    index = InMemorySearchIndex()

    report = ingest_paths(index, None, [folder], tenant="t1")

    assert report.added == 3
    reasons = {Path(s.source).name: s.reason for s in report.skipped}
    assert "not a readable PDF" in reasons["rusak.pdf"]
    assert "encrypted PDF" in reasons["terkunci.pdf"]
    assert all(s.failed for s in report.skipped)
    assert report.pages == 9 and report.tables == 1
    assert any("terkunci.pdf: encrypted PDF" in line for line in report.summary_lines())


def test_given_an_ingested_folder_when_ingested_again_then_everything_is_unchanged(
    folder: Path,
) -> None:
    index = InMemorySearchIndex()
    ingest_paths(index, None, [folder], tenant="t1")
    upserts = len(index.upserts)

    report = ingest_paths(index, None, [folder], tenant="t1")

    assert (report.added, report.replaced, report.unchanged) == (0, 0, 3)
    assert len(index.upserts) == upserts  # known by content hash: not parsed, not re-sent


def test_given_a_changed_file_when_ingested_then_it_replaces_its_chunks_under_the_same_id(
    folder: Path,
) -> None:
    index = InMemorySearchIndex()
    ingest_paths(index, None, [folder], tenant="t1")
    document_id = _only(index, "Catatan")
    (folder / "notes.md").write_text("# Catatan\n\n## Rapat\n\nAnggaran ditolak.\n")

    report = ingest_paths(index, None, [folder], tenant="t1")

    assert (report.added, report.replaced, report.unchanged) == (0, 1, 2)
    assert _only(index, "Catatan") == document_id
    chunks = index.document_chunks(SCOPE, document_id)
    assert [(c.section, c.text) for c in chunks] == [("Catatan > Rapat", "Anggaran ditolak.")]


def test_given_an_ingested_folder_when_ingested_into_another_scope_then_it_is_rescoped(
    folder: Path,
) -> None:
    # Given a folder ingested with an embedder into batch b1 and selection "lama"
    index, embedder = InMemorySearchIndex(), HashEmbedder()
    ingest_paths(index, embedder, [folder], tenant="t1", batch="b1", selections=["lama"])
    upserts, embedded = len(index.upserts), len(embedder.calls)

    # When the same files come again with another batch and selection
    report = ingest_paths(index, embedder, [folder], tenant="t1", batch="b2", selections=["baru"])

    # Then every document is rescoped — not parsed, re-chunked, re-embedded or re-sent
    assert (report.added, report.replaced, report.unchanged, report.rescoped) == (0, 0, 0, 3)
    assert [o.status for o in report.outcomes] == ["rescoped"] * 3
    assert report.chunks == 0
    assert len(index.upserts) == upserts and len(embedder.calls) == embedded
    assert "documents: 3 (0 added, 0 replaced, 0 unchanged, 3 rescoped)" in report.summary_lines()
    new_scope = SearchScope(tenant_id="t1", batch_id="b2", selection="baru")
    moved = index.documents(new_scope)
    assert len(moved) == 3
    assert index.documents(SearchScope(tenant_id="t1", selection="lama")) == []
    chunks = [c for d in moved for c in index.document_chunks(new_scope, d.document_id)]
    assert chunks and all(c.batch_id == "b2" and c.selections == ("baru",) for c in chunks)
    assert all(c.embedding is not None for c in chunks)


def test_given_a_document_in_a_selection_when_ingested_without_one_then_it_leaves_it(
    folder: Path,
) -> None:
    index = InMemorySearchIndex()
    ingest_paths(index, None, [folder / "notes.md"], tenant="t1", selections=["rapat"])

    report = ingest_paths(index, None, [folder / "notes.md"], tenant="t1")

    assert report.rescoped == 1
    assert index.documents(SearchScope(tenant_id="t1", selection="rapat")) == []
    again = ingest_paths(index, None, [folder / "notes.md"], tenant="t1")
    assert (again.unchanged, again.rescoped) == (1, 0)
    assert again.summary_lines()[0] == "documents: 1 (0 added, 0 replaced, 1 unchanged)"


def test_given_selections_in_another_order_when_ingested_then_nothing_changes(
    folder: Path,
) -> None:
    index = InMemorySearchIndex()
    ingest_paths(index, None, [folder / "notes.md"], tenant="t1", selections=["a", "b"])
    report = ingest_paths(index, None, [folder / "notes.md"], tenant="t1", selections=["b", "a"])
    assert (report.unchanged, report.rescoped) == (1, 0)
    assert index.rescopes == []


def test_given_the_same_content_when_chunked_twice_then_chunk_ids_are_stable(
    folder: Path,
) -> None:
    first, second = InMemorySearchIndex(), InMemorySearchIndex()
    ingest_paths(first, None, [folder], tenant="t1")
    ingest_paths(second, None, [folder], tenant="t1")
    doc = _only(first, "Peraturan Presiden")
    ids = [c.chunk_id for c in first.document_chunks(SCOPE, doc)]
    assert ids == [c.chunk_id for c in second.document_chunks(SCOPE, doc)]
    assert len(set(ids)) == len(ids)


def test_given_two_tenants_when_the_same_file_is_ingested_then_document_ids_differ(
    folder: Path,
) -> None:
    index = InMemorySearchIndex()
    ingest_paths(index, None, [folder / "notes.md"], tenant="t1")
    ingest_paths(index, None, [folder / "notes.md"], tenant="t2")
    one = index.documents(SearchScope(tenant_id="t1"))[0]
    two = index.documents(SearchScope(tenant_id="t2"))[0]
    assert one.document_id != two.document_id
    assert one.content_hash == two.content_hash


def test_given_an_embedder_when_ingested_then_every_chunk_carries_a_vector(folder: Path) -> None:
    index, embedder = InMemorySearchIndex(), HashEmbedder()
    report = ingest_paths(index, embedder, [folder], tenant="t1", batch="b1", selections=["s"])
    chunks = [
        c for d in index.documents(SCOPE) for c in index.document_chunks(SCOPE, d.document_id)
    ]
    assert len(chunks) == report.chunks
    assert all(c.embedding is not None and len(c.embedding) == 8 for c in chunks)
    assert all(c.batch_id == "b1" and c.selections == ("s",) for c in chunks)


def test_given_a_sidecar_when_ingested_then_its_metadata_overrides_the_identity(
    folder: Path,
) -> None:
    (folder / "notes.md.meta.json").write_text(
        json.dumps({"legal_reference": "Notulen Rapat 1/2024", "year": "2024", "unit": "Biro"})
    )
    index = InMemorySearchIndex()
    report = ingest_paths(index, None, [folder / "notes.md"], tenant="t1")
    document = index.documents(SCOPE)[0]
    assert report.added == 1
    assert document.identity.legal_reference == "Notulen Rapat 1/2024"
    assert document.identity.year == 2024
    assert document.metadata["unit"] == "Biro"
    assert document.title == "Catatan"  # the heading stays the title; identity names the act
    chunk = index.document_chunks(SCOPE, document.document_id)[0]
    assert chunk.identity.legal_reference == "Notulen Rapat 1/2024"


def test_given_unknown_and_hidden_files_when_ingested_then_unknown_is_skipped_hidden_ignored(
    tmp_path: Path,
) -> None:
    (tmp_path / "foto.png").write_bytes(b"\x89PNG")
    (tmp_path / ".rahasia.txt").write_text("tersembunyi")
    (tmp_path / "a.txt").write_text("Teks biasa untuk diuji.")
    report = ingest_paths(InMemorySearchIndex(), None, [tmp_path], tenant="t1")
    assert report.added == 1
    assert [(Path(s.source).name, s.reason, s.failed) for s in report.skipped] == [
        ("foto.png", "unsupported file type .png", False)
    ]


def test_given_a_beir_folder_when_ingested_then_each_line_is_a_document_named_by_its_id(
    tmp_path: Path,
) -> None:
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text(
        '{"_id": "p1", "title": "Jakarta", "text": "Jakarta adalah ibu kota."}\n'
        '{"_id": "p2", "title": "Bandung", "text": "Bandung di Jawa Barat."}\n'
    )
    (beir / "queries.jsonl").write_text('{"_id": "q1", "text": "ibu kota?"}\n')
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tp1\t1\n")
    index = InMemorySearchIndex()

    report = ingest_paths(index, None, [beir], tenant="t1")

    assert report.added == 2 and not report.skipped
    assert sorted(d.document_id for d in index.documents(SCOPE)) == ["p1", "p2"]
    assert index.document_chunks(SCOPE, "p1")[0].text == "Jakarta adalah ibu kota."


def test_given_jsonl_with_metadata_when_ingested_then_metadata_sets_identity(
    tmp_path: Path,
) -> None:
    (tmp_path / "docs.jsonl").write_text(
        json.dumps(
            {
                "document_id": "perda-5",
                "title": "Perda 5/2021",
                "text": "Pasal 1\nRetribusi dihapus.\nPasal 2\nBerlaku sejak diundangkan.",
                "metadata": {"regulation_type": "Peraturan Daerah", "number": "5", "year": 2021},
            }
        )
        + "\n"
    )
    index = InMemorySearchIndex()
    ingest_paths(index, None, [tmp_path], tenant="t1")
    chunks = index.document_chunks(SCOPE, "perda-5")
    assert [c.section for c in chunks] == ["Pasal 1", "Pasal 2"]
    assert chunks[0].identity.regulation_type == "Peraturan Daerah"
    assert chunks[0].identity.year == 2021
    assert chunks[0].title == "Perda 5/2021"


def test_given_a_missing_path_when_ingested_then_it_is_reported_and_the_rest_lands(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("Isi.")
    report = ingest_paths(
        InMemorySearchIndex(), None, [tmp_path / "a.txt", tmp_path / "nope"], tenant="t1"
    )
    assert report.added == 1
    assert report.skipped[0].reason == "no such path"


def test_given_links_out_of_the_folder_when_ingested_then_they_are_skipped_with_a_reason(
    tmp_path: Path,
) -> None:
    # Given a folder with a link to a file outside it, a link to a folder outside it, a link
    # leading out through a second link, and one ordinary file (issue 23)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("Kata sandi rahasia di luar folder.")
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("Teks biasa untuk diuji.")
    (root / "l.md").symlink_to(outside / "secret.md")
    (root / "luar").symlink_to(outside, target_is_directory=True)
    (root / "sub" / "hop.md").symlink_to(Path("..") / "l.md")
    index = InMemorySearchIndex()

    # when the folder is ingested
    report = ingest_paths(index, None, [root], tenant="t1")

    # then nothing outside it is read, and each link out is a line of the report, not a failure.
    reason = "symbolic link to outside the folder (not followed)"
    assert [(s.source, s.reason, s.failed) for s in report.skipped] == [
        (str(root / "l.md"), reason, False),
        (str(root / "luar"), reason, False),
        (str(root / "sub" / "hop.md"), reason, False),
    ]
    assert [d.source for d in index.documents(SCOPE)] == [str(root / "a.txt")]
    assert report.added == 1


def test_given_a_sidecar_linked_out_of_the_folder_when_ingested_then_its_file_is_skipped(
    tmp_path: Path,
) -> None:
    # Given a file whose sidecar is a link to a JSON file outside the folder (issue 23)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kredensial.json").write_text('{"title": "token rahasia"}')
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("Isi dokumen biasa.")
    (root / "a.md.meta.json").symlink_to(outside / "kredensial.json")
    index = InMemorySearchIndex()

    # when the folder is ingested, then the file is skipped rather than titled from outside.
    report = ingest_paths(index, None, [root], tenant="t1")

    reason = "bad a.md.meta.json: symbolic link to outside the folder (not followed)"
    assert [(s.source, s.reason, s.failed) for s in report.skipped] == [
        (str(root / "a.md"), reason, True)
    ]
    assert index.documents(SCOPE) == []


def test_given_links_inside_the_folder_when_ingested_then_each_file_is_read_once(
    tmp_path: Path,
) -> None:
    # Given a file, a link to it, a link to its folder, and a link to a file in a hidden folder
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "isi.md").write_text("Isi yang hanya sekali diindeks.")
    (root / "lagi.md").symlink_to(Path("sub") / "isi.md")
    (root / "sub-lagi").symlink_to("sub", target_is_directory=True)
    (root / ".simpan").mkdir()
    (root / ".simpan" / "arsip.md").write_text("Arsip yang ditautkan.")
    (root / "arsip.md").symlink_to(Path(".simpan") / "arsip.md")
    index = InMemorySearchIndex()

    # when the folder is ingested
    report = ingest_paths(index, None, [root], tenant="t1")

    # then the linked file is one document, under its own path; the hidden one under its link.
    assert not report.skipped
    assert sorted(d.source for d in index.documents(SCOPE)) == [
        str(root / "arsip.md"),
        str(root / "sub" / "isi.md"),
    ]
    assert report.added == 2
