"""One answer through the steps on the in-process runner: a scripted scenario per verdict, reason
and fallback (V2-03 … V2-23)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tanda.api.errors import domain_error_body, status_for
from tanda.contract import QueryV2Request
from tanda.contract.common import FallbackReason
from tanda.conversations.history import History, build_history
from tanda.errors import NotFound, UpstreamFailed
from tanda.model_calls import ChatRequest
from tanda.pipeline.notices import NOTICES
from tanda.pipeline.states import AnswerOutcome
from tanda.pipeline.steps import NothingReadable
from tanda.records.conversations import StoredMessage
from tests.fakes import FaultySearchIndex, ManualClock
from tests.unit.pipeline.conftest import SCENARIOS, PipelineDeps

QUESTION = "Berapa anggaran pendidikan Aceh tahun 2023?"


def ask(deps: PipelineDeps, scenario: str, **body: object) -> AnswerOutcome:
    return deps.answer(QueryV2Request(query=QUESTION, **body), scenario=scenario)  # type: ignore[arg-type]


def verdicts(outcome: AnswerOutcome) -> list[tuple[str, str | None]]:
    return [
        (c.verdict.value, c.unverified_reason and c.unverified_reason.value)
        for c in outcome.annotation.claims
    ]


def test_all_supported_is_full_with_exact_offsets(deps: PipelineDeps) -> None:
    outcome = ask(deps, "default")
    report = outcome.annotation.faithfulness
    assert outcome.answer == "Berikut datanya. Anggaran pendidikan 2023 adalah Rp 5 miliar."
    assert verdicts(outcome) == [("supported", None)]
    claim = outcome.annotation.claims[0]
    assert outcome.answer[claim.start : claim.end] == claim.text
    assert (report.verification, report.judge_status, report.framing_check) == (
        "full",
        "complete",
        "complete",
    )
    assert [c.citation_key for c in outcome.citations] == ["P1"]
    assert outcome.tool == "search" and outcome.tool_executed


def test_seed_example_end_to_end_reproduces_the_seed_offsets_and_counts(deps: PipelineDeps) -> None:
    outcome = ask(deps, "seed_example")
    claims = outcome.annotation.claims
    assert [(c.start, c.end) for c in claims] == [(17, 61), (62, 86)]
    assert verdicts(outcome) == [("supported", None), ("unsupported", None)]
    assert outcome.annotation.grounding.grounding_rate == 0.5
    assert outcome.annotation.faithfulness.verification == "partial"


def test_unsupported_not_confirmed_by_the_recheck_is_disputed(deps: PipelineDeps) -> None:
    assert verdicts(ask(deps, "disputed")) == [("unverified", "disputed")]


def test_a_failing_judge_leaves_claims_unverified_judge_unavailable(deps: PipelineDeps) -> None:
    outcome = ask(deps, "judge_unavailable")
    assert verdicts(outcome) == [("unverified", "judge_unavailable")]
    assert outcome.annotation.faithfulness.judge_status == "unavailable"


def test_no_usable_verdict_is_unparseable_and_other_segments_keep_theirs(
    deps: PipelineDeps,
) -> None:
    assert verdicts(ask(deps, "judge_unparseable")) == [
        ("supported", None),
        ("unverified", "unparseable"),
    ]


def test_a_judge_slower_than_the_deadline_gives_deadline(
    deps: PipelineDeps, clock: ManualClock
) -> None:
    # Given a judge that needs 5 s of a 2 s request (on the manual clock: no wall time spent)
    start = clock()
    outcome = ask(deps, "judge_deadline")
    # then its call is cut where the checks' time ends (the guard keeps 10 %): unverified(deadline)
    assert verdicts(outcome) == [("unverified", "deadline")]
    assert clock() - start == pytest.approx(1.8)


def test_a_budget_spent_before_the_recheck_leaves_that_claim_unverified_budget(
    deps: PipelineDeps,
) -> None:
    # 5 calls: the agent's two, the framing check, the judge batch, the guard; none for the recheck.
    tight = replace(deps, settings=deps.settings.model_copy(update={"model_call_budget": 5}))
    outcome = ask(tight, "seed_example")
    assert verdicts(outcome) == [("supported", None), ("unverified", "budget")]
    assert outcome.annotation.faithfulness.unverified_reasons.budget == 1


def test_a_budget_too_small_for_the_agent_is_query_budget_exhausted(deps: PipelineDeps) -> None:
    tight = replace(deps, settings=deps.settings.model_copy(update={"model_call_budget": 4}))
    outcome = ask(tight, "seed_example")
    assert outcome.fallback == "query_budget_exhausted"
    assert outcome.annotation.claims == []


def test_uncited_invalid_citation_and_partly_invalid_keys(deps: PipelineDeps) -> None:
    outcome = ask(deps, "uncited_and_invalid")
    assert verdicts(outcome) == [("supported", None), ("uncited", None), ("invalid_citation", None)]
    claims = outcome.annotation.claims
    assert claims[0].invalid_citation_keys == ["P9"] and claims[2].invalid_citation_keys == ["P7"]


def test_checkable_framing_becomes_an_uncited_framing_claim(deps: PipelineDeps) -> None:
    outcome = ask(deps, "framing_checkable")
    first = outcome.annotation.claims[0]
    assert (first.kind, first.verdict) == ("framing", "uncited")
    assert outcome.annotation.faithfulness.framing_total == 0


def test_a_failed_framing_check_makes_framing_uncited(deps: PipelineDeps) -> None:
    outcome = ask(deps, "framing_unavailable")
    report = outcome.annotation.faithfulness
    assert report.framing_check == "unavailable"
    assert verdicts(outcome)[0] == ("uncited", None)
    assert report.verification == "partial"


def test_policy_block_publishes_the_fixed_refusal_and_keeps_the_counts(deps: PipelineDeps) -> None:
    outcome = ask(deps, "policy_blocked")
    assert outcome.fallback == "policy_blocked"
    assert outcome.answer == NOTICES[outcome.fallback]
    assert outcome.annotation.claims == []
    assert outcome.annotation.grounding.model_dump() == {
        "claims_supported": 1, "claims_total": 1, "grounding_rate": 1.0,
    }  # fmt: skip
    assert outcome.annotation.faithfulness.verification == "none"


def test_one_regeneration_recovers_invalid_output(deps: PipelineDeps) -> None:
    outcome = ask(deps, "regenerated")
    assert outcome.fallback is None
    assert verdicts(outcome) == [("supported", None)]


@pytest.mark.parametrize(
    ("scenario", "reason"),
    [
        ("unparseable_completion", "unparseable_completion"),
        ("agent_output_limit", "unparseable_completion"),  # a first turn has no forced round
        ("context_budget", "context_budget_exhausted"),
        ("model_timeout", "model_timeout"),
    ],
)
def test_agent_fallbacks_publish_a_fixed_refusal_without_claims(
    deps: PipelineDeps, scenario: str, reason: str
) -> None:
    outcome = ask(deps, scenario)
    assert outcome.fallback == reason
    assert outcome.answer == NOTICES[outcome.fallback]
    assert outcome.annotation.claims == []
    report = outcome.annotation.faithfulness
    assert (report.unlocated_total, report.verification) == (1, "none")
    assert report.checked is (False if reason == "context_budget_exhausted" else None)


# --- V2-17: agent_output_limit comes only from a re-asked follow-up's forced tool round ---------


def history_after(question: str) -> History:
    """A conversation whose one earlier turn asked ``question`` and got a verified answer."""
    earlier = StoredMessage(
        message_id="m-0",
        conversation_id="c-1",
        tenant_id="acme",
        route="query_v2",
        question=question,
        answer="Anggaran pendidikan 2023 adalah Rp 5 miliar.",
        trace_id="t-0",
        created_at=0.0,
        segments=[
            {
                "text": "Anggaran pendidikan 2023 adalah Rp 5 miliar.",
                "kind": "fact",
                "cites": ["P1"],
                "verdict": "supported",
            }
        ],
        cited_documents=["qanun-2023"],
    )
    return build_history([earlier])


class AgentSpy:
    """The scripted model, remembering every agent request."""

    name = "spy"

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.agent: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> object:
        if request.role == "agent":
            self.agent.append(request)
        return self.inner.complete(request)  # type: ignore[attr-defined]


def ask_follow_up(
    deps: PipelineDeps, scenario: str, earlier: str
) -> tuple[AnswerOutcome, AgentSpy]:
    spy = AgentSpy(deps.model)
    outcome = replace(deps, model=spy).answer(
        QueryV2Request(query=QUESTION), scenario=scenario, history=history_after(earlier)
    )
    return outcome, spy


def test_a_re_asked_follow_up_whose_forced_round_is_cut_publishes_the_could_not_answer_notice(
    deps: PipelineDeps,
) -> None:
    # Given a conversation that already asked this question, and a model whose output is cut,
    outcome, spy = ask_follow_up(deps, "agent_output_limit", earlier=f"  {QUESTION.upper()}  ")

    # when the question is asked again, then its first agent round is a forced tool round, which
    # hits the output limit: agent_output_limit with the fixed notice, nothing checked or cited.
    assert [r.tool_choice for r in spy.agent] == ["required"]
    assert outcome.fallback == "agent_output_limit"
    assert outcome.answer == NOTICES[FallbackReason.agent_output_limit]
    assert "tidak sempat dijawab" in outcome.answer
    assert outcome.annotation.claims == [] and outcome.citations == []
    assert outcome.annotation.faithfulness.verification == "none"


def test_two_answers_cut_at_the_output_limit_elsewhere_are_unparseable_not_agent_output_limit(
    deps: PipelineDeps,
) -> None:
    # Given a follow-up with a new question (no forced round) and a model whose answers are cut
    # twice,
    outcome, spy = ask_follow_up(deps, "agent_output_limit", earlier="Apa itu Qanun?")

    # then the cut answers are invalid output: one regeneration, then unparseable_completion.
    assert [r.tool_choice for r in spy.agent] == ["auto", "auto", "auto"]
    assert outcome.fallback == "unparseable_completion"
    assert outcome.answer == NOTICES[FallbackReason.unparseable_completion]


def test_a_re_asked_follow_up_searches_again_in_its_forced_round_and_answers(
    deps: PipelineDeps,
) -> None:
    # Given a re-asked follow-up and a model that answers normally,
    outcome, spy = ask_follow_up(deps, "default", earlier=QUESTION.rstrip("?"))

    # then only the first round is forced, its search ran, and the answer is judged as usual.
    assert [r.tool_choice for r in spy.agent] == ["required", "auto"]
    assert outcome.tool_audit[-1].tool == "search"
    assert outcome.fallback is None
    assert verdicts(outcome) == [("supported", None)]


def test_agent_server_error_is_502_without_the_servers_text(deps: PipelineDeps) -> None:
    with pytest.raises(UpstreamFailed) as raised:
        ask(deps, "agent_upstream_error")
    assert "scripted" not in raised.value.message


def test_a_search_that_finds_nothing_is_404_with_the_empty_status(deps: PipelineDeps) -> None:
    with pytest.raises(NotFound) as raised:
        ask(deps, "nothing_found")
    assert domain_error_body(raised.value)["error"] == {
        "code": "no_readable_result",
        "message": "The tool that ran returned nothing readable.",
        "tool": "search",
        "tool_status": "empty",
    }


@pytest.mark.parametrize(
    ("fault", "status", "message"),
    [
        ("fail", "error", "The search tool that ran failed; nothing readable was returned."),
        (
            "hang",
            "timeout",
            "The search tool that ran was stopped at its deadline; nothing readable was returned.",
        ),
    ],
)
def test_a_search_that_fails_or_passes_the_tool_deadline_is_404_with_its_status(
    deps: PipelineDeps, fault: str, status: str, message: str
) -> None:
    # Given an index whose search fails (or hangs past a 50 ms tool deadline),
    index = FaultySearchIndex(deps.index, **{fault: True})  # type: ignore[arg-type]
    settings = deps.settings.model_copy(update={"tool_deadline_s": 0.05})
    try:
        # when the agent's only search runs, then the answer is a 404 (not a 502) with its status.
        with pytest.raises(NothingReadable) as raised:
            ask(replace(deps, index=index, settings=settings), "default")  # type: ignore[arg-type]
    finally:
        index.release.set()
    assert status_for(raised.value) == 404
    assert domain_error_body(raised.value)["error"] == {
        "code": "no_readable_result",
        "message": message,
        "tool": "search",
        "tool_status": status,
    }


def test_empty_named_selection_refuses_before_any_model_call(deps: PipelineDeps) -> None:
    calls: list[object] = []

    class CountingModel:
        name = "counting"

        def complete(self, request: object) -> object:
            calls.append(request)
            raise AssertionError("no model call may happen")

    outcome = ask(replace(deps, model=CountingModel()), "default", selection="kosong")  # type: ignore[arg-type]
    assert outcome.fallback == "source_scope_empty"
    assert outcome.answer == NOTICES[outcome.fallback]
    assert calls == []


def test_another_tenants_documents_are_out_of_scope(deps: PipelineDeps) -> None:
    outcome = deps.answer(
        QueryV2Request(query=QUESTION, document_ids=["qanun-2023"]), tenant_id="nobody"
    )
    assert outcome.fallback == "source_out_of_scope"


def test_the_judge_never_sees_the_question(deps: PipelineDeps) -> None:
    seen: list[object] = []
    inner = deps.model

    class Spy:
        name = "spy"

        def complete(self, request):  # type: ignore[no-untyped-def]
            seen.append(request)
            return inner.complete(request)

    ask(replace(deps, model=Spy()), "seed_example")
    judged = [r for r in seen if r.role in ("judge", "recheck")]  # type: ignore[attr-defined]
    assert judged
    for request in judged:
        text = " ".join(m.content for m in request.messages) + str(request.items)  # type: ignore[attr-defined]
        assert QUESTION not in text
        assert "Qanun Aceh Nomor 1 Tahun 2023" in text  # the same identity the agent saw


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"sources": ["portal"]}, "source_scope_unavailable"),
        ({"mcp_servers": ["bps"]}, "mcp_source_unavailable"),
        ({"document_ids": ["qanun-2023", "not-mine"]}, "source_out_of_scope"),
    ],
)
def test_unavailable_or_foreign_sources_refuse_before_any_model_call(
    deps: PipelineDeps, body: dict[str, object], reason: str
) -> None:
    class NoModel:
        name = "none"

        def complete(self, request: object) -> object:
            raise AssertionError("no model call may happen")

    outcome = ask(replace(deps, model=NoModel()), "default", **body)  # type: ignore[arg-type]
    assert outcome.fallback == reason
    assert outcome.answer == NOTICES[outcome.fallback]


@pytest.mark.parametrize(
    ("recheck", "expected"),
    [("confirm", ("supported", None)), ("dispute", ("unverified", "disputed"))],
)
def test_a_supported_verdict_whose_numbers_are_not_in_the_passages_must_survive_a_recheck(
    deps: PipelineDeps, recheck: str, expected: tuple[str, str | None]
) -> None:
    # The passage says Rp 5 miliar; the segment says Rp 5 juta. The judge says supported, but
    # tanda.numbers cannot find the amount, so the single-segment re-check decides.
    from tanda.adapters.scripted import (
        AgentScript,
        RecheckScript,
        Scenario,
        ScriptedModel,
        ScriptedToolCall,
    )
    from tanda.contract import Segment

    wrong = Segment(text="Anggaran pendidikan 2023 adalah Rp 5 juta.", kind="fact", cites=["P1"])
    scenario = Scenario(
        agent=AgentScript(tool_calls=[ScriptedToolCall(query="anggaran")], segments=[wrong]),
        recheck=RecheckScript(default=recheck),  # type: ignore[arg-type]
    )
    model = ScriptedModel({"scaled": scenario})
    roles: list[str] = []

    class Spy:
        name = "spy"

        def complete(self, request):  # type: ignore[no-untyped-def]
            roles.append(request.role.value)
            return model.complete(request)

    outcome = ask(replace(deps, model=Spy()), "scaled")
    assert roles.count("recheck") == 1
    assert verdicts(outcome) == [expected]


def test_a_supported_verdict_with_matching_numbers_needs_no_recheck(deps: PipelineDeps) -> None:
    roles: list[str] = []
    inner = deps.model

    class Spy:
        name = "spy"

        def complete(self, request):  # type: ignore[no-untyped-def]
            roles.append(request.role.value)
            return inner.complete(request)

    assert verdicts(ask(replace(deps, model=Spy()), "default")) == [("supported", None)]
    assert "recheck" not in roles


def test_a_follow_up_about_one_earlier_document_reads_it_whole_first(deps: PipelineDeps) -> None:
    from tanda.conversations.history import History

    history = History(read_whole="qanun-2023", preferred_documents=["qanun-2023"])
    outcome = deps.answer(QueryV2Request(query=QUESTION), scenario="default", history=history)
    first = outcome.tool_audit[0]
    assert (first.tool, first.arguments) == ("read_document", {"document_id": "qanun-2023"})
    assert {p.citation.document_id for p in outcome.passages.values()} == {"qanun-2023"}


def test_a_follow_up_about_several_documents_shows_their_passages_first(deps: PipelineDeps) -> None:
    from tanda.conversations.history import History
    from tests.corpus import add_qanun

    # A document the search ranks lower, but which the conversation relied on.
    add_qanun(deps.index, "acme", doc_id="earlier-doc", texts=["Laporan pendidikan daerah."])  # type: ignore[arg-type]
    plain = deps.answer(QueryV2Request(query=QUESTION), scenario="default")
    assert plain.passages["P1"].citation.document_id == "qanun-2023"
    history = History(preferred_documents=["earlier-doc", "gone"])
    steered = deps.answer(QueryV2Request(query=QUESTION), scenario="default", history=history)
    assert steered.passages["P1"].citation.document_id == "earlier-doc"
    assert "qanun-2023" in {p.citation.document_id for p in steered.passages.values()}
    assert steered.tool_audit[0].arguments == {
        "query": "anggaran pendidikan 2023"
    }  # no titles added


def offline_answer(question: str, passages: list[dict[str, object]]) -> list[dict[str, object]]:
    """The offline agent's final segments for ``question`` over ``passages`` (issue 22)."""
    from tanda.adapters.offline import OfflineModel
    from tanda.model_calls import ChatMessage, ChatRequest, ModelRole

    request = ChatRequest(
        role=ModelRole.agent,
        messages=[ChatMessage(role="user", content=question)],
        items=[{"question": question}, *passages],
    )
    content = OfflineModel().complete(request).content or ""
    segments: list[dict[str, object]] = json.loads(content)["segments"]
    return segments


def test_the_offline_agent_never_answers_from_a_table_of_another_period() -> None:
    from tanda.not_found import NEAREST_PASSAGE_LEAD, NOT_FOUND_NOTICE

    def table(key: str, period: str) -> dict[str, object]:
        return {
            "key": key,
            "identity": [f"Dokumen: APBD Surabaya {period}", f"Periode: {period}"],
            "text": f"akun | anggaran | realisasi\nPendapatan Daerah | {period},1 M | 9 M",
        }

    segments = offline_answer(
        "Berapa pendapatan daerah tahun 2023?", [table("P1", "2022"), table("P2", "2023")]
    )
    assert {c for s in segments for c in s["cites"]} == {"P2"}  # type: ignore[attr-defined]
    # Only the other period's table: the documents do not answer, and say so first; a row of it
    # may follow only under the lead-in that says it is the nearest passage, not the answer.
    only_2022 = offline_answer("Berapa pendapatan daerah tahun 2023?", [table("P1", "2022")])
    assert only_2022[0]["text"] == NOT_FOUND_NOTICE["id"]
    first_cite = next((n for n, s in enumerate(only_2022) if s["cites"]), None)
    if first_cite is not None:
        assert only_2022[1]["text"] == NEAREST_PASSAGE_LEAD["id"]


def test_the_offline_agent_shows_the_table_holding_the_best_row_first() -> None:
    identity = ["Dokumen: APBD 2023", "Periode: 2023"]
    weaker = {  # ranked first by search, but it shares fewer terms with the question
        "key": "P1",
        "identity": identity,
        "text": "akun | anggaran | realisasi\nPembiayaan Daerah | 97,51 M | 0,00 M",
    }
    answer = {
        "key": "P4",
        "identity": identity,
        "text": "akun | anggaran | realisasi\nPendapatan Daerah Surabaya | 10.723 M | 6.491 M",
    }
    segments = offline_answer("Berapa realisasi pendapatan daerah Surabaya?", [weaker, answer])
    cited = [c for s in segments for c in s["cites"]]  # type: ignore[attr-defined]
    # The row that answers leads, under its own table's header (V2-07).
    assert cited[0] == "P4"
    assert [s["layout"] for s in segments[1:3]] == ["table_header", "table_row"]


# --- what reads as verified: the judge's verdicts and the policy guard (V2-08, V2-10, V2-13) ---


def test_a_claim_the_judge_cannot_decide_is_unverified_and_the_answer_not_full(
    deps: PipelineDeps,
) -> None:
    # Given a judge that answers "unverifiable" for the second claim
    outcome = ask(deps, "judge_unverifiable")
    # then that claim is unverified, never supported, and the report says so (V2-10, V2-16)
    assert verdicts(outcome) == [("supported", None), ("unverified", "unparseable")]
    report = outcome.annotation.faithfulness
    assert (report.supported, report.unverified, report.verification) == (1, 1, "partial")
    assert report.judge_status == "unavailable"
    assert outcome.annotation.grounding.grounding_rate == 0.5


def test_a_guard_that_fails_publishes_nothing(deps: PipelineDeps) -> None:
    from tanda.guard.policy_guard import GuardUnavailable

    # V2-13 fails closed: no outcome (answer or refusal) comes back to be published or stored.
    with pytest.raises(GuardUnavailable):
        ask(deps, "guard_unavailable")


@pytest.mark.parametrize("reads", ["items", "prompt"])
def test_the_guard_blocks_on_text_past_the_start_of_the_answer(
    deps: PipelineDeps, reads: str
) -> None:
    from tanda.adapters.scripted import ScriptedModel
    from tests.fakes import NIK, PersonalDataGuard, personal_data_scenario

    # Given an answer whose personal data comes after its first sentence
    scripted = ScriptedModel({"personal_data": personal_data_scenario()})
    guard = PersonalDataGuard(scripted, reads=reads)  # type: ignore[arg-type]
    # when it is answered under a guard that blocks personal data
    outcome = ask(replace(deps, model=guard), "personal_data")
    # then the guard was shown the whole answer and replaced it (V2-13)
    assert NIK in guard.seen[0] and guard.seen[0].index(NIK) > 40
    assert outcome.fallback == "policy_blocked"
    assert outcome.answer == NOTICES[outcome.fallback]
    assert NIK not in outcome.answer and outcome.annotation.claims == []


# --- V2-23: the agent stops at its share of the deadline, the checks keep theirs ---------------


def timed(deps: PipelineDeps, agent_s: float, judge_s: float) -> tuple[PipelineDeps, ManualClock]:
    """The default scenario where every agent call takes ``agent_s`` and the judge ``judge_s``
    seconds of a 10 s request (judge share 0.4: the agent has 6 s, the checks until 9 s) — on a
    manual clock, so the figures are exact whatever the machine's load."""
    from tanda.adapters.scripted import ScriptedModel

    clock = ManualClock()
    default = ScriptedModel.from_dir(SCENARIOS).scenarios["default"]
    latency = {"agent": round(agent_s * 1000), "judge": round(judge_s * 1000)}
    model = ScriptedModel(
        {"default": default.model_copy(update={"latency_ms": latency})}, sleep=clock.advance
    )
    settings = deps.settings.model_copy(
        update={"request_deadline_s": 10.0, "judge_share": 0.4, "model_call_budget": 12}
    )
    return replace(deps, model=model, settings=settings, clock=clock), clock


def test_an_agent_still_working_at_its_share_of_the_deadline_is_stopped_there(
    deps: PipelineDeps,
) -> None:
    # Given an agent whose second call (the answer) would end at 7 s of a 10 s request
    timed_deps, clock = timed(deps, agent_s=3.5, judge_s=3.5)
    start = clock()
    # when the question is answered
    outcome = ask(timed_deps, "default")
    # then the agent's call is cut at 6 s, its share, and the answer is the model_timeout
    # refusal: no answer is published whose claims the judge had no time left to check
    assert outcome.fallback == "model_timeout"
    assert outcome.answer == NOTICES[outcome.fallback]
    assert clock() - start == pytest.approx(6.0)
    assert [(c.role, c.outcome, c.latency_ms) for c in outcome.model_calls] == [
        ("agent", "ok", 3500),
        ("agent", "deadline", 2500),
    ]


def test_an_agent_within_its_share_leaves_the_judge_the_rest_of_the_time(
    deps: PipelineDeps,
) -> None:
    # Given an agent that answers at 5.8 s and a judge that needs 3 s of the checks' 9 s
    timed_deps, clock = timed(deps, agent_s=2.9, judge_s=3.0)
    start = clock()
    outcome = ask(timed_deps, "default")
    # then the judge finishes in the time left to it and the claim is supported
    assert outcome.fallback is None
    assert verdicts(outcome) == [("supported", None)]
    assert clock() - start == pytest.approx(8.8)
    judge = next(c for c in outcome.model_calls if c.role == "judge")
    assert (judge.outcome, judge.latency_ms) == ("ok", 3000)


# --- the routing of segments to the checks (tanda.pipeline.routing) ----------------------------


def test_a_segment_that_repeats_the_conversation_is_from_conversation_not_judged(
    deps: PipelineDeps,
) -> None:
    from tanda.adapters.scripted import Scenario, ScriptedModel
    from tanda.conversations.history import build_history
    from tanda.records.conversations import StoredMessage

    fact = "Anggaran pendidikan 2023 adalah Rp 5 miliar."
    earlier = StoredMessage(
        message_id="m-0",
        conversation_id="c-1",
        tenant_id="acme",
        route="query_v2",
        question=QUESTION,
        answer=fact,
        trace_id="t-0",
        created_at=0.0,
        segments=[{"text": fact, "kind": "fact", "cites": ["P1"], "verdict": "supported"}],
        cited_documents=["qanun-2023"],
    )
    repeat = Scenario.model_validate(
        {
            "agent": {
                "tool_calls": [{"query": "anggaran"}],
                "segments": [{"text": fact, "kind": "fact", "cites": ["C2"]}],
            }
        }
    )
    model = ScriptedModel({"repeat": repeat})
    outcome = replace(deps, model=model).answer(
        QueryV2Request(query=QUESTION), scenario="repeat", history=build_history([earlier])
    )
    # V2-12: neutral, never supported, and no judge call for it
    assert verdicts(outcome) == [("from_conversation", None)]
    assert "judge" not in [c.role for c in outcome.model_calls]


def test_the_framing_check_sees_the_question(deps: PipelineDeps) -> None:
    seen: list[object] = []
    inner = deps.model

    class Spy:
        name = "spy"

        def complete(self, request):  # type: ignore[no-untyped-def]
            seen.append(request)
            return inner.complete(request)

    ask(replace(deps, model=Spy()), "default")
    (framing,) = [r for r in seen if r.role == "framing_check"]  # type: ignore[attr-defined]
    assert QUESTION in framing.messages[-1].content  # type: ignore[attr-defined]
    assert framing.items[0] == {"question": QUESTION}  # type: ignore[attr-defined]


def test_a_framing_check_still_out_at_the_checks_deadline_leaves_framing_uncited(
    deps: PipelineDeps,
) -> None:
    from tanda.adapters.scripted import Scenario, ScriptedModel

    # Given a framing check that needs 9.5 s of a 10 s request whose checks end at 9 s (the
    # guard keeps the last second), on a manual clock; no cited segment, so no judge runs
    clock = ManualClock()
    scenario = Scenario.model_validate(
        {
            "agent": {
                "tool_calls": [{"query": "anggaran"}],
                "segments": [
                    {"text": "Berikut datanya.", "kind": "framing"},
                    {"text": "Tanpa sumber.", "kind": "fact", "layout": "continue"},
                ],
            },
            "latency_ms": {"framing_check": 9500},
        }
    )
    model = ScriptedModel({"slow_framing": scenario}, sleep=clock.advance)
    settings = deps.settings.model_copy(update={"request_deadline_s": 10.0})
    outcome = ask(replace(deps, model=model, settings=settings, clock=clock), "slow_framing")
    # then the framing check is cut at 9 s: framing unavailable, its segment uncited (V2-06),
    # and the guard still had its second
    report = outcome.annotation.faithfulness
    assert report.framing_check == "unavailable"
    assert verdicts(outcome) == [("uncited", None), ("uncited", None)]
    assert [(c.role, c.outcome) for c in outcome.model_calls][-2:] == [
        ("framing_check", "deadline"),
        ("guard", "ok"),
    ]


def test_cited_segments_are_judged_in_batches_of_the_configured_size(deps: PipelineDeps) -> None:
    roles: list[tuple[str, int]] = []
    inner = deps.model

    class Spy:
        name = "spy"

        def complete(self, request):  # type: ignore[no-untyped-def]
            roles.append((request.role.value, len(request.items or [])))
            return inner.complete(request)

    settings = deps.settings.model_copy(update={"judge_batch_size": 1})
    ask(replace(deps, model=Spy(), settings=settings), "seed_example")  # two cited segments
    assert [n for role, n in roles if role == "judge"] == [1, 1]


# --- the v1 gate (CV-2): the same steps in v1-gate mode ------------------------------------------


def gated(deps: PipelineDeps, scenario: str) -> tuple[AnswerOutcome, list[str]]:
    roles: list[str] = []
    inner = deps.model

    class Spy:
        name = "spy"

        def complete(self, request):  # type: ignore[no-untyped-def]
            roles.append(request.role.value)
            return inner.complete(request)

    outcome = replace(deps, model=Spy()).answer(QUESTION, scenario=scenario, mode="v1-gate")
    return outcome, roles


def test_a_v1_turn_publishes_the_confirmed_sentences_and_maps_every_claim(
    deps: PipelineDeps,
) -> None:
    outcome, roles = gated(deps, "judge_unverifiable")
    gate = outcome.gate
    assert gate is not None and gate.published is not None
    # the sentence the judge could not decide is withheld; the report keeps every checked claim
    assert outcome.answer == "Anggaran pendidikan 2023 adalah Rp 5 miliar."
    assert verdicts(outcome) == [("supported", None), ("unverified", "unparseable")]
    assert [(c.kept, c.start, c.end) for c in gate.claim_map] == [
        (True, 0, 44),
        (False, None, None),
    ]
    assert gate.dropped_reasons == {"unverified": 1} and not gate.rejected
    assert [c.citation_key for c in outcome.citations] == ["P1"]
    assert roles[-1] == "guard"


def test_a_v1_turn_with_too_few_confirmed_sentences_is_rejected_without_a_guard_call(
    deps: PipelineDeps,
) -> None:
    from tanda.pipeline.notices import INSUFFICIENT_GROUNDING_NOTICE

    outcome, roles = gated(deps, "disputed")
    assert outcome.gate is not None and outcome.gate.rejected
    assert outcome.answer == INSUFFICIENT_GROUNDING_NOTICE
    assert outcome.citations == [] and outcome.gate.published is None
    assert "guard" not in roles  # nothing would be published: nothing to guard


def test_a_v1_turn_the_guard_blocks_publishes_the_policy_notice(deps: PipelineDeps) -> None:
    outcome, _ = gated(deps, "policy_blocked")
    assert outcome.fallback == "policy_blocked"
    assert outcome.answer == NOTICES[FallbackReason.policy_blocked]
    assert outcome.gate is not None and outcome.gate.published is None
    assert outcome.citations == []


def test_a_v1_turn_asks_the_agent_for_sentences(deps: PipelineDeps) -> None:
    from tanda.prompts import prompt

    seen: list[ChatRequest] = []
    inner = deps.model

    class Spy:
        name = "spy"

        def complete(self, request: ChatRequest) -> object:
            seen.append(request)
            return inner.complete(request)

    replace(deps, model=Spy()).answer(QUESTION, scenario="default", mode="v1-gate")
    assert seen[0].messages[0].content.endswith(prompt("agent_sentences"))


def test_evidence_too_large_ends_a_v1_turn_before_the_gate(deps: PipelineDeps) -> None:
    # (the route answers it with 413, V2-18: tanda.service.answer_v1)
    outcome = deps.answer(QUESTION, scenario="context_budget", mode="v1-gate")
    assert outcome.fallback == "context_budget_exhausted" and outcome.gate is None


# --- the reranker floor in the agent's search (ASK-06) ------------------------------------------


WEAK_SEARCH = "belanja pegawai kesehatan jembatan pelabuhan bandara"


@pytest.mark.parametrize(("floor", "shown"), [(0.25, ["acme:qanun-2023#1"]), (0.0, 2)])
def test_the_answer_sees_only_the_search_results_over_the_reranker_floor(
    deps: PipelineDeps, floor: float, shown: list[str] | int
) -> None:
    from tanda.adapters.scripted import ScriptedModel, ScriptedToolCall
    from tanda.retrieval.rerank import LexicalReranker

    # Given the agent searching six terms of which the 2022 chunk holds two (lexical score 0.33)
    # and the 2023 chunk one (0.17), with the lexical reranker and a floor,
    default = ScriptedModel.from_dir(SCENARIOS).scenarios["default"]
    agent = default.agent.model_copy(  # type: ignore[union-attr]
        update={"tool_calls": [ScriptedToolCall(query=WEAK_SEARCH)]}
    )
    model = ScriptedModel({"default": default.model_copy(update={"agent": agent})})
    settings = deps.settings.model_copy(update={"rerank_min_score": floor})
    deps = replace(deps, model=model, settings=settings, reranker=LexicalReranker())

    # when it answers, then the passages it was shown are those over the floor.
    outcome = ask(deps, "default")
    chunk_ids = [p.citation.chunk_id for p in outcome.passages.values()]
    assert chunk_ids == shown if isinstance(shown, list) else len(chunk_ids) == shown
