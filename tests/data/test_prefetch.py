"""mt.data.feed.prefetch: the epoch asked for and the next are warmed in the background."""

from __future__ import annotations

import threading
import time

import pytest

from mt.data.feed.prefetch import Prefetched


class Epoch:
    def __init__(self, number: int) -> None:
        self.number = number
        self.warmed = threading.Event()


def _wait(*epochs: Epoch) -> None:
    for epoch in epochs:
        assert epoch.warmed.wait(10), f"epoch {epoch.number} was not warmed"


def test_the_epoch_asked_for_and_the_next_are_warmed_and_the_next_is_reused() -> None:
    made: list[int] = []

    def make(number: int) -> Epoch:
        made.append(number)
        return Epoch(number)

    epochs = Prefetched(make, warm=lambda epoch: epoch.warmed.set())
    first = epochs(0)
    assert first.number == 0
    second = epochs._next[1]
    _wait(first, second)
    assert epochs(1) is second  # the one warmed ahead, not made again
    assert made == [0, 1, 2]
    assert epochs(5).number == 5  # a resume at a later epoch makes that epoch


def test_a_failure_while_warming_is_raised_where_the_next_epoch_is_asked_for() -> None:
    def warm(epoch: Epoch) -> None:
        if epoch.number == 1:
            raise ValueError("epoch 1 cannot be made")
        epoch.warmed.set()

    epochs = Prefetched(Epoch, warm=warm)
    epochs(0)
    deadline = time.monotonic() + 10
    while epochs._failure is None and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(ValueError, match="epoch 1"):
        epochs(1)
