"""The bedrock adapter against a real botocore client whose Converse replies are stubbed."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError
from botocore.stub import Stubber

from tanda.adapters.bedrock import BedrockModel, client_config, converse_request
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

MODEL_ID = "anthropic.claude-3-5-haiku-20241022-v1:0"
SECRET = "arn:aws:iam::123456789012:role/secret-internal-role"
SEARCH = ToolSpec(
    name="search",
    description="Search the corpus.",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}},
)
VERDICTS = {
    "type": "object",
    "properties": {"verdicts": {"type": "array", "items": {"type": "object"}}},
    "required": ["verdicts"],
}


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    return boto3.client("bedrock-runtime", region_name="us-east-1")


@pytest.fixture
def stubber(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stub:
        yield stub
        stub.assert_no_pending_responses()


@pytest.fixture
def model(client: Any) -> BedrockModel:
    return BedrockModel(MODEL_ID, client=client)


def converse_reply(
    *blocks: dict[str, Any], stop: str = "end_turn", tokens: tuple[int, int] = (40, 9)
) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": list(blocks)}},
        "stopReason": stop,
        "usage": {
            "inputTokens": tokens[0],
            "outputTokens": tokens[1],
            "totalTokens": sum(tokens),
        },
        "metrics": {"latencyMs": 120},
    }


def ask(**kwargs: Any) -> ChatRequest:
    return ChatRequest.model_validate(
        {
            "role": ModelRole.judge,
            "messages": [
                ChatMessage(role="system", content="Judge each segment."),
                ChatMessage(role="user", content="S1: the budget is Rp871,67 miliar."),
            ],
            **kwargs,
        }
    )


# --- success ----------------------------------------------------------------------------------


def test_a_text_reply_returns_content_usage_and_stop(stubber: Stubber, model: BedrockModel) -> None:
    stubber.add_response(
        "converse",
        converse_reply({"text": "Supported."}),
        {
            "modelId": MODEL_ID,
            "system": [{"text": "Judge each segment."}],
            "messages": [
                {"role": "user", "content": [{"text": "S1: the budget is Rp871,67 miliar."}]}
            ],
            "inferenceConfig": {"temperature": 0.2, "maxTokens": 256},
        },
    )

    response = model.complete(ask(temperature=0.2, max_tokens=256))

    assert response.content == "Supported."
    assert response.finish_reason == "stop"
    assert (response.input_tokens, response.output_tokens) == (40, 9)
    assert model.name == f"bedrock:{MODEL_ID}"


def test_tool_calls_and_results_round_trip_as_tool_use_blocks(
    stubber: Stubber, model: BedrockModel
) -> None:
    # Given the model asks for two searches, then sees both results in one user turn
    stubber.add_response(
        "converse",
        converse_reply(
            {"text": "Searching."},
            {"toolUse": {"toolUseId": "t1", "name": "search", "input": {"query": "APBN"}}},
            {"toolUse": {"toolUseId": "t2", "name": "search", "input": {"query": "RAPBN"}}},
            stop="tool_use",
        ),
    )
    first = model.complete(ask(tools=[SEARCH]))
    history = [
        *ask().messages,
        ChatMessage(role="assistant", content="Searching.", tool_calls=first.tool_calls),
        ChatMessage(role="tool", tool_call_id="t1", content="[P1] APBN"),
        ChatMessage(role="tool", tool_call_id="t2", content=""),
    ]
    stubber.add_response(
        "converse",
        converse_reply({"text": "Done."}),
        {
            "modelId": MODEL_ID,
            "system": [{"text": "Judge each segment."}],
            "messages": [
                {"role": "user", "content": [{"text": "S1: the budget is Rp871,67 miliar."}]},
                {
                    "role": "assistant",
                    "content": [
                        {"text": "Searching."},
                        {
                            "toolUse": {
                                "toolUseId": "t1",
                                "name": "search",
                                "input": {"query": "APBN"},
                            }
                        },
                        {
                            "toolUse": {
                                "toolUseId": "t2",
                                "name": "search",
                                "input": {"query": "RAPBN"},
                            }
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "toolResult": {
                                "toolUseId": "t1",
                                "content": [{"text": "[P1] APBN"}],
                            }
                        },
                        {"toolResult": {"toolUseId": "t2", "content": [{"text": "(no output)"}]}},
                    ],
                },
            ],
            "inferenceConfig": {"temperature": 0.0},
            "toolConfig": {
                "tools": [
                    {
                        "toolSpec": {
                            "name": "search",
                            "description": "Search the corpus.",
                            "inputSchema": {"json": SEARCH.parameters},
                        }
                    }
                ]
            },
        },
    )

    second = model.complete(ChatRequest(role=ModelRole.agent, messages=history, tools=[SEARCH]))

    assert first.tool_calls == [
        ToolCall(id="t1", name="search", arguments={"query": "APBN"}),
        ToolCall(id="t2", name="search", arguments={"query": "RAPBN"}),
    ]
    assert first.finish_reason == "tool_calls"
    assert first.content == "Searching."
    assert second.content == "Done."


def test_structured_output_is_a_forced_tool_whose_input_is_the_content(
    stubber: Stubber, model: BedrockModel
) -> None:
    verdicts = {"verdicts": [{"id": "S1", "verdict": "supported"}]}
    stubber.add_response(
        "converse",
        converse_reply(
            {"toolUse": {"toolUseId": "o1", "name": "judge_output", "input": verdicts}},
            stop="tool_use",
        ),
        {
            "modelId": MODEL_ID,
            "system": [{"text": "Judge each segment."}],
            "messages": [
                {"role": "user", "content": [{"text": "S1: the budget is Rp871,67 miliar."}]}
            ],
            "inferenceConfig": {"temperature": 0.0},
            "toolConfig": {
                "tools": [
                    {
                        "toolSpec": {
                            "name": "judge_output",
                            "description": "Give the final answer. Its input is the whole output.",
                            "inputSchema": {"json": VERDICTS},
                        }
                    }
                ],
                "toolChoice": {"tool": {"name": "judge_output"}},
            },
        },
    )

    response = model.complete(ask(json_schema=VERDICTS, schema_name="judge_output"))

    assert json.loads(response.content or "") == verdicts
    assert response.tool_calls == []
    assert response.finish_reason == "stop"


def test_structured_output_beside_tools_lets_the_model_pick_any_tool() -> None:
    params = converse_request(MODEL_ID, ask(tools=[SEARCH], json_schema=VERDICTS))

    names = [tool["toolSpec"]["name"] for tool in params["toolConfig"]["tools"]]
    assert names == ["search", "output"]
    assert params["toolConfig"]["toolChoice"] == {"any": {}}


def test_a_forced_tool_round_offers_only_the_real_tools_and_requires_one() -> None:
    # V2-17: the forced round may not answer through the output tool.
    params = converse_request(
        MODEL_ID, ask(tools=[SEARCH], json_schema=VERDICTS, tool_choice="required")
    )

    names = [tool["toolSpec"]["name"] for tool in params["toolConfig"]["tools"]]
    assert names == ["search"]
    assert params["toolConfig"]["toolChoice"] == {"any": {}}


def test_a_forced_tool_round_without_a_schema_requires_a_tool() -> None:
    params = converse_request(MODEL_ID, ask(tools=[SEARCH], tool_choice="required"))
    assert params["toolConfig"]["toolChoice"] == {"any": {}}
    assert "toolChoice" not in converse_request(MODEL_ID, ask(tools=[SEARCH]))["toolConfig"]


def test_a_truncated_reply_finishes_with_length(stubber: Stubber, model: BedrockModel) -> None:
    stubber.add_response("converse", converse_reply({"text": "The budg"}, stop="max_tokens"))

    assert model.complete(ask()).finish_reason == "length"


def test_the_client_config_is_adaptive_with_the_call_timeout() -> None:
    config = client_config(12.5, max_attempts=4)

    assert config.read_timeout == 12.5
    assert config.connect_timeout == 5.0
    assert config.retries == {"max_attempts": 4, "mode": "adaptive"}


def test_from_spec_reads_the_model_id(client: Any) -> None:
    model = BedrockModel.from_spec(f"bedrock:{MODEL_ID}", client=client)

    assert model.model_id == MODEL_ID


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "ThrottlingException",
        "ServiceUnavailableException",
        "ModelNotReadyException",
        "InternalServerException",
    ],
)
def test_service_failures_are_unavailable(stubber: Stubber, model: BedrockModel, code: str) -> None:
    stubber.add_client_error("converse", code, f"failure at {SECRET}", http_status_code=503)

    with pytest.raises(ModelUnavailable) as raised:
        model.complete(ask())

    assert raised.value.outcome == "unavailable"
    assert SECRET not in str(raised.value)
    assert raised.value.__cause__ is None


@pytest.mark.parametrize(
    "message",
    [
        "Input is too long for requested model.",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "The input exceeds the model's context window.",
    ],
)
def test_a_prompt_over_the_context_window_is_context_exceeded(
    stubber: Stubber, model: BedrockModel, message: str
) -> None:
    stubber.add_client_error("converse", "ValidationException", message, http_status_code=400)

    with pytest.raises(ModelContextExceeded) as raised:
        model.complete(ask())

    assert raised.value.outcome == "context_exceeded"


@pytest.mark.parametrize(
    ("code", "status"),
    [("ValidationException", 400), ("AccessDeniedException", 403)],
)
def test_refused_requests_are_rejected_without_the_service_text(
    stubber: Stubber, model: BedrockModel, code: str, status: int
) -> None:
    stubber.add_client_error("converse", code, f"denied for {SECRET}", http_status_code=status)

    with pytest.raises(ModelRejected) as raised:
        model.complete(ask())

    assert type(raised.value) is ModelRejected
    assert SECRET not in str(raised.value)
    assert raised.value.__cause__ is None


def test_a_model_timeout_from_the_service_is_a_timeout(
    stubber: Stubber, model: BedrockModel
) -> None:
    stubber.add_client_error("converse", "ModelTimeoutException", "slow", http_status_code=408)

    with pytest.raises(ModelTimeout):
        model.complete(ask())


def test_a_read_timeout_is_a_timeout(client: Any, model: BedrockModel) -> None:
    def time_out(**_: Any) -> None:
        raise ReadTimeoutError(endpoint_url="https://bedrock-runtime.us-east-1.amazonaws.com")

    client.meta.events.register("before-send.bedrock-runtime.Converse", time_out)

    with pytest.raises(ModelTimeout) as raised:
        model.complete(ask())

    assert raised.value.outcome == "timeout"


def test_an_unreachable_endpoint_is_unavailable(client: Any) -> None:
    # botocore retries connection errors: one attempt keeps the test instant
    single = boto3.client("bedrock-runtime", config=client_config(5.0, max_attempts=1))

    def unreachable(**_: Any) -> None:
        raise EndpointConnectionError(
            endpoint_url="https://bedrock-runtime.us-east-1.amazonaws.com"
        )

    single.meta.events.register("before-send.bedrock-runtime.Converse", unreachable)
    model = BedrockModel(MODEL_ID, client=single)

    with pytest.raises(ModelUnavailable):
        model.complete(ask())


def test_an_invalid_parameter_is_rejected(model: BedrockModel) -> None:
    # maxTokens must be at least 1: botocore refuses the call before sending it
    with pytest.raises(ModelRejected):
        model.complete(ask(max_tokens=0))


# --- logs: never the model's output, never the service's text ---------------------------------

OUTPUT = "ZEBRA-7731-what-the-model-wrote"


class ReplyingClient:
    """A client whose ``converse`` returns ``reply`` as is (shapes Stubber would refuse)."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply

    def converse(self, **_: Any) -> dict[str, Any]:
        return self.reply


class RaisingClient:
    """A client whose ``converse`` raises ``error`` (what botocore raises before any request)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def converse(self, **_: Any) -> dict[str, Any]:
        raise self.error


def _paths(stubber: Stubber) -> dict[str, tuple[Any, type[Exception] | None]]:
    """Each path: how to set it up on the stubbed client (or another client to use instead),
    and what it raises."""
    from botocore.exceptions import HTTPClientError, ParamValidationError

    return {
        "reply": (lambda: stubber.add_response("converse", converse_reply({"text": OUTPUT})), None),
        "cut_at_length": (
            lambda: stubber.add_response(
                "converse", converse_reply({"text": OUTPUT}, stop="max_tokens")
            ),
            None,
        ),
        "tool_use": (
            lambda: stubber.add_response(
                "converse",
                converse_reply(
                    {"toolUse": {"toolUseId": "t1", "name": "search", "input": {"q": OUTPUT}}},
                    stop="tool_use",
                ),
            ),
            None,
        ),
        "model_error": (
            lambda: stubber.add_client_error(
                "converse", "ModelErrorException", f"the model failed after: {OUTPUT}", 424
            ),
            ModelUnavailable,
        ),
        "validation": (
            lambda: stubber.add_client_error(
                "converse", "ValidationException", f"invalid tool input {OUTPUT}", 400
            ),
            ModelRejected,
        ),
        "context": (
            lambda: stubber.add_client_error(
                "converse", "ValidationException", f"Input is too long: {OUTPUT}", 400
            ),
            ModelContextExceeded,
        ),
        "parameters": (
            RaisingClient(ParamValidationError(report=f"value: {OUTPUT}")),
            ModelRejected,
        ),
        "client_error": (
            RaisingClient(HTTPClientError(error=OUTPUT)),
            ModelUnavailable,
        ),
    }


PATHS = [
    "reply",
    "cut_at_length",
    "tool_use",
    "model_error",
    "validation",
    "context",
    "parameters",
    "client_error",
]


@pytest.mark.parametrize("path", PATHS)
def test_no_log_record_ever_holds_what_the_model_or_service_wrote(
    client: Any, stubber: Stubber, caplog: pytest.LogCaptureFixture, path: str
) -> None:
    # Given a reply or a service error that carries a distinctive model output,
    arrange, raised = _paths(stubber)[path]
    if isinstance(arrange, RaisingClient):
        client = arrange
    else:
        arrange()
    model = BedrockModel(MODEL_ID, client=client)

    # when the adapter calls it with every logger at DEBUG ("tanda" too: observability's logger
    # sets it to INFO),
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="tanda"):
        if raised is None:
            model.complete(ask(tools=[SEARCH]))
        else:
            with pytest.raises(raised):
                model.complete(ask(tools=[SEARCH]))

    # then no log record holds it (the adapter logs every failure, nothing on success).
    ours = [r for r in caplog.records if r.name == "tanda.adapters.bedrock"]
    assert bool(ours) is (raised is not None), ours
    for record in caplog.records:
        assert OUTPUT not in record.getMessage(), record.name
        assert OUTPUT not in (record.exc_text or ""), record.name
    assert OUTPUT not in caplog.text


@pytest.mark.parametrize(
    "reply",
    [{"output": {"message": {"content": OUTPUT}}}, {"unexpected": OUTPUT}],
    ids=["content_not_a_list", "no_message"],
)
def test_an_unusable_reply_is_not_logged(
    caplog: pytest.LogCaptureFixture, reply: dict[str, Any]
) -> None:
    model = BedrockModel(MODEL_ID, client=ReplyingClient(reply))
    with (
        caplog.at_level(logging.DEBUG, logger="tanda"),
        pytest.raises(ModelUnavailable),
    ):
        model.complete(ask())
    assert [r.name for r in caplog.records] == ["tanda.adapters.bedrock"]
    assert OUTPUT not in caplog.text
