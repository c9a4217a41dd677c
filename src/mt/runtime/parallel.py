"""Pure-Python work over many rows (an epoch's augmentation: minutes in one process) spread over
worker processes. Each worker gets whole rows with their random numbers already drawn, so the
result is the same whatever the number of workers. Workers are spawned, not forked (a fork of the
trainer's threads can deadlock), so a training script keeps its work under `__main__`.
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Sequence
from multiprocessing.pool import Pool
from typing import TypeVar

from mt.runtime.cpus import physical_cores

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
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        return _mapped(pool, function, items, workers)


class StreamWorkers:
    """Workers for a stream of blocks, each too small to pay for its own (a file read a few
    thousand lines at a time): started once the stream has brought PARALLEL_FROM rows, kept for
    the blocks after, stopped by `close` (or `with`). The results are map_chunks' results."""

    def __init__(self) -> None:
        self.rows = 0
        self.pool: Pool | None = None
        self.workers = 1

    def map_chunks(
        self, function: Callable[[Sequence[Item]], list[Result]], items: Sequence[Item]
    ) -> list[Result]:
        self.rows += len(items)
        if self.pool is None and multiprocessing.parent_process() is None:
            self.workers = workers_for(self.rows)
            if self.workers > 1:
                self.pool = multiprocessing.get_context("spawn").Pool(self.workers)
        if self.pool is None or len(items) < 2:
            return function(items)
        return _mapped(self.pool, function, items, self.workers)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool = None

    def __enter__(self) -> StreamWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _mapped(
    pool: Pool,
    function: Callable[[Sequence[Item]], list[Result]],
    items: Sequence[Item],
    workers: int,
) -> list[Result]:
    size = math.ceil(len(items) / (workers * CHUNKS_PER_WORKER))
    chunks = [items[start : start + size] for start in range(0, len(items), size)]
    return [result for part in pool.map(function, chunks) for result in part]
