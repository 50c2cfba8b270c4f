"""``include_proof`` on /query/v2 (ASK-11): the chain over the composed answer, and a refuted
computation withholds ``supported`` from the segment that states it — never grants it."""

from __future__ import annotations

import pytest

from tanda.annotate.compose import SegmentSpan, compose
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract import QueryV2Request
from tanda.contract.common import SegmentKind, UnverifiedReason, Verdict
from tanda.contract.proof import ComputedStep, Proof
from tanda.contract.segments import Segment
from tanda.passages import passage_from_chunk
from tanda.pipeline.proof import passage_number, prove_answer, withhold_refuted
from tanda.pipeline.states import AnswerOutcome
from tanda.proof import ProofSource, build_proof
from tanda.records.documents import Chunk
from tanda.service.answer_v2 import to_response
from tests.corpus import QUESTION
from tests.unit.pipeline.conftest import PipelineDeps

SUPPORTED = SegmentOutcome(Verdict.supported)


def ask(deps: PipelineDeps, scenario: str, **body: object) -> AnswerOutcome:
    request = QueryV2Request(query=QUESTION, **body)  # type: ignore[arg-type]
    return deps.answer(request, scenario=scenario)


def verdicts(outcome: AnswerOutcome) -> list[str]:
    return [c.verdict.value for c in outcome.annotation.claims]


def refuting(answer: str) -> Proof:
    proof = build_proof(answer, [ProofSource(1, "Rp 5 miliar dan Rp 3 miliar")])
    assert proof is not None
    return proof


def test_without_include_proof_nothing_is_built_and_every_verdict_stands(
    deps: PipelineDeps,
) -> None:
    outcome = ask(deps, "proof_refuted")
    assert verdicts(outcome) == ["supported", "supported", "supported"]
    assert outcome.proof is None


def test_with_include_proof_the_refuted_difference_is_unsupported_and_the_sum_stays(
    deps: PipelineDeps,
) -> None:
    outcome = ask(deps, "proof_refuted", include_proof=True)
    assert verdicts(outcome) == ["supported", "supported", "unsupported"]
    assert outcome.annotation.faithfulness.verification == "partial"
    proof = outcome.proof
    assert proof is not None and proof.verdict == "broken"
    steps = [s for s in proof.steps if isinstance(s, ComputedStep)]
    assert [(s.ground, s.recomputed, s.source_nos) for s in steps] == [
        ("exact", "8", [1]),
        ("refuted", "2", [1]),
    ]
    third = outcome.annotation.claims[2]
    assert third.start <= steps[1].start < steps[1].end <= third.end


def test_an_answer_the_guard_replaced_has_no_proof(deps: PipelineDeps) -> None:
    outcome = ask(deps, "policy_blocked", include_proof=True)
    assert outcome.fallback == "policy_blocked"
    assert outcome.proof is None


def test_the_response_says_proof_null_when_asked_and_leaves_it_out_when_not(
    deps: PipelineDeps,
) -> None:
    def body(**opt_in: object) -> dict[str, object]:
        request = QueryV2Request(query=QUESTION, **opt_in)  # type: ignore[arg-type]
        outcome = deps.answer(request, scenario="policy_blocked")
        response = to_response(outcome, request, conversation_id="c", message_id="m", trace_id="t")
        dumped: dict[str, object] = response.model_dump(mode="json")
        return dumped

    assert "proof" not in body()
    assert body(include_proof=True)["proof"] is None


def test_a_refuted_computation_withholds_supported_from_the_segment_stating_it() -> None:
    answer = "Rp 5 miliar. Jumlah Rp 5 miliar + Rp 3 miliar = Rp 9 miliar."
    spans = [SegmentSpan(0, 12, 0, 12), SegmentSpan(13, len(answer), 13, len(answer))]
    outcomes = withhold_refuted(refuting(answer), spans, [SUPPORTED, SUPPORTED])
    assert [o.verdict for o in outcomes] == [Verdict.supported, Verdict.unsupported]


@pytest.mark.parametrize(
    "outcome",
    [
        SegmentOutcome(Verdict.unsupported),
        SegmentOutcome(Verdict.unverified, UnverifiedReason.deadline),
        SegmentOutcome(Verdict.uncited),
        SegmentOutcome.framing(),
    ],
)
def test_withholding_leaves_every_other_verdict_as_it_is(outcome: SegmentOutcome) -> None:
    answer = "Jumlah Rp 5 miliar + Rp 3 miliar = Rp 9 miliar."
    spans = [SegmentSpan(0, len(answer), 0, len(answer))]
    assert withhold_refuted(refuting(answer), spans, [outcome]) == [outcome]


def test_a_right_computation_never_grants_supported() -> None:
    answer = "Jumlah Rp 5 miliar + Rp 3 miliar = Rp 8 miliar."
    spans = [SegmentSpan(0, len(answer), 0, len(answer))]
    unsupported = SegmentOutcome(Verdict.unsupported, invalid_citation_keys=("P9",))
    assert withhold_refuted(refuting(answer), spans, [unsupported]) == [unsupported]
    assert withhold_refuted(None, spans, [unsupported]) == [unsupported]


def test_the_withheld_segment_keeps_its_invalid_keys() -> None:
    answer = "Jumlah Rp 5 miliar + Rp 3 miliar = Rp 9 miliar."
    spans = [SegmentSpan(0, len(answer), 0, len(answer))]
    supported = SegmentOutcome(Verdict.supported, invalid_citation_keys=("P9",))
    (withheld,) = withhold_refuted(refuting(answer), spans, [supported])
    assert withheld == SegmentOutcome(Verdict.unsupported, invalid_citation_keys=("P9",))


def test_document_passages_are_sources_by_number_and_conversation_turns_are_none() -> None:
    assert [passage_number(k) for k in ("P1", "P12", "C1", "P", "XP1")] == [1, 12, None, None, None]


def test_a_passage_is_read_in_its_chunk_s_language() -> None:
    # "(16)" is −16 in an English table, an enumerator in an Indonesian one: the chunk says which.
    segment = Segment(text="Allowance 16.", kind=SegmentKind.fact, cites=["P1"])
    composed = compose([segment])

    def ground_with(lang: str | None) -> str:
        chunk = Chunk(
            chunk_id="c1",
            document_id="d1",
            tenant_id="acme",
            ordinal=0,
            title="Notes",
            text="Allowance | (16) | (15)",
            lang=lang,
        )
        proof, _ = prove_answer(
            composed, [segment], [SUPPORTED], {"P1": passage_from_chunk("P1", chunk)}
        )
        assert proof is not None
        return proof.steps[0].ground

    assert (ground_with("en"), ground_with(None)) == ("tolerant", "unverified")
