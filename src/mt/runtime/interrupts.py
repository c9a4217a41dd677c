"""Signal handlers set for the span of a block and put back after it, for the command line
(SIGTERM stops a command as Ctrl-C does) and the training loop (both set a flag it checks)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def handling(handler: Callable[[int, object], None], *signals: int) -> Iterator[None]:
    """`handler` for `signals` inside the block, the previous handlers after it. Outside the main
    thread signals cannot be caught, and nothing changes."""
    try:
        previous = {sig: signal.signal(sig, handler) for sig in signals}
    except ValueError:  # not the main thread
        previous = {}
    try:
        yield
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)
