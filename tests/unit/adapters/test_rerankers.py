"""Choosing a reranker from ``TANDA_RERANKER`` (ASK-06), and Bedrock's Rerank API through a
stubbed client (no network: botocore's Stubber answers)."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from tanda.adapters.rerankers import (
    API_KEY_ENV,
    BedrockReranker,
    HostedReranker,
    RerankFailed,
    build_reranker,
)
from tanda.retrieval.rerank import LexicalReranker
from tanda.settings import Settings
from tanda.wiring import Runtime

REGION = "eu-central-1"
MODEL = "amazon.rerank-v1:0"
MODEL_ARN = f"arn:aws:bedrock:{REGION}::foundation-model/{MODEL}"


# --- build_reranker --------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["none", "", "  none "])
def test_none_means_no_reranker_and_so_no_floor(spec: str) -> None:
    assert build_reranker(spec) is None


def test_the_embedded_default_is_the_lexical_reranker() -> None:
    assert isinstance(build_reranker(Settings().reranker), LexicalReranker)


def test_tei_spec_names_the_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    reranker = build_reranker("tei:http://127.0.0.1:8080/", timeout_s=2.5)
    assert isinstance(reranker, HostedReranker)
    assert (reranker.url, reranker.shape, reranker.name) == (
        "http://127.0.0.1:8080/rerank",
        "tei",
        "tei",
    )
    assert reranker.reorders and reranker.model is None


def test_cohere_spec_names_the_base_url_the_model_and_takes_the_key_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(API_KEY_ENV, "rk-test")
    reranker = build_reranker("cohere:https://api.example/v2#rerank-v3.5")
    assert isinstance(reranker, HostedReranker)
    assert (reranker.url, reranker.shape, reranker.model) == (
        "https://api.example/v2/rerank",
        "cohere",
        "rerank-v3.5",
    )
    assert reranker._api_key == "rk-test"


def test_bedrock_spec_names_the_model() -> None:
    reranker = build_reranker(f"bedrock:{MODEL}")
    assert isinstance(reranker, BedrockReranker)
    assert (reranker.model, reranker.name, reranker.reorders) == (MODEL, "bedrock", True)


@pytest.mark.parametrize(
    "spec", ["tei:", "cohere:", "bedrock:", "cross-encoder", "tei:ftp://host", "openai:http://h"]
)
def test_an_unknown_or_incomplete_spec_is_refused(spec: str) -> None:
    with pytest.raises(ValueError):
        build_reranker(spec)


def test_the_runtime_builds_the_configured_reranker_once(tmp_path: Any) -> None:
    runtime = Runtime(settings=Settings(home=tmp_path, reranker="tei:http://127.0.0.1:1"))
    assert runtime.reranker is runtime.reranker
    assert isinstance(runtime.reranker, HostedReranker)
    assert Runtime(settings=Settings(home=tmp_path, reranker="none")).reranker is None


def test_the_embedded_reranker_imports_neither_boto3_nor_httpx() -> None:
    # Lambda cold start: only the chosen adapter pays for its client library.
    code = (
        "import sys, tanda.adapters.rerankers as r; r.build_reranker('lexical').score('a', ['a']);"
        "print(sorted(m for m in ('boto3', 'botocore', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_hosted_reranker_asked_about_no_passage_calls_nobody() -> None:
    # Sockets are off in unit tests: a call would fail.
    assert HostedReranker("http://127.0.0.1:1", shape="tei").score("q", []) == []


# --- Bedrock Rerank API ----------------------------------------------------------------------


@pytest.fixture
def bedrock() -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client(
        "bedrock-agent-runtime",
        region_name=REGION,
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="secret",
    )
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def _request(query: str, passages: list[str], model_arn: str = MODEL_ARN) -> dict[str, Any]:
    return {
        "queries": [{"type": "TEXT", "textQuery": {"text": query}}],
        "sources": [
            {
                "type": "INLINE",
                "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": passage}},
            }
            for passage in passages
        ],
        "rerankingConfiguration": {
            "type": "BEDROCK_RERANKING_MODEL",
            "bedrockRerankingConfiguration": {
                "numberOfResults": len(passages),
                "modelConfiguration": {"modelArn": model_arn},
            },
        },
    }


def _reply(*scores: tuple[int, float], next_token: str | None = None) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "results": [{"index": index, "relevanceScore": score} for index, score in scores]
    }
    if next_token:
        reply["nextToken"] = next_token
    return reply


def test_bedrock_scores_every_passage_as_an_inline_text_source_in_passage_order(
    bedrock: tuple[Any, Stubber],
) -> None:
    client, stubber = bedrock
    passages = ["anggaran pendidikan", "jalan provinsi", "anggaran kesehatan"]
    # Bedrock answers best first; the adapter puts the scores back in passage order.
    stubber.add_response(
        "rerank", _reply((0, 0.91), (2, 0.40), (1, 0.02)), _request("anggaran", passages)
    )
    scores = BedrockReranker(MODEL, client=client).score("anggaran", passages)
    assert scores == [0.91, 0.02, 0.40]


def test_bedrock_pages_are_followed_by_their_next_token(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    request = _request("q", ["a", "b"])
    stubber.add_response("rerank", _reply((1, 0.7), next_token="page-2"), request)
    stubber.add_response("rerank", _reply((0, 0.2)), {**request, "nextToken": "page-2"})
    assert BedrockReranker(MODEL, client=client).score("q", ["a", "b"]) == [0.2, 0.7]


def test_a_bedrock_model_arn_is_used_as_given(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    arn = "arn:aws:bedrock:us-west-2::foundation-model/cohere.rerank-v3-5:0"
    stubber.add_response("rerank", _reply((0, 0.5)), _request("q", ["a"], model_arn=arn))
    assert BedrockReranker(arn, client=client).score("q", ["a"]) == [0.5]


def test_a_bedrock_error_is_rerank_failed_without_its_text_or_the_passages(
    bedrock: tuple[Any, Stubber], caplog: pytest.LogCaptureFixture
) -> None:
    client, stubber = bedrock
    stubber.add_client_error(
        "rerank", service_error_code="ThrottlingException", service_message="SECRET text"
    )
    with caplog.at_level(logging.DEBUG), pytest.raises(RerankFailed) as caught:
        BedrockReranker(MODEL, client=client).score("rahasia query", ["rahasia passage"])
    assert caught.value.code == "rerank_failed"
    assert "SECRET" not in str(caught.value)
    assert "rahasia" not in caplog.text


@pytest.mark.parametrize(
    "reply",
    [
        _reply((0, 0.5)),  # the second passage was not scored
        _reply((0, 0.5), (0, 0.6)),  # one passage twice
        _reply((0, 0.5), (5, 0.6)),  # an index that names no passage
        _reply((0, 0.5), (1, 1.7)),  # not a 0–1 relevance score
    ],
)
def test_a_bedrock_reply_that_does_not_score_each_passage_once_is_refused(
    bedrock: tuple[Any, Stubber], reply: dict[str, Any]
) -> None:
    client, stubber = bedrock
    stubber.add_response("rerank", reply, _request("q", ["a", "b"]))
    with pytest.raises(RerankFailed):
        BedrockReranker(MODEL, client=client).score("q", ["a", "b"])


def test_a_bedrock_text_is_cut_to_what_the_api_takes(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    long = "x" * 40_000
    stubber.add_response("rerank", _reply((0, 0.3), (1, 0.1)), _request("q", ["x" * 32_000, " "]))
    assert BedrockReranker(MODEL, client=client).score("q", [long, ""]) == [0.3, 0.1]
