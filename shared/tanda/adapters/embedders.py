"""``Embedder`` adapters, chosen by ``TANDA_EMBEDDER`` (docs/opensearch.md#embedders):

- ``none`` — no embedder: retrieval is lexical only (the default; keeps the install light);
- ``openai:BASE_URL[#MODEL]`` — any OpenAI-compatible ``POST {BASE_URL}/embeddings`` (httpx);
  the API key, if the server wants one, comes from ``TANDA_EMBEDDER_API_KEY``;
- ``bedrock:MODEL_ID[#DIMENSIONS]`` — Amazon Titan Text Embeddings v2 via boto3
  ``bedrock-runtime`` (``DIMENSIONS`` 256, 512 or 1024; default 1024).

boto3 and httpx are imported only when their adapter is built (Lambda cold start).
Failures raise :class:`EmbeddingFailed`, whose message never carries the server's text.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tanda.adapters.http_retry import TRANSIENT_STATUSES, Retry, RetryPolicy, retry_after_s
from tanda.errors import UpstreamFailed

if TYPE_CHECKING:
    import httpx

    from tanda.ports import Embedder

log = logging.getLogger(__name__)

API_KEY_ENV = "TANDA_EMBEDDER_API_KEY"
MAX_BATCH = 64
TITAN_V2_DIMENSIONS = (256, 512, 1024)


class EmbeddingFailed(UpstreamFailed):
    """The embedding service did not answer usably (502)."""

    code = "embedding_failed"
    message = "The embedding service did not answer usably."


def build_embedder(spec: str) -> Embedder | None:
    """The embedder a ``TANDA_EMBEDDER`` value names, or ``None`` for ``none``."""
    spec = spec.strip()
    if spec in ("", "none"):
        return None
    kind, _, rest = spec.partition(":")
    if kind == "openai" and rest:
        base_url, _, model = rest.partition("#")
        return OpenAICompatEmbedder(
            base_url, model=model or None, api_key=os.environ.get(API_KEY_ENV) or None
        )
    if kind == "bedrock" and rest:
        model_id, _, dimensions = rest.partition("#")
        if dimensions and not dimensions.isdecimal():
            raise ValueError("TANDA_EMBEDDER: bedrock:MODEL_ID[#DIMENSIONS], DIMENSIONS a number")
        return BedrockEmbedder(model_id, dimensions=int(dimensions) if dimensions else 1024)
    raise ValueError(
        f"TANDA_EMBEDDER: unknown embedder {spec!r} "
        "(none | openai:BASE_URL[#MODEL] | bedrock:MODEL_ID[#DIMENSIONS])"
    )


def _batches(texts: Sequence[str], size: int) -> list[Sequence[str]]:
    return [texts[start : start + size] for start in range(0, len(texts), size)]


def _as_vector(value: object) -> tuple[float, ...]:
    if not isinstance(value, list) or not value:
        raise EmbeddingFailed()
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in value):
        raise EmbeddingFailed()
    return tuple(float(x) for x in value)


class OpenAICompatEmbedder:
    """``POST {base_url}/embeddings`` with ``{"model", "input": [...]}``, ≤ 64 texts a call.

    Retries 429, 5xx, timeouts and connection failures under the one retry policy of the HTTP
    adapters (:mod:`tanda.adapters.http_retry`: backoff with full jitter, a ``Retry-After`` up
    to ``max_backoff_s``); any other 4xx fails at once. ``dimensions`` is taken
    from the first response unless given.
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        client: httpx.Client | None = None,
        timeout_s: float = 30.0,
        max_attempts: int = 4,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        batch_size: int = MAX_BATCH,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("embedder base URL must start with http:// or https://")
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError(f"batch_size must be between 1 and {MAX_BATCH}")
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self._api_key = api_key
        self._dimensions = dimensions
        self._client = client
        self._timeout_s = timeout_s
        # A Retry-After longer than the backoff's ceiling is not waited out: a batch of an
        # ingest fails instead, and is embedded again on the next run.
        self._retry = RetryPolicy(
            max_attempts=max_attempts,
            backoff_s=backoff_s,
            max_backoff_s=max_backoff_s,
            max_retry_after_s=max_backoff_s,
            sleep=sleep,
            jitter=jitter,
        )
        self.batch_size = batch_size

    @property
    def dimensions(self) -> int:
        """Known from the settings or the first response; else learnt by embedding one probe."""
        if self._dimensions is None:
            self.embed(["dimensions"])
        assert self._dimensions is not None
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        vectors: list[tuple[float, ...]] = []
        for batch in _batches(texts, self.batch_size):
            vectors.extend(self._embed_batch(batch))
        return vectors

    def _http(self) -> httpx.Client:
        if self._client is None:
            import httpx

            self._client = httpx.Client(timeout=self._timeout_s)
        return self._client

    def _embed_batch(self, batch: Sequence[str]) -> list[tuple[float, ...]]:
        import httpx

        payload: dict[str, Any] = {"input": list(batch)}
        if self.model:
            payload["model"] = self.model
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"

        made = 0

        def attempt(_: float | None) -> list[tuple[float, ...]] | Retry:
            nonlocal made
            made += 1
            try:
                response = self._http().post(self.url, json=payload, headers=headers)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                log.warning("embeddings: %s (attempt %d)", type(exc).__name__, made)
                return Retry(exc)
            if response.status_code < 300:
                return self._parse(response, expected=len(batch))
            if response.status_code not in TRANSIENT_STATUSES:
                log.warning("embeddings: HTTP %d, not retried", response.status_code)
                raise EmbeddingFailed()
            log.warning("embeddings: HTTP %d (attempt %d)", response.status_code, made)
            return Retry(EmbeddingFailed(), retry_after_s(response.headers))

        result = self._retry.run(attempt)
        if isinstance(result, Retry):
            raise EmbeddingFailed() from result.cause
        return result

    def _parse(self, response: httpx.Response, *, expected: int) -> list[tuple[float, ...]]:
        try:
            data = response.json()
        except ValueError as exc:
            log.warning("embeddings: response is not JSON")
            raise EmbeddingFailed() from exc
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list) or len(items) != expected:
            log.warning("embeddings: response lacks one vector per input")
            raise EmbeddingFailed()
        try:
            ordered = sorted(items, key=lambda item: int(item.get("index", 0)))
            vectors = [_as_vector(item.get("embedding")) for item in ordered]
        except (AttributeError, TypeError, ValueError) as exc:
            raise EmbeddingFailed() from exc
        sizes = {len(v) for v in vectors}
        if len(sizes) != 1 or (self._dimensions is not None and sizes != {self._dimensions}):
            log.warning("embeddings: vectors of unexpected size %s", sorted(sizes))
            raise EmbeddingFailed()
        self._dimensions = sizes.pop()
        return vectors


class BedrockEmbedder:
    """Amazon Titan Text Embeddings v2 through ``bedrock-runtime`` ``InvokeModel``, one text a call
    (the model takes one ``inputText``). Vectors are normalized, so cosine = dot product."""

    def __init__(
        self,
        model_id: str = "amazon.titan-embed-text-v2:0",
        *,
        dimensions: int = 1024,
        normalize: bool = True,
        client: Any = None,
        region: str | None = None,
    ) -> None:
        if dimensions not in TITAN_V2_DIMENSIONS:
            raise ValueError(f"Titan v2 dimensions: one of {TITAN_V2_DIMENSIONS}")
        self.model_id = model_id
        self._dimensions = dimensions
        self.normalize = normalize
        self._client = client
        self._region = region

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def _runtime(self) -> Any:
        if self._client is None:
            from tanda.adapters.aws_sdk import client

            self._client = client("bedrock-runtime", region_name=self._region)
        return self._client

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        return [self._embed_one(text) for text in texts]

    def _embed_one(self, text: str) -> tuple[float, ...]:
        from botocore.exceptions import BotoCoreError, ClientError

        body = {"inputText": text, "dimensions": self._dimensions, "normalize": self.normalize}
        try:
            response = self._runtime().invoke_model(
                modelId=self.model_id,
                body=json.dumps(body),
                contentType="application/json",
                accept="application/json",
            )
            payload = json.loads(response["body"].read())
        except (BotoCoreError, ClientError) as exc:
            log.warning("bedrock embeddings: %s", type(exc).__name__)
            raise EmbeddingFailed() from exc
        except (KeyError, ValueError) as exc:
            log.warning("bedrock embeddings: unreadable response")
            raise EmbeddingFailed() from exc
        vector = _as_vector(payload.get("embedding") if isinstance(payload, dict) else None)
        if len(vector) != self._dimensions:
            log.warning(
                "bedrock embeddings: %d dimensions, expected %d", len(vector), self._dimensions
            )
            raise EmbeddingFailed()
        return vector
