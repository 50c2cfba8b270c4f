"""``POST /v1/ask`` end to end over HTTP: uvicorn on loopback, real SQLite index and store files,
the scripted model over tests/scenarios/ask, the offline model, and a real OpenAI-compatible
server (ASK-01 … ASK-13)."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.api.app import create_app
from tanda.ask.lang import NOT_FOUND_ANSWER, TRUNCATION_WARNING
from tanda.auth.api_keys import hash_api_key
from tanda.credits import TenantProfile
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole
from tanda.records.documents import Chunk, Document
from tanda.service.metering import THROTTLE_WINDOW_S
from tanda.wiring import Runtime
from tests.corpus import add_qanun
from tests.openai_fake import LEAKY_SECRET, running_fake

from .conftest import ServeApp
from .credentials import V1_KEY, assert_error, settings_for, wait_for_a_fresh_window

pytestmark = pytest.mark.integration

ASK_SCENARIOS = Path(__file__).parents[1] / "scenarios" / "ask"
LIVE_KEY = "dip_live_integration-key"
OTHER_LIVE_KEY = "dip_live_other-tenant-key"
QUESTION = "Berapa anggaran pendidikan 2023?"
TURKISH_QUESTION = "Eğitim bütçesi (anggaran pendidikan 2023) nedir?"
INVOICE_PAGES = {
    1: ["Fatura no 42. Satıcı: Acme Ltd."],
    2: ["Kalem 1: Vida, 100 adet, 40.470,00 TL.", "Kalem 2: Somun, 50 adet, 2.100,00 TL."],
    3: ["Toplam: 42.570,00 TL. Ödeme vadesi 30 gündür."],
}


class RecordingModel:
    """Passes calls on and keeps every request (the model saw what, how often)."""

    name = "recording"

    def __init__(self, model: Any) -> None:
        self.model = model
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        response: ChatResponse = self.model.complete(request)
        return response

    @property
    def ask_calls(self) -> list[ChatRequest]:
        return [r for r in self.requests if r.role is ModelRole.ask]


def add_invoice(runtime: Runtime, tenant: str = "acme") -> None:
    chunks = [
        Chunk(
            chunk_id=f"{tenant}:fatura-42#{page}.{n}",
            document_id="fatura-42",
            tenant_id=tenant,
            ordinal=10 * page + n,
            title="Fatura 42",
            page_no=page,
            section="Kalemler" if page == 2 else None,
            text=text,
        )
        for page, texts in INVOICE_PAGES.items()
        for n, text in enumerate(texts)
    ]
    document = Document(
        document_id="fatura-42",
        tenant_id=tenant,
        title="Fatura 42",
        source="fatura-42.pdf",
        content_hash="fatura-42:v1",
        pages=3,
        metadata={"external_item_ref": "INV-2023-42"},
    )
    runtime.search_index.upsert_document(document, chunks)


def make_runtime(
    tmp_path: Path, key: ed25519.Ed25519PrivateKey, model: Any = None, **overrides: Any
) -> Runtime:
    fields: dict[str, Any] = {
        "model": f"scripted:{ASK_SCENARIOS}",
        "v1_api_key_hashes": {
            hash_api_key(V1_KEY): "acme",
            hash_api_key(LIVE_KEY): "acme",
            hash_api_key(OTHER_LIVE_KEY): "other",
        },
        "request_deadline_s": 5.0,
        "initial_credits": Decimal("1.00"),
        "v1_rate_per_minute": 1000,
        # No floor unless a test is about it (ASK-06): these tests count what synthesis is shown.
        "rerank_min_score": 0.0,
        **overrides,
    }
    runtime = Runtime(settings=settings_for(tmp_path, key, **fields))
    runtime.__dict__["model"] = RecordingModel(model or runtime.model)
    add_qanun(runtime.search_index, "acme", batch_id="b1")
    add_invoice(runtime)
    return runtime


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> Runtime:
    return make_runtime(tmp_path, signing_key)


@pytest.fixture
def base_url(serve_app: ServeApp, runtime: Runtime) -> str:
    return serve_app(create_app(runtime))


def ask(
    base_url: str, key: str = LIVE_KEY, scenario: str | None = None, **body: Any
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    if scenario:
        headers["X-Tanda-Scenario"] = scenario
    return httpx.post(
        f"{base_url}/v1/ask", json={"query": QUESTION, **body}, headers=headers, timeout=30
    )


def recorder(runtime: Runtime) -> RecordingModel:
    model = runtime.__dict__["model"]
    assert isinstance(model, RecordingModel)
    return model


def balance(runtime: Runtime, tenant: str = "acme") -> Decimal:
    account = runtime.store.credit_account(tenant, opening=runtime.settings.initial_credits)
    return account.balance


# --- the answer (ASK-04, ASK-05, ASK-13) ------------------------------------------------------


def test_an_answer_lists_only_the_sources_it_cites(base_url: str, runtime: Runtime) -> None:
    response = ask(base_url)
    assert response.status_code == 200, response.text
    body = response.json()

    assert body["query"] == QUESTION  # ASK-13: echoed
    assert body["answer"] == "Anggaran pendidikan 2023 adalah Rp 5 miliar [S1]."
    (call,) = recorder(runtime).ask_calls
    shown = call.items[0]["sources"] if call.items else []
    assert len(shown) == body["usage"]["sources_shown"] > 1  # more were shown than cited
    (citation,) = body["citations"]
    assert citation["source_no"] == 1
    assert citation["chunk_id"] == "acme:qanun-2023#0"
    assert citation["snippet"] == shown[0]["text"][:200]
    assert citation | {"snippet": None} == {
        "source_no": 1,
        "document_id": "qanun-2023",
        "external_item_ref": None,
        "page_no": 1,
        "section": "BAB II > Pasal 5",
        "chunk_id": "acme:qanun-2023#0",
        "snippet": None,
        "kind": "passage",
    }
    assert body["evidence_trail"] is None
    # ASK-11: both values the answer states are read verbatim in the source it cites.
    proof = body["proof"]
    assert (proof["verdict"], proof["weakest_link"], proof["holes"]) == ("verified", "exact", [])
    assert [(s["kind"], s["value"], s["source_no"]) for s in proof["steps"]] == [
        ("observed", "2023", 1),
        ("observed", "Rp 5 miliar", 1),
    ]
    assert body["truncated"] is False and body["lang"] == "tr"
    assert body["usage"] == {
        "credits_charged": "0.20",
        "test_key": False,
        "model_calls": 1,
        "sources_shown": len(shown),
        "invalid_citations": 0,
        "output_budget_tokens": 512,
    }


def test_a_wrong_sum_in_the_answer_is_refuted_by_its_proof_chain(base_url: str) -> None:
    # ASK-11: the operation the answer shows is recomputed; the right value is in `recomputed`.
    body = ask(base_url, scenario="proof_refuted").json()
    proof = body["proof"]
    (step,) = [s for s in proof["steps"] if s["kind"] == "computed"]
    assert step | {"start": 0, "end": 0} == {
        "no": 4,
        "kind": "computed",
        "ground": "refuted",
        "expression": "Rp 5 miliar + Rp 3 miliar = Rp 9 miliar",
        "inputs": ["Rp 5 miliar", "Rp 3 miliar"],
        "result": "Rp 9 miliar",
        "terms": 2,
        "recomputed": "8",
        "arithmetic_ok": False,
        "inputs_grounded": True,
        "source_nos": [1],
        "engine": "deterministic",
        "start": 0,
        "end": 0,
    }
    assert body["answer"][step["start"] : step["end"]] == step["expression"]
    assert (proof["verdict"], proof["stats"]["computed_refuted"]) == ("broken", 1)


def test_an_answer_stating_no_value_has_proof_null(base_url: str) -> None:
    body = ask(base_url, scenario="not_found").json()
    assert body["proof"] is None


def test_a_snippet_is_the_first_200_code_points_and_the_reference_comes_from_metadata(
    base_url: str, runtime: Runtime, tmp_path: Path
) -> None:
    long_text = "Ödeme 😀 " * 60  # astral characters: 200 code points, not UTF-16 units
    runtime.search_index.upsert_document(
        Document(
            document_id="uzun",
            tenant_id="acme",
            title="Uzun",
            source="uzun.txt",
            content_hash="uzun",
            metadata={"external_item_ref": "REF-7"},
        ),
        [
            Chunk(
                chunk_id="acme:uzun#0",
                document_id="uzun",
                tenant_id="acme",
                ordinal=0,
                title="Uzun",
                text=long_text,
            )
        ],
    )
    body = ask(base_url, document_id="uzun", query="Ödeme").json()
    (citation,) = body["citations"]
    assert citation["snippet"] == long_text[:200] and len(citation["snippet"]) == 200
    assert citation["external_item_ref"] == "REF-7"


def test_markers_naming_no_shown_source_are_removed_and_counted(base_url: str) -> None:
    body = ask(base_url, scenario="invalid_citation").json()
    assert body["answer"] == (
        "Anggaran pendidikan 2023 adalah Rp 5 miliar [S1], kesehatan Rp 3 miliar."
    )
    assert [c["source_no"] for c in body["citations"]] == [1]
    assert body["usage"]["invalid_citations"] == 1


def test_an_honest_not_found_answer_has_no_citations(base_url: str) -> None:
    body = ask(base_url, scenario="not_found").json()
    assert body["answer"] == "Bu bilgi belgelerde bulunamadı." and body["citations"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"document_id": "qanun-2023", "batch_id": "b1"}, "body"),
        ({"top_k": 21}, "top_k"),
        ({"top_k": 0}, "top_k"),
        ({"query": ""}, "query"),
        ({"query": "x" * 4001}, "query"),
        ({"lang": "x" * 17}, "lang"),
    ],
)
def test_bad_bodies_are_422_in_the_error_shape_and_cost_nothing(
    base_url: str, runtime: Runtime, body: dict[str, Any], field: str
) -> None:
    response = ask(base_url, **body)
    assert_error(response, 422, "validation_error")
    assert field in [str(p) for f in response.json()["error"]["fields"] for p in f["loc"]]
    assert balance(runtime) == Decimal("1.00") and recorder(runtime).requests == []


def test_a_question_of_4000_characters_is_accepted(base_url: str) -> None:
    assert ask(base_url, query="anggaran " * 444 + "pend").status_code == 200


@pytest.mark.parametrize("query", ["anggaran ¹", "Berapa ²³ anggaran tahun 2023?", "pasal ¹2"])
def test_a_question_with_digits_int_cannot_read_is_answered_not_a_500(
    base_url: str, query: str
) -> None:
    # Found by the OpenAPI fuzzer: "¹" is a digit to str.isdigit() and not to int(); the
    # question's analysis raised and /v1/ask and /v1/search answered 500.
    assert ask(base_url, query=query).status_code == 200
    search = httpx.post(
        f"{base_url}/v1/search",
        json={"query": query},
        headers={"Authorization": f"Bearer {LIVE_KEY}"},
    )
    assert search.status_code == 200, search.text


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({}, 401, "missing_api_key"),
        ({"Authorization": "Bearer dip_live_unknown"}, 403, "invalid_api_key"),
        ({"Authorization": "Bearer tk_integration-shared-key"}, 403, "invalid_api_key"),
    ],
)
def test_ask_needs_a_v1_key(
    base_url: str, runtime: Runtime, headers: dict[str, str], status: int, code: str
) -> None:
    response = httpx.post(f"{base_url}/v1/ask", json={"query": QUESTION}, headers=headers)
    assert_error(response, status, code)
    assert recorder(runtime).requests == []


def test_a_tenant_never_sees_another_tenants_sources(base_url: str, runtime: Runtime) -> None:
    add_qanun(
        runtime.search_index,
        "other",
        texts=["Anggaran pendidikan 2023 adalah Rp 9 triliun menurut dokumen tenant lain."],
    )
    ask(base_url, key=OTHER_LIVE_KEY)
    ask(base_url, key=LIVE_KEY)
    theirs, mine = recorder(runtime).ask_calls
    assert all("triliun" in s["text"] for s in (theirs.items or [{}])[0]["sources"])
    assert all("triliun" not in s["text"] for s in (mine.items or [{}])[0]["sources"])


# --- no source (ASK-03) -------------------------------------------------------------------


def test_no_source_is_the_fixed_answer_without_a_model_call_and_is_charged(
    base_url: str, runtime: Runtime
) -> None:
    # Given a scope that holds nothing, when asked,
    response = ask(base_url, document_id="no-such-document", scenario="http_500")

    # then the fixed answer comes back without any model call, as a charged success.
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["answer"] == NOT_FOUND_ANSWER["tr"] == "Bu soruya belgelerde yanit bulunamadi."
    assert body["citations"] == [] and body["usage"]["model_calls"] == 0
    assert body["usage"]["output_budget_tokens"] is None
    assert recorder(runtime).requests == []
    assert balance(runtime) == Decimal("0.80")


def test_the_fixed_answer_follows_lang_when_it_asks(base_url: str) -> None:
    body = ask(base_url, document_id="no-such-document", lang="en").json()
    assert body["answer"] == NOT_FOUND_ANSWER["en"] and body["lang"] == "en"


# --- the reranker floor (ASK-06) --------------------------------------------------------------


def test_candidates_under_the_reranker_floor_never_reach_synthesis(
    tmp_path: Path, serve_app: ServeApp, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given a floor that no passage of the scope reaches (the lexical reranker scores the share
    # of the question's content words a passage holds),
    runtime = make_runtime(tmp_path, signing_key, rerank_min_score=1.0)
    url = serve_app(create_app(runtime))

    # when asked a question whose words only partly occur in the documents,
    body = ask(url, query="Berapa anggaran pendidikan dan kesehatan Aceh pada tahun 2023?").json()

    # then nothing was shown to a model: the fixed answer, as if nothing had been found.
    assert body["answer"] == NOT_FOUND_ANSWER["tr"]
    assert body["citations"] == [] and recorder(runtime).requests == []


class DownReranker:
    name = "down"

    def score(self, query: str, passages: Any) -> list[float]:
        from tanda.adapters.rerankers import RerankFailed

        raise RerankFailed()


def test_a_reranker_outage_is_502_before_any_model_call_and_never_charged(
    base_url: str, runtime: Runtime
) -> None:
    runtime.__dict__["reranker"] = DownReranker()
    assert_error(ask(base_url), 502, "rerank_failed")
    assert recorder(runtime).requests == [] and balance(runtime) == Decimal("1.00")


# --- synthesis failures (ASK-04, ASK-12) --------------------------------------------------


@pytest.mark.parametrize("scenario", ["timeout", "http_500", "http_400", "invalid"])
def test_a_failed_synthesis_is_503_rag_unavailable_and_never_charged(
    base_url: str, runtime: Runtime, scenario: str
) -> None:
    response = ask(base_url, scenario=scenario)
    assert_error(response, 503, "rag_unavailable")
    assert balance(runtime) == Decimal("1.00")
    usage = runtime.store.credit_account("acme", opening=Decimal("1.00")).usage_of("ask")
    assert usage.charged == 0 and usage.metered == 0


def test_no_model_configured_is_503_once_there_are_sources(
    tmp_path: Path, serve_app: ServeApp, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    runtime = make_runtime(tmp_path, signing_key, ask_model="none")
    url = serve_app(create_app(runtime))
    assert_error(ask(url), 503, "rag_unavailable")
    # Without a source there is nothing to synthesise: the fixed answer still works.
    assert ask(url, document_id="no-such-document").status_code == 200
    assert balance(runtime) == Decimal("0.80")


def test_a_real_model_server_is_retried_on_500_and_a_4xx_is_503_without_its_text(
    tmp_path: Path, serve_app: ServeApp, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    with running_fake() as fake:
        runtime = make_runtime(tmp_path, signing_key, ask_model=f"openai:{fake.base_url}#m")
        url = serve_app(create_app(runtime))

        # A 500, then an answer: the adapter retries (ASK-04), the route answers 200.
        fake.fail("http_500").reply("Rp 5 miliar [S1].")
        response = ask(url)
        assert response.status_code == 200, response.text
        assert response.json()["answer"] == "Rp 5 miliar [S1]."
        chat = [b for b in fake.bodies if "messages" in b]
        assert len(chat) == 2 and chat[-1]["temperature"] == 0.1
        assert chat[-1]["messages"][1]["content"].startswith("[S1] [Kaynak: belge=Qanun Aceh")

        # A 400: 503 rag_unavailable, none of the server's text, nothing charged.
        fake.fail("http_400")
        response = ask(url)
        assert_error(response, 503, "rag_unavailable")
        assert LEAKY_SECRET not in response.text
        assert balance(runtime) == Decimal("0.80")


# --- output budget, continuation, truncation (ASK-10) --------------------------------------


def test_a_cut_answer_is_continued_once(base_url: str, runtime: Runtime) -> None:
    body = ask(base_url, scenario="continued").json()
    assert body["answer"] == ("Rincian: pendidikan Rp 5 miliar [S1], kesehatan Rp 3 miliar [S1].")
    assert body["truncated"] is False and body["usage"]["model_calls"] == 2


@pytest.mark.parametrize("lang", ["tr", "id", "en"])
def test_still_cut_is_truncated_with_a_visible_warning_in_the_answers_language(
    base_url: str, lang: str
) -> None:
    body = ask(base_url, scenario="truncated", lang=lang).json()
    assert body["truncated"] is True
    assert body["answer"].endswith(TRUNCATION_WARNING[lang])
    assert "[S" not in body["answer"].replace("[S1]", "")
    assert body["usage"]["credits_charged"] == "0.20"  # a truncated answer is an answer


def test_the_budget_follows_the_question(base_url: str) -> None:
    narrow = ask(base_url, query="Berapa anggaran pendidikan?").json()
    listing = ask(base_url, query="Sebutkan semua anggaran").json()
    assert narrow["usage"]["output_budget_tokens"] == 512
    assert listing["usage"]["output_budget_tokens"] == 2048


# --- page scope (ASK-09) -------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["2. sayfadaki kalemler nelerdir?", "Apa isi halaman 2?", "What is on page 2?"],
)
def test_a_named_page_of_the_one_document_is_exactly_the_context(
    base_url: str, runtime: Runtime, query: str
) -> None:
    body = ask(base_url, query=query, document_id="fatura-42").json()
    (call,) = recorder(runtime).ask_calls
    shown = (call.items or [{}])[0]["sources"]
    assert [s["text"] for s in shown] == INVOICE_PAGES[2]
    assert {s["page_no"] for s in shown} == {2}
    assert "Toplam" not in call.messages[1].content  # no other page is shown
    assert body["citations"][0]["page_no"] == 2
    assert body["citations"][0]["external_item_ref"] == "INV-2023-42"


@pytest.mark.parametrize(
    "query",
    ["son sayfada ne yazıyor? Toplam", "Is 42.570,00 on the last page?", "2. sayfada toplam ne?"],
)
def test_relative_pages_or_no_document_scope_do_not_narrow(
    base_url: str, runtime: Runtime, query: str
) -> None:
    # "2. sayfada …" names page 2 but has no single-document scope: hybrid search as usual.
    scope = {} if query.startswith("2.") else {"document_id": "fatura-42"}
    ask(base_url, query=query, **scope)
    (call,) = recorder(runtime).ask_calls
    assert any("Toplam" in s["text"] for s in (call.items or [{}])[0]["sources"])


# --- language (ASK-07) ---------------------------------------------------------------------


@pytest.fixture
def offline_url(
    tmp_path: Path, serve_app: ServeApp, signing_key: ed25519.Ed25519PrivateKey
) -> tuple[str, Runtime]:
    runtime = make_runtime(tmp_path, signing_key, ask_model="offline")
    return serve_app(create_app(runtime)), runtime


@pytest.mark.parametrize(
    ("lang", "lead"),
    [
        ("id", "Kutipan paling relevan dari dokumen"),
        ("en", "The most relevant statements in the documents"),
        ("tr", "Belgelerdeki en ilgili ifadeler"),
    ],
)
def test_a_turkish_question_is_answered_in_the_asked_language_quotes_untranslated(
    offline_url: tuple[str, Runtime], lang: str, lead: str
) -> None:
    url, _ = offline_url
    body = ask(url, query=TURKISH_QUESTION, lang=lang).json()
    assert body["lang"] == lang
    assert body["answer"].startswith(lead)
    # The quote and its label stay exactly as the document has them.
    assert "Anggaran pendidikan 2023 adalah Rp 5 miliar. [S1]" in body["answer"]
    assert body["citations"][0]["snippet"].startswith("Anggaran pendidikan 2023 adalah Rp 5")


def test_the_tenant_default_applies_unless_the_request_names_a_known_language(
    offline_url: tuple[str, Runtime],
) -> None:
    url, runtime = offline_url
    runtime.store.put_tenant_profile(TenantProfile(tenant_id="acme", lang="en"))
    assert ask(url, query=TURKISH_QUESTION).json()["lang"] == "en"
    assert ask(url, query=TURKISH_QUESTION, lang="id").json()["lang"] == "id"
    # An unknown code is no error: it falls back to the tenant's default.
    response = ask(url, query=TURKISH_QUESTION, lang="xx")
    assert response.status_code == 200 and response.json()["lang"] == "en"
    # Another tenant has no default: Turkish.
    assert ask(url, key=OTHER_LIVE_KEY, query=TURKISH_QUESTION).json()["lang"] == "tr"


# --- credits and the throttle (ASK-12, ASK-13) ---------------------------------------------


def test_a_balance_too_low_is_402_before_any_work(base_url: str, runtime: Runtime) -> None:
    runtime.store.charge("acme", "ask", Decimal("0.90"), opening=Decimal("1.00"))
    response = ask(base_url)
    assert_error(response, 402, "insufficient_credit")
    assert recorder(runtime).requests == []  # no synthesis was tried
    assert balance(runtime) == Decimal("0.10")


def test_a_balance_equal_to_the_price_is_spent_to_zero(base_url: str, runtime: Runtime) -> None:
    # Issue 23: at the limit — the last 0.20 pays for one ask; then the next is 402.
    runtime.store.charge("acme", "ask", Decimal("0.80"), opening=Decimal("1.00"))
    response = ask(base_url)
    assert response.status_code == 200, response.text
    assert response.json()["usage"]["credits_charged"] == "0.20"
    assert balance(runtime) == Decimal(0)
    assert_error(ask(base_url), 402, "insufficient_credit")


def test_a_test_key_is_metered_and_never_charged(base_url: str, runtime: Runtime) -> None:
    runtime.store.charge("acme", "ask", Decimal("1.00"), opening=Decimal("1.00"))
    response = ask(base_url, key=V1_KEY)  # dip_test_, with a balance of 0
    assert response.status_code == 200, response.text
    assert response.json()["usage"] | {"sources_shown": 0} == {
        "credits_charged": "0.00",
        "test_key": True,
        "model_calls": 1,
        "sources_shown": 0,
        "invalid_citations": 0,
        "output_budget_tokens": 512,
    }
    account = runtime.store.credit_account("acme", opening=Decimal("1.00"))
    assert account.balance == Decimal(0)
    assert account.usage_of("ask").metered == 1 and account.usage_of("ask").charged == 1


def test_search_is_billed_cheaper_than_ask(base_url: str, runtime: Runtime) -> None:
    search = httpx.post(
        f"{base_url}/v1/search",
        json={"query": QUESTION},
        headers={"Authorization": f"Bearer {LIVE_KEY}"},
    )
    assert search.status_code == 200, search.text
    assert balance(runtime) == Decimal("0.95")
    ask(base_url)
    assert balance(runtime) == Decimal("0.75")
    usage = runtime.store.credit_account("acme", opening=Decimal("1.00")).usage
    assert usage["search"].credits == Decimal("0.05") and usage["ask"].credits == Decimal("0.20")


def test_search_with_too_little_credit_is_402(base_url: str, runtime: Runtime) -> None:
    runtime.store.charge("acme", "ask", Decimal("0.96"), opening=Decimal("1.00"))
    response = httpx.post(
        f"{base_url}/v1/search",
        json={"query": QUESTION},
        headers={"Authorization": f"Bearer {LIVE_KEY}"},
    )
    assert_error(response, 402, "insufficient_credit")


def test_ask_and_search_share_one_throttle_per_tenant_across_instances(
    tmp_path: Path, serve_app: ServeApp, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    runtime = make_runtime(tmp_path, signing_key, v1_rate_per_minute=3)
    url = serve_app(create_app(runtime))
    other_instance = serve_app(
        create_app(make_runtime(tmp_path, signing_key, v1_rate_per_minute=3))
    )
    wait_for_a_fresh_window()
    headers = {"Authorization": f"Bearer {LIVE_KEY}"}

    assert ask(url).status_code == 200
    search = httpx.post(f"{url}/v1/search", json={"query": QUESTION}, headers=headers)
    assert search.status_code == 200
    assert ask(other_instance).status_code == 200  # the count lives in the Store
    refused = httpx.post(f"{other_instance}/v1/search", json={"query": QUESTION}, headers=headers)
    assert_error(refused, 429, "rate_limited")
    assert 1 <= int(refused.headers["retry-after"]) <= math.ceil(THROTTLE_WINDOW_S)
    assert_error(ask(url), 429, "rate_limited")
    assert_error(ask(url, key=V1_KEY), 429, "rate_limited")  # test keys too: same tenant
    # Another tenant has its own window; refusals charged nothing.
    assert ask(url, key=OTHER_LIVE_KEY).status_code == 200
    assert balance(runtime) == Decimal("1.00") - Decimal("0.20") * 2 - Decimal("0.05")


@pytest.mark.parametrize("store_kind", ["sqlite", "dynamodb"])
def test_100_concurrent_asks_against_a_balance_for_10_charge_exactly_10(
    tmp_path: Path,
    serve_app: ServeApp,
    signing_key: ed25519.Ed25519PrivateKey,
    request: pytest.FixtureRequest,
    store_kind: str,
) -> None:
    # Given a tenant whose balance covers exactly 10 asks, on either Store adapter,
    runtime = make_runtime(tmp_path, signing_key, initial_credits=Decimal("2.00"))
    if store_kind == "dynamodb":
        runtime.__dict__["store"] = request.getfixturevalue("dynamo_store")
    url = serve_app(create_app(runtime))

    # when 100 asks arrive at once,
    with ThreadPoolExecutor(max_workers=100) as pool:
        responses = list(pool.map(lambda _: ask(url), range(100)))

    # then exactly 10 are answered and charged, the other 90 are 402, and the balance is 0.
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] * 10 + [402] * 90
    for refused in (r for r in responses if r.status_code == 402):
        assert_error(refused, 402, "insufficient_credit")
    account = runtime.store.credit_account("acme", opening=Decimal("2.00"))
    assert account.balance == Decimal(0)
    assert account.usage_of("ask").charged == 10
    assert account.usage_of("ask").credits == Decimal("2.00")
