"""/query/v2 and /v1/search end to end over HTTP: uvicorn on loopback, a real SQLite index file,
the scripted model over tests/scenarios (V2-01 … V2-20, ASK-01, ASK-02)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.wiring import Runtime
from tests.corpus import QUESTION, add_qanun
from tests.fakes import FaultySearchIndex

from .conftest import ServeApp
from .credentials import V1_KEY, assert_error, partner_headers, settings_for

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios"
OTHER_V1_KEY = "dip_live_other-tenant-key"


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> Runtime:
    settings = settings_for(
        tmp_path,
        signing_key,
        model=f"scripted:{SCENARIOS}",
        v1_api_key_hashes={hash_api_key(V1_KEY): "acme", hash_api_key(OTHER_V1_KEY): "other"},
        request_deadline_s=5.0,
    )
    runtime = Runtime(settings=settings)
    add_qanun(runtime.search_index, "acme", selections=("anggaran",), batch_id="b1")
    add_qanun(
        runtime.search_index,
        "other",
        texts=["Anggaran pendidikan 2023 adalah Rp 9 triliun menurut dokumen tenant lain."],
    )
    return runtime


@pytest.fixture
def base_url(serve_app: ServeApp, runtime: Runtime) -> str:
    return serve_app(create_app(runtime))


def post_v2(
    base_url: str, key: ed25519.Ed25519PrivateKey, scenario: str | None, **body: Any
) -> httpx.Response:
    headers = partner_headers(key)
    if scenario:
        headers["X-Tanda-Scenario"] = scenario
    return httpx.post(
        f"{base_url}/query/v2", json={"query": QUESTION, **body}, headers=headers, timeout=30
    )


def test_seed_example_over_http_is_the_seed_json(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = post_v2(base_url, signing_key, "seed_example")
    assert response.status_code == 200, response.text
    body = response.json()
    seed = json.loads(
        (Path(__file__).parents[1] / "fixtures" / "seed_query_v2_example.json").read_text()
    )
    assert body["schema"] == "annotate-v2"
    assert body["answer"] == seed["answer"]
    for key in (
        "faithfulness",
        "claims_supported",
        "claims_total",
        "grounding_rate",
        "fallback_used",
    ):
        assert body[key] == seed[key], key
    strip = {"citations"}
    assert [{k: v for k, v in c.items() if k not in strip} for c in body["claims"]] == [
        {k: v for k, v in c.items() if k not in strip} for c in seed["claims"]
    ]
    assert body["claims"][0]["citations"][0]["citation"]["document_id"] == "qanun-2023"
    for absent in ("claim_map", "dropped_claims_count", "grounding", "model_call_log", "checked"):
        assert absent not in body


def test_provenance_opt_in_adds_the_model_call_log_and_tool_audit(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post_v2(
        base_url, signing_key, "default", include_provenance=True, include_grounding=True
    ).json()
    roles = [call["role"] for call in body["model_call_log"]]
    assert roles.count("agent") == 2 and "judge" in roles and roles[-1] == "guard"
    assert body["tool_call_audit"][0]["tool"] == "search"
    assert body["grounding"][0]["citation_key"] == "P1"
    assert body["used_docs"] == [
        {"document_id": "qanun-2023", "document_title": "Qanun Anggaran", "cited": True}
    ]


def test_a_tenant_never_sees_another_tenants_passages(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post_v2(base_url, signing_key, "default", include_grounding=True).json()
    assert all("triliun" not in g["text"] for g in body["grounding"])


def test_context_budget_is_200_with_checked_false(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post_v2(base_url, signing_key, "context_budget").json()
    assert (body["fallback_used"], body["fallback_reason"]) == (True, "context_budget_exhausted")
    assert body["faithfulness"]["checked"] is False
    assert body["claims"] == [] and body["grounding_rate"] is None


def test_empty_selection_is_the_fixed_refusal(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post_v2(base_url, signing_key, None, selection="tidak-ada").json()
    assert body["fallback_reason"] == "source_scope_empty"
    assert body["faithfulness"]["unlocated_total"] == 1


def test_nothing_readable_is_404_with_the_tools_status(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = post_v2(base_url, signing_key, "nothing_found")
    assert_error(response, 404, "no_readable_result")
    assert response.json()["error"] | {"message": ""} == {
        "code": "no_readable_result",
        "message": "",
        "tool": "search",
        "tool_status": "empty",
    }


@pytest.mark.parametrize(("fault", "status"), [("fail", "error"), ("hang", "timeout")])
def test_a_search_that_fails_or_passes_the_tool_deadline_is_404_with_its_status(
    base_url: str,
    runtime: Runtime,
    signing_key: ed25519.Ed25519PrivateKey,
    fault: str,
    status: str,
) -> None:
    # Given the served index's search failing (or hanging past a 200 ms tool deadline),
    index = FaultySearchIndex(runtime.search_index, **{fault: True})  # type: ignore[arg-type]
    runtime.__dict__["search_index"] = index
    runtime.settings = runtime.settings.model_copy(update={"tool_deadline_s": 0.2})
    try:
        # when a question needs the search, then the answer is a 404 (not a 502) that says
        # which tool ran and how it ended (V2-19), in the error shape.
        response = post_v2(base_url, signing_key, "default")
    finally:
        index.release.set()
    assert_error(response, 404, "no_readable_result")
    error = response.json()["error"]
    assert (error["tool"], error["tool_status"]) == ("search", status)
    assert index.searches == 1


def test_a_failing_model_is_502_without_its_text(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = post_v2(base_url, signing_key, "agent_upstream_error")
    assert_error(response, 502, "upstream_failed")
    assert "scripted" not in response.text


def test_an_unknown_scenario_is_400(base_url: str, signing_key: ed25519.Ed25519PrivateKey) -> None:
    assert_error(post_v2(base_url, signing_key, "no-such-scenario"), 400, "unknown_scenario")


def v1_search(base_url: str, key: str, **body: Any) -> httpx.Response:
    return httpx.post(
        f"{base_url}/v1/search", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=30
    )


def test_v1_search_ranks_the_callers_chunks_with_identity(base_url: str) -> None:
    body = v1_search(base_url, V1_KEY, query="anggaran pendidikan 2023").json()
    first = body["results"][0]
    assert first["document_id"] == "qanun-2023" and first["rank"] == 1
    assert first["identity"]["legal_reference"].startswith("Qanun Aceh Nomor 1")
    assert first["snippet"] == first["text"][:200]
    assert body["retrieval"] == {
        "mode": "lexical",
        "embedder": "none",
        "reranked": True,
        "reranker": "lexical",
        "rerank_min_score": 0.25,
        "below_floor": body["retrieval"]["below_floor"],
    }
    assert all(r["rerank_score"] >= 0.25 for r in body["results"])


@pytest.mark.parametrize(
    "scope",
    [{}, {"document_id": "qanun-2023"}, {"batch_id": "b1"}],
)
def test_v1_search_tenants_with_identical_documents_never_see_each_other(
    base_url: str, scope: dict[str, str]
) -> None:
    mine = v1_search(base_url, V1_KEY, query="anggaran pendidikan", **scope).json()["results"]
    theirs = v1_search(base_url, OTHER_V1_KEY, query="anggaran pendidikan", **scope).json()[
        "results"
    ]
    assert mine and all("triliun" not in r["text"] for r in mine)
    assert all("triliun" in r["text"] for r in theirs)
    assert {r["chunk_id"] for r in mine}.isdisjoint({r["chunk_id"] for r in theirs})


# Six content terms: the 2022 chunk holds belanja and pegawai (lexical score 0.33), the 2023
# chunk only kesehatan (0.17); the lexical arm finds both (issue 22: the score is how well a
# passage answers, 0–1).
WEAK_QUERY = "belanja pegawai kesehatan jembatan pelabuhan bandara"


def test_v1_search_shows_no_hit_under_the_reranker_floor_and_says_how_many(
    base_url: str,
) -> None:
    # Given the embedded default (lexical reranker, floor 0.25), when a search finds one chunk
    # holding two of six query terms and one holding one,
    body = v1_search(base_url, V1_KEY, query=WEAK_QUERY).json()

    # then only the first is shown, with its rerank score (ASK-06), and the other is counted.
    assert [(r["chunk_id"], r["rerank_score"]) for r in body["results"]] == [
        ("acme:qanun-2023#1", pytest.approx(0.3333))
    ]
    assert body["retrieval"]["below_floor"] == 1


def test_v1_search_with_the_floor_at_zero_shows_every_hit(runtime: Runtime, base_url: str) -> None:
    runtime.settings = runtime.settings.model_copy(update={"rerank_min_score": 0.0})
    body = v1_search(base_url, V1_KEY, query=WEAK_QUERY).json()
    assert sorted(r["chunk_id"] for r in body["results"]) == [
        "acme:qanun-2023#0",
        "acme:qanun-2023#1",
    ]
    assert (body["retrieval"]["rerank_min_score"], body["retrieval"]["below_floor"]) == (0.0, 0)


def test_v1_search_when_the_reranker_is_down_is_502_and_shows_nothing(
    runtime: Runtime, base_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    from tanda.adapters.rerankers import HostedReranker
    from tests.rerank_fake import LEAKY_SECRET, running_rerank_fake

    with running_rerank_fake() as fake:
        # Given a hosted cross-encoder that answers 503 to the call and to its retry,
        fake.fail("http_503", "http_503")
        runtime.__dict__["reranker"] = HostedReranker(
            fake.base_url, shape="tei", sleep=lambda _: None
        )
        # when a search needs it, then the floor fails closed: 502 in the error shape.
        response = v1_search(base_url, V1_KEY, query="anggaran pendidikan 2023")
    assert_error(response, 502, "rerank_failed")
    assert "Rp 5 miliar" not in response.text and LEAKY_SECRET not in response.text
    assert "anggaran pendidikan" not in caplog.text


def test_query_v2_shows_the_agent_only_search_results_over_the_floor(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    from tanda.adapters.scripted import ScriptedToolCall

    # Given the served runtime's default floor and an agent searching the weak query,
    scripted = runtime.model
    default = scripted.scenarios["default"]  # type: ignore[attr-defined]
    agent = default.agent.model_copy(update={"tool_calls": [ScriptedToolCall(query=WEAK_QUERY)]})
    scripted.scenarios["weak_search"] = default.model_copy(update={"agent": agent})  # type: ignore[attr-defined]

    # when /query/v2 answers, then its search returned the one chunk over the floor (ASK-06).
    body = post_v2(base_url, signing_key, "weak_search", include_provenance=True).json()
    assert [(a["tool"], a["result_count"]) for a in body["tool_call_audit"]] == [("search", 1)]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "q", "top_k": 21}, "top_k"),
        ({"query": "q", "document_id": "d", "batch_id": "b"}, "body"),
        ({"query": ""}, "query"),
    ],
)
def test_v1_search_bad_bodies_are_422_naming_the_field(
    base_url: str, body: dict[str, Any], field: str
) -> None:
    response = v1_search(base_url, V1_KEY, **body)
    assert_error(response, 422, "validation_error")
    assert field in [str(part) for f in response.json()["error"]["fields"] for part in f["loc"]]


# --- what reads as verified (V2-10, V2-13) ---------------------------------------------------


def test_a_guard_that_fails_is_502_and_the_answer_is_not_published(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = post_v2(base_url, signing_key, "guard_unavailable")
    assert_error(response, 502, "policy_guard_unavailable")
    assert "Rp 5 miliar" not in response.text


def test_personal_data_past_the_first_sentence_gets_the_answer_blocked(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    from tests.fakes import NIK, PersonalDataGuard, personal_data_scenario

    # Given a guard (reading the prompt, as a chat-completions model does) that blocks a NIK
    scripted = runtime.model
    scripted.scenarios["personal_data"] = personal_data_scenario()  # type: ignore[attr-defined]
    runtime.__dict__["model"] = PersonalDataGuard(scripted, reads="prompt")
    # when the answer shows one after its first sentence
    body = post_v2(base_url, signing_key, "personal_data").json()
    # then the reader gets the policy refusal, and no claim or text of the answer
    assert (body["fallback_used"], body["fallback_reason"]) == (True, "policy_blocked")
    assert NIK not in json.dumps(body) and body["claims"] == []
    assert body["faithfulness"]["verification"] == "none"


def test_a_claim_the_judge_cannot_decide_never_reads_as_verified(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    body = post_v2(base_url, signing_key, "judge_unverifiable").json()
    assert [(c["verdict"], c["unverified_reason"]) for c in body["claims"]] == [
        ("supported", None),
        ("unverified", "unparseable"),
    ]
    assert (body["claims_supported"], body["claims_total"]) == (1, 2)
    assert body["faithfulness"]["verification"] == "partial"
