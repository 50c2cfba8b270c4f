"""Choosing an embedder from ``TANDA_EMBEDDER``, and Titan v2 on Bedrock through a stubbed client
(no network: botocore's Stubber answers)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber

from tanda.adapters.embedders import (
    API_KEY_ENV,
    BedrockEmbedder,
    EmbeddingFailed,
    OpenAICompatEmbedder,
    build_embedder,
)

MODEL = "amazon.titan-embed-text-v2:0"


# --- build_embedder --------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["none", "", "  none "])
def test_none_means_no_embedder(spec: str) -> None:
    assert build_embedder(spec) is None


def test_openai_spec_names_the_base_url_and_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    embedder = build_embedder("openai:http://127.0.0.1:8080/v1/#bge-m3")
    assert isinstance(embedder, OpenAICompatEmbedder)
    assert embedder.url == "http://127.0.0.1:8080/v1/embeddings"
    assert embedder.model == "bge-m3"


def test_openai_spec_without_model_sends_none() -> None:
    embedder = build_embedder("openai:https://emb.example/v1")
    assert isinstance(embedder, OpenAICompatEmbedder)
    assert embedder.model is None


def test_bedrock_spec_names_the_model_and_optional_size() -> None:
    embedder = build_embedder(f"bedrock:{MODEL}#512")
    assert isinstance(embedder, BedrockEmbedder)
    assert embedder.model_id == MODEL and embedder.dimensions == 512
    default = build_embedder(f"bedrock:{MODEL}")
    assert default is not None and default.dimensions == 1024


@pytest.mark.parametrize(
    "spec",
    [
        "local",
        "openai:",
        "bedrock:",
        "openai:ftp://x",
        f"bedrock:{MODEL}#big",
        f"bedrock:{MODEL}#300",
    ],
)
def test_a_bad_spec_is_refused(spec: str) -> None:
    with pytest.raises(ValueError):
        build_embedder(spec)


def test_choosing_an_embedder_module_imports_neither_boto3_nor_httpx() -> None:
    # Lambda cold start: only the chosen adapter pays for its client library.
    code = (
        "import sys, tanda.adapters.embedders as e; e.build_embedder('none');"
        "print(sorted(m for m in ('boto3', 'botocore', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- BedrockEmbedder -------------------------------------------------------------------------


@pytest.fixture
def bedrock() -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="secret",
    )
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def _titan_reply(vector: list[float]) -> dict[str, Any]:
    raw = json.dumps({"embedding": vector, "inputTextTokenCount": 3}).encode()
    return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}


def _titan_request(text: str, dimensions: int) -> dict[str, Any]:
    body = {"inputText": text, "dimensions": dimensions, "normalize": True}
    return {
        "modelId": MODEL,
        "body": json.dumps(body),
        "contentType": "application/json",
        "accept": "application/json",
    }


def test_titan_is_called_once_per_text_with_its_v2_body(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    stubber.add_response("invoke_model", _titan_reply([0.6] * 256), _titan_request("satu", 256))
    stubber.add_response("invoke_model", _titan_reply([0.8] * 256), _titan_request("dua", 256))

    vectors = BedrockEmbedder(MODEL, dimensions=256, client=client).embed(["satu", "dua"])

    assert [v[0] for v in vectors] == [0.6, 0.8]
    assert all(len(v) == 256 for v in vectors)


def test_a_bedrock_error_becomes_a_domain_error(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    stubber.add_client_error(
        "invoke_model", service_error_code="ThrottlingException", service_message="SECRET text"
    )
    with pytest.raises(EmbeddingFailed) as caught:
        BedrockEmbedder(MODEL, dimensions=256, client=client).embed(["satu"])
    assert "SECRET" not in str(caught.value)


def test_a_vector_of_the_wrong_size_is_refused(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    stubber.add_response("invoke_model", _titan_reply([0.1] * 10), _titan_request("satu", 256))
    with pytest.raises(EmbeddingFailed):
        BedrockEmbedder(MODEL, dimensions=256, client=client).embed(["satu"])


def test_an_unreadable_titan_reply_is_refused(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    raw = b"not json"
    reply = {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}
    stubber.add_response("invoke_model", reply, _titan_request("satu", 1024))
    with pytest.raises(EmbeddingFailed):
        BedrockEmbedder(MODEL, client=client).embed(["satu"])


def test_titan_sizes_outside_v2_are_refused() -> None:
    with pytest.raises(ValueError, match="256, 512, 1024"):
        BedrockEmbedder(MODEL, dimensions=768)
