"""``ChatModel`` over Amazon Bedrock's Converse API (DESIGN §5).

boto3 is an optional dependency (the ``aws`` extra): it is imported only when a client is built or
an error is mapped, never at import. The Converse request is built and the reply parsed by pure
functions (:func:`converse_request`, :func:`parse_converse_response`).

Structured output uses Converse's forced-tool idiom: the JSON schema becomes the input schema of
one extra tool the model is made to call, and that call's input is returned as the reply's content
(JSON text), so stages parse it exactly as they parse an OpenAI ``json_schema`` reply. Forcing a
tool (``toolChoice``) is supported by the Anthropic Claude, Mistral Large and Amazon Nova models.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import Any, Literal

from tanda.model_calls import (
    ChatMessage,
    ChatRequest,
    ChatResponse,
    ModelContextExceeded,
    ModelError,
    ModelRejected,
    ModelTimeout,
    ModelUnavailable,
    ToolCall,
    tools_named_from_wire,
    wire_tool_name,
)

log = logging.getLogger(__name__)

DEFAULT_MAX_ATTEMPTS = 3
CONNECT_TIMEOUT_S = 5.0
OUTPUT_TOOL_DESCRIPTION = "Give the final answer. Its input is the whole output."

FinishReason = Literal["stop", "tool_calls", "length", "other"]

_UNAVAILABLE_CODES = frozenset(
    {
        "ThrottlingException",
        "ServiceUnavailableException",
        "ModelNotReadyException",
        "InternalServerException",
        "ModelErrorException",
        "ServiceQuotaExceededException",
    }
)
_CONTEXT_EXCEEDED = re.compile(r"too long|context|too many (input )?tokens", re.IGNORECASE)
_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}
_TOOL_NAME = re.compile(r"[^a-zA-Z0-9_-]")


class BedrockModel:
    """One Bedrock model (``modelId`` or inference profile id/ARN).

    Retries are botocore's own (``mode="adaptive"``, ``max_attempts``), with the read timeout set
    from ``request.timeout_s``. Without an injected ``client``, one client is built and cached per
    distinct timeout, because botocore fixes timeouts per client. An injected client (tests, or a
    caller that wants its own session) is used for every call as it is.
    """

    def __init__(
        self,
        model_id: str,
        *,
        client: Any = None,
        region: str | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    ) -> None:
        if not model_id:
            raise ValueError("model_id must not be empty")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.name = f"bedrock:{model_id}"
        self.model_id = model_id
        self._client = client
        self._region = region
        self._max_attempts = max_attempts
        self._clients: dict[float, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec: str, **kwargs: Any) -> BedrockModel:
        """``bedrock:MODEL_ID`` → a model (region from the usual AWS environment)."""
        if not spec.startswith("bedrock:") or not spec.removeprefix("bedrock:"):
            raise ValueError("a bedrock model spec is 'bedrock:MODEL_ID'")
        return cls(spec.removeprefix("bedrock:"), **kwargs)

    def complete(self, request: ChatRequest) -> ChatResponse:
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            ConnectTimeoutError,
            ParamValidationError,
            ReadTimeoutError,
        )

        params = converse_request(self.model_id, request)
        try:
            reply = self._client_for(request.timeout_s).converse(**params)
        except ClientError as exc:
            raise _client_error(self.name, exc) from None
        except ReadTimeoutError as exc:
            log.debug("bedrock read timeout: %r", exc)
            raise ModelTimeout(f"{self.name}: timed out") from None
        except ConnectTimeoutError as exc:
            log.debug("bedrock connect timeout: %r", exc)
            raise ModelUnavailable(f"{self.name}: endpoint unreachable") from None
        except ParamValidationError:
            # Its message quotes the offending value, which may be conversation text.
            log.debug("bedrock parameter validation failed")
            raise ModelRejected(f"{self.name}: request rejected (invalid parameters)") from None
        except BotoCoreError as exc:  # connection errors, missing credentials…
            log.debug("bedrock client error: %s", type(exc).__name__)
            raise ModelUnavailable(f"{self.name}: call failed ({type(exc).__name__})") from None
        try:
            parsed = parse_converse_response(reply, output_tool=_output_tool_name(request))
            return tools_named_from_wire(parsed, request.tools)
        except (KeyError, TypeError, ValueError) as exc:
            log.debug("bedrock reply unusable: %s", type(exc).__name__)
            raise ModelUnavailable(f"{self.name}: reply is not a Converse response") from None

    def _client_for(self, timeout_s: float) -> Any:
        if self._client is not None:
            return self._client
        with self._lock:
            client = self._clients.get(timeout_s)
            if client is None:
                from tanda.adapters.aws_sdk import client as sdk_client

                client = sdk_client(
                    "bedrock-runtime",
                    region_name=self._region,
                    config=client_config(timeout_s, self._max_attempts),
                )
                self._clients[timeout_s] = client
            return client


def client_config(timeout_s: float, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> Any:
    """The botocore ``Config`` for calls with a ``timeout_s`` budget per attempt."""
    from botocore.config import Config

    return Config(
        read_timeout=timeout_s,
        connect_timeout=min(timeout_s, CONNECT_TIMEOUT_S),
        retries={"max_attempts": max_attempts, "mode": "adaptive"},
    )


def _client_error(name: str, exc: Any) -> ModelError:
    error = exc.response.get("Error", {})
    code = str(error.get("Code", ""))
    message = str(error.get("Message", ""))
    # The code only: a service message may quote the prompt or what the model wrote.
    log.debug("bedrock error %s", code)
    if code in _UNAVAILABLE_CODES:
        return ModelUnavailable(f"{name}: unavailable ({code})")
    if code == "ModelTimeoutException":
        return ModelTimeout(f"{name}: the model timed out")
    if code == "ValidationException" and _CONTEXT_EXCEEDED.search(message):
        return ModelContextExceeded(f"{name}: prompt exceeds the context window")
    if code:
        return ModelRejected(f"{name}: request rejected ({code})")
    return ModelUnavailable(f"{name}: call failed")


# --- wire format (pure) ------------------------------------------------------------------------


def _output_tool_name(request: ChatRequest) -> str | None:
    if request.json_schema is None:
        return None
    return _TOOL_NAME.sub("_", request.schema_name or "output")[:64] or "output"


def converse_request(model_id: str, request: ChatRequest) -> dict[str, Any]:
    """The ``converse(**params)`` keyword arguments for ``request`` (``items``/``scenario``
    ignored). Consecutive messages of one role are merged: Converse wants user and assistant
    turns to alternate, and several tool results answer one assistant turn together."""
    params: dict[str, Any] = {"modelId": model_id, "messages": _messages(request.messages)}
    system = [{"text": m.content} for m in request.messages if m.role == "system" and m.content]
    if system:
        params["system"] = system
    inference: dict[str, Any] = {"temperature": request.temperature}
    if request.max_tokens is not None:
        inference["maxTokens"] = request.max_tokens
    params["inferenceConfig"] = inference
    tools = [
        _tool_spec(wire_tool_name(tool.name), tool.description, tool.parameters)
        for tool in request.tools or []
    ]
    # A forced tool round: one of the real tools must be called, so the output tool is left out.
    forced = bool(request.tools) and request.tool_choice == "required"
    output_tool = _output_tool_name(request)
    if output_tool is not None and request.json_schema is not None and not forced:
        tools.append(_tool_spec(output_tool, OUTPUT_TOOL_DESCRIPTION, request.json_schema))
    if tools:
        tool_config: dict[str, Any] = {"tools": tools}
        if forced:
            tool_config["toolChoice"] = {"any": {}}
        elif output_tool is not None:
            # Only the output tool: it must be called. With real tools too: some tool must be
            # called, so the model either acts or answers in the schema, never in free text.
            tool_config["toolChoice"] = (
                {"any": {}} if request.tools else {"tool": {"name": output_tool}}
            )
        params["toolConfig"] = tool_config
    return params


def _tool_spec(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"toolSpec": {"name": name, "description": description, "inputSchema": {"json": schema}}}


def _messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _blocks(message: ChatMessage) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "toolResult": {
                    "toolUseId": message.tool_call_id or "",
                    # Converse refuses blank text blocks.
                    "content": [{"text": message.content or "(no output)"}],
                }
            }
        ]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"text": message.content})
    for call in message.tool_calls:
        blocks.append(
            {
                "toolUse": {
                    "toolUseId": call.id,
                    "name": wire_tool_name(call.name),
                    "input": call.arguments,
                }
            }
        )
    return blocks


def parse_converse_response(reply: dict[str, Any], *, output_tool: str | None) -> ChatResponse:
    """A ``converse`` reply → ``ChatResponse``; a call of ``output_tool`` becomes the content
    (its input as JSON text). Raises ``KeyError``/``TypeError`` when the reply has no message."""
    blocks = reply["output"]["message"]["content"]
    if not isinstance(blocks, list):
        raise TypeError("message content is not a list")
    texts: list[str] = []
    calls: list[ToolCall] = []
    structured: str | None = None
    for block in blocks:
        if "text" in block:
            texts.append(block["text"])
        elif "toolUse" in block:
            use = block["toolUse"]
            arguments = use.get("input")
            if not isinstance(arguments, dict):
                arguments = {}
            if output_tool is not None and use["name"] == output_tool:
                structured = json.dumps(arguments, ensure_ascii=False)
            else:
                calls.append(ToolCall(id=use["toolUseId"], name=use["name"], arguments=arguments))
    usage = reply.get("usage") or {}
    finish = _STOP_REASONS.get(str(reply.get("stopReason")), "other")
    if structured is not None and not calls and finish == "tool_calls":
        finish = "stop"  # the forced output call is the answer, not a request to run a tool
    return ChatResponse(
        content=structured if structured is not None else ("".join(texts) if texts else None),
        tool_calls=calls,
        finish_reason=finish,
        input_tokens=usage.get("inputTokens"),
        output_tokens=usage.get("outputTokens"),
    )


__all__ = [
    "BedrockModel",
    "client_config",
    "converse_request",
    "parse_converse_response",
]
