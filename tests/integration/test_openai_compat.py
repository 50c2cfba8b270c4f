"""The openai_compat adapter over real HTTP against the local OpenAI-compatible fake (DESIGN §5)."""

from __future__ import annotations

import email.utils
import json
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tanda.adapters.openai_compat import OpenAICompatModel, error_code, from_spec
from tanda.model_calls import (
    ChatMessage,
    ChatRequest,
    ModelContextExceeded,
    ModelRejected,
    ModelRole,
    ModelTimeout,
    ModelUnavailable,
    ToolCall,
    ToolSpec,
)
from tests.fakes import ManualClock
from tests.openai_fake import LEAKY_SECRET, Failure, OpenAIFake, Raw, Reply, Step, running_fake

pytestmark = pytest.mark.integration

SEARCH = ToolSpec(
    name="search",
    description="Search the corpus.",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}},
)


class FakeSleep:
    """Records the delays the adapter asks for instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def openai_fake() -> Iterator[OpenAIFake]:
    with running_fake() as fake:
        yield fake


@pytest.fixture
def sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
def model(openai_fake: OpenAIFake, sleep: FakeSleep) -> Iterator[OpenAICompatModel]:
    adapter = OpenAICompatModel(
        openai_fake.base_url, "gpt-test", api_key="k-123", sleep=sleep, rng=lambda: 1.0
    )
    yield adapter
    adapter.close()


def ask(content: str = "What is the budget?", **kwargs: object) -> ChatRequest:
    return ChatRequest.model_validate(
        {
            "role": ModelRole.agent,
            "messages": [
                ChatMessage(role="system", content="Answer from the passages."),
                ChatMessage(role="user", content=content),
            ],
            **kwargs,
        }
    )


def assert_not_leaked(error: BaseException) -> None:
    assert LEAKY_SECRET not in str(error)
    assert LEAKY_SECRET not in repr(error)
    assert error.__cause__ is None or LEAKY_SECRET not in str(error.__cause__)


# --- success ----------------------------------------------------------------------------------


def test_a_reply_returns_its_content_usage_and_finish_reason(
    openai_fake: OpenAIFake, model: OpenAICompatModel
) -> None:
    openai_fake.reply("Rp871,67 miliar.", usage=(120, 7))

    response = model.complete(ask(max_tokens=64, temperature=0.3))

    assert response.content == "Rp871,67 miliar."
    assert (response.finish_reason, response.input_tokens, response.output_tokens) == (
        "stop",
        120,
        7,
    )
    [body] = openai_fake.bodies
    assert body == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Answer from the passages."},
            {"role": "user", "content": "What is the budget?"},
        ],
        "temperature": 0.3,
        "max_tokens": 64,
    }
    assert openai_fake.requests[0].headers["authorization"] == "Bearer k-123"
    assert model.name == "openai:gpt-test"


def test_tool_calls_round_trip_in_the_openai_wire_format(
    openai_fake: OpenAIFake, model: OpenAICompatModel
) -> None:
    # Given the model asks for a search, then answers once it sees the result
    openai_fake.reply(tool_calls=[{"id": "c1", "name": "search", "arguments": {"query": "APBN"}}])
    openai_fake.reply("done")

    first = model.complete(ask(tools=[SEARCH]))
    history = [
        *ask().messages,
        ChatMessage(role="assistant", tool_calls=first.tool_calls),
        ChatMessage(role="tool", tool_call_id="c1", content="[P1] APBN 2024 …"),
    ]
    second = model.complete(ChatRequest(role=ModelRole.agent, messages=history, tools=[SEARCH]))

    assert first.tool_calls == [ToolCall(id="c1", name="search", arguments={"query": "APBN"})]
    assert first.finish_reason == "tool_calls"
    assert second.content == "done"
    tools_sent = openai_fake.bodies[0]["tools"]
    assert tools_sent == [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the corpus.",
                "parameters": SEARCH.parameters,
            },
        }
    ]
    assert openai_fake.bodies[1]["messages"][2:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "search", "arguments": json.dumps({"query": "APBN"})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "[P1] APBN 2024 …"},
    ]


def test_a_forced_tool_round_sends_tool_choice_required_and_other_rounds_do_not(
    openai_fake: OpenAIFake, model: OpenAICompatModel
) -> None:
    # V2-17: a re-asked follow-up's first round must call a tool.
    openai_fake.reply(tool_calls=[{"id": "c1", "name": "search", "arguments": {"query": "x"}}])
    openai_fake.reply("done")

    model.complete(ask(tools=[SEARCH], tool_choice="required"))
    model.complete(ask(tools=[SEARCH]))

    assert openai_fake.bodies[0]["tool_choice"] == "required"
    assert "tool_choice" not in openai_fake.bodies[1]


def test_tool_call_arguments_that_are_not_json_become_empty(
    openai_fake: OpenAIFake, model: OpenAICompatModel
) -> None:
    openai_fake.reply(tool_calls=[{"id": "c9", "name": "search", "arguments": '{"query": "AP'}])

    response = model.complete(ask(tools=[SEARCH]))

    assert response.tool_calls == [ToolCall(id="c9", name="search", arguments={})]


@pytest.mark.parametrize(
    ("sent", "tool_calls", "expected"),
    [
        ("length", False, "length"),
        ("content_filter", False, "other"),
        ("stop", True, "tool_calls"),  # Ollama and some vLLM tool parsers
    ],
)
def test_finish_reasons_are_mapped(
    openai_fake: OpenAIFake, model: OpenAICompatModel, sent: str, tool_calls: bool, expected: str
) -> None:
    calls = [{"name": "list_sources", "arguments": {}}] if tool_calls else None
    openai_fake.reply("…", tool_calls=calls, finish_reason=sent)

    assert model.complete(ask()).finish_reason == expected


def test_structured_output_asks_for_a_strict_json_schema(
    openai_fake: OpenAIFake, model: OpenAICompatModel
) -> None:
    schema = {"type": "object", "properties": {"block": {"type": "boolean"}}, "required": ["block"]}
    openai_fake.reply('{"block": false}')

    response = model.complete(ask(json_schema=schema, schema_name="guard_output"))

    assert json.loads(response.content or "") == {"block": False}
    assert openai_fake.bodies[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "guard_output", "schema": schema, "strict": True},
    }


def test_the_scripted_fields_of_a_request_are_not_sent(
    openai_fake: OpenAIFake, model: OpenAICompatModel
) -> None:
    model.complete(ask(items=[{"id": "S1"}], scenario="judge_unsupported"))

    assert set(openai_fake.bodies[0]) == {"model", "messages", "temperature"}


# --- retries ----------------------------------------------------------------------------------


def test_server_errors_are_retried_with_growing_backoff(
    openai_fake: OpenAIFake, model: OpenAICompatModel, sleep: FakeSleep
) -> None:
    openai_fake.fail("http_500").fail("http_500", status=503).fail("http_500", status=502)
    openai_fake.reply("recovered")

    response = model.complete(ask())

    assert response.content == "recovered"
    assert len(openai_fake.bodies) == 4
    assert sleep.delays == pytest.approx([0.2, 0.4, 0.8])


def test_backoff_is_fully_jittered(openai_fake: OpenAIFake, sleep: FakeSleep) -> None:
    adapter = OpenAICompatModel(openai_fake.base_url, "m", sleep=sleep, rng=lambda: 0.25)
    openai_fake.fail("http_500", times=2).reply("ok")

    adapter.complete(ask())

    assert sleep.delays == pytest.approx([0.05, 0.1])


def test_exhausted_retries_raise_unavailable_without_the_server_text(
    openai_fake: OpenAIFake, model: OpenAICompatModel
) -> None:
    openai_fake.fail("http_500", times=4)

    with pytest.raises(ModelUnavailable) as raised:
        model.complete(ask())

    assert raised.value.outcome == "unavailable"
    assert len(openai_fake.bodies) == 4
    assert_not_leaked(raised.value)


def test_rate_limit_waits_for_retry_after(
    openai_fake: OpenAIFake, model: OpenAICompatModel, sleep: FakeSleep
) -> None:
    openai_fake.fail("http_429", retry_after="2").reply("after the wait")

    response = model.complete(ask())

    assert response.content == "after the wait"
    assert sleep.delays == [2.0]


def test_retry_after_may_be_an_http_date(
    openai_fake: OpenAIFake, model: OpenAICompatModel, sleep: FakeSleep
) -> None:
    when = email.utils.formatdate(time.time() + 2, usegmt=True)
    openai_fake.fail("http_429", retry_after=when).reply("ok")

    model.complete(ask())

    [delay] = sleep.delays
    assert 0 < delay <= 2


def test_a_retry_after_longer_than_the_budget_gives_up_at_once(
    openai_fake: OpenAIFake, model: OpenAICompatModel, sleep: FakeSleep
) -> None:
    openai_fake.fail("http_429", retry_after="120").reply("too late")

    with pytest.raises(ModelUnavailable) as raised:
        model.complete(ask(timeout_s=5))

    assert sleep.delays == []
    assert len(openai_fake.bodies) == 1
    assert_not_leaked(raised.value)


def test_a_dropped_connection_is_retried(
    openai_fake: OpenAIFake, model: OpenAICompatModel, sleep: FakeSleep
) -> None:
    openai_fake.fail("drop_connection").reply("second try")

    response = model.complete(ask())

    assert response.content == "second try"
    assert len(openai_fake.bodies) == 2
    assert sleep.delays == pytest.approx([0.2])


def test_an_unreachable_server_is_unavailable(sleep: FakeSleep) -> None:
    adapter = OpenAICompatModel(closed_port_url(), "m", sleep=sleep, max_retries=1)

    with pytest.raises(ModelUnavailable):
        adapter.complete(ask())

    assert len(sleep.delays) == 1


# --- not retried ------------------------------------------------------------------------------


def test_a_rejected_request_is_not_retried_and_its_text_does_not_leak(
    openai_fake: OpenAIFake, model: OpenAICompatModel, sleep: FakeSleep
) -> None:
    openai_fake.fail("http_400").reply("never sent")

    with pytest.raises(ModelRejected) as raised:
        model.complete(ask())

    assert type(raised.value) is ModelRejected
    assert raised.value.outcome == "rejected"
    assert len(openai_fake.bodies) == 1
    assert sleep.delays == []
    assert_not_leaked(raised.value)


# --- logs: never the model's output, never the server's text -----------------------------------

OUTPUT = "ZEBRA-7731-what-the-model-wrote"


def _error(message: str, code: str | None = None) -> bytes:
    error = {"message": message, "type": "invalid_request_error", "code": code}
    return json.dumps({"error": error}).encode()


LOGGED_PATHS: dict[str, tuple[list[Step], type[Exception] | None]] = {
    "reply": ([Reply(content=f"Anggaran pendidikan {OUTPUT}.")], None),
    "cut_at_length": ([Reply(content=OUTPUT, finish_reason="length")], None),
    "tool_call": ([Reply(tool_calls=({"name": "search", "arguments": {"query": OUTPUT}},))], None),
    "tool_call_not_json": (
        [Reply(tool_calls=({"name": "search", "arguments": '{"query": "' + OUTPUT},))],
        None,
    ),
    "not_a_completion": ([Raw(200, json.dumps({"output": OUTPUT}).encode())], ModelUnavailable),
    "truncated_json": (
        [Raw(200, ('{"choices": [{"message": {"content": "' + OUTPUT).encode())],
        ModelUnavailable,
    ),
    "server_error": ([Raw(500, _error(f"generation failed: {OUTPUT}"))] * 4, ModelUnavailable),
    "rate_limited": ([Raw(429, _error(f"slow down ({OUTPUT})"))] * 4, ModelUnavailable),
    "rejected": ([Raw(400, _error(f"invalid tool call in output: {OUTPUT}"))], ModelRejected),
    "context_length": (
        [Raw(400, _error(f"maximum context length exceeded: {OUTPUT}", "context_length_exceeded"))],
        ModelContextExceeded,
    ),
    "dropped_connection": ([Failure("drop_connection")] * 4, ModelUnavailable),
    "timeout": ([Reply(content=OUTPUT, delay_s=2.0)], ModelTimeout),
}


@pytest.mark.parametrize("path", sorted(LOGGED_PATHS))
def test_no_log_record_ever_holds_what_the_model_or_server_wrote(
    openai_fake: OpenAIFake,
    model: OpenAICompatModel,
    caplog: pytest.LogCaptureFixture,
    path: str,
) -> None:
    # Given a server whose reply (or error body) carries a distinctive model output,
    steps, raised = LOGGED_PATHS[path]
    for step in steps:
        openai_fake.then(step)

    # when the adapter calls it with every logger at DEBUG ("tanda" too: observability's logger
    # sets it to INFO),
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="tanda"):
        if raised is None:
            model.complete(ask(tools=[SEARCH], timeout_s=5))
        else:
            with pytest.raises(raised):
                model.complete(ask(tools=[SEARCH], timeout_s=0.5 if path == "timeout" else 5))

    # then no log record holds it: not its message, its arguments, nor an exception's text
    # (where the adapter logged at all: on every failure and on unusable arguments).
    ours = [r for r in caplog.records if r.name == "tanda.adapters.openai_compat"]
    assert bool(ours) is (raised is not None or path == "tool_call_not_json"), ours
    for record in caplog.records:
        assert OUTPUT not in record.getMessage(), record.name
        assert OUTPUT not in (record.exc_text or ""), record.name
    assert OUTPUT not in caplog.text


def test_an_error_body_logs_only_its_machine_code() -> None:
    assert error_code(_error(f"context too long: {OUTPUT}", "context_length_exceeded")) == (
        "context_length_exceeded"
    )
    assert error_code(_error(OUTPUT + " " * 3)) == "invalid_request_error"  # the type
    assert error_code(b'{"error": {"code": "has spaces and text"}}') == "-"
    assert error_code(b"<html>502 Bad Gateway</html>") == "-"


def test_a_prompt_over_the_context_window_is_context_exceeded(
    openai_fake: OpenAIFake, model: OpenAICompatModel
) -> None:
    openai_fake.fail("context_length")

    with pytest.raises(ModelContextExceeded) as raised:
        model.complete(ask())

    assert raised.value.outcome == "context_exceeded"
    assert len(openai_fake.bodies) == 1
    assert_not_leaked(raised.value)


@pytest.mark.parametrize("kind", ["malformed_json", "missing_choices"])
def test_a_reply_that_is_not_a_chat_completion_is_unavailable(
    openai_fake: OpenAIFake, model: OpenAICompatModel, kind: str
) -> None:
    openai_fake.fail(kind)  # type: ignore[arg-type]

    with pytest.raises(ModelUnavailable) as raised:
        model.complete(ask())

    assert raised.value.outcome == "unavailable"
    assert len(openai_fake.bodies) == 1


# --- time budget ------------------------------------------------------------------------------


class TimedAttempts(httpx.BaseTransport):
    """The real transport, timing the adapter on a manual clock: an attempt that times out moves
    the clock by exactly the time it was given, one that is answered by nothing. What the adapter
    spends is then exact, whatever the machine's load (tests never assert on wall time)."""

    def __init__(self, clock: ManualClock) -> None:
        self.inner = httpx.HTTPTransport()
        self.clock = clock
        self.given_s: list[float] = []
        """Each attempt's read timeout."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        given: float = request.extensions["timeout"]["read"]
        self.given_s.append(given)
        try:
            return self.inner.handle_request(request)
        except httpx.TimeoutException:
            self.clock.advance(given)
            raise

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
def attempts() -> TimedAttempts:
    return TimedAttempts(ManualClock())


@pytest.fixture
def timed_client(attempts: TimedAttempts) -> Iterator[httpx.Client]:
    with httpx.Client(transport=attempts) as client:
        yield client


def timed(base_url: str, client: httpx.Client, clock: ManualClock, **options: Any) -> Any:
    """The adapter over ``client``, its clock and backoff sleeps on ``clock``."""
    return OpenAICompatModel(
        base_url, "m", client=client, clock=clock, sleep=clock.advance, rng=lambda: 1.0, **options
    )


def test_a_slow_server_times_out_within_the_budget(
    openai_fake: OpenAIFake, attempts: TimedAttempts, timed_client: httpx.Client
) -> None:
    # Given a server that answers only after 5 s, every time
    openai_fake.default = Reply(content="late", delay_s=5)
    adapter = timed(openai_fake.base_url, timed_client, attempts.clock)
    start = attempts.clock()

    with pytest.raises(ModelTimeout) as raised:
        adapter.complete(ask(timeout_s=0.5))

    # then the one attempt had the whole budget and no retry ran past it
    assert raised.value.outcome == "timeout"
    assert attempts.given_s == [0.5]
    assert attempts.clock() - start == pytest.approx(0.5)
    assert len(openai_fake.bodies) == 1


def test_capped_attempts_retry_a_hung_call_but_never_past_the_budget(
    openai_fake: OpenAIFake, attempts: TimedAttempts, timed_client: httpx.Client
) -> None:
    # Given a hung server, attempts capped at 0.2 s and backoffs of 10, 20, 40 ms in a 0.7 s budget
    openai_fake.default = Reply(content="late", delay_s=5)
    adapter = timed(
        openai_fake.base_url,
        timed_client,
        attempts.clock,
        attempt_timeout_s=0.2,
        backoff_s=0.01,
        max_retries=10,
    )
    start = attempts.clock()

    with pytest.raises(ModelTimeout):
        adapter.complete(ask(timeout_s=0.7))

    # then the hung call is retried, the last attempt gets only what is left, and the call ends
    # at its budget: 0.2 + 0.01 + 0.2 + 0.02 + 0.2 + 0.04 + 0.03 s (the next backoff would pass it)
    assert attempts.given_s == pytest.approx([0.2, 0.2, 0.2, 0.03])
    assert attempts.clock() - start == pytest.approx(0.7)


def test_a_timed_out_attempt_is_retried(openai_fake: OpenAIFake, sleep: FakeSleep) -> None:
    openai_fake.slow(3).reply("fast enough")
    adapter = OpenAICompatModel(openai_fake.base_url, "m", sleep=sleep, attempt_timeout_s=0.3)

    response = adapter.complete(ask(timeout_s=2.0))

    assert response.content == "fast enough"
    assert len(openai_fake.bodies) == 2
    assert len(sleep.delays) == 1


# --- wiring -----------------------------------------------------------------------------------


def test_from_spec_reads_url_model_and_key(
    openai_fake: OpenAIFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TANDA_MODEL_API_KEY", "env-key")
    adapter = from_spec(f"openai:{openai_fake.base_url}/v1#qwen2.5-7b")

    adapter.complete(ask())

    assert adapter.name == "openai:qwen2.5-7b"
    assert openai_fake.requests[0].path == "/v1/chat/completions"
    assert openai_fake.requests[0].headers["authorization"] == "Bearer env-key"
    assert openai_fake.bodies[0]["model"] == "qwen2.5-7b"


def test_from_spec_without_a_model_or_key(
    openai_fake: OpenAIFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TANDA_MODEL_API_KEY", raising=False)
    adapter = from_spec(f"openai:{openai_fake.base_url}")

    adapter.complete(ask())

    assert openai_fake.bodies[0]["model"] == "default"
    assert "authorization" not in openai_fake.requests[0].headers


def test_an_injected_client_is_used_and_left_open(openai_fake: OpenAIFake) -> None:
    with httpx.Client() as client:
        adapter = OpenAICompatModel(openai_fake.base_url, "m", client=client)
        adapter.complete(ask())
        adapter.close()
        assert not client.is_closed


def closed_port_url() -> str:
    """A loopback URL where nothing listens (a port bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
