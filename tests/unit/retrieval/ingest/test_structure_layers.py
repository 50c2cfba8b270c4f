"""ingest_paths with the structure layers (ASK-14): records are written with the document,
replaced with it, rebuilt when built by another version, moved with its scope — and a failing
model or layer never costs the document its chunks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tanda.adapters.offline import OfflineModel
from tanda.adapters.scripted import Scenario, ScriptedModel
from tanda.model_calls import ChatModel, ChatRequest, ChatResponse, ModelRole, ModelUnavailable
from tanda.records.documents import SearchScope
from tanda.records.structure import STRUCTURE_VERSION, RecordQuery
from tanda.service.ingest import StructureLayers, ingest_paths
from tests.fakes import InMemorySearchIndex

SCOPE = SearchScope(tenant_id="t1")
INVOICE = (
    "# Faktur 12\n\nPenjual: PT Sinar Jaya Abadi. Tanggal faktur 1 Maret 2024.\n\n"
    "Pembayaran dilakukan paling lambat 14 hari setelah tanggal faktur. "
    "Jangka waktu pembayaran 30 hari.\n\n"
    "| No | Uraian | Jumlah (Rp) |\n|---|---|---:|\n| 1 | Kertas A4 | 500.000 |\n"
    "| 2 | Tinta | 300.000 |\n| | Total | 850.000 |\n"
)
DEMO = Path(__file__).resolve().parents[4] / "demo" / "corpus"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "apbd" / "2023").mkdir(parents=True)
    shutil.copy(DEMO / "apbd" / "2023" / "Surabaya.csv", root / "apbd" / "2023" / "Surabaya.csv")
    (root / "faktur.md").write_text(INVOICE, encoding="utf-8")
    return root


def _records(index: InMemorySearchIndex, **narrowing: object) -> list:  # type: ignore[type-arg]
    return index.records(RecordQuery(scope=SCOPE, **narrowing))  # type: ignore[arg-type]


def test_every_document_gets_its_records_and_the_report_counts_them(folder: Path) -> None:
    index = InMemorySearchIndex()
    report = ingest_paths(
        index, None, [folder], tenant="t1", layers=StructureLayers(OfflineModel())
    )

    assert report.added == 2
    assert all(d.structure_version == STRUCTURE_VERSION for d in index.documents(SCOPE))
    kinds = {r.kind for r in _records(index)}
    assert kinds == {"table", "line_item", "line_item_summary", "entity", "claim", "rule"}
    structure = report.structure
    assert structure is not None
    assert (structure.tables, structure.summaries, structure.summaries_disagreeing) == (2, 2, 2)
    assert structure.violations == 3  # the invoice's deadline and total, Surabaya 2023's financing
    assert structure.line() in report.summary_lines()
    violated = [r for r in _records(index, kinds=("rule",)) if r.evaluation == "IHLAL"]
    assert len(violated) == 3


def test_without_layers_there_are_no_records_and_no_structure_line(folder: Path) -> None:
    index = InMemorySearchIndex()
    report = ingest_paths(index, None, [folder], tenant="t1")
    assert report.structure is None and _records(index) == []
    assert all(d.structure_version is None for d in index.documents(SCOPE))


def test_a_document_ingested_before_the_layers_gets_them_on_the_next_ingest(folder: Path) -> None:
    # Given documents indexed without the layers (before them, or with them switched off)
    index = InMemorySearchIndex()
    ingest_paths(index, None, [folder], tenant="t1")
    # When ingested again with them
    report = ingest_paths(
        index, None, [folder], tenant="t1", layers=StructureLayers(OfflineModel())
    )
    # Then they are rebuilt (same content, no structure yet) — and only once
    assert report.replaced == 2 and _records(index)
    again = ingest_paths(index, None, [folder], tenant="t1", layers=StructureLayers(OfflineModel()))
    assert again.unchanged == 2
    assert not any(line.startswith("structure:") for line in again.summary_lines())
    # and switching the layers off keeps what was built
    off = ingest_paths(index, None, [folder], tenant="t1")
    assert off.unchanged == 2 and _records(index)


def test_a_scope_change_moves_the_records_with_the_document(folder: Path) -> None:
    index = InMemorySearchIndex()
    layers = StructureLayers(OfflineModel())
    ingest_paths(index, None, [folder], tenant="t1", batch="b1", layers=layers)
    report = ingest_paths(index, None, [folder], tenant="t1", batch="b2", layers=layers)
    assert report.rescoped == 2
    records = _records(index)
    assert records and {r.batch_id for r in records} == {"b2"}
    old_batch = index.records(RecordQuery(scope=SearchScope(tenant_id="t1", batch_id="b1")))
    assert old_batch == []


class _FailingClaims:
    """A model whose extract_claims calls fail (the others never come at ingest)."""

    name = "failing"

    def complete(self, request: ChatRequest) -> ChatResponse:
        assert request.role is ModelRole.extract_claims
        raise ModelUnavailable("down")


def test_a_failing_claims_model_costs_the_claims_only(folder: Path) -> None:
    index = InMemorySearchIndex()
    model: ChatModel = _FailingClaims()
    report = ingest_paths(index, None, [folder], tenant="t1", layers=StructureLayers(model))
    assert report.added == 2 and report.structure is not None
    assert report.structure.claim_calls_failed == 1 and report.structure.claims == 0
    assert {r.kind for r in _records(index)} >= {"rule", "line_item"}


def test_scripted_claims_pass_the_quote_check_or_are_dropped(folder: Path) -> None:
    # Given a scenario proposing one true quote of the invoice and one it does not contain
    model = ScriptedModel(
        {
            "default": Scenario.model_validate(
                {
                    "extract_claims": {
                        "claims": [
                            {"quote": "Jangka waktu pembayaran 30 hari.", "statement": "30 hari."},
                            {"quote": "Jangka waktu pembayaran 60 hari."},
                        ]
                    }
                }
            )
        }
    )
    index = InMemorySearchIndex()
    report = ingest_paths(
        index, None, [folder / "faktur.md"], tenant="t1", layers=StructureLayers(model)
    )
    (claim,) = _records(index, kinds=("claim",))
    assert (claim.statement, claim.quote, claim.proposed_by) == (
        "30 hari.",
        "Jangka waktu pembayaran 30 hari.",
        "scripted",
    )
    assert report.structure is not None and report.structure.claims_dropped == 1


def test_a_failure_building_the_layers_indexes_the_document_without_them(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tanda.service.ingest as ingest

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a reader bug")

    monkeypatch.setattr(ingest, "build_structure", broken)
    index = InMemorySearchIndex()
    report = ingest_paths(
        index, None, [folder], tenant="t1", layers=StructureLayers(OfflineModel())
    )
    assert report.added == 2 and report.chunks > 0
    assert report.structure is not None and len(report.structure.failed) == 2
    assert "indexed without structure layers (RuntimeError: a reader bug)" in (
        report.structure.failed[0].reason
    )
    assert all(d.structure_version is None for d in index.documents(SCOPE))
