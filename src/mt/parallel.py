"""Pure-Python work over many rows spread over worker processes.

An epoch's augmentation (shared spans, placeholders, casual noise) is regular expressions and
string edits over hundreds of thousands of pairs: minutes in one process, the wait before a run's
first step and at every epoch's start. Each worker gets whole rows with any random numbers already
drawn, so the result is the one a single process gives, whatever the number of workers.

Workers are spawned, not forked: the trainer holds torch's and the tokenizers' threads, and a fork
of a process with threads can deadlock its child. A spawned worker imports the main module, so a
script that trains must keep its work under `if __name__ == "__main__":`, as mt's own commands do.
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Sequence
from typing import TypeVar

from mt.cpus import physical_cores

Item = TypeVar("Item")
Result = TypeVar("Result")

PARALLEL_FROM = 20_000
"""Rows under which one process is faster than starting workers (about 0.3 s each)."""
MAX_WORKERS = 16
CHUNKS_PER_WORKER = 4  # so that one slow chunk (long news sentences) does not hold the rest


def workers_for(rows: int) -> int:
    """How many processes `rows` rows deserve on this machine: 1 for a small job."""
    return 1 if rows < PARALLEL_FROM else max(1, min(physical_cores(), MAX_WORKERS))


def map_chunks(
    function: Callable[[Sequence[Item]], list[Result]], items: Sequence[Item], workers: int
) -> list[Result]:
    """`function` over consecutive chunks of `items`, its lists joined in order; in this process
    when `workers` is 1. `function` must be picklable: a module's function or a partial of one."""
    if workers <= 1 or len(items) < 2 or multiprocessing.parent_process() is not None:
        return function(items)  # a worker starts no workers of its own
    size = math.ceil(len(items) / (workers * CHUNKS_PER_WORKER))
    chunks = [items[start : start + size] for start in range(0, len(items), size)]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        parts = pool.map(function, chunks)
    return [result for part in parts for result in part]
