"""mt.data.feed.prefetch: the next epoch made ahead is the epoch that would have been made."""

from __future__ import annotations

import threading

import pytest

from mt.data.feed.prefetch import Prefetched


class Maker:
    def __init__(self) -> None:
        self.asked: list[int] = []
        self.lock = threading.Lock()

    def __call__(self, epoch: int) -> tuple[str, int]:
        with self.lock:
            self.asked.append(epoch)
        if epoch == 3:
            raise ValueError("epoch 3 cannot be made")
        return ("pairs of epoch", epoch)


def test_each_epoch_is_made_once_and_the_next_one_ahead() -> None:
    maker = Maker()
    epochs = Prefetched(maker)
    assert epochs(0) == ("pairs of epoch", 0)
    assert epochs(1) == ("pairs of epoch", 1)  # made ahead while epoch 0 was used
    epochs._ahead[1].exception()  # let the one ahead finish before counting
    assert sorted(maker.asked) == [0, 1, 2]


def test_a_resume_at_a_later_epoch_makes_that_epoch() -> None:
    maker = Maker()
    assert Prefetched(maker)(5) == ("pairs of epoch", 5)
    assert maker.asked[0] == 5


def test_a_failure_ahead_is_raised_where_its_epoch_is_asked_for() -> None:
    epochs = Prefetched(Maker())
    epochs(2)
    with pytest.raises(ValueError, match="epoch 3"):
        epochs(3)
