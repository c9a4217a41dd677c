"""Limits validate themselves, the rate limiter refills on time, keys compare exactly."""

from __future__ import annotations

import pytest

from mt.errors import MtError
from mt.serving.limits import Limits, RateLimiter, key_matches


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_a_burst_then_refills_at_the_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=3, clock=clock)
    assert [limiter.wait_seconds("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.wait_seconds("a") == pytest.approx(20.0)  # one request per 20 s
    assert limiter.wait_seconds("b") == 0.0  # clients are counted apart
    clock.now += 19.0
    assert limiter.wait_seconds("a") == pytest.approx(1.0)
    clock.now += 1.0
    assert limiter.wait_seconds("a") == 0.0
    assert limiter.wait_seconds("a") > 0


def test_rate_limit_zero_is_off() -> None:
    limiter = RateLimiter(per_minute=0)
    assert all(limiter.wait_seconds("a") == 0.0 for _ in range(10_000))


def test_many_clients_are_forgotten_once_their_buckets_are_full() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, clock=clock)
    for client in range(RateLimiter.FORGET_AFTER):
        limiter.wait_seconds(str(client))
    clock.now += 60.0  # every bucket refilled
    limiter.wait_seconds("newcomer")
    assert len(limiter._buckets) == 1


def test_keys_compare_exactly() -> None:
    assert key_matches(None, None) and key_matches("anything", None)
    assert key_matches("s3cret", "s3cret")
    assert not key_matches(None, "s3cret")
    assert not key_matches("s3cre", "s3cret") and not key_matches("s3cret ", "s3cret")
    assert key_matches("clé", "clé") and not key_matches("cle", "clé")


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("max_chars", 0, "--max-chars must be positive"),
        ("max_items", -1, "--max-items must be positive"),
        ("max_body_bytes", 0, "--max-body-bytes must be positive"),
        ("timeout", 0.0, "--timeout must be a positive number"),
        ("timeout", float("nan"), "--timeout must be a positive number"),
        ("per_minute", -1, "--rate-limit must be >= 0"),
    ],
)
def test_bad_limits_are_one_clear_error(field: str, value, says: str) -> None:
    with pytest.raises(MtError, match=says):
        Limits(**{field: value})
