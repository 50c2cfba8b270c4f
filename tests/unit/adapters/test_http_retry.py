"""The one retry policy of the HTTP adapters (issue 24): how many attempts, how long between
them, how a server's Retry-After is read and honoured, and that no wait runs past a deadline.
The adapters' own tests (tests/integration/test_openai_compat.py, test_embedders.py,
test_rerankers.py) run it against real servers on loopback."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from tanda.adapters.http_retry import Retry, RetryPolicy, retry_after_s


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def policy(clock: Clock, **options: object) -> RetryPolicy:
    settings: dict[str, object] = {"max_attempts": 4, "backoff_s": 0.5, "max_backoff_s": 1.5}
    settings.update(options)
    return RetryPolicy(
        sleep=clock.sleep,
        jitter=lambda: 1.0,
        clock=clock,
        **settings,  # type: ignore[arg-type]
    )


def failing(times: int, retry_after: float | None = None) -> tuple[list[float | None], object]:
    """An attempt that fails ``times`` times, then answers ``"ok"``; and the time left it saw."""
    seen: list[float | None] = []

    def attempt(remaining: float | None) -> str | Retry:
        seen.append(remaining)
        if len(seen) <= times:
            return Retry(RuntimeError(f"failure {len(seen)}"), retry_after)
        return "ok"

    return seen, attempt


def test_a_failure_is_retried_after_an_exponential_backoff_up_to_its_ceiling() -> None:
    clock = Clock()
    seen, attempt = failing(3)
    assert policy(clock).run(attempt) == "ok"  # type: ignore[arg-type]
    assert len(seen) == 4
    assert clock.sleeps == [0.5, 1.0, 1.5]  # 0.5 · 2ⁿ, capped at 1.5; jitter pinned to its top


def test_the_backoff_is_fully_jittered() -> None:
    retry = RetryPolicy(max_attempts=3, backoff_s=0.4, max_backoff_s=8, jitter=lambda: 0.25)
    assert [retry.delay(1), retry.delay(2), retry.delay(3)] == [0.1, 0.2, 0.4]


def test_the_last_failure_is_the_answer_once_the_attempts_are_spent() -> None:
    clock = Clock()
    seen, attempt = failing(10)
    outcome = policy(clock, max_attempts=3).run(attempt)  # type: ignore[arg-type]
    assert isinstance(outcome, Retry) and str(outcome.cause) == "failure 3"
    assert len(seen) == 3 and len(clock.sleeps) == 2


def test_an_error_the_attempt_raises_is_not_retried() -> None:
    clock = Clock()

    def attempt(_: float | None) -> str:
        raise ValueError("rejected")

    with pytest.raises(ValueError, match="rejected"):
        policy(clock).run(attempt)
    assert clock.sleeps == []


def test_retry_after_is_honoured_up_to_the_cap_the_adapter_sets() -> None:
    clock = Clock()
    _, attempt = failing(1, retry_after=3.0)
    policy(clock).run(attempt)  # type: ignore[arg-type]
    assert clock.sleeps == [3.0]  # no cap: the server's word

    clock = Clock()
    _, attempt = failing(1, retry_after=30.0)
    policy(clock, max_retry_after_s=2.0).run(attempt)  # type: ignore[arg-type]
    assert clock.sleeps == [2.0]


def test_no_wait_runs_past_the_deadline_and_each_attempt_sees_the_time_left() -> None:
    clock = Clock()
    seen, attempt = failing(10, retry_after=4.0)
    outcome = policy(clock, max_attempts=10).run(attempt, deadline=110.0)  # type: ignore[arg-type]
    # Waits of 4 s from t=100: attempts at 100, 104, 108; a fourth would start at 112 > 110.
    assert isinstance(outcome, Retry)
    assert seen == [10.0, 6.0, 2.0] and clock.sleeps == [4.0, 4.0]


def test_on_retry_is_told_each_failed_attempt_before_its_wait() -> None:
    clock = Clock()
    _, attempt = failing(2)
    told: list[tuple[int, str]] = []
    policy(clock).run(attempt, on_retry=lambda n, r: told.append((n, str(r.cause))))  # type: ignore[arg-type]
    assert told == [(1, "failure 1"), (2, "failure 2")]


def test_a_policy_without_an_attempt_is_refused() -> None:
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        RetryPolicy(max_attempts=0, backoff_s=0.1, max_backoff_s=1)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500"}, 1.5),
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after-ms": "junk", "retry-after": "2"}, 2.0),
        ({"Retry-After": "-5"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_is_read_in_milliseconds_or_seconds(
    headers: dict[str, str], expected: float | None
) -> None:
    assert retry_after_s(httpx.Headers(headers)) == expected


def test_retry_after_as_an_http_date_is_the_time_until_it() -> None:
    when = datetime.now(UTC) + timedelta(seconds=30)
    seconds = retry_after_s(httpx.Headers({"Retry-After": format_datetime(when, usegmt=True)}))
    assert seconds is not None and 28 <= seconds <= 30
