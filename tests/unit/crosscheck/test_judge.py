"""The cross-check judge: each pair alone, role ``xc_judge``, bounded concurrency; a reply is
trusted only for its verdict and explanation, and only when it names the two claims shown
(XC-3, XC-4)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import pytest

from tanda.crosscheck.judge import MAX_EXPLANATION_CHARS, CrossCheckJudge, read_verdict
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole, ModelTimeout
from tests.unit.crosscheck.builders import claim
from tests.unit.crosscheck.statements import PASAL_29_2008, PASAL_29_2016

A = claim("uu11", 1, PASAL_29_2008)
B = claim("uu19", 0, PASAL_29_2016)
LABELS = {"uu11": "UU 11/2008", "uu19": "UU 19/2016"}


class Model:
    name = "fake"

    def __init__(self, reply: Callable[[ChatRequest], ChatResponse]) -> None:
        self.reply = reply
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return self.reply(request)


def reply(**fields: object) -> ChatResponse:
    return ChatResponse(content=json.dumps(fields))


def test_one_call_per_pair_shows_both_claims_their_documents_and_the_language() -> None:
    model = Model(lambda r: reply(verdict="none", explanation="", a=A.node_id, b=B.node_id))
    judged = CrossCheckJudge(model, LABELS).run([(A, B)], "en")

    (request,) = model.requests
    assert request.role == ModelRole.xc_judge
    assert request.items == [
        {
            "lang": "en",
            "a": {
                "id": A.node_id,
                "statement": A.statement,
                "quote": A.quote,
                "document": "UU 11/2008",
            },
            "b": {
                "id": B.node_id,
                "statement": B.statement,
                "quote": B.quote,
                "document": "UU 19/2016",
            },
        }
    ]
    assert "Write the explanation in English." in request.messages[-1].content
    assert [j.verdict for j in judged] == ["none"]


@pytest.mark.parametrize(
    ("content", "verdict"),
    [
        (
            json.dumps(
                {
                    "verdict": "contradiction",
                    "explanation": "12 vs 4",
                    "a": B.node_id,
                    "b": A.node_id,
                }
            ),
            "contradiction",
        ),
        (
            json.dumps(
                {"verdict": "support", "explanation": "same", "a": A.node_id, "b": B.node_id}
            ),
            "support",
        ),
        (json.dumps({"verdict": "none", "a": A.node_id, "b": B.node_id}), "none"),
        # XC-3: anything but the two claims shown is dropped and counted
        (
            json.dumps(
                {"verdict": "contradiction", "explanation": "x", "a": A.node_id, "b": "uu19:c7"}
            ),
            "dropped",
        ),
        (
            json.dumps(
                {"verdict": "contradiction", "explanation": "x", "a": A.node_id, "b": A.node_id}
            ),
            "dropped",
        ),
        (
            json.dumps(
                {"verdict": "contradiction", "explanation": "  ", "a": A.node_id, "b": B.node_id}
            ),
            "dropped",
        ),
        (
            json.dumps({"verdict": "maybe", "explanation": "x", "a": A.node_id, "b": B.node_id}),
            "dropped",
        ),
        ("{not json", "dropped"),
        (None, "dropped"),
    ],
)
def test_a_reply_counts_only_when_it_names_the_pair_it_was_shown(
    content: str | None, verdict: str
) -> None:
    assert read_verdict(A, B, content).verdict == verdict


def test_an_explanation_is_one_line_and_cut_to_its_limit() -> None:
    long = "kata  \n" * 200
    judged = read_verdict(
        A,
        B,
        json.dumps({"verdict": "support", "explanation": long, "a": A.node_id, "b": B.node_id}),
    )
    assert len(judged.explanation) == MAX_EXPLANATION_CHARS
    assert "\n" not in judged.explanation and "  " not in judged.explanation


def test_a_failed_call_counts_failed_and_the_others_are_judged() -> None:
    def answer(request: ChatRequest) -> ChatResponse:
        if request.items and request.items[0]["b"]["id"] == "x:c0":
            raise ModelTimeout("late")
        return reply(verdict="none", a=request.items[0]["a"]["id"], b=request.items[0]["b"]["id"])  # type: ignore[index]

    other = claim("x", 0, "Apa saja yang lain.")
    judged = CrossCheckJudge(Model(answer), LABELS).run([(A, other), (A, B)], "id")
    assert [j.verdict for j in judged] == ["failed", "none"]


def test_no_more_calls_run_at_once_than_the_concurrency_allows() -> None:
    # Each call waits until three run together: with a concurrency of 3 they always meet (with
    # fewer workers the barrier would break), and a fourth never joins them.
    running, most = 0, 0
    lock = threading.Lock()
    together = threading.Barrier(3, timeout=10)

    def answer(request: ChatRequest) -> ChatResponse:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        together.wait()
        with lock:
            running -= 1
        item = request.items[0]  # type: ignore[index]
        return reply(verdict="none", a=item["a"]["id"], b=item["b"]["id"])

    pairs = [(A, claim("uu19", n, f"Klaim {n}.")) for n in range(24)]
    judged = CrossCheckJudge(Model(answer), LABELS, concurrency=3).run(pairs, "tr")
    assert [j.verdict for j in judged] == ["none"] * 24
    assert most == 3
