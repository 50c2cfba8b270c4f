"""POST /playground over HTTP (PG-1 … PG-5)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.adapters.dynamodb_store import DynamoStore
from tanda.adapters.scripted import AgentScript, Scenario, ScriptedModel, ScriptedToolCall
from tanda.api.app import create_app
from tanda.contract import Segment
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole
from tanda.wiring import Runtime
from tests.corpus import QUESTION, add_qanun
from tests.fakes import ManualClock

from .conftest import ServeApp
from .credentials import ADMIN, API_KEY, assert_error, partner_headers, settings_for, sign

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios"
PROMPT = "Jawab dengan jelas dan ringkas dalam Bahasa Indonesia."


class RecordingModel:
    def __init__(self, inner: ScriptedModel) -> None:
        self.inner = inner
        self.name = "recording"
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.requests.append(request)
        return self.inner.complete(request)


def make_runtime(tmp_path: Path, key: ed25519.Ed25519PrivateKey, **overrides: Any) -> Runtime:
    settings = settings_for(tmp_path, key, model=f"scripted:{SCENARIOS}", **overrides)
    runtime = Runtime(settings=settings)
    runtime.__dict__["model"] = RecordingModel(runtime.model)  # type: ignore[arg-type]
    add_qanun(runtime.search_index, "acme")
    return runtime


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> Runtime:
    return make_runtime(tmp_path, signing_key, admin_rate_per_minute=100, admin_rate_burst=100)


@pytest.fixture
def base_url(serve_app: ServeApp, runtime: Runtime) -> str:
    return serve_app(create_app(runtime))


def admin_headers(
    key: ed25519.Ed25519PrivateKey, scenario: str | None = "default"
) -> dict[str, str]:
    out = {"X-API-Key": API_KEY, "Authorization": f"Bearer {sign(key, ADMIN)}"}
    if scenario:
        out["X-Tanda-Scenario"] = scenario
    return out


def play(base_url: str, headers: dict[str, str], **body: Any) -> httpx.Response:
    payload = {"editorial_prompt": PROMPT, "query": QUESTION, **body}
    return httpx.post(f"{base_url}/playground", json=payload, headers=headers, timeout=30)


def test_an_admin_run_answers_with_v2_fields_and_publishes_nothing(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    response = play(base_url, admin_headers(signing_key, "seed_example"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["playground_run_id"].startswith("pg_") and body["published"] is False
    assert isinstance(body["latency_ms"], int)
    assert "conversation_id" not in body and "message_id" not in body
    assert body["schema"] == "annotate-v2" and body["faithfulness"]["verification"] == "partial"
    receipt = runtime.store.receipt(body["playground_run_id"])
    assert receipt is not None and receipt.status == "completed"
    assert receipt.counts["supported"] == 1 and receipt.counts["unsupported"] == 1
    # Nothing published: no conversation, no message.
    db = runtime.store.path.read_bytes()  # type: ignore[attr-defined]
    assert b"conversation_id" not in db


def test_a_run_with_include_proof_carries_the_proof_chain_as_query_v2_does(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # ASK-11: the playground takes the /query/v2 body, include_proof included.
    response = play(base_url, admin_headers(signing_key, "proof_refuted"), include_proof=True)
    assert response.status_code == 200, response.text
    body = response.json()
    assert [c["verdict"] for c in body["claims"]] == ["supported", "supported", "unsupported"]
    assert body["proof"]["verdict"] == "broken"
    asked_nothing = play(base_url, admin_headers(signing_key, "policy_blocked"), include_proof=True)
    assert asked_nothing.json()["proof"] is None
    assert "proof" not in play(base_url, admin_headers(signing_key, "proof_refuted")).json()


def test_a_partner_token_is_403_not_admin(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    assert_error(play(base_url, partner_headers(signing_key)), 403, "not_admin")


def test_no_api_key_is_401(base_url: str, signing_key: ed25519.Ed25519PrivateKey) -> None:
    headers = {"Authorization": f"Bearer {sign(signing_key, ADMIN)}"}
    assert_error(play(base_url, headers), 401, "missing_api_key")


def test_with_verified_identity_off_the_route_fails_closed_with_503(
    serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    url = serve_app(create_app(make_runtime(tmp_path, signing_key, verified_identity=False)))
    assert_error(play(url, admin_headers(signing_key)), 503, "verified_identity_disabled")


@pytest.mark.parametrize("prompt", ["", "   \n ", "x" * 2001])
def test_an_empty_blank_or_too_long_prompt_is_422(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey, prompt: str
) -> None:
    response = play(base_url, admin_headers(signing_key), editorial_prompt=prompt)
    assert_error(response, 422, "validation_error")
    assert ["body", "editorial_prompt"] in [f["loc"] for f in response.json()["error"]["fields"]]


def test_the_prompt_length_counts_code_points(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # 2000 astral characters are 4000 UTF-16 units, and still within the limit.
    assert (
        play(base_url, admin_headers(signing_key), editorial_prompt="🎓" * 2000).status_code == 200
    )


def test_a_missing_prompt_is_422(base_url: str, signing_key: ed25519.Ed25519PrivateKey) -> None:
    response = httpx.post(
        f"{base_url}/playground",
        json={"query": QUESTION},
        headers=admin_headers(signing_key),
        timeout=30,
    )
    assert_error(response, 422, "validation_error")


def test_a_run_never_changes_the_prompt_of_other_requests_even_concurrent_ones(
    runtime: Runtime, base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    marker = "PENANDA-PROMPT-KANDIDAT"
    errors: list[str] = []

    def run_playground() -> None:
        for _ in range(3):
            if (
                play(base_url, admin_headers(signing_key), editorial_prompt=marker).status_code
                != 200
            ):
                errors.append("playground")

    def run_v2() -> None:
        for _ in range(3):
            response = httpx.post(
                f"{base_url}/query/v2",
                json={"query": QUESTION},
                headers={**partner_headers(signing_key), "X-Tanda-Scenario": "default"},
                timeout=30,
            )
            if response.status_code != 200:
                errors.append("v2")

    threads = [threading.Thread(target=run_playground), threading.Thread(target=run_v2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    model: RecordingModel = runtime.model  # type: ignore[assignment]
    systems = [r.messages[0].content for r in model.requests if r.role is ModelRole.agent]
    with_marker = [s for s in systems if marker in s]
    assert len(with_marker) == 6  # two agent calls for each of the 3 playground runs
    assert len(systems) == 12
    before = len(model.requests)
    later = httpx.post(
        f"{base_url}/query/v2",
        json={"query": QUESTION},
        headers={**partner_headers(signing_key), "X-Tanda-Scenario": "default"},
        timeout=30,
    )
    assert later.status_code == 200
    after = [r.messages[0].content for r in model.requests[before:] if r.role is ModelRole.agent]
    assert after and all(marker not in s for s in after)


MARKERS = {
    "prompt": "ZQPROMPTMARKER",
    "question": "ZQQUESTIONMARKER",
    "answer": "ZQANSWERMARKER",
    "passage": "ZQPASSAGEMARKER",
}


def run_marked(runtime: Runtime, serve_app: ServeApp, key: ed25519.Ed25519PrivateKey) -> str:
    """A playground run whose prompt, question, answer and passages carry marker strings;
    returns its run id."""
    add_qanun(
        runtime.search_index,
        "acme",
        doc_id="marked",
        texts=[f"Dana {MARKERS['passage']} adalah Rp 7 miliar."],
    )
    scripted: ScriptedModel = runtime.model.inner  # type: ignore[attr-defined]
    scripted.scenarios["marked"] = Scenario(
        agent=AgentScript(
            tool_calls=[ScriptedToolCall(query=MARKERS["passage"])],
            segments=[
                Segment(
                    text=f"Dana {MARKERS['answer']} adalah Rp 7 miliar.", kind="fact", cites=["P1"]
                )
            ],
        )
    )
    url = serve_app(create_app(runtime))
    response = play(
        url,
        admin_headers(key, "marked"),
        editorial_prompt=MARKERS["prompt"],
        query=f"Berapa {MARKERS['question']}?",
    )
    assert response.status_code == 200, response.text
    assert MARKERS["answer"] in response.json()["answer"]
    return str(response.json()["playground_run_id"])


def test_the_receipt_and_every_stored_byte_hold_no_prompt_question_answer_or_passage_text(
    tmp_path: Path, serve_app: ServeApp, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    runtime = make_runtime(tmp_path, signing_key)
    run_id = run_marked(runtime, serve_app, signing_key)
    store_files = [p for p in tmp_path.iterdir() if p.name.startswith("store.sqlite")]
    assert store_files
    written = b"".join(p.read_bytes() for p in store_files)
    assert run_id.encode() in written  # the receipt is there
    for name, marker in MARKERS.items():
        assert marker.encode() not in written, f"the {name} text reached the Store"


def test_no_dynamodb_item_holds_playground_text(
    tmp_path: Path,
    serve_app: ServeApp,
    signing_key: ed25519.Ed25519PrivateKey,
    dynamo_store: DynamoStore,
) -> None:
    runtime = make_runtime(tmp_path, signing_key)
    runtime.__dict__["store"] = dynamo_store
    run_id = run_marked(runtime, serve_app, signing_key)
    client = dynamo_store.client
    items = []
    for table in (dynamo_store.table, dynamo_store.receipts_table):
        items += client.scan(TableName=table, ConsistentRead=True)["Items"]
    written = json.dumps(items)
    assert run_id in written  # the receipt is there, and nothing else of the run
    for name, marker in MARKERS.items():
        assert marker not in written, f"the {name} text reached DynamoDB"


class RateWindowsOn:
    """A ``Store`` whose rate-limit windows are counted at ``clock``'s time: the route reads the
    wall clock, and calls that straddle the end of a minute would start a new window (the test
    flaked at load 9)."""

    def __init__(self, store: Any, clock: ManualClock) -> None:
        self.store = store
        self.clock = clock

    def hit(self, key: str, *, limit: int, window_s: float, now: float) -> Any:
        return self.store.hit(key, limit=limit, window_s=window_s, now=self.clock())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_the_per_admin_limit_is_kept_in_the_store_and_answers_429_with_retry_after(
    tmp_path: Path, serve_app: ServeApp, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given two per minute, every call in one minute (a manual clock's)
    clock = ManualClock()
    runtime = make_runtime(tmp_path, signing_key, admin_rate_per_minute=2, admin_rate_burst=50)
    runtime.__dict__["store"] = RateWindowsOn(runtime.store, clock)
    url = serve_app(create_app(runtime))
    assert [play(url, admin_headers(signing_key)).status_code for _ in range(2)] == [200, 200]
    # A second app on the same Store file (another instance) sees the same count.
    other_runtime = Runtime(settings=runtime.settings)
    other_runtime.__dict__["store"] = RateWindowsOn(other_runtime.store, clock)
    other = serve_app(create_app(other_runtime))
    response = play(other, admin_headers(signing_key))
    assert_error(response, 429, "rate_limited")
    assert int(response.headers["retry-after"]) >= 1


class RecordingLogger:
    """Stands in for Powertools' Logger: keeps each line's message and fields."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, dict[str, Any]]] = []

    def info(self, message: str, *, extra: dict[str, Any]) -> None:
        self.lines.append((message, extra))


class RecordingMetrics:
    """Stands in for Powertools' Metrics: keeps each metric and dimension added."""

    def __init__(self) -> None:
        self.metrics: list[tuple[str, float]] = []
        self.dimensions: list[tuple[str, str]] = []

    def add_dimension(self, *, name: str, value: str) -> None:
        self.dimensions.append((name, value))

    def add_metric(self, *, name: str, unit: str, value: float) -> None:
        self.metrics.append((name, value))

    def flush_metrics(self) -> None:
        pass


def test_a_run_writes_no_answer_analytics_and_its_trace_id_is_the_one_id_logged(
    runtime: Runtime,
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the server runs as a Lambda function would, its log lines and metrics recorded
    import tanda.observability as observability

    log, emf = RecordingLogger(), RecordingMetrics()
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "tanda-playground")
    monkeypatch.setattr(observability, "logger", lambda: log)
    monkeypatch.setattr(observability, "metrics", lambda: emf)
    # When an admin runs a candidate prompt
    response = play(base_url, admin_headers(signing_key, "seed_example"))
    assert response.status_code == 200, response.text
    body = response.json()
    # Then the returned trace_id is the run's one id (PG-5's receipt id)
    assert body["trace_id"] == body["playground_run_id"]
    # and no answer analytics is written (PG-4): no answer line, no verdict or model-call figure,
    assert [message for message, _ in log.lines] == ["playground_run"]
    assert not [name for name, _ in emf.metrics if name != "PlaygroundRuns"]
    # only an operational line and count under that id, with nothing of the run's content.
    _, fields = log.lines[0]
    assert fields == {
        "route": "playground",
        "tenant": "acme",
        "trace_id": body["playground_run_id"],
        "status": "completed",
        "latency_ms": fields["latency_ms"],
    }
    assert emf.metrics == [("PlaygroundRuns", 1)] and emf.dimensions == [("route", "playground")]
    assert PROMPT not in json.dumps(log.lines) and QUESTION not in json.dumps(log.lines)
