"""mt.runtime.parallel: chunks over spawned workers give what one process gives, in order."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from mt.runtime.parallel import PARALLEL_FROM, StreamWorkers, map_chunks, workers_for


def _lengths_plus(texts: Sequence[str], extra: int) -> list[int]:
    return [len(text) + extra for text in texts]


def test_chunks_over_workers_are_joined_in_order() -> None:
    texts = [f"sentence {n} " * (n % 7) for n in range(101)]
    work = functools.partial(_lengths_plus, extra=3)
    assert map_chunks(work, texts, workers=2) == map_chunks(work, texts, workers=1)
    assert map_chunks(work, texts, workers=2) == [len(text) + 3 for text in texts]
    assert map_chunks(work, [], workers=2) == []


def test_a_small_job_stays_in_one_process() -> None:
    assert workers_for(PARALLEL_FROM - 1) == 1
    assert workers_for(PARALLEL_FROM) >= 1


def test_a_stream_starts_its_workers_once_it_is_long_and_gives_what_one_process_gives() -> None:
    work = functools.partial(_lengths_plus, extra=1)
    blocks = [[f"row {n} of block {b}" for n in range(PARALLEL_FROM // 3)] for b in range(4)]
    with StreamWorkers() as workers:
        mapped = [workers.map_chunks(work, block) for block in blocks[:2]]
        assert workers.pool is None  # two blocks are under PARALLEL_FROM rows: no workers yet
        mapped += [workers.map_chunks(work, block) for block in blocks[2:]]
        assert workers.pool is not None or workers_for(PARALLEL_FROM) == 1
    assert workers.pool is None  # closed with the stream
    assert mapped == [work(block) for block in blocks]
