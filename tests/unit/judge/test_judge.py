"""The strict judge and its re-check (V2-07 … V2-11) and the framing check (V2-06), as components
(``Judge``, ``FramingCheck``): how each raw verdict a judge model gives becomes the verdict the
reader sees."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace
from typing import Any, NamedTuple

import pytest

from tanda.annotate.outcome import SegmentOutcome
from tanda.contract import Citation, Segment, SegmentKind, StageStatus, UnverifiedReason, Verdict
from tanda.judge.framing_check import FramingCheck
from tanda.judge.items import JudgeItem
from tanda.judge.reader_context import ReaderContext
from tanda.judge.strict_judge import Judge
from tanda.model_calls import ChatRequest, ChatResponse, ModelError, ModelRole, ModelTimeout
from tanda.model_calls.budget import ModelLedger, RequestBudget
from tanda.passages import Passage
from tanda.records.documents import LegalIdentity
from tests.corpus import QANUN
from tests.fakes import ManualClock

SOURCE = "Anggaran pendidikan 2023 adalah Rp 5 miliar. Anggaran kesehatan 2023 adalah Rp 3 miliar."
MATCHING = "Anggaran pendidikan 2023 adalah Rp 5 miliar."  # its numbers are in SOURCE
NOT_MATCHING = "Anggaran pendidikan 2023 adalah Rp 5 juta."  # scale differs from SOURCE
NO_VERDICT = None


class VerdictModel:
    """A judge model that answers by segment text: ``judge`` for batch calls, ``recheck`` for
    single-segment re-checks (a text missing from the table gets no verdict). ``fail`` maps a role
    to the error its calls raise; ``fail_texts`` fail the calls about those texts (of the role
    ``fail_only``, if given). Records every request."""

    name = "verdicts"

    def __init__(
        self,
        judge: Mapping[str, str | None] | None = None,
        recheck: Mapping[str, str | None] | None = None,
        fail: Mapping[ModelRole, ModelError] | None = None,
        framing: list[str] | str | None = None,
        fail_texts: tuple[str, ...] = (),
        fail_only: ModelRole | None = None,
    ) -> None:
        self.fail_texts, self.fail_only = fail_texts, fail_only
        self.tables = {ModelRole.judge: judge or {}, ModelRole.recheck: recheck or {}}
        self.fail = fail or {}
        self.framing = framing
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.requests.append(request)
        if request.role in self.fail:
            raise self.fail[request.role]
        items = request.items or []
        failing = self.fail_only is None or request.role is self.fail_only
        if failing and any(i.get("text") in self.fail_texts for i in items):
            raise ModelError("this batch fails")
        if request.role is ModelRole.framing_check:
            if isinstance(self.framing, str):
                return ChatResponse(content=self.framing)
            wanted = set(self.framing or [])
            return ChatResponse(
                content=json.dumps(
                    {"checkable": [i["id"] for i in items if i.get("text") in wanted] + ["f99"]}
                )
            )
        table = self.tables[request.role]
        verdicts = [
            {"id": item["id"], "verdict": table[item["text"]]}
            for item in items
            if table.get(item["text"]) is not None
        ]
        # A verdict for an id the call was not about is ignored.
        verdicts.append({"id": "s999", "verdict": "supported"})
        return ChatResponse(content=json.dumps({"verdicts": verdicts}))

    def roles(self) -> list[str]:
        return [r.role.value for r in self.requests]


def passage(
    text: str = SOURCE,
    key: str = "P1",
    *,
    title: str | None = "Qanun Anggaran",
    identity: LegalIdentity = QANUN,
) -> Passage:
    return Passage(
        key=key,
        kind="chunk",
        text=text,
        citation=Citation(citation_key=key, chunk_id=f"c-{key}", document_title=title),
        identity=identity,
    )


class Cited(NamedTuple):
    """A judge item and the passages it cites (the judge is given them once, by key)."""

    item: JudgeItem
    passages: list[Passage]


def item(
    index: int,
    text: str,
    source: str = SOURCE,
    *,
    passages: list[Passage] | None = None,
    context: ReaderContext | None = None,
) -> Cited:
    shown = passages or [passage(source)]
    segment = Segment(text=text, kind=SegmentKind.fact, cites=[p.key for p in shown])
    keys = tuple(p.key for p in shown)
    return Cited(JudgeItem(index, segment, keys, context or ReaderContext()), shown)


def passages_of(cited: Sequence[Cited]) -> dict[str, Passage]:
    by_key: dict[str, Passage] = {}
    for entry in cited:
        for shown in entry.passages:
            assert by_key.setdefault(shown.key, shown) == shown, "one key, one passage"
    return by_key


def judge(
    book: ModelLedger,
    cited: Sequence[Cited],
    *,
    invalid_keys: dict[int, tuple[str, ...]],
    until: float,
    executor: ThreadPoolExecutor,
    batch_size: int = 6,
) -> dict[int, SegmentOutcome]:
    """``Judge.run`` over ``cited``, the passages given once by key."""
    return Judge(batch_size=batch_size, executor=executor).run(
        book,
        [entry.item for entry in cited],
        passages_of(cited),
        invalid_keys=invalid_keys,
        until=until,
    )


def check_framing(
    book: ModelLedger, question: str, items: list[tuple[int, Segment]], *, until: float
) -> tuple[set[int], StageStatus]:
    return FramingCheck().run(book, question, items, until=until)


@pytest.fixture
def executor() -> Iterator[ThreadPoolExecutor]:
    pool = ThreadPoolExecutor(max_workers=4)
    yield pool
    pool.shutdown(wait=True, cancel_futures=True)


def ledger(model: object, *, calls: int = 20, seconds: float = 30.0) -> ModelLedger:
    budget = RequestBudget.starting_now(seconds, calls, clock=ManualClock())
    return ModelLedger(model, budget)  # type: ignore[arg-type]


def judged(
    model: VerdictModel,
    items: list[Cited],
    executor: ThreadPoolExecutor,
    *,
    invalid: dict[int, tuple[str, ...]] | None = None,
    calls: int = 20,
    batch_size: int = 6,
) -> dict[int, tuple[Verdict, UnverifiedReason | None, tuple[str, ...]]]:
    book = ledger(model, calls=calls)
    outcomes = judge(
        book,
        items,
        invalid_keys=invalid or {},
        until=book.budget.deadline,
        executor=executor,
        batch_size=batch_size,
    )
    return {
        i: (o.verdict, o.unverified_reason, o.invalid_citation_keys)  # type: ignore[misc]
        for i, o in outcomes.items()
    }


SUPPORTED = (Verdict.supported, None, ())
UNSUPPORTED = (Verdict.unsupported, None, ())


def unverified(reason: UnverifiedReason) -> tuple[Verdict, UnverifiedReason, tuple[str, ...]]:
    return (Verdict.unverified, reason, ())


# --- the batch verdict and the re-check -------------------------------------------------------


def test_a_supported_verdict_whose_numbers_are_in_the_passages_stands_without_a_recheck(
    executor: ThreadPoolExecutor,
) -> None:
    model = VerdictModel(judge={MATCHING: "supported"})
    assert judged(model, [item(0, MATCHING)], executor) == {0: SUPPORTED}
    assert model.roles() == ["judge"]


def test_the_judges_unverifiable_is_unverified_never_supported(
    executor: ThreadPoolExecutor,
) -> None:
    # V2-08/V2-10: "I cannot decide from these passages" must not read as verified.
    model = VerdictModel(judge={MATCHING: "unverifiable"})
    assert judged(model, [item(0, MATCHING)], executor) == {
        0: unverified(UnverifiedReason.unparseable)
    }
    assert model.roles() == ["judge"]


def test_no_verdict_for_a_segment_is_unverified_unparseable(executor: ThreadPoolExecutor) -> None:
    model = VerdictModel(judge={MATCHING: NO_VERDICT})
    assert judged(model, [item(0, MATCHING)], executor) == {
        0: unverified(UnverifiedReason.unparseable)
    }


def test_a_judge_reply_that_is_not_json_leaves_every_segment_unparseable(
    executor: ThreadPoolExecutor,
) -> None:
    class NotJson(VerdictModel):
        def complete(self, request: ChatRequest) -> ChatResponse:
            return ChatResponse(content='{"verdicts": "all good"}')

    assert judged(NotJson(), [item(0, MATCHING), item(1, NOT_MATCHING)], executor) == {
        0: unverified(UnverifiedReason.unparseable),
        1: unverified(UnverifiedReason.unparseable),
    }


@pytest.mark.parametrize(
    ("recheck", "expected"),
    [
        ("unsupported", UNSUPPORTED),  # V2-09: confirmed
        ("supported", unverified(UnverifiedReason.disputed)),
        ("unverifiable", unverified(UnverifiedReason.disputed)),
        (NO_VERDICT, unverified(UnverifiedReason.unparseable)),
    ],
)
def test_an_unsupported_verdict_stands_only_when_the_recheck_confirms_it(
    executor: ThreadPoolExecutor, recheck: str | None, expected: object
) -> None:
    model = VerdictModel(judge={MATCHING: "unsupported"}, recheck={MATCHING: recheck})
    assert judged(model, [item(0, MATCHING)], executor) == {0: expected}
    assert model.roles() == ["judge", "recheck"]


@pytest.mark.parametrize(
    ("recheck", "expected"),
    [
        ("supported", SUPPORTED),
        ("unsupported", unverified(UnverifiedReason.disputed)),
        ("unverifiable", unverified(UnverifiedReason.disputed)),
        (NO_VERDICT, unverified(UnverifiedReason.unparseable)),
    ],
)
def test_a_supported_verdict_whose_numbers_are_missing_needs_a_confirming_recheck(
    executor: ThreadPoolExecutor, recheck: str | None, expected: object
) -> None:
    # The passage says Rp 5 miliar, the segment Rp 5 juta: the deterministic check withholds
    # supported until a single-segment re-check confirms it; it never grants supported.
    model = VerdictModel(judge={NOT_MATCHING: "supported"}, recheck={NOT_MATCHING: recheck})
    assert judged(model, [item(0, NOT_MATCHING)], executor) == {0: expected}
    assert model.roles() == ["judge", "recheck"]


def test_a_number_found_only_in_the_documents_identity_still_counts(
    executor: ThreadPoolExecutor,
) -> None:
    # A table's year lives in its title: the identity (Tahun: 2023) is part of the source.
    model = VerdictModel(judge={"Pendapatan asli daerah tahun 2023 naik.": "supported"})
    row = item(0, "Pendapatan asli daerah tahun 2023 naik.", source="Pendapatan asli daerah naik.")
    assert judged(model, [row], executor) == {0: SUPPORTED}
    assert model.roles() == ["judge"]


BARE = LegalIdentity()


def test_a_number_only_the_producing_call_names_is_not_found(
    executor: ThreadPoolExecutor,
) -> None:
    # The call that produced a passage is the agent's words (its search), shown to the judge as
    # context (V2-07): a year it names is not a year the source states.
    statement = "Pendapatan asli daerah naik pada 2024."
    source = passage("Pendapatan asli daerah naik.", title=None, identity=BARE)
    searched = replace(source, producing_call="search('pendapatan asli daerah 2024')")
    model = VerdictModel(judge={statement: "supported"}, recheck={statement: "supported"})

    judged(model, [item(0, statement, passages=[searched])], executor)

    assert model.roles() == ["judge", "recheck"]


@pytest.mark.parametrize(
    "texts",
    [("Jumlah sekolah baru: 12", "Lainnya."), ("Lainnya.", "12 unit sekolah baru.")],
    ids=["number-ending-a-passage", "number-opening-a-passage"],
)
def test_a_number_at_the_edge_of_one_of_several_passages_is_found(
    executor: ThreadPoolExecutor, texts: tuple[str, str]
) -> None:
    statement = "Jumlah sekolah baru adalah 12 unit."
    passages = [passage(text, f"P{n}", title=None, identity=BARE) for n, text in enumerate(texts)]
    model = VerdictModel(judge={statement: "supported"})
    assert judged(model, [item(0, statement, passages=passages)], executor) == {0: SUPPORTED}
    assert model.roles() == ["judge"]


def test_a_number_ending_an_identity_line_is_found(executor: ThreadPoolExecutor) -> None:
    identity = LegalIdentity(regulation_type="Qanun", year=2023, publisher="Pemerintah Aceh")
    statement = "Pendapatan asli daerah naik pada 2023."
    source = passage("Pendapatan asli daerah naik.", title=None, identity=identity)
    model = VerdictModel(judge={statement: "supported"})
    assert judged(model, [item(0, statement, passages=[source])], executor) == {0: SUPPORTED}
    assert model.roles() == ["judge"]


def test_by_default_six_segments_go_to_one_judge_call(executor: ThreadPoolExecutor) -> None:
    texts = [f"Anggaran pos {name} tahun 2023." for name in "ABCDEFG"]
    model = VerdictModel(judge=dict.fromkeys(texts, "supported"))
    book = ledger(model)
    judge(
        book,
        [item(i, t) for i, t in enumerate(texts)],
        invalid_keys={},
        until=book.budget.deadline,
        executor=executor,
    )
    assert sorted(len(r.items or []) for r in model.requests) == [1, 6]


def test_a_judge_with_batches_of_no_segment_is_refused_when_built() -> None:
    with pytest.raises(ValueError):
        Judge(batch_size=0)


def test_without_an_executor_the_judge_calls_on_its_shared_pool() -> None:
    model = VerdictModel(judge={MATCHING: "supported"})
    book = ledger(model)
    cited = [item(0, MATCHING)]
    outcomes = Judge().run(
        book,
        [c.item for c in cited],
        passages_of(cited),
        invalid_keys={},
        until=book.budget.deadline,
    )
    assert outcomes == {0: judged_outcome(Verdict.supported, None, ())}


def test_the_judge_and_the_recheck_are_asked_in_their_own_words(
    executor: ThreadPoolExecutor,
) -> None:
    from tanda.model_calls import JudgeOutput
    from tanda.prompts import prompt

    # Given two segments the batch judge finds unsupported, the first with reader context
    first = item(
        0,
        "Naik 9 persen.",
        passages=[passage("Naik 5 persen.", title=None, identity=BARE)],
        context=ReaderContext(heading="Anggaran", table_header="Pos | Nilai"),
    )
    second = item(
        1,
        "Turun 2 persen.",
        passages=[passage("Naik 5 persen.", "P2", title="Laporan", identity=BARE)],
    )
    model = VerdictModel(judge={"Naik 9 persen.": "unsupported"})
    judged(model, [first, second], executor)
    judge, recheck = model.requests
    # then the batch judge gets its prompt, both statements and the verdict schema
    assert [m.role for m in judge.messages] == ["system", "user"]
    assert judge.messages[0].content == prompt("judge")
    assert judge.messages[1].content == (
        "### Statement s0\nNaik 9 persen.\nAround it the reader sees:\n"
        "Section heading: Anggaran\nTable header: Pos | Nilai\nCited passages:\n"
        "[P1] \nNaik 5 persen.\n\n"
        "### Statement s1\nTurun 2 persen.\nCited passages:\n[P2] Dokumen: Laporan\nNaik 5 persen."
    )
    assert (judge.json_schema, judge.schema_name) == (JudgeOutput.model_json_schema(), "verdicts")
    assert judge.items == [
        {
            "id": "s0",
            "text": "Naik 9 persen.",
            "passages": [
                {"key": "P1", "text": "Naik 5 persen.", "identity": [], "document_id": None}
            ],
            "context": ["Section heading: Anggaran", "Table header: Pos | Nilai"],
        },
        {
            "id": "s1",
            "text": "Turun 2 persen.",
            "passages": [
                {
                    "key": "P2",
                    "text": "Naik 5 persen.",
                    "identity": ["Dokumen: Laporan"],
                    "document_id": None,
                }
            ],
            "context": [],
        },
    ]
    # and the re-check its own prompt, over the one segment, with the same schema
    assert recheck.messages[0].content == prompt("recheck")
    assert recheck.messages[1].content == first.item.as_text(passages_of([first]))
    assert (recheck.json_schema, recheck.schema_name) == (judge.json_schema, "verdicts")


def test_the_recheck_sees_only_its_one_segment(executor: ThreadPoolExecutor) -> None:
    model = VerdictModel(
        judge={MATCHING: "supported", "Naik 9 persen.": "unsupported"},
        recheck={"Naik 9 persen.": "unsupported"},
    )
    outcomes = judged(model, [item(0, MATCHING), item(1, "Naik 9 persen.")], executor)
    assert outcomes == {0: SUPPORTED, 1: UNSUPPORTED}
    recheck = next(r for r in model.requests if r.role is ModelRole.recheck)
    assert [i["id"] for i in recheck.items or []] == ["s1"]
    assert "### Statement s1" in recheck.messages[-1].content
    assert "### Statement s0" not in recheck.messages[-1].content


def test_segments_are_judged_in_batches_and_each_keeps_its_own_verdict(
    executor: ThreadPoolExecutor,
) -> None:
    texts = [f"Anggaran pos {name} tahun 2023." for name in "ABCDE"]
    model = VerdictModel(judge={t: "supported" for t in texts} | {texts[3]: "unverifiable"})
    outcomes = judged(model, [item(i, t) for i, t in enumerate(texts)], executor, batch_size=2)
    assert model.roles() == ["judge"] * 3
    assert sorted(len(r.items or []) for r in model.requests) == [1, 2, 2]
    assert outcomes == {i: SUPPORTED for i in (0, 1, 2, 4)} | {
        3: unverified(UnverifiedReason.unparseable)
    }


def test_every_verdict_keeps_the_segments_invalid_keys(executor: ThreadPoolExecutor) -> None:
    # V2-11: a segment judged on its valid keys still reports the invalid ones.
    texts = ["Fakta A 2023.", "Fakta B 2023.", "Fakta C 2023.", "Fakta D 2023."]
    model = VerdictModel(
        judge={texts[0]: "supported", texts[1]: "unsupported", texts[2]: "unverifiable"},
        recheck={texts[1]: "unsupported"},
    )
    invalid = {0: ("P8",), 1: ("P9",), 2: ("P7",), 3: ("P6",)}
    outcomes = judged(model, [item(i, t) for i, t in enumerate(texts)], executor, invalid=invalid)
    assert outcomes == {
        0: (Verdict.supported, None, ("P8",)),
        1: (Verdict.unsupported, None, ("P9",)),
        2: (Verdict.unverified, UnverifiedReason.unparseable, ("P7",)),
        3: (Verdict.unverified, UnverifiedReason.unparseable, ("P6",)),
    }


def test_recheck_outcomes_keep_the_segments_invalid_keys(executor: ThreadPoolExecutor) -> None:
    texts = ["Fakta A 2023.", "Fakta B 2023.", "Fakta C 2023."]
    model = VerdictModel(
        judge=dict.fromkeys(texts, "unsupported"),
        recheck={texts[0]: "supported", texts[1]: NO_VERDICT, texts[2]: "unsupported"},
    )
    outcomes = judged(
        model,
        [item(i, t) for i, t in enumerate(texts)],
        executor,
        invalid={0: ("P8",), 1: ("P9",), 2: ("P7",)},
    )
    assert outcomes == {
        0: (Verdict.unverified, UnverifiedReason.disputed, ("P8",)),
        1: (Verdict.unverified, UnverifiedReason.unparseable, ("P9",)),
        2: (Verdict.unsupported, None, ("P7",)),
    }
    confirmed = VerdictModel(judge={NOT_MATCHING: "supported"}, recheck={NOT_MATCHING: "supported"})
    outcome = judged(confirmed, [item(0, NOT_MATCHING)], executor, invalid={0: ("P5",)})
    assert outcome == {0: (Verdict.supported, None, ("P5",))}


# --- failures: every one leaves the segment unverified with its reason -------------------------


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ModelError("boom"), UnverifiedReason.judge_unavailable),
        (ModelTimeout("slow"), UnverifiedReason.judge_unavailable),
    ],
)
def test_a_failed_judge_call_leaves_its_batch_unverified(
    executor: ThreadPoolExecutor, error: ModelError, reason: UnverifiedReason
) -> None:
    model = VerdictModel(fail={ModelRole.judge: error})
    outcomes = judged(
        model, [item(0, MATCHING), item(1, NOT_MATCHING)], executor, invalid={1: ("P9",)}
    )
    assert outcomes == {0: unverified(reason), 1: (Verdict.unverified, reason, ("P9",))}


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ModelError("boom"), UnverifiedReason.judge_unavailable),
        (ModelTimeout("slow"), UnverifiedReason.judge_unavailable),
    ],
)
def test_a_failed_recheck_leaves_its_segment_unverified(
    executor: ThreadPoolExecutor, error: ModelError, reason: UnverifiedReason
) -> None:
    model = VerdictModel(judge={MATCHING: "unsupported"}, fail={ModelRole.recheck: error})
    outcomes = judged(model, [item(0, MATCHING)], executor, invalid={0: ("P9",)})
    assert outcomes == {0: (Verdict.unverified, reason, ("P9",))}


def test_a_judge_without_a_call_in_its_allotment_is_unverified_budget(
    executor: ThreadPoolExecutor,
) -> None:
    # The judge spends the calls of its ledger, no more (the guard's was kept before, V2-13).
    model = VerdictModel(judge={MATCHING: "supported"})
    assert judged(model, [item(0, MATCHING)], executor, calls=0) == {
        0: unverified(UnverifiedReason.budget)
    }
    assert model.requests == []


def test_a_recheck_without_a_call_left_is_unverified_budget(executor: ThreadPoolExecutor) -> None:
    model = VerdictModel(judge={MATCHING: "unsupported"}, recheck={MATCHING: "unsupported"})
    assert judged(model, [item(0, MATCHING)], executor, calls=1) == {
        0: unverified(UnverifiedReason.budget)
    }
    assert model.roles() == ["judge"]


def test_a_judge_asked_after_the_deadline_is_unverified_deadline(
    executor: ThreadPoolExecutor,
) -> None:
    model = VerdictModel(judge={MATCHING: "supported"})
    book = ledger(model)
    outcomes = judge(
        book,
        [item(0, MATCHING)],
        invalid_keys={0: ("P9",)},
        until=book.budget.clock(),  # the checks' time is already spent
        executor=executor,
    )
    assert outcomes[0] == judged_outcome(Verdict.unverified, UnverifiedReason.deadline, ("P9",))
    assert model.requests == []


class Held(VerdictModel):
    """Holds the calls of ``role`` (for the items with ``text``, if given) for ``hold_s`` real
    seconds: a call still out when the checks' time is up, returning before the request's."""

    def __init__(
        self,
        role: ModelRole,
        hold_s: float,
        text: str | None = None,
        **tables: Mapping[str, str | None],
    ) -> None:
        super().__init__(**tables)  # type: ignore[arg-type]
        self.role, self.hold_s, self.text = role, hold_s, text
        self.release = threading.Event()
        self.holding: Future[None] = Future()
        """Done once a call is being held."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        texts = {i.get("text") for i in request.items or []}
        if request.role is self.role and (self.text is None or self.text in texts):
            self.holding.set_result(None)
            self.release.wait(timeout=self.hold_s)
        return super().complete(request)


class CallsBeforeChecks(ThreadPoolExecutor):
    """A pool whose ``submit`` returns once the call has returned or is held by ``model``: when
    the checks start waiting for their calls, every call that is not held is done, so a wait of a
    few milliseconds tells the late call from the others, whatever the machine's load."""

    def __init__(self, model: Held) -> None:
        super().__init__(max_workers=4)
        self.model = model

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        wait([future, self.model.holding], return_when=FIRST_COMPLETED)
        return future


@pytest.mark.parametrize("late", [ModelRole.judge, ModelRole.recheck])
def test_a_call_still_out_at_the_checks_deadline_is_unverified_deadline(
    executor: ThreadPoolExecutor, late: ModelRole
) -> None:
    # Given a judge (or re-check) call that returns 0.8 s after it is asked, while the checks'
    # time ends 10 ms after (the manual clock never moves: the wait for calls is real) and the
    # request's own deadline is 30 s away
    model = Held(late, 0.8, judge={MATCHING: "unsupported"}, recheck={MATCHING: "unsupported"})
    book = ledger(model)
    try:
        outcomes = judge(
            book,
            [item(0, MATCHING)],
            invalid_keys={0: ("P9",)},
            until=book.budget.clock() + 0.01,
            executor=executor,
        )
    finally:
        model.release.set()
    # then the checks do not wait for it: the segment is unverified(deadline) with its invalid
    # keys (V2-10), and the guard keeps the rest of the time
    assert outcomes[0] == judged_outcome(Verdict.unverified, UnverifiedReason.deadline, ("P9",))


def test_a_late_batch_does_not_stop_the_verdicts_of_the_batches_after_it() -> None:
    # Given two batches, the first held past the checks' time (10 ms: the wait for calls is
    # real, and the other call has returned before it starts)
    texts = ["Fakta A 2023.", "Fakta B 2023."]
    model = Held(ModelRole.judge, 30, text=texts[0], judge=dict.fromkeys(texts, "supported"))
    book = ledger(model)
    with CallsBeforeChecks(model) as executor:
        try:
            outcomes = judge(
                book,
                [item(0, texts[0]), item(1, texts[1])],
                invalid_keys={},
                until=book.budget.clock() + 0.01,
                executor=executor,
                batch_size=1,
            )
        finally:
            model.release.set()
    # then the late one is unverified(deadline) and the other keeps its verdict
    assert outcomes == {
        0: judged_outcome(Verdict.unverified, UnverifiedReason.deadline, ()),
        1: judged_outcome(Verdict.supported, None, ()),
    }


def test_a_late_recheck_does_not_stop_the_rechecks_after_it() -> None:
    # Given two re-checks, the first held past the checks' time (as above)
    texts = ["Fakta A 2023.", "Fakta B 2023."]
    model = Held(
        ModelRole.recheck,
        30,
        text=texts[0],
        judge=dict.fromkeys(texts, "unsupported"),
        recheck=dict.fromkeys(texts, "unsupported"),
    )
    book = ledger(model)
    with CallsBeforeChecks(model) as executor:
        try:
            outcomes = judge(
                book,
                [item(0, texts[0]), item(1, texts[1])],
                invalid_keys={},
                until=book.budget.clock() + 0.01,
                executor=executor,
            )
        finally:
            model.release.set()
    # then the late one is unverified(deadline) and the other keeps its verdict
    assert outcomes == {
        0: judged_outcome(Verdict.unverified, UnverifiedReason.deadline, ()),
        1: judged_outcome(Verdict.unsupported, None, ()),
    }


def test_a_failed_recheck_does_not_stop_the_rechecks_after_it(
    executor: ThreadPoolExecutor,
) -> None:
    texts = ["Fakta A 2023.", "Fakta B 2023."]
    model = VerdictModel(
        judge=dict.fromkeys(texts, "unsupported"),
        recheck=dict.fromkeys(texts, "unsupported"),
        fail_texts=(texts[0],),
        fail_only=ModelRole.recheck,
    )
    outcomes = judged(model, [item(0, texts[0]), item(1, texts[1])], executor)
    assert outcomes == {0: unverified(UnverifiedReason.judge_unavailable), 1: UNSUPPORTED}


def test_a_failed_batch_does_not_stop_the_verdicts_of_the_batches_after_it(
    executor: ThreadPoolExecutor,
) -> None:
    texts = ["Fakta A 2023.", "Fakta B 2023."]
    model = VerdictModel(judge=dict.fromkeys(texts, "supported"), fail_texts=(texts[0],))
    outcomes = judged(model, [item(0, texts[0]), item(1, texts[1])], executor, batch_size=1)
    assert outcomes == {0: unverified(UnverifiedReason.judge_unavailable), 1: SUPPORTED}


def judged_outcome(
    verdict: Verdict, reason: UnverifiedReason | None, invalid: tuple[str, ...]
) -> object:
    return SegmentOutcome(verdict, reason, invalid)


# --- the framing check (V2-06) ----------------------------------------------------------------

FRAMING = [
    (0, Segment(text="Berikut datanya.", kind=SegmentKind.framing)),
    (2, Segment(text="Anggarannya naik tajam.", kind=SegmentKind.framing)),
]


def test_no_framing_means_no_call_and_a_skipped_check() -> None:
    model = VerdictModel()
    book = ledger(model)
    assert check_framing(book, "q", [], until=book.budget.deadline) == (set(), StageStatus.skipped)
    assert model.requests == []


def test_framing_the_check_finds_checkable_is_returned_by_index() -> None:
    model = VerdictModel(framing=["Anggarannya naik tajam."])
    book = ledger(model)
    checkable = check_framing(book, "Berapa anggaran?", FRAMING, until=book.budget.deadline)
    assert checkable == ({2}, StageStatus.complete)  # the reply's unknown id f99 is ignored
    request = model.requests[0]
    assert "Berapa anggaran?" in request.messages[-1].content  # the framing check sees the question
    assert [i.get("id") for i in request.items or []] == [None, "f0", "f2"]


def test_the_framing_check_is_asked_with_the_question_and_every_framing_sentence() -> None:
    from tanda.model_calls import FramingCheckOutput
    from tanda.prompts import prompt

    model = VerdictModel(framing=[])
    book = ledger(model)
    check_framing(book, "Berapa anggaran?", FRAMING, until=book.budget.deadline)
    (request,) = model.requests
    assert request.role is ModelRole.framing_check
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", prompt("framing_check")),
        (
            "user",
            "Question: Berapa anggaran?\n\nFraming sentences:\n"
            "- f0: Berikut datanya.\n- f2: Anggarannya naik tajam.",
        ),
    ]
    assert (request.json_schema, request.schema_name) == (
        FramingCheckOutput.model_json_schema(),
        "framing_check",
    )
    assert request.items == [
        {"question": "Berapa anggaran?"},
        {"id": "f0", "text": "Berikut datanya."},
        {"id": "f2", "text": "Anggarannya naik tajam."},
    ]


def test_a_framing_check_after_the_checks_deadline_is_not_asked() -> None:
    # Given the checks' time is up while the request still has time (the guard's reserve)
    model = VerdictModel(framing=["Berikut datanya."])
    book = ledger(model)
    until = book.budget.clock() - 1
    # then the framing check is not asked, and every framing segment stays checkable (V2-06)
    assert check_framing(book, "q", FRAMING, until=until) == ({0, 2}, StageStatus.unavailable)
    assert model.requests == []


@pytest.mark.parametrize(
    "model",
    [
        VerdictModel(fail={ModelRole.framing_check: ModelError("boom")}),
        VerdictModel(framing="{not json"),
        VerdictModel(framing='{"checkable": "f0"}'),
    ],
)
def test_a_failed_framing_check_makes_every_framing_segment_checkable(model: VerdictModel) -> None:
    book = ledger(model)
    assert check_framing(book, "q", FRAMING, until=book.budget.deadline) == (
        {0, 2},
        StageStatus.unavailable,
    )


def test_a_framing_check_without_a_call_in_its_allotment_is_unavailable() -> None:
    model = VerdictModel(framing=["Berikut datanya."])
    book = ledger(model, calls=0)
    assert check_framing(book, "q", FRAMING, until=book.budget.deadline) == (
        {0, 2},
        StageStatus.unavailable,
    )
    assert model.requests == []


# --- the component's config ----------------------------------------------------------------------


def test_the_judge_batches_as_the_setting_does_by_default() -> None:
    from tanda.settings import Settings

    # TANDA_JUDGE_BATCH_SIZE's default is the component's own (docs/pipeline.md)
    assert Judge().batch_size == Settings.model_fields["judge_batch_size"].default == 6


def test_a_batch_size_under_one_is_refused_with_the_value_it_was_given() -> None:
    with pytest.raises(ValueError, match=r"^batch_size must be at least 1, not 0$"):
        Judge(batch_size=0)


def test_a_judge_given_an_executor_makes_its_calls_there() -> None:
    # Given a judge handed a pool of its own (not the process's shared one)
    class Counting(ThreadPoolExecutor):
        submitted = 0

        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
            Counting.submitted += 1
            return super().submit(fn, *args, **kwargs)

    model = VerdictModel(judge={MATCHING: "supported"})
    book = ledger(model)
    cited = [item(0, MATCHING)]
    with Counting(max_workers=2) as pool:
        outcomes = Judge(executor=pool).run(
            book,
            [c.item for c in cited],
            passages_of(cited),
            invalid_keys={},
            until=book.budget.deadline,
        )
    # then its one batch call ran on that pool
    assert outcomes[0].verdict is Verdict.supported
    assert Counting.submitted == 1
