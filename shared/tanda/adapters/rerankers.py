"""``Reranker`` adapters, chosen by ``TANDA_RERANKER`` (docs/retrieval.md#reranker-floor):

- ``none`` — no reranker: no floor (``TANDA_RERANK_MIN_SCORE`` is not applied);
- ``lexical`` — the embedded default, :class:`tanda.retrieval.rerank.LexicalReranker`: the share
  of the query's content terms a passage holds; no model, no network;
- ``tei:BASE_URL`` — a Hugging Face text-embeddings-inference cross-encoder:
  ``POST {BASE_URL}/rerank`` ``{query, texts, raw_scores: false, truncate: true}`` →
  ``[{index, score}]``;
- ``cohere:BASE_URL[#MODEL]`` — the Cohere-shaped ``POST {BASE_URL}/rerank``
  ``{model, query, documents, top_n}`` → ``{results: [{index, relevance_score}]}``, which Cohere,
  Jina, vLLM, Infinity and LiteLLM speak;
- ``bedrock:MODEL_ID`` (or a model ARN) — Amazon Bedrock's Rerank API (boto3
  ``bedrock-agent-runtime`` ``rerank``), e.g. ``bedrock:amazon.rerank-v1:0``.

A hosted reranker's API key, if it wants one, comes from ``TANDA_RERANKER_API_KEY``. boto3 and
httpx are imported only when their adapter is built (Lambda cold start). A reranker that cannot
score every passage raises :class:`RerankFailed` (502 ``rerank_failed``): the floor fails closed.
Nothing here logs a query or a passage — only statuses, error types and counts.
"""

from __future__ import annotations

import logging
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from tanda.adapters.http_retry import TRANSIENT_STATUSES, Retry, RetryPolicy, retry_after_s
from tanda.errors import UpstreamFailed
from tanda.retrieval.rerank import LexicalReranker

if TYPE_CHECKING:
    import httpx

    from tanda.ports import Reranker

log = logging.getLogger(__name__)

API_KEY_ENV = "TANDA_RERANKER_API_KEY"
BEDROCK_MAX_TEXT = 32_000
"""Characters of one query or document the Rerank API accepts."""

RerankShape = Literal["tei", "cohere"]


class RerankFailed(UpstreamFailed):
    """The reranker did not score every passage (502). The message never carries its text."""

    code = "rerank_failed"
    message = "The reranker did not answer usably."


def build_reranker(spec: str, *, timeout_s: float = 5.0) -> Reranker | None:
    """The reranker a ``TANDA_RERANKER`` value names, or ``None`` for ``none``."""
    spec = spec.strip()
    if spec in ("", "none"):
        return None
    if spec == "lexical":
        return LexicalReranker()
    kind, _, rest = spec.partition(":")
    if kind in ("tei", "cohere") and rest:
        base_url, _, model = rest.partition("#")
        return HostedReranker(
            base_url,
            shape="tei" if kind == "tei" else "cohere",
            model=model or None,
            api_key=os.environ.get(API_KEY_ENV) or None,
            timeout_s=timeout_s,
        )
    if kind == "bedrock" and rest:
        return BedrockReranker(rest, timeout_s=timeout_s)
    raise ValueError(
        f"TANDA_RERANKER: unknown reranker {spec!r} "
        "(none | lexical | tei:BASE_URL | cohere:BASE_URL[#MODEL] | bedrock:MODEL_ID)"
    )


def _scores_by_index(pairs: Sequence[tuple[object, object]], expected: int) -> list[float]:
    """``(index, score)`` pairs → one score per passage in order. Every index exactly once and
    every score a number in 0–1, else the reply is not usable (a server sending raw logits would
    make the floor meaningless, so it fails rather than passes)."""
    scores: list[float | None] = [None] * expected
    for index, score in pairs:
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < expected:
            raise RerankFailed()
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise RerankFailed()
        value = float(score)
        if not math.isfinite(value) or not 0.0 <= value <= 1.0 or scores[index] is not None:
            raise RerankFailed()
        scores[index] = value
    if any(score is None for score in scores):
        raise RerankFailed()
    return [score for score in scores if score is not None]


class HostedReranker:
    """A cross-encoder behind ``POST {base_url}/rerank``, in the TEI or the Cohere shape.

    Each call is given ``timeout_s``; a timeout, a dropped connection, 429 or 5xx is tried once
    more after a short jittered pause, any other status fails at once. Scores must be 0–1 (TEI's
    ``raw_scores: false`` applies the sigmoid; Cohere-shaped servers send relevance scores).
    """

    reorders = True

    def __init__(
        self,
        base_url: str,
        *,
        shape: RerankShape,
        model: str | None = None,
        api_key: str | None = None,
        client: httpx.Client | None = None,
        timeout_s: float = 5.0,
        max_attempts: int = 2,
        backoff_s: float = 0.2,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("reranker base URL must start with http:// or https://")
        self.name: str = shape
        self.url = base_url.rstrip("/") + "/rerank"
        self.shape = shape
        self.model = model
        self._api_key = api_key
        self._client = client
        self._timeout_s = timeout_s
        # A search waits on it: the retries come soon, and a Retry-After is waited no longer
        # than backoff_s × max_attempts.
        self._retry = RetryPolicy(
            max_attempts=max_attempts,
            backoff_s=backoff_s,
            max_backoff_s=backoff_s * max_attempts,
            max_retry_after_s=backoff_s * max_attempts,
            sleep=sleep,
            jitter=jitter,
        )

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        reply = self._post(self._payload(query, passages))
        return self._parse(reply, expected=len(passages))

    def _payload(self, query: str, passages: Sequence[str]) -> dict[str, Any]:
        if self.shape == "tei":
            # raw_scores false: sigmoid scores (0–1); truncate: a long passage is cut to the
            # model's window instead of failing the whole call.
            return {"query": query, "texts": list(passages), "raw_scores": False, "truncate": True}
        payload: dict[str, Any] = {
            "query": query,
            "documents": list(passages),
            "top_n": len(passages),
        }
        if self.model:
            payload["model"] = self.model
        return payload

    def _http(self) -> httpx.Client:
        if self._client is None:
            import httpx

            self._client = httpx.Client(timeout=self._timeout_s)
        return self._client

    def _post(self, payload: dict[str, Any]) -> object:
        import httpx

        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        made = 0

        def attempt(_: float | None) -> object:
            nonlocal made
            made += 1
            try:
                response = self._http().post(
                    self.url, json=payload, headers=headers, timeout=self._timeout_s
                )
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                log.warning("rerank: %s (attempt %d)", type(exc).__name__, made)
                return Retry(exc)
            if response.status_code < 300:
                try:
                    return response.json()
                except ValueError as exc:
                    log.warning("rerank: response is not JSON")
                    raise RerankFailed() from exc
            if response.status_code not in TRANSIENT_STATUSES:
                log.warning("rerank: HTTP %d, not retried", response.status_code)
                raise RerankFailed()
            log.warning("rerank: HTTP %d (attempt %d)", response.status_code, made)
            return Retry(RerankFailed(), retry_after_s(response.headers))

        result = self._retry.run(attempt)
        if isinstance(result, Retry):
            raise RerankFailed() from result.cause
        return result

    def _parse(self, reply: object, *, expected: int) -> list[float]:
        if self.shape == "tei":
            items = reply
        else:
            items = reply.get("results") if isinstance(reply, dict) else None
        if not isinstance(items, list):
            log.warning("rerank: reply without a list of scores")
            raise RerankFailed()
        field = "score" if self.shape == "tei" else "relevance_score"
        try:
            pairs = [(item.get("index"), item.get(field)) for item in items]
        except AttributeError as exc:
            raise RerankFailed() from exc
        try:
            return _scores_by_index(pairs, expected)
        except RerankFailed:
            log.warning("rerank: reply does not score each of the %d passages once, 0–1", expected)
            raise


class BedrockReranker:
    """Amazon Bedrock's Rerank API (``bedrock-agent-runtime`` ``rerank``): every passage an
    inline text source, ``numberOfResults`` = their number, pages followed by ``nextToken``.

    ``model`` is a model id (made into ``arn:…:bedrock:<region>::foundation-model/<id>`` with the
    client's region) or a full model ARN. The role needs ``bedrock:Rerank`` and
    ``bedrock:InvokeModel`` on that model (template.yaml).
    """

    name = "bedrock"
    reorders = True

    def __init__(
        self,
        model: str,
        *,
        client: Any = None,
        region: str | None = None,
        timeout_s: float = 5.0,
    ) -> None:
        if not model:
            raise ValueError("bedrock reranker: a model id or ARN is required")
        self.model = model
        self._client = client
        self._region = region
        self._timeout_s = timeout_s

    def _runtime(self) -> Any:
        if self._client is None:
            from botocore.config import Config

            from tanda.adapters.aws_sdk import client

            config = Config(
                connect_timeout=self._timeout_s,
                read_timeout=self._timeout_s,
                retries={"max_attempts": 2, "mode": "standard"},
            )
            self._client = client("bedrock-agent-runtime", region_name=self._region, config=config)
        return self._client

    @property
    def model_arn(self) -> str:
        if self.model.startswith("arn:"):
            return self.model
        meta = self._runtime().meta
        return f"arn:{meta.partition}:bedrock:{meta.region_name}::foundation-model/{self.model}"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        from botocore.exceptions import BotoCoreError, ClientError

        request: dict[str, Any] = {
            "queries": [{"type": "TEXT", "textQuery": {"text": _bedrock_text(query)}}],
            "sources": [
                {
                    "type": "INLINE",
                    "inlineDocumentSource": {
                        "type": "TEXT",
                        "textDocument": {"text": _bedrock_text(passage)},
                    },
                }
                for passage in passages
            ],
            "rerankingConfiguration": {
                "type": "BEDROCK_RERANKING_MODEL",
                "bedrockRerankingConfiguration": {
                    "numberOfResults": len(passages),
                    "modelConfiguration": {"modelArn": self.model_arn},
                },
            },
        }
        pairs: list[tuple[object, object]] = []
        try:
            while True:
                response = self._runtime().rerank(**request)
                pairs.extend(
                    (item.get("index"), item.get("relevanceScore"))
                    for item in response.get("results", [])
                )
                token = response.get("nextToken")
                if not token:
                    break
                request["nextToken"] = token
        except (BotoCoreError, ClientError) as exc:
            log.warning("bedrock rerank: %s", type(exc).__name__)
            raise RerankFailed() from exc
        except AttributeError as exc:
            raise RerankFailed() from exc
        try:
            return _scores_by_index(pairs, len(passages))
        except RerankFailed:
            log.warning("bedrock rerank: reply lacks scores for the %d passages", len(passages))
            raise


def _bedrock_text(text: str) -> str:
    # The Rerank API takes 1–32 000 characters per text.
    return text[:BEDROCK_MAX_TEXT] or " "
