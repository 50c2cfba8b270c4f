"""The v1 gate over HTTP: POST /query and /query/stream (CV-2, V2-18, V2-19)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from httpx_sse import connect_sse

from tanda.api.app import create_app
from tanda.wiring import Runtime
from tests.corpus import QUESTION, add_qanun

from .conftest import ServeApp
from .credentials import assert_error, partner_headers, settings_for

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios"


@pytest.fixture
def base_url(serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> str:
    runtime = Runtime(settings=settings_for(tmp_path, signing_key, model=f"scripted:{SCENARIOS}"))
    add_qanun(runtime.search_index, "acme")
    return serve_app(create_app(runtime))


def post(
    base_url: str, key: ed25519.Ed25519PrivateKey, path: str, scenario: str, **body: Any
) -> httpx.Response:
    headers = {**partner_headers(key), "X-Tanda-Scenario": scenario}
    return httpx.post(
        f"{base_url}{path}", json={"query": QUESTION, **body}, headers=headers, timeout=30
    )


def test_all_sentences_confirmed_are_all_published(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post(base_url, signing_key, "/query", "default").json()
    assert body["answer"] == "Berikut datanya. Anggaran pendidikan 2023 adalah Rp 5 miliar."
    assert (body["dropped_claims_count"], body["dropped_claim_reasons"]) == (0, {})
    assert body["claim_map"][0]["kept"] is True
    assert body["provenance_complete"] is True
    assert (body["claims_supported"], body["claims_total"], body["grounding_rate"]) == (1, 1, 1.0)
    for v2_only in ("schema", "claims", "framing", "faithfulness"):
        assert v2_only not in body


def test_a_sentence_the_judge_cannot_decide_is_withheld(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post(base_url, signing_key, "/query", "judge_unverifiable").json()
    assert body["answer"] == "Anggaran pendidikan 2023 adalah Rp 5 miliar."
    assert body["dropped_claim_reasons"] == {"unverified": 1}
    assert (body["claims_supported"], body["claims_total"]) == (1, 2)


def test_a_guard_that_fails_is_502_and_nothing_is_published(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = post(base_url, signing_key, "/query", "guard_unavailable")
    assert_error(response, 502, "policy_guard_unavailable")
    assert "Rp 5 miliar" not in response.text


def test_an_unconfirmed_sentence_is_withheld_and_counted(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post(base_url, signing_key, "/query", "seed_example").json()
    assert body["answer"] == "Berikut datanya. Anggaran pendidikan 2023 adalah Rp 5 miliar."
    assert "Naik 9 persen" not in body["answer"]
    assert (body["dropped_claims_count"], body["dropped_claim_reasons"]) == (1, {"unsupported": 1})
    kept, withheld = body["claim_map"]
    assert body["answer"][kept["start"] : kept["end"]] == kept["text"]
    assert (withheld["kept"], withheld["start"], withheld["verdict"]) == (
        False,
        None,
        "unsupported",
    )
    # Same meaning as v2: one badge works on both routes.
    assert (body["claims_supported"], body["claims_total"], body["grounding_rate"]) == (1, 2, 0.5)


def test_no_sentence_confirmed_replaces_the_whole_answer(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post(base_url, signing_key, "/query", "disputed").json()
    assert (body["fallback_used"], body["fallback_reason"]) == (True, "insufficient_grounding")
    assert "Anggaran" not in body["answer"]
    assert body["dropped_claims_count"] == 1 and body["citations"] == []


def test_context_budget_is_413_with_fixed_text_on_v1(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = post(base_url, signing_key, "/query", "context_budget")
    assert_error(response, 413, "context_budget_exhausted")
    assert "scripted" not in response.text


def test_conversations_belong_to_the_first_route_both_ways(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    v1 = post(base_url, signing_key, "/query", "default").json()["conversation_id"]
    assert_error(
        post(base_url, signing_key, "/query/v2", "default", conversation_id=v1),
        409,
        "conversation_route_conflict",
    )
    v2 = post(base_url, signing_key, "/query/v2", "default").json()["conversation_id"]
    assert_error(
        post(base_url, signing_key, "/query", "default", conversation_id=v2),
        409,
        "conversation_route_conflict",
    )
    assert post(base_url, signing_key, "/query", "default", conversation_id=v1).status_code == 200


def stream(
    base_url: str, key: ed25519.Ed25519PrivateKey, path: str, scenario: str
) -> list[tuple[str, dict[str, Any]]]:
    headers = {**partner_headers(key), "X-Tanda-Scenario": scenario}
    with (
        httpx.Client(timeout=30) as client,
        connect_sse(
            client, "POST", f"{base_url}{path}", json={"query": QUESTION}, headers=headers
        ) as source,
    ):
        return [(e.event, json.loads(e.data)) for e in source.iter_sse()]


def test_the_v1_stream_has_its_own_faithfulness_frame_counting_withheld_sentences(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    frames = stream(base_url, signing_key, "/query/stream", "seed_example")
    names = [n for n, _ in frames]
    assert "annotations" not in names
    faithfulness = dict(frames)["faithfulness"]
    assert faithfulness["dropped_claims_count"] == 1
    text = "".join(d["text"] for n, d in frames if n == "answer.delta")
    assert text == "Berikut datanya. Anggaran pendidikan 2023 adalah Rp 5 miliar."


@pytest.mark.parametrize(("scenario", "dropped"), [("seed_example", 1), ("default", 0)])
def test_a_v1_client_reading_v2_counts_sees_nothing_dropped_only_where_that_is_true(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, scenario: str, dropped: int
) -> None:
    v2 = dict(stream(base_url, signing_key, "/query/v2/stream", scenario))["annotations"]
    # The v2 frame carries no dropped count: a v1 client defaulting it to 0 reads "nothing
    # dropped". That is only true when every claim was supported — v2 never drops, it marks.
    assert "dropped_claims_count" not in v2
    not_supported = v2["claims_total"] - v2["supported"]
    v1 = dict(stream(base_url, signing_key, "/query/stream", scenario))["faithfulness"]
    assert v1["dropped_claims_count"] == dropped == not_supported
