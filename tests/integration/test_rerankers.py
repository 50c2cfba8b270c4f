"""The hosted reranker against a real local ``/rerank`` server (tests/rerank_fake.py): both wire
shapes, retries, timeouts and 5xx (the floor fails closed: ``RerankFailed``), and no query or
passage in any log (ASK-06)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from tanda.adapters.rerankers import HostedReranker, RerankFailed, RerankShape
from tests.rerank_fake import LEAKY_SECRET, RerankFake, running_rerank_fake

pytestmark = pytest.mark.integration

QUERY = "rahasia anggaran pendidikan"
PASSAGES = ["anggaran kesehatan rahasia", "anggaran pendidikan rahasia", "jalan provinsi"]


@pytest.fixture
def fake() -> Iterator[RerankFake]:
    with running_rerank_fake() as server:
        yield server


def reranker(fake: RerankFake, shape: RerankShape = "tei", **options: object) -> HostedReranker:
    return HostedReranker(fake.base_url, shape=shape, sleep=lambda _: None, **options)  # type: ignore[arg-type]


def test_tei_is_asked_for_sigmoid_scores_and_answers_in_passage_order(fake: RerankFake) -> None:
    fake.scores = [0.2, 0.9, 0.01]
    scores = reranker(fake, "tei").score(QUERY, PASSAGES)

    # The server sorts best first; the scores come back one per passage, in order.
    assert scores == [0.2, 0.9, 0.01]
    assert fake.bodies == [
        {"query": QUERY, "texts": PASSAGES, "raw_scores": False, "truncate": True}
    ]


def test_the_cohere_shape_sends_model_documents_and_top_n_with_the_key(fake: RerankFake) -> None:
    fake.scores = [0.3, 0.8, 0.05]
    scores = reranker(fake, "cohere", model="rerank-v3.5", api_key="rk-secret").score(
        QUERY, PASSAGES
    )

    assert scores == [0.3, 0.8, 0.05]
    assert fake.bodies == [
        {"query": QUERY, "documents": PASSAGES, "top_n": 3, "model": "rerank-v3.5"}
    ]
    assert fake.headers[0]["Authorization"] == "Bearer rk-secret"


def test_the_cohere_shape_without_a_model_sends_none(fake: RerankFake) -> None:
    reranker(fake, "cohere").score(QUERY, PASSAGES)
    assert "model" not in fake.bodies[0]
    assert "Authorization" not in fake.headers[0]


@pytest.mark.parametrize("failure", ["http_503", "http_500", "slow"])
def test_one_5xx_or_timeout_is_tried_once_more(fake: RerankFake, failure: str) -> None:
    fake.slow_s = 1.0
    fake.fail(failure)  # type: ignore[arg-type]
    scores = reranker(fake, timeout_s=0.3).score(QUERY, PASSAGES)
    assert len(scores) == 3 and len(fake.bodies) == 2


@pytest.mark.parametrize(
    "failures",
    [("http_503", "http_503"), ("slow", "slow"), ("http_500", "slow")],
)
def test_a_reranker_still_down_after_the_retry_fails_closed(
    fake: RerankFake, failures: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    # Given a reranker that times out or answers 5xx twice,
    fake.slow_s = 1.0
    fake.fail(*failures)  # type: ignore[arg-type]

    # when the floor asks it, then the call fails with the domain error (→ 502 rerank_failed):
    # no candidate passes unscored.
    with caplog.at_level(logging.DEBUG), pytest.raises(RerankFailed) as failed:
        reranker(fake, timeout_s=0.3).score(QUERY, PASSAGES)
    assert len(fake.bodies) == 2
    assert failed.value.code == "rerank_failed"
    # Neither the server's text nor the query or a passage is in the error or the log.
    assert LEAKY_SECRET not in str(failed.value)
    assert "rahasia" not in caplog.text and LEAKY_SECRET not in caplog.text


def test_a_4xx_is_not_retried(fake: RerankFake) -> None:
    fake.fail("http_400")
    with pytest.raises(RerankFailed):
        reranker(fake).score(QUERY, PASSAGES)
    assert len(fake.bodies) == 1


@pytest.mark.parametrize("failure", ["not_json", "missing_index", "logits"])
def test_a_reply_that_is_not_one_0_to_1_score_per_passage_is_refused(
    fake: RerankFake, failure: str, caplog: pytest.LogCaptureFixture
) -> None:
    # `logits`: a TEI server sending raw scores would make the floor meaningless.
    fake.fail(failure)  # type: ignore[arg-type]
    with caplog.at_level(logging.DEBUG), pytest.raises(RerankFailed):
        reranker(fake).score(QUERY, PASSAGES)
    assert len(fake.bodies) == 1
    assert "rahasia" not in caplog.text and LEAKY_SECRET not in caplog.text
