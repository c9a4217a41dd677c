"""The next epoch's training pairs made while this epoch trains.

An epoch's placeholders and noise take seconds to minutes of CPU (mt.data.feed.augment); made at
the epoch's start, the GPU or the CPU's matrix units wait for them at every epoch boundary. They
are a pure function of the epoch, so they can be made ahead, in a thread (whose workers are
processes, mt.parallel), and the run sees exactly the pairs it would have made itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

Value = TypeVar("Value")


class Prefetched(Generic[Value]):
    """epoch -> `make(epoch)`; asking for an epoch starts making the next one in the background."""

    def __init__(self, make: Callable[[int], Value]) -> None:
        self._make = make
        self._ahead: tuple[int, Future[Value]] | None = None

    def __call__(self, epoch: int) -> Value:
        ahead, self._ahead = self._ahead, None
        value = ahead[1].result() if ahead and ahead[0] == epoch else self._make(epoch)
        self._start(epoch + 1)
        return value

    def _start(self, epoch: int) -> None:
        future: Future[Value] = Future()

        def make() -> None:
            try:
                future.set_result(self._make(epoch))
            except BaseException as error:  # raised again where the epoch is asked for
                future.set_exception(error)

        # a daemon: a run that stops mid-epoch does not wait for an epoch it will not train
        threading.Thread(target=make, name=f"epoch-{epoch}-ahead", daemon=True).start()
        self._ahead = (epoch, future)
