"""``ChatModel`` over any OpenAI-compatible ``/chat/completions`` endpoint (DESIGN §5).

Works with OpenAI itself and with the usual local servers (vLLM, llama.cpp, Ollama, LiteLLM). The
request body is built and the reply parsed by pure functions (:func:`chat_completions_body`,
:func:`parse_chat_completion`); :class:`OpenAICompatModel` adds the HTTP call, the retry policy and
the error mapping. No text the server sends — a reply (model output), a malformed reply, an error
body, tool-call arguments — is ever logged or put in a raised exception: it can hold the model's
output, prompts, keys or internals. Logs carry statuses, the error body's machine code, outcome
names and sizes only (docs/models.md).
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import time
from collections.abc import Callable
from typing import Any, Literal

import httpx

from tanda.adapters.http_retry import Retry, RetryPolicy, retry_after_s
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

API_KEY_ENV = "TANDA_MODEL_API_KEY"
DEFAULT_MODEL = "default"
MAX_BACKOFF_S = 8.0
CONNECT_TIMEOUT_S = 5.0

FinishReason = Literal["stop", "tool_calls", "length", "other"]

_CONTEXT_EXCEEDED = re.compile(
    r"context[ _]length|maximum context|context (size|window)|too many tokens|prompt is too long",
    re.IGNORECASE,
)
_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
}


class OpenAICompatModel:
    """One model behind an OpenAI-compatible endpoint.

    Retries 5xx, 429, timeouts and dropped connections under the one retry policy of the HTTP
    adapters (:mod:`tanda.adapters.http_retry`: backoff with full jitter up to ``MAX_BACKOFF_S``,
    or after ``Retry-After`` when the server sends one that fits the remaining budget).
    ``request.timeout_s`` bounds the whole call, sleeps included: no attempt or sleep runs past
    it. Each attempt may use all that is left, unless
    ``attempt_timeout_s`` caps it (then a hung attempt leaves time for another); connecting is
    capped at ``CONNECT_TIMEOUT_S`` so an unreachable server is retried rather than waited on.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        client: httpx.Client | None = None,
        max_retries: int = 3,
        backoff_s: float = 0.2,
        sleep: Callable[[float], None] = time.sleep,
        rng: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.monotonic,
        attempt_timeout_s: float | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL")
        if not model:
            raise ValueError("model must not be empty")
        if max_retries < 0 or backoff_s < 0:
            raise ValueError("max_retries and backoff_s must not be negative")
        if attempt_timeout_s is not None and attempt_timeout_s <= 0:
            raise ValueError("attempt_timeout_s must be positive")
        self.name = f"openai:{model}"
        self.model = model
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client()
        self._owns_client = client is None
        self._retry = RetryPolicy(
            max_attempts=max_retries + 1,
            backoff_s=backoff_s,
            max_backoff_s=MAX_BACKOFF_S,
            sleep=sleep,
            jitter=rng,
            clock=clock,
        )
        self._clock = clock
        self._attempt_timeout_s = attempt_timeout_s

    @classmethod
    def from_spec(
        cls, spec: str, *, api_key: str | None = None, **kwargs: Any
    ) -> OpenAICompatModel:
        """``openai:BASE_URL[#MODEL]`` → a model; the key defaults to ``$TANDA_MODEL_API_KEY``."""
        return from_spec(spec, api_key=api_key, **kwargs)

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def complete(self, request: ChatRequest) -> ChatResponse:
        body = chat_completions_body(self.model, request)

        def attempt(remaining: float | None) -> ChatResponse | Retry:
            assert remaining is not None  # the policy runs to the request's deadline
            if remaining <= 0:
                raise ModelTimeout(f"{self.name}: no time left for another attempt")
            if self._attempt_timeout_s is not None:
                remaining = min(remaining, self._attempt_timeout_s)
            result, retry_after = self._attempt(body, remaining)
            if isinstance(result, ChatResponse):
                return tools_named_from_wire(result, request.tools)
            return Retry(result, retry_after)

        def logged(made: int, retry: Retry) -> None:
            outcome = getattr(retry.cause, "outcome", None)
            log.info(
                "model call retry", extra={"model": self.name, "attempt": made, "outcome": outcome}
            )

        # A retry whose wait would end past the caller's deadline is not made: the last cause
        # is the answer.
        result = self._retry.run(
            attempt, deadline=self._clock() + request.timeout_s, on_retry=logged
        )
        if isinstance(result, Retry):
            raise result.cause
        return result

    def _attempt(
        self, body: dict[str, Any], timeout_s: float
    ) -> tuple[ChatResponse | ModelError, float | None]:
        """One POST. Returns the response, or a retryable error with the server's Retry-After;
        raises the errors that must not be retried."""
        try:
            reply = self._client.post(
                self._url,
                json=body,
                headers=self._headers,
                timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S)),
            )
        except httpx.TimeoutException as exc:
            log.debug("model call timed out: %r", exc)
            return ModelTimeout(f"{self.name}: timed out"), None
        except httpx.TransportError as exc:
            log.debug("model call transport error: %r", exc)
            return ModelUnavailable(f"{self.name}: connection failed"), None
        status = reply.status_code
        if status == 200:
            try:
                return parse_chat_completion(reply.json()), None
            except ValueError as exc:  # json.JSONDecodeError is a ValueError
                log.debug(
                    "model reply unusable: %s (%d bytes)", type(exc).__name__, len(reply.content)
                )
                raise ModelUnavailable(f"{self.name}: reply is not a chat completion") from None
        log.debug("model call HTTP %d (error code %s)", status, error_code(reply.content))
        if status == 429 or status >= 500:
            return ModelUnavailable(f"{self.name}: HTTP {status}"), retry_after_s(reply.headers)
        if 400 <= status < 500:
            if status in (400, 413) and _CONTEXT_EXCEEDED.search(reply.text):
                raise ModelContextExceeded(f"{self.name}: prompt exceeds the context window")
            raise ModelRejected(f"{self.name}: request rejected (HTTP {status})")
        raise ModelUnavailable(f"{self.name}: unexpected HTTP {status}")


def from_spec(spec: str, *, api_key: str | None = None, **kwargs: Any) -> OpenAICompatModel:
    """Build from ``TANDA_MODEL=openai:BASE_URL[#MODEL]`` (model ``default`` when omitted: fine
    for single-model servers such as llama.cpp). The API key, when not passed, comes from
    ``$TANDA_MODEL_API_KEY``."""
    if not spec.startswith("openai:"):
        raise ValueError("an openai model spec starts with 'openai:'")
    base_url, _, model = spec.removeprefix("openai:").partition("#")
    key = api_key if api_key is not None else os.environ.get(API_KEY_ENV) or None
    return OpenAICompatModel(base_url, model or DEFAULT_MODEL, api_key=key, **kwargs)


# --- wire format (pure) ------------------------------------------------------------------------


def chat_completions_body(model: str, request: ChatRequest) -> dict[str, Any]:
    """The ``/chat/completions`` request body for ``request`` (``items``/``scenario`` ignored)."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [_wire_message(message) for message in request.messages],
        "temperature": request.temperature,
    }
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": wire_tool_name(tool.name),
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
        if request.tool_choice == "required":
            body["tool_choice"] = "required"
    if request.json_schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name or "output",
                "schema": request.json_schema,
                "strict": True,
            },
        }
    return body


def _wire_message(message: ChatMessage) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            # OpenAI wants null, not "", beside tool calls.
            "content": message.content or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": wire_tool_name(call.name),
                        "arguments": json.dumps(call.arguments),
                    },
                }
                for call in message.tool_calls
            ],
        }
    return {"role": message.role, "content": message.content}


def parse_chat_completion(payload: Any) -> ChatResponse:
    """A ``/chat/completions`` reply → ``ChatResponse``. Raises ``ValueError`` when the payload
    is not a chat completion (no choices, no message).

    Tool-call arguments that are not a JSON object become ``{}``: the call is kept, so the agent
    sees the model asked for that tool and its argument validation treats the call as invalid
    output (one regeneration, then ``unparseable_completion``) rather than a model failure."""
    if not isinstance(payload, dict):
        raise ValueError("reply is not a JSON object")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("reply has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("first choice has no message")
    tool_calls = [
        _parse_tool_call(raw, index) for index, raw in enumerate(message.get("tool_calls") or [])
    ]
    usage = payload.get("usage")
    if not isinstance(usage, dict):
        usage = {}
    return ChatResponse(
        content=_text(message.get("content")),
        tool_calls=tool_calls,
        finish_reason=_finish_reason(choices[0].get("finish_reason"), bool(tool_calls)),
        input_tokens=_count(usage.get("prompt_tokens")),
        output_tokens=_count(usage.get("completion_tokens")),
    )


def _parse_tool_call(raw: Any, index: int) -> ToolCall:
    if not isinstance(raw, dict) or not isinstance(raw.get("function"), dict):
        raise ValueError("tool call without a function")
    function = raw["function"]
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("tool call without a name")
    arguments: Any = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            log.debug("a tool call's arguments are not JSON (%d characters)", len(arguments))
            arguments = {}
    if not isinstance(arguments, dict):
        arguments = {}
    call_id = raw.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else f"call_{index}",
        name=name,
        arguments=arguments,
    )


_CODE = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def error_code(body: bytes) -> str:
    """The machine code of an OpenAI-style error body (``error.code`` or ``error.type``) when it
    is a short identifier, else ``-``: never the message, which may echo prompts or output."""
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        return "-"
    if isinstance(error, dict):
        for key in ("code", "type"):
            value = error.get(key)
            if isinstance(value, str) and _CODE.fullmatch(value):
                return value
    return "-"


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        parts = [
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        ]
        return "".join(parts)
    return None


def _finish_reason(raw: Any, has_tool_calls: bool) -> FinishReason:
    # Some servers (Ollama, some vLLM tool parsers) say "stop" or nothing beside tool calls.
    if has_tool_calls and raw in (None, "stop"):
        return "tool_calls"
    if raw is None:
        return "stop"
    return _FINISH_REASONS.get(str(raw), "other")


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


__all__ = [
    "API_KEY_ENV",
    "OpenAICompatModel",
    "chat_completions_body",
    "from_spec",
    "parse_chat_completion",
]
