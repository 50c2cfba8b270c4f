"""`tanda ingest` through the CLI into a real SQLite index file (TANDA_HOME in tmp)."""

from __future__ import annotations

import itertools
import logging
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tanda.cli import main
from tanda.service.ingest import SUPPORTED_SUFFIXES
from tests.corpus import shared_data
from tests.unit.invoices.samples import cii
from tests.unit.retrieval.ingest.sample_sources import STATUTE_TEXT, text_pdf, write_good_sources

pytestmark = pytest.mark.integration


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    corpus = shared_data("corpus")
    root = tmp_path / "docs"
    (root / "apbd" / "2023").mkdir(parents=True)
    shutil.copy(corpus / "id_laws" / "perpres-82-2023.pdf", root)
    shutil.copy(corpus / "apbd_jatim" / "2023" / "Surabaya.csv", root / "apbd" / "2023")
    (root / "rusak.pdf").write_bytes(b"%PDF-1.4 broken")
    return root


def test_given_a_folder_when_tanda_ingest_runs_twice_then_it_adds_then_reports_unchanged(
    home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    first = capsys.readouterr().out
    assert "documents: 2 (2 added, 0 replaced, 0 unchanged)" in first
    assert "rusak.pdf: not a readable PDF" in first
    assert "pages: 13 · tables: 1" in first

    assert main(["ingest", str(docs), "--tenant", "t1", "--no-progress"]) == 0
    second = capsys.readouterr().out
    assert "documents: 2 (0 added, 0 replaced, 2 unchanged)" in second

    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.records.documents import SearchQuery, SearchScope

    index = SqliteSearchIndex(home / "index.sqlite")
    hits = index.search(
        SearchQuery(text="Aplikasi SPBE Prioritas", scope=SearchScope(tenant_id="t1"))
    )
    assert hits and hits[0].chunk.identity.regulation_type == "Peraturan Presiden"
    assert hits[0].chunk.section is not None and "Pasal" in hits[0].chunk.section


def test_given_ingested_files_when_ingested_into_another_selection_then_they_move_there(
    home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["ingest", str(docs), "--tenant", "t1", "--no-progress"]
    assert main([*base, "--selection", "pdp"]) == 0
    capsys.readouterr()

    assert main([*base, "--selection", "spbe", "--batch", "2025-q1"]) == 0

    out = capsys.readouterr().out
    assert "documents: 2 (0 added, 0 replaced, 0 unchanged, 2 rescoped)" in out
    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.records.documents import SearchQuery, SearchScope

    index = SqliteSearchIndex(home / "index.sqlite")
    try:
        text = "Aplikasi SPBE Prioritas"
        moved = SearchScope(tenant_id="t1", selection="spbe", batch_id="2025-q1")
        hits = index.search(SearchQuery(text=text, scope=moved))
        assert hits and all(h.chunk.selections == ("spbe",) for h in hits)
        left = SearchScope(tenant_id="t1", selection="pdp")
        assert index.search(SearchQuery(text=text, scope=left)) == []
        assert index.documents(left) == []
    finally:
        index.close()


def test_given_only_missing_paths_when_tanda_ingest_runs_then_it_fails_clearly(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(tmp_path / "nope"), "--no-progress"]) == 2
    assert "no such path" in capsys.readouterr().err


def test_given_only_unreadable_files_when_tanda_ingest_runs_then_exit_is_non_zero(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rusak.pdf").write_bytes(b"not a pdf")
    assert main(["ingest", str(tmp_path / "rusak.pdf"), "--no-progress"]) == 1
    assert "rusak.pdf: not a readable PDF" in capsys.readouterr().out


def test_given_a_link_to_a_file_outside_when_tanda_ingest_runs_then_it_is_not_indexed(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the probe of issue 23: `ln -s /etc/passwd x/l.md` beside one ordinary file
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    root = tmp_path / "x"
    root.mkdir()
    (root / "l.md").symlink_to(secret)
    (root / "catatan.txt").write_text("Anggaran disetujui dalam rapat.")

    # when the folder is ingested,
    assert main(["ingest", str(root), "--tenant", "H", "--no-progress"]) == 0

    # then the link is a line of the report and the index holds only the ordinary file.
    out = capsys.readouterr().out
    assert f"  {root / 'l.md'}: symbolic link to outside the folder (not followed)" in out
    assert list(_indexed_sources(home, "H")) == [str(root / "catatan.txt")]


def _indexed_sources(home: Path, tenant: str) -> dict[str, str]:
    """Each indexed document's source → its chunks' text, read back from the SQLite file."""
    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.records.documents import SearchScope

    index = SqliteSearchIndex(home / "index.sqlite")
    try:
        scope = SearchScope(tenant_id=tenant)
        return {
            d.source: " ".join(c.text for c in index.document_chunks(scope, d.document_id))
            for d in index.documents(scope)
        }
    finally:
        index.close()


def test_given_bad_files_beside_good_ones_when_tanda_ingest_runs_then_each_bad_one_is_a_line(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the three files that stopped `tanda ingest` with a traceback, and an empty one
    root = tmp_path / "docs"
    good = write_good_sources(root)
    (root / "foto.csv").write_bytes(bytes(range(256)) * 8)
    (root / "besar.csv").write_text('akun,catatan\nPendapatan,"' + "x" * (140 * 1024) + '"\n')
    (root / "dalam.jsonl").write_text('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    (root / "kosong.md").write_text("  \n")

    # When it runs
    code = main(["ingest", str(root), "--tenant", "t1", "--no-progress"])

    # Then each is one line with its reason and every good file is indexed
    out = capsys.readouterr().out
    assert code == 0
    assert f"documents: {len(good)} ({len(good)} added, 0 replaced, 0 unchanged)" in out
    assert f"  {root / 'foto.csv'}: not a text file (binary content)" in out
    assert f"  {root / 'besar.csv'}: not a readable CSV (line 2: field larger than field" in out
    assert f"  {root / 'dalam.jsonl'}#1: line 1: not JSON (nested too deeply)" in out
    assert f"  {root / 'kosong.md'}: nothing to index (no text)" in out
    indexed = _indexed_sources(home, "t1")
    assert set(indexed) == set(good)
    assert all(phrase in indexed[source] for source, phrase in good.items())


_GOOD_SAMPLES = {
    ".pdf": text_pdf(["Pasal 1", "Isi (pertama)."]),
    ".csv": b'akun,anggaran\nPendapatan,"1,5 M"\n',
    ".jsonl": b'{"document_id": "x", "text": "Isi.", "metadata": {"year": 2020}}\n',
    ".txt": STATUTE_TEXT.encode(),
    ".md": b"# Judul\n\n```\nkode\n```\n\n- butir\n",
    ".xml": cii(),  # an invoice (issue 18)
}
_SAMPLE_OF = {".text": ".txt", ".markdown": ".md"}


@st.composite
def _hostile_bytes(draw: st.DrawFn, suffix: str) -> bytes:
    """Random bytes, random bytes behind the opening of a real file of the kind, or a real file
    of the kind with bytes flipped, cut or inserted."""
    sample = _GOOD_SAMPLES[_SAMPLE_OF.get(suffix, suffix)]
    kind = draw(st.sampled_from(["random", "prefixed", "mutated"]))
    if kind == "random":
        return draw(st.binary(max_size=2048))
    if kind == "prefixed":
        return sample[: draw(st.integers(0, len(sample)))] + draw(st.binary(max_size=1024))
    data = bytearray(sample)
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["flip", "cut", "insert"]))
        if edit == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif edit == "cut":
            del data[at : at + draw(st.integers(1, 64))]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=64))
    return bytes(data)


_tenants = itertools.count()


@settings(
    # Each case runs `tanda ingest` over a folder (~0.2 s): a tenth of the profile's cases, and
    # never fewer than 30 (fast: 30, thorough: 200; tests/conftest.py).
    max_examples=max(30, settings.default.max_examples // 10),
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    hostile=st.fixed_dictionaries(
        {suffix: _hostile_bytes(suffix) for suffix in sorted(SUPPORTED_SUFFIXES)}
    )
)
def test_given_random_bytes_under_every_extension_when_tanda_ingest_runs_then_good_files_land(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    hostile: dict[str, bytes],
) -> None:
    # Given a folder of good files and one file of hostile bytes per supported extension
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    good = write_good_sources(root)
    for suffix, data in hostile.items():
        (root / "fuzz").mkdir(exist_ok=True)
        (root / "fuzz" / f"acak{suffix}").write_bytes(data)
    tenant = f"fuzz{next(_tenants)}"
    capsys.readouterr()
    caplog.clear()

    # When `tanda ingest` runs on it (into the real SQLite index)
    code = main(["ingest", str(root), "--tenant", tenant, "--no-progress"])

    # Then it ends normally, every good file is indexed, every hostile file is either indexed or
    # a skipped line with a reason, and no reader needed the last-resort catch
    out = capsys.readouterr().out
    assert code == 0
    indexed = _indexed_sources(home, tenant)
    assert all(phrase in indexed.get(source, "") for source, phrase in good.items())
    for suffix in hostile:
        path = str(root / "fuzz" / f"acak{suffix}")
        landed = any(source == path or source.startswith(path + "#") for source in indexed)
        reported = f"  {path}: " in out or f"  {path}#" in out
        assert landed or reported, path
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# Regional and Turkish acts as they are printed (V2-07): a Qanun of a kabupaten in .txt, a
# Peraturan Gubernur in Markdown, a Keputusan Gubernur in a PDF, a Turkish law as mevzuat.gov.tr
# prints it.
_QANUN = (
    "QANUN KABUPATEN ACEH BESAR\nNOMOR 4 TAHUN 2019\nTENTANG\nPENYELENGGARAAN PENDIDIKAN\n\n"
    "BISMILLAHIRRAHMANIRRAHIM\nDENGAN RAHMAT ALLAH YANG MAHA KUASA\nBUPATI ACEH BESAR,\n\n"
    "Menimbang : a. bahwa pendidikan merupakan hak setiap warga;\n\n"
    "Dengan Persetujuan Bersama\nDEWAN PERWAKILAN RAKYAT KABUPATEN ACEH BESAR\ndan\n"
    "BUPATI ACEH BESAR\n\nMEMUTUSKAN:\n\nBAB I\nKETENTUAN UMUM\n\nPasal 1\n"
    "Dalam Qanun ini yang dimaksud dengan Kabupaten adalah Kabupaten Aceh Besar.\n\nPasal 2\n"
    "(1) Pendidikan diselenggarakan secara demokratis.\n"
    "(2) Pendidikan diselenggarakan sebagai satu kesatuan.\n"
)
_PERGUB = (
    "# PERATURAN GUBERNUR JAWA TIMUR\n\n## NOMOR 12 TAHUN 2023\n\n## TENTANG\n\n"
    "## PENGELOLAAN ARSIP DAERAH\n\nGUBERNUR JAWA TIMUR,\n\n## BAB I\n\n### Pasal 1\n\n"
    "Arsip daerah dikelola oleh perangkat daerah.\n\n### Pasal 2\n\n"
    "Arsip vital disimpan di ruang khusus.\n"
)
_KEPGUB = [
    "KEPUTUSAN GUBERNUR JAWA TIMUR",
    "NOMOR 188/889/KPTS/013/2022",
    "TENTANG",
    "UPAH MINIMUM KABUPATEN/KOTA DI JAWA TIMUR TAHUN 2023",
    "GUBERNUR JAWA TIMUR,",
    "KESATU : Upah minimum Kota Surabaya tahun 2023 sebesar Rp4.525.479,19.",
]
_KANUN = (
    "TEBLİGAT KANUNU\nKanun Numarası : 7201\nKabul Tarihi : 11/2/1959\n"
    "Yayımlandığı Resmî Gazete : Tarih : 19/2/1959 Sayı : 10139\n"
    "Yayımlandığı Düstur : Tertip : 4 Cilt : 1 Sayfa : 1220\n\n"
    "Madde 1 – Kaza mercilerinin tebliğe müteallik işleri bu kanun hükümlerine göre yapılır.\n"
)


@pytest.fixture
def regional(tmp_path: Path) -> Path:
    root = tmp_path / "regional"
    root.mkdir()
    (root / "qanun-aceh-besar-4-2019.txt").write_text(_QANUN)
    (root / "pergub-jatim-12-2023.md").write_text(_PERGUB)
    (root / "kepgub-umk-2023.pdf").write_bytes(text_pdf(_KEPGUB))
    (root / "tebligat-kanunu.txt").write_text(_KANUN)
    return root


def _passage_identity(home: Path, tenant: str, query: str) -> list[str]:
    """The identity lines of the best hit, as the agent and the judge are shown them."""
    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.passages import passage_from_chunk
    from tanda.records.documents import SearchQuery, SearchScope

    index = SqliteSearchIndex(home / "index.sqlite")
    try:
        hits = index.search(SearchQuery(text=query, scope=SearchScope(tenant_id=tenant)))
        return passage_from_chunk("P1", hits[0].chunk).identity_lines()
    finally:
        index.close()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "pendidikan demokratis",
            [
                "Rujukan hukum: Qanun Kabupaten Aceh Besar Nomor 4 Tahun 2019 tentang "
                "Penyelenggaraan Pendidikan",
                "Jenis peraturan: Qanun Kabupaten",
                "Nomor: 4",
                "Tahun: 2019",
                "Penerbit: Bupati Aceh Besar",
                "Bagian: BAB I > Pasal 2",
            ],
        ),
        (
            "arsip vital ruang khusus",
            [
                "Rujukan hukum: Peraturan Gubernur Jawa Timur Nomor 12 Tahun 2023 tentang "
                "Pengelolaan Arsip Daerah",
                "Jenis peraturan: Peraturan Gubernur",
                "Nomor: 12",
                "Tahun: 2023",
                "Penerbit: Gubernur Jawa Timur",
                "Bagian: BAB I > Pasal 2",
            ],
        ),
        (
            "upah minimum Surabaya",
            [
                "Rujukan hukum: Keputusan Gubernur Jawa Timur Nomor 188/889/KPTS/013/2022 "
                "tentang Upah Minimum Kabupaten/Kota di Jawa Timur Tahun 2023",
                "Jenis peraturan: Keputusan Gubernur",
                "Nomor: 188/889/KPTS/013/2022",
                "Tahun: 2022",
                "Penerbit: Gubernur Jawa Timur",
                "Halaman: 1",
            ],
        ),
        (
            "tebliğe müteallik işleri",
            [
                "Rujukan hukum: 7201 sayılı Tebligat Kanunu "
                "(Resmî Gazete: 19.02.1959, Sayı: 10139)",
                "Jenis peraturan: Kanun",
                "Nomor: 7201",
                "Tahun: 1959",
                "Penerbit: Türkiye Büyük Millet Meclisi",
            ],
        ),
    ],
    ids=["qanun-txt", "pergub-md", "kepgub-pdf", "kanun-txt"],
)
def test_given_regional_and_turkish_acts_when_ingested_then_passages_carry_their_identity(
    home: Path, regional: Path, query: str, expected: list[str]
) -> None:
    assert main(["ingest", str(regional), "--tenant", "t1", "--no-progress"]) == 0
    lines = _passage_identity(home, "t1", query)
    assert [
        line for line in lines if line.split(":")[0] in {e.split(":")[0] for e in expected}
    ] == (expected)


def test_given_an_ingested_qanun_when_a_claim_cites_it_then_the_judge_sees_its_identity(
    home: Path, regional: Path, tmp_path: Path
) -> None:
    # Given the qanun ingested by `tanda ingest` into the SQLite index
    assert main(["ingest", str(regional), "--tenant", "t1", "--no-progress"]) == 0
    from tanda.adapters.scripted import AgentScript, Scenario, ScriptedModel, ScriptedToolCall
    from tanda.adapters.sqlite_index import SqliteSearchIndex
    from tanda.contract import QueryV2Request, Segment
    from tanda.settings import Settings
    from tests.unit.pipeline.conftest import PipelineDeps

    claim = Segment(text="Pendidikan diselenggarakan secara demokratis.", kind="fact", cites=["P1"])
    scenario = Scenario(
        agent=AgentScript(
            tool_calls=[ScriptedToolCall(query="pendidikan demokratis")], segments=[claim]
        )
    )
    model = ScriptedModel({"qanun": scenario})
    judged: list[str] = []

    class JudgeSpy:
        name = "spy"

        def complete(self, request):  # type: ignore[no-untyped-def]
            if request.role.value in ("judge", "recheck"):
                judged.append(" ".join(m.content for m in request.messages) + str(request.items))
            return model.complete(request)

    index = SqliteSearchIndex(home / "index.sqlite")
    deps = PipelineDeps(
        index=index, model=JudgeSpy(), settings=Settings(home=tmp_path, model_call_budget=12)
    )

    # When a claim citing it is judged
    try:
        outcome = deps.answer(
            QueryV2Request(query="Bagaimana pendidikan?"), tenant_id="t1", scenario="qanun"
        )
    finally:
        index.close()

    # Then the judge is shown the qanun's identity beside the passage
    assert [c.verdict.value for c in outcome.annotation.claims] == ["supported"]
    assert judged
    for text in judged:
        assert "Rujukan hukum: Qanun Kabupaten Aceh Besar Nomor 4 Tahun 2019" in text
        assert "Jenis peraturan: Qanun Kabupaten" in text
        assert "Penerbit: Bupati Aceh Besar" in text
        assert "Bagian: BAB I > Pasal 2" in text
