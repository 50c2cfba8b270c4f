"""One retry policy for every HTTP adapter (issue 24): the chat model (``openai_compat``), the
embedders and the hosted rerankers.

Which failure is worth another attempt is each adapter's to say (it knows its errors: it returns
a :class:`Retry` for one, raises the others). How many attempts, how long between them and how
a server's ``Retry-After`` is honoured is written here, once:

- before the n-th retry, exponential backoff with full jitter:
  ``jitter() * min(max_backoff_s, backoff_s * 2**(n-1))`` — callers that failed together do not
  come back together;
- unless the server said when (``retry-after-ms``, or ``Retry-After`` in seconds or as an HTTP
  date): then that long, capped at ``max_retry_after_s`` when the adapter sets one;
- with a deadline, a retry whose wait would end past it is not made: the last failure is the
  answer.

Standard library only: an adapter that never retries (the embedded reranker) pays nothing.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

T = TypeVar("T")

TRANSIENT_STATUSES: frozenset[int] = frozenset({429, 500, 502, 503, 504})
"""The HTTP statuses a server sends for a failure that may pass: too many requests, a server
error, a gateway that could not reach it or waited too long, a service unavailable."""


@dataclass(frozen=True)
class Retry:
    """A failed attempt worth another: its cause, and the server's ``Retry-After`` if it sent
    one."""

    cause: BaseException
    retry_after_s: float | None = None


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int
    """The first call included."""
    backoff_s: float
    max_backoff_s: float
    max_retry_after_s: float | None = None
    """The longest a server's ``Retry-After`` is waited; ``None``: as long as the deadline
    allows."""
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    jitter: Callable[[], float] = field(default=random.random, compare=False)
    """0–1 (tests pin it)."""
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)
    """What a deadline is measured on."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.backoff_s < 0 or self.max_backoff_s < 0:
            raise ValueError("backoff_s and max_backoff_s must not be negative")

    def delay(self, retry: int, retry_after_s: float | None = None) -> float:
        """The wait before the ``retry``-th retry (1: the first)."""
        if retry_after_s is not None:
            if self.max_retry_after_s is None:
                return retry_after_s
            return min(retry_after_s, self.max_retry_after_s)
        return self.jitter() * min(self.max_backoff_s, self.backoff_s * 2.0 ** (retry - 1))

    def run(
        self,
        attempt: Callable[[float | None], T | Retry],
        *,
        deadline: float | None = None,
        on_retry: Callable[[int, Retry], None] | None = None,
    ) -> T | Retry:
        """Call ``attempt`` (given the time left before ``deadline``, on :attr:`clock`; ``None``
        without one) until it returns a result; the last :class:`Retry` when the attempts are
        spent or the next wait would end past the deadline. ``on_retry(n, retry)`` runs before
        the wait that follows the n-th failed attempt."""
        made = 0
        while True:
            outcome = attempt(None if deadline is None else deadline - self.clock())
            made += 1
            if not isinstance(outcome, Retry) or made >= self.max_attempts:
                return outcome
            wait = self.delay(made, outcome.retry_after_s)
            if deadline is not None and self.clock() + wait >= deadline:
                return outcome
            if on_retry is not None:
                on_retry(made, outcome)
            self.sleep(wait)


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms`` (OpenAI), else ``Retry-After`` in
    seconds or as an HTTP date; ``None`` when it says nothing readable. ``headers`` is an
    ``httpx.Headers`` (case-insensitive)."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only for a date: most servers send seconds, or nothing

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
