"""mt.parallel: chunks over spawned workers give what one process gives, in order."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from mt.parallel import PARALLEL_FROM, map_chunks, workers_for


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
