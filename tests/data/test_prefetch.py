"""mt.data.feed.prefetch: an epoch is warmed before it is handed out, the next one meanwhile."""

from __future__ import annotations

import threading

import pytest

from mt.data.feed.prefetch import Prefetched


class Epoch:
    def __init__(self, number: int) -> None:
        self.number = number
        self.warmed_in: list[str] = []


def _warm(epoch: Epoch) -> None:
    if epoch.number == 3:
        raise ValueError("epoch 3 cannot be made")
    epoch.warmed_in.append(threading.current_thread().name)


def test_an_epoch_is_warmed_before_it_is_handed_out_and_the_next_meanwhile() -> None:
    made: list[int] = []

    def make(number: int) -> Epoch:
        made.append(number)
        return Epoch(number)

    epochs = Prefetched(make, warm=_warm)
    first = epochs(0)
    assert first.warmed_in == [threading.current_thread().name]  # the first: here, at once
    second = epochs(1)
    assert second.warmed_in == ["epoch-1"]  # made and warmed in the background
    assert made == [0, 1, 2]
    assert epochs(5).warmed_in == [threading.current_thread().name]  # a resume: here again


def test_a_failure_while_warming_ahead_is_raised_where_that_epoch_is_asked_for() -> None:
    epochs = Prefetched(Epoch, warm=_warm)
    epochs(2)
    with pytest.raises(ValueError, match="epoch 3"):
        epochs(3)
