"""The cross-check on the real statute amendments (issue 15 "Demo data", docs/cross-check.md):
UU 11/2008 and its amendments UU 19/2016 and UU 1/2024, the PDFs of ``../shared/data``, ingested
with the structure layers of the offline model and cross-checked with its deterministic judge.
What docs/cross-check.md shows is what this finds: the changed penalties of Pasal 29 (12 years,
then 4) and of Pasal 27 ayat (2) (6 years, then 10) as contradictions, eight unchanged penalties as
support, and nothing about each law's own dates."""

from __future__ import annotations

import shutil

import pytest

from tanda.adapters.offline import OfflineModel
from tanda.auth import Principal
from tanda.contract.v1_cross_check import CrossCheckFinding, V1CrossCheckJob, V1CrossCheckRequest
from tanda.records.documents import SearchScope
from tanda.service.cross_check import cross_check_status, run_queued_job, start_cross_check
from tanda.service.ingest import StructureLayers, ingest_paths
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.corpus import shared_data

TENANT = "demo"
OPERATOR = Principal(tenant_id=TENANT, partner_id="local-cli", subject="local-cli", is_test=True)
LAWS = ("UU-11-2008.pdf", "UU-19-2016.pdf", "UU-1-2024.pdf")
YEARS = ("2008", "2016", "2024")


@pytest.fixture(scope="module")
def laws(tmp_path_factory: pytest.TempPathFactory) -> tuple[Runtime, list[str]]:
    """The three laws ingested once for the module; their document ids in the order of YEARS."""
    root = tmp_path_factory.mktemp("laws")
    folder = root / "pdf"
    folder.mkdir()
    for name in LAWS:
        shutil.copy(shared_data("corpus", "id_laws", name), folder / name)
    runtime = Runtime(settings=Settings(home=root / "home"))
    ingest_paths(
        runtime.search_index,
        None,
        [folder],
        tenant=TENANT,
        layers=StructureLayers(OfflineModel()),
    )
    documents = runtime.search_index.documents(SearchScope(tenant_id=TENANT))
    by_year = {
        year: d.document_id
        for d in documents
        for year in YEARS
        if f"Tahun {year}" in d.title.split(" tentang ")[0]
    }
    assert sorted(by_year) == sorted(YEARS)
    return runtime, [by_year[year] for year in YEARS]


def cross_check(runtime: Runtime, documents: list[str]) -> V1CrossCheckJob:
    accepted = start_cross_check(
        runtime, OPERATOR, V1CrossCheckRequest(document_ids=documents, lang="en"), launch=False
    )
    assert run_queued_job(runtime, TENANT, accepted.id)
    return cross_check_status(runtime, OPERATOR, accepted.id)


def year_of(documents: list[str], document_id: str) -> str:
    return YEARS[documents.index(document_id)]


def penalty(finding: CrossCheckFinding) -> tuple[str, str]:
    """The two durations the explanation names (``12 (dua belas) tahun in A, 4 (empat) …``)."""
    tail = finding.explanation.split(":", 1)[1]
    a, b = (part.strip().rsplit(" in ", 1)[0] for part in tail.rstrip(".").split(", ", 1))
    return a, b


def test_the_offline_judge_finds_the_amended_penalties_on_the_real_laws(
    laws: tuple[Runtime, list[str]],
) -> None:
    runtime, documents = laws
    job = cross_check(runtime, documents)

    assert job.status == "completed"
    assert job.findings is not None
    assert job.stats is not None
    contradictions = [f for f in job.findings if f.kind == "contradiction"]
    support = [f for f in job.findings if f.kind == "support"]
    assert job.findings == contradictions + support
    # Pasal 29: 12 years in 2008, 4 in 2016 and in 2024; Pasal 27 ayat (2): 6 years in 2016,
    # 10 in 2024.
    assert [
        (year_of(documents, f.a.document_id), year_of(documents, f.b.document_id), penalty(f))
        for f in contradictions
    ] == [
        ("2008", "2016", ("12 (dua belas) tahun", "4 (empat) tahun")),
        ("2008", "2024", ("12 (dua belas) tahun", "4 (empat) tahun")),
        ("2016", "2024", ("6 (enam) tahun", "10 (sepuluh) tahun")),
    ]
    assert all("Pasal 29" in f.a.quote and "Pasal 29" in f.b.quote for f in contradictions[:2])
    assert all("Pasal 27 ayat (2)" in s.quote for s in (contradictions[2].a, contradictions[2].b))
    # Eight unchanged penalties agree (issue 22: with claims that no longer open with an ayat
    # number or a heading, Pasal 45A (2) of 2024 is found to keep the 6 years of 2008 and 2016);
    # no finding is about an enactment date.
    assert len(support) == 8
    assert all(penalty(f)[0] == penalty(f)[1] for f in support)
    assert all("tahun" in f.explanation and "penjara" in f.explanation for f in job.findings)
    assert job.stats.claims == job.stats.claims_available
    assert job.stats.candidates_judged == min(
        job.stats.candidates, runtime.settings.xc_max_candidates
    )
    # Issue 23 (XC-4): the candidates over the cap were never judged, and the job says so.
    assert job.stats.candidates_capped > 0
    assert job.coverage == "partial"
    assert job.warnings == [
        f"Partial check: {job.stats.candidates_capped} of {job.stats.candidates} candidate "
        "pairs were over the judging cap and were not judged; findings may be missing."
    ]


def test_the_findings_on_the_real_laws_are_the_same_on_every_run(
    laws: tuple[Runtime, list[str]],
) -> None:
    runtime, documents = laws
    first, second = cross_check(runtime, documents), cross_check(runtime, documents)
    assert first.findings == second.findings
    assert first.stats == second.stats
