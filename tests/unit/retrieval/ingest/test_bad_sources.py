"""One bad file never stops an ingest (issue 11): every reader error of one source is a line in
the report with a reason, and every good source beside it still lands."""

from __future__ import annotations

import json
import logging
from pathlib import Path, PurePosixPath

import pytest

from tanda.records.documents import SearchScope
from tanda.retrieval.ingest.parsed import ParsedDocument, Skipped
from tanda.retrieval.ingest.readers import read_csv, read_text
from tanda.service.ingest import IngestReport, ingest_paths
from tests.fakes import InMemorySearchIndex
from tests.unit.retrieval.ingest.sample_sources import write_good_sources

SCOPE = SearchScope(tenant_id="t1")


def _ingest(root: Path) -> tuple[InMemorySearchIndex, IngestReport]:
    index = InMemorySearchIndex()
    return index, ingest_paths(index, None, [root], tenant="t1")


def _reasons(report: IngestReport) -> dict[str, tuple[str, bool]]:
    return {Path(s.source).name: (s.reason, s.failed) for s in report.skipped}


def _assert_good_sources_indexed(index: InMemorySearchIndex, good: dict[str, str]) -> None:
    texts = {
        d.source: " ".join(c.text for c in index.document_chunks(SCOPE, d.document_id))
        for d in index.documents(SCOPE)
    }
    for source, phrase in good.items():
        assert phrase in texts.get(source, ""), source


def test_given_a_binary_file_named_csv_when_ingested_then_it_is_skipped_and_the_rest_lands(
    tmp_path: Path,
) -> None:
    good = write_good_sources(tmp_path)
    # Bytes that made csv.reader raise "new-line character seen in unquoted field".
    (tmp_path / "foto.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\x7f\xfe,\r;")

    index, report = _ingest(tmp_path)

    assert _reasons(report)["foto.csv"] == ("not a text file (binary content)", True)
    _assert_good_sources_indexed(index, good)
    assert report.added == len(good)


def test_given_a_csv_cell_over_128_kib_when_ingested_then_it_is_skipped_with_its_line(
    tmp_path: Path,
) -> None:
    good = write_good_sources(tmp_path)
    (tmp_path / "besar.csv").write_text('akun,catatan\nPendapatan,"' + "x" * (140 * 1024) + '"\n')

    index, report = _ingest(tmp_path)

    reason, failed = _reasons(report)["besar.csv"]
    assert failed
    assert reason == "not a readable CSV (line 2: field larger than field limit (131072))"
    _assert_good_sources_indexed(index, good)


def test_given_a_deeply_nested_jsonl_line_when_ingested_then_only_that_line_is_skipped(
    tmp_path: Path,
) -> None:
    good = write_good_sources(tmp_path)
    deep = '{"text": "x", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}"
    fine = json.dumps({"document_id": "after", "text": "Baris sesudahnya tetap masuk."})
    (tmp_path / "dalam.jsonl").write_text(deep + "\n" + fine + "\n")

    index, report = _ingest(tmp_path)

    assert [(s.source, s.reason) for s in report.skipped] == [
        (f"{tmp_path / 'dalam.jsonl'}#1", "line 1: not JSON (nested too deeply)")
    ]
    assert index.document_chunks(SCOPE, "after")[0].text == "Baris sesudahnya tetap masuk."
    _assert_good_sources_indexed(index, good)


def test_given_a_lone_surrogate_in_a_jsonl_line_when_ingested_then_that_line_is_skipped_as_not_text(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Given a JSONL file whose third line escapes a lone surrogate (in its text, or in a key)
    lines = [
        json.dumps({"document_id": "first", "text": "Baris pertama masuk."}),
        json.dumps({"document_id": "second", "text": "Baris kedua masuk."}),
        '{"document_id": "bad", "text": "Ada \\ud800 di sini."}',
        '{"document_id": "bad-key", "text": "Kunci buruk.", "metadata": {"\\udfff": 1}}',
        json.dumps({"document_id": "pair", "text": "Sepasang \U0001f600 tetap teks."}),
    ]
    (tmp_path / "campur.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    # when it is ingested
    with caplog.at_level(logging.ERROR):
        index, report = _ingest(tmp_path)

    # then only those lines are skipped, with an ordinary reason and no traceback (issue 23),
    source = tmp_path / "campur.jsonl"
    assert [(s.source, s.reason, s.failed) for s in report.skipped] == [
        (f"{source}#3", "line 3: not text (a lone surrogate)", True),
        (f"{source}#4", "line 4: not text (a lone surrogate)", True),
    ]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    # and the other lines land, an escaped surrogate pair (one astral character) among them.
    assert sorted(d.document_id for d in index.documents(SCOPE)) == ["first", "pair", "second"]
    assert "\U0001f600" in index.document_chunks(SCOPE, "pair")[0].text


def test_given_a_lone_surrogate_in_a_sidecar_when_ingested_then_its_file_is_skipped_as_not_text(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "isi.md").write_text("# Judul\n\nAda isinya.\n", encoding="utf-8")
    (tmp_path / "isi.md.meta.json").write_text('{"title": "Judul \\ud800"}', encoding="utf-8")
    (tmp_path / "lain.txt").write_text("Berkas lain masuk.", encoding="utf-8")

    with caplog.at_level(logging.ERROR):
        index, report = _ingest(tmp_path)

    assert _reasons(report) == {
        "isi.md": ("bad isi.md.meta.json: not text (a lone surrogate)", True)
    }
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [d.source for d in index.documents(SCOPE)] == [str(tmp_path / "lain.txt")]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("kosong.txt", b""),
        ("spasi.txt", b"  \n\t\n\r\n"),
        ("kosong.md", b""),
        ("spasi.markdown", b"\n   \n"),
        ("judul-saja.md", b"# Judul\n\n## Bagian\n"),
    ],
)
def test_given_an_empty_text_or_markdown_file_when_ingested_then_it_is_skipped_not_indexed(
    tmp_path: Path, name: str, content: bytes
) -> None:
    (tmp_path / name).write_bytes(content)
    (tmp_path / "isi.txt").write_text("Ada isinya.")

    index, report = _ingest(tmp_path)

    assert _reasons(report) == {name: ("nothing to index (no text)", False)}
    assert [d.source for d in index.documents(SCOPE)] == [str(tmp_path / "isi.txt")]
    assert report.added == 1


def test_given_a_reader_that_raises_when_ingested_then_the_source_is_skipped_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Given a reader with a bug (one that no reason was written for) on one file only
    good = write_good_sources(tmp_path)
    (tmp_path / "pemicu.txt").write_text("Teks yang memicu galat.")

    def buggy_read_text(data: bytes, *, name: str) -> ParsedDocument | Skipped:
        if name == "pemicu.txt":
            raise ZeroDivisionError("division by zero")
        return read_text(data, name=name)

    monkeypatch.setattr("tanda.service.ingest.read_text", buggy_read_text)

    # When the folder is ingested
    with caplog.at_level(logging.ERROR, logger="tanda.service.ingest"):
        index, report = _ingest(tmp_path)

    # Then that file is a line with a reason, the rest lands, and the traceback is in the log
    assert _reasons(report)["pemicu.txt"] == (
        "could not be read (ZeroDivisionError: division by zero)",
        True,
    )
    _assert_good_sources_indexed(index, good)
    [record] = caplog.records
    assert "pemicu.txt" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[0] is ZeroDivisionError


def test_given_a_csv_with_carriage_return_line_ends_when_read_then_each_line_is_a_row() -> None:
    parsed = read_csv(
        b'akun,anggaran\r"Belanja\rPegawai",12\rPendapatan,30\r', path=PurePosixPath("t.csv")
    )
    assert isinstance(parsed, ParsedDocument)
    [table] = parsed.blocks
    assert table.rows == (("Belanja\rPegawai", "12"), ("Pendapatan", "30"))  # type: ignore[union-attr]


def test_given_utf16_text_with_a_bom_when_ingested_then_it_is_read_as_text(tmp_path: Path) -> None:
    (tmp_path / "windows.txt").write_bytes("Anggaran daerah Ğ ş ı.".encode("utf-16"))
    index, report = _ingest(tmp_path)
    assert not report.skipped
    [document] = index.documents(SCOPE)
    assert index.document_chunks(SCOPE, document.document_id)[0].text == "Anggaran daerah Ğ ş ı."
