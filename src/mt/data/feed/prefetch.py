"""An epoch's pairs made in full in the background, this epoch's and the next.

An epoch's placeholders and noise (mt.data.feed.augment) are made row by row as batches read
them, which costs a CPU step about 1%, but would hold back a GPU, whose steps are tens of times
shorter. There the rows are made ahead, in a thread whose workers are processes (mt.parallel):
the current epoch's rest, then the next epoch's, while this one trains. They are a pure function
of the epoch, so the run sees exactly the pairs it would have made itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class Prefetched(Generic[Value]):
    """epoch -> `make(epoch)` (cheap); `warm` (slow) runs on it and on the next epoch's in the
    background. A failure there is raised at the next epoch asked for."""

    def __init__(self, make: Callable[[int], Value], *, warm: Callable[[Value], None]) -> None:
        self._make, self._warm = make, warm
        self._next: tuple[int, Value] | None = None
        self._failure: BaseException | None = None

    def __call__(self, epoch: int) -> Value:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        ahead = self._next
        value = ahead[1] if ahead and ahead[0] == epoch else self._make(epoch)
        upcoming = self._make(epoch + 1)
        self._next = (epoch + 1, upcoming)
        # a daemon: a run that stops mid-epoch does not wait for an epoch it will not train
        threading.Thread(
            target=self._warm_both, args=(value, upcoming), name=f"epoch-{epoch}-ahead", daemon=True
        ).start()
        return value

    def _warm_both(self, value: Value, upcoming: Value) -> None:
        try:
            self._warm(value)
            self._warm(upcoming)
        except BaseException as error:  # raised again where the next epoch is asked for
            self._failure = error
