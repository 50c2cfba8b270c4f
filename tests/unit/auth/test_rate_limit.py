"""PG-1: playground requests are limited per administrator."""

from __future__ import annotations

import pytest

from tanda.auth.rate_limit import AdminRateLimited, TokenBucket
from tanda.errors import RateLimited


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_given_a_full_bucket_when_the_burst_is_spent_then_the_next_request_is_limited() -> None:
    bucket = TokenBucket(rate_per_minute=6, burst=2, clock=Clock())
    bucket.take("admin")
    bucket.take("admin")

    with pytest.raises(RateLimited) as caught:
        bucket.take("admin")

    assert caught.value.code == "rate_limited"
    assert isinstance(caught.value, AdminRateLimited)
    assert caught.value.retry_after_s == 10


def test_given_a_spent_bucket_when_time_passes_then_it_refills() -> None:
    clock = Clock()
    bucket = TokenBucket(rate_per_minute=6, burst=1, clock=clock)
    bucket.take("admin")
    clock.now += 10

    bucket.take("admin")


def test_given_one_admin_is_limited_then_another_admin_is_not() -> None:
    bucket = TokenBucket(rate_per_minute=1, burst=1, clock=Clock())
    bucket.take("alice")

    bucket.take("bob")


def test_given_an_invalid_rate_then_the_bucket_refuses_to_build() -> None:
    with pytest.raises(ValueError):
        TokenBucket(rate_per_minute=0, burst=1, clock=Clock())
