"""``tanda eval judge`` (issue 17): statements go through the judge stage exactly as cited segments
do — batches, re-check, numbers check, budgets — and the figures say how often ``supported`` was
granted to what the passages do not support."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from tanda.adapters.offline import OfflineModel
from tanda.adapters.scripted import ScriptedModel
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract.common import UnverifiedReason, Verdict
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole
from tanda.service.judge_eval import (
    CaseResult,
    JudgeBudget,
    answers_of,
    run_set,
    score,
)
from tanda.service.judge_sets import JudgeCase
from tanda.settings import Settings
from tests.fakes import ManualClock

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
BUDGET = JudgeBudget.from_settings(Settings())


def case(
    statement: str,
    passage: str = "Anggaran pendidikan 2023 adalah Rp 5 miliar.",
    *,
    supported: bool = True,
    label: str | None = None,
    edits: tuple[str, ...] = (),
    heading: str | None = None,
) -> JudgeCase:
    return JudgeCase(
        case_id=statement[:12],
        statement=statement,
        passages=(passage,),
        supported=supported,
        label=label or ("e" if supported else "c"),
        edit_types=edits,
        heading=heading,
    )


class TableJudge:
    """Answers judge and re-check calls by statement text; records every request."""

    name = "table"

    def __init__(self, judge: Mapping[str, str], recheck: Mapping[str, str] | None = None) -> None:
        self.tables = {ModelRole.judge: judge, ModelRole.recheck: recheck or judge}
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.requests.append(request)
        table = self.tables[request.role]
        verdicts = [
            {"id": i["id"], "verdict": table[i["text"]]}
            for i in request.items or []
            if i.get("text") in table
        ]
        return ChatResponse(content=json.dumps({"verdicts": verdicts}))


def outcome(verdict: Verdict, reason: UnverifiedReason | None = None) -> SegmentOutcome:
    return SegmentOutcome(verdict, reason)


# -- figures ------------------------------------------------------------------------------------


def test_the_figures_count_only_supported_as_judged_supported() -> None:
    # Given 4 supported statements (3 judged supported, 1 unverified) and 6 not supported
    # (1 judged supported, 3 unsupported, 2 unverified)
    supported = outcome(Verdict.supported)
    results = [CaseResult(case(f"pos {n}"), supported) for n in range(3)]
    results.append(
        CaseResult(case("pos 3"), outcome(Verdict.unverified, UnverifiedReason.disputed))
    )
    results.append(CaseResult(case("neg 0", supported=False, label="n"), supported))
    results += [
        CaseResult(case(f"neg {n}", supported=False), outcome(Verdict.unsupported))
        for n in range(1, 4)
    ]
    results += [
        CaseResult(
            case(f"neg {n}", supported=False),
            outcome(Verdict.unverified, UnverifiedReason.unparseable),
        )
        for n in range(4, 6)
    ]

    figures = score(results)

    assert figures["n"] == 10
    assert figures["supported_gold"] == 4
    assert figures["supported_recall"] == 0.75
    assert figures["false_support_rate"] == round(1 / 6, 4)
    assert figures["supported_precision"] == 0.75
    assert figures["balanced_accuracy"] == round((0.75 + 5 / 6) / 2, 4)
    assert figures["confusion"] == {
        "c": {"unsupported": 3, "unverified:unparseable": 2},
        "e": {"supported": 3, "unverified:disputed": 1},
        "n": {"supported": 1},
    }
    assert "false_support_by_edit_type" not in figures


def test_false_support_is_given_per_summedits_edit_type() -> None:
    supported, unsupported = outcome(Verdict.supported), outcome(Verdict.unsupported)
    results = [
        CaseResult(case("a", supported=False, edits=("antonym_swap",)), supported),
        CaseResult(
            case("b", supported=False, edits=("antonym_swap", "entity_modification")), unsupported
        ),
        CaseResult(case("c", supported=True, edits=("antonym_swap",)), supported),
    ]

    by_edit = score(results)["false_support_by_edit_type"]

    assert by_edit["antonym_swap"] == {"n": 2, "false_support_rate": 0.5}
    assert by_edit["entity_modification"] == {"n": 1, "false_support_rate": 0.0}
    assert by_edit["negation_insertion_removal"] == {"n": 0, "false_support_rate": None}


def test_a_set_without_negatives_has_no_false_support_rate_rather_than_zero() -> None:
    figures = score([CaseResult(case("a"), outcome(Verdict.supported))])

    assert figures["false_support_rate"] is None
    assert figures["balanced_accuracy"] is None


# -- grouping into answers ----------------------------------------------------------------------


def test_statements_are_grouped_into_answers_of_one_batch_whose_evidence_one_answer_can_cite() -> (
    None
):
    budget = JudgeBudget(seconds=10, calls=10, batch_size=3, evidence_chars=100)
    short = [case(f"s{n}", "x" * 10) for n in range(7)]
    long = case("long", "y" * 250)

    sizes = [len(a) for a in answers_of([*short[:4], long, *short[4:]], budget)]

    # 3 | 1 (the long one would not fit beside it) | the long one alone | 3
    assert sizes == [3, 1, 1, 3]


def test_the_budget_is_what_an_answer_leaves_its_judge() -> None:
    budget = JudgeBudget.from_settings(
        Settings(request_deadline_s=60, model_call_budget=24, judge_share=0.4, judge_batch_size=5)
    )

    assert budget.seconds == pytest.approx(60 * 0.4 - 5)
    assert budget.calls == 9  # the 10 the agent keeps back for the checks, less the guard's
    assert budget.batch_size == 5


# -- through the judge stage --------------------------------------------------------------------


def test_statements_are_judged_in_one_batch_with_their_passages_and_never_a_question() -> None:
    model = TableJudge({"A holds.": "supported", "B holds.": "supported"})
    cases = [case("A holds.", "Passage about A.", heading="Article > Section"), case("B holds.")]

    run = run_set(model, cases, BUDGET, clock=ManualClock())

    assert [r.outcome.verdict for r in run.results] == [Verdict.supported, Verdict.supported]
    (request,) = model.requests
    assert request.role is ModelRole.judge
    user = request.messages[-1].content
    assert "Passage about A." in user
    assert "Section heading: Article > Section" in user
    assert "question" not in json.dumps(request.items).lower()
    assert [r.role for r in run.model_calls] == ["judge"]


def test_a_lone_unsupported_stands_only_after_its_single_statement_recheck() -> None:
    model = TableJudge(
        {"A holds.": "unsupported", "B holds.": "unsupported"},
        recheck={"A holds.": "unsupported", "B holds.": "supported"},
    )

    run = run_set(model, [case("A holds."), case("B holds.")], BUDGET, clock=ManualClock())

    assert [(r.outcome.verdict, r.outcome.unverified_reason) for r in run.results] == [
        (Verdict.unsupported, None),
        (Verdict.unverified, UnverifiedReason.disputed),
    ]
    assert sorted(r.role for r in run.model_calls) == ["judge", "recheck", "recheck"]
    assert all(len(r.items or []) == 1 for r in model.requests if r.role is ModelRole.recheck)


def test_a_supported_statement_whose_number_the_passages_lack_is_rechecked() -> None:
    # Given the model says supported, but the passage states Rp 5 miliar, not Rp 5 juta
    statement = "Anggaran pendidikan 2023 adalah Rp 5 juta."
    model = TableJudge({statement: "supported"}, recheck={statement: "unsupported"})

    run = run_set(model, [case(statement, supported=False)], BUDGET, clock=ManualClock())

    assert [r.role for r in run.model_calls] == ["judge", "recheck"]
    assert run.results[0].outcome.verdict is Verdict.unverified


def test_a_spent_call_budget_leaves_statements_unverified_not_supported() -> None:
    # Given an answer whose judge may make two calls (its allotment: the guard's is kept apart)
    budget = JudgeBudget(seconds=10, calls=2, batch_size=6, evidence_chars=24000)
    model = TableJudge({t: "unsupported" for t in ("A.", "B.", "C.")})

    run = run_set(model, [case("A."), case("B."), case("C.")], budget, clock=ManualClock())

    reasons = sorted(str(r.outcome.unverified_reason) for r in run.results)
    assert reasons.count("budget") == 2
    assert not any(r.judged_supported for r in run.results)
    assert "budget" in {r.outcome for r in run.model_calls}


def test_the_offline_model_is_judged_end_to_end() -> None:
    source = "Anggaran pendidikan 2023 adalah Rp 5 miliar."
    cases = [
        case(source, source),
        case("Anggaran pendidikan 2023 adalah Rp 7 miliar.", source, supported=False),
    ]

    run = run_set(OfflineModel(), cases, BUDGET, clock=ManualClock())

    assert [r.judged_supported for r in run.results] == [True, False]
    assert score(run.results)["false_support_rate"] == 0.0


def test_the_scripted_model_answers_from_its_default_scenario() -> None:
    # The default scenario supports every claim: a partner can see the harness count a judge
    # that never says no.
    cases = [case("A holds."), case("B holds.", supported=False)]

    run = run_set(ScriptedModel.from_dir(SCENARIOS), cases, BUDGET, clock=ManualClock())

    assert score(run.results)["false_support_rate"] == 1.0
