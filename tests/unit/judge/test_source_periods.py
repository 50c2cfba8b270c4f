"""Issue 25 (V2-07, V2-08): the judge sees a portal or MCP result with its identity — dataset,
source, period, unit, the producing call — and a figure its source states for one period never
supports a claim about another, whatever the model says."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tanda.contract import Citation, Segment, SegmentKind, Verdict
from tanda.judge.items import JudgeItem
from tanda.judge.reader_context import ReaderContext
from tanda.judge.strict_judge import Judge, stated_period_conflict
from tanda.passages import Passage
from tanda.records.documents import LegalIdentity

from .test_judge import VerdictModel, ledger

ROW = "akun: Pendapatan Daerah; anggaran: 9.533,44 M; realisasi: 8.791,31 M"


def portal_row(period: str | None = "2022", kind: str = "tool") -> Passage:
    return Passage(
        key="P1",
        kind=kind,  # type: ignore[arg-type]
        text=ROW,
        citation=Citation(citation_key="P1", document_title="APBD Surabaya 2022", source="BPKAD"),
        identity=LegalIdentity(dataset="APBD Surabaya 2022", period=period),
        producing_call="resource_download(resource_id='apbd-surabaya-2022-csv', format=csv)",
        unit="rupiah",
    )


@pytest.fixture
def executor() -> Iterator[ThreadPoolExecutor]:
    pool = ThreadPoolExecutor(max_workers=2)
    yield pool
    pool.shutdown(wait=True, cancel_futures=True)


def verdict_of(statement: str, shown: Passage, executor: ThreadPoolExecutor) -> Verdict:
    model = VerdictModel(judge={statement: "supported"}, recheck={statement: "supported"})
    segment = Segment(text=statement, kind=SegmentKind.fact, cites=["P1"])
    book = ledger(model)
    outcomes = Judge(executor=executor).run(
        book,
        [JudgeItem(0, segment, ("P1",), ReaderContext())],
        {"P1": shown},
        invalid_keys={},
        until=book.budget.deadline,
    )
    verdict = outcomes[0].verdict
    assert verdict is not None
    if model.requests:
        # The judge is shown the passage's identity: dataset, period, unit, source and call.
        shown_lines = model.requests[0].items[0]["passages"][0]["identity"]  # type: ignore[index]
        assert "Periode: 2022" in shown_lines and "Satuan: rupiah" in shown_lines
        assert any(line.startswith("Dihasilkan oleh: resource_download(") for line in shown_lines)
    return verdict


def test_a_2022_portal_figure_supports_a_2022_claim(executor: ThreadPoolExecutor) -> None:
    statement = "Anggaran Pendapatan Daerah 2022 sebesar Rp9.533,44 miliar."
    assert verdict_of(statement, portal_row(), executor) is Verdict.supported


def test_a_2022_portal_figure_never_supports_a_2023_claim(executor: ThreadPoolExecutor) -> None:
    # Given a judge and a re-check that both say supported,
    statement = "Anggaran Pendapatan Daerah 2023 sebesar Rp9.533,44 miliar."
    # then the claim is unsupported: its source states the figure for 2022.
    assert verdict_of(statement, portal_row(), executor) is Verdict.unsupported


def test_the_period_rule_reads_only_results_that_state_a_period() -> None:
    statement = "Anggaran Pendapatan Daerah 2023 sebesar Rp9.533,44 miliar."
    assert stated_period_conflict(statement, [portal_row()])
    assert not stated_period_conflict(statement, [portal_row(period=None)])
    # a document's passage keeps the judge's reading: its period lives in its text
    assert not stated_period_conflict(statement, [portal_row(kind="chunk")])
    # and a claim naming no year is not refused for it.
    assert not stated_period_conflict("Anggaran sebesar Rp9.533,44 miliar.", [portal_row()])
