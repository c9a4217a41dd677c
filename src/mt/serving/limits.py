"""What one client may ask of the server: sizes, time, rate, and the key that lets it in.

Every limit here is applied on every request (the complaint about other servers is limits that are
configured but never checked); `app.py` turns a breach into the matching status code.
"""

from __future__ import annotations

import hmac
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from mt.errors import MtError


@dataclass(frozen=True)
class Limits:
    """Per-request bounds; 0 turns the rate limit off, nothing else can be turned off."""

    max_chars: int = 5000  # characters over all texts of one request
    max_items: int = 100  # texts in one `q` array
    max_body_bytes: int = 262_144  # a JSON body of max_chars escaped as \uXXXX still fits
    timeout: float = 30.0  # seconds from admission to the answer
    per_minute: int = 600  # requests per key, or per client address without a key
    max_queued_lines: int = 20_000  # lines waiting for the decoder before new requests get 503

    def __post_init__(self) -> None:
        for name in ("max_chars", "max_items", "max_body_bytes", "max_queued_lines"):
            value = getattr(self, name)
            if value <= 0:
                raise MtError(f"--{name.replace('_', '-')} must be positive, got {value}")
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise MtError(f"--timeout must be a positive number of seconds, got {self.timeout}")
        if self.per_minute < 0:
            raise MtError(f"--rate-limit must be >= 0 (0: off), got {self.per_minute}")


LIMITS = Limits()
"""The defaults of `mt serve`, as DECODE is of decoding."""


def key_matches(given: str | None, expected: str | None) -> bool:
    """True when no key is configured or `given` equals it; compared in constant time so the
    answer's timing says nothing about how much of a guessed key was right."""
    if expected is None:
        return True
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class RateLimiter:
    """A token bucket per client: `per_minute` requests, refilled continuously, bursts up to
    `per_minute`. Full buckets are forgotten when many clients have been seen, so memory stays
    bounded however many addresses call."""

    FORGET_AFTER = 10_000

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, when)

    def wait_seconds(self, client: str) -> float:
        """0 and one request counted when `client` may go ahead, else how long until it may."""
        if self.per_minute == 0:
            return 0.0
        now = self.clock()
        rate = self.per_minute / 60.0
        tokens, then = self._buckets.get(client, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - then) * rate)
        if tokens < 1.0:
            self._buckets[client] = (tokens, now)
            return (1.0 - tokens) / rate
        self._buckets[client] = (tokens - 1.0, now)
        if len(self._buckets) > self.FORGET_AFTER:
            self._forget_full(now, rate)
        return 0.0

    def _forget_full(self, now: float, rate: float) -> None:
        full = [
            client
            for client, (tokens, then) in self._buckets.items()
            if tokens + (now - then) * rate >= self.per_minute
        ]
        for client in full:
            del self._buckets[client]
