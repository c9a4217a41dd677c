"""Rehearsal against forgetting: each fine-tuning epoch also trains on a share of the base data.

`--mix BASE_PREPARED:FRACTION` adds round(n * FRACTION / (1 - FRACTION)) base pairs to n new ones,
drawn anew each epoch from (seed, epoch), without repeats while the base has enough. The union is
a view over both directories' token arrays, batched as usual.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mt.data.feed.batching import Column, EncodedPairs
from mt.errors import MtError


@dataclass(frozen=True)
class Mix:
    """Where the base data is and what share of each epoch it gets."""

    prepared: Path
    fraction: float

    def to_dict(self) -> dict[str, object]:
        return {"prepared": str(self.prepared.resolve()), "fraction": self.fraction}


def parse_mix(text: str) -> Mix:
    """`BASE_PREPARED:FRACTION`, the fraction in (0, 1); the path may itself hold colons."""
    path, colon, share = text.rpartition(":")
    try:
        fraction = float(share)
    except ValueError:
        fraction = -1.0
    if not colon or not path or not 0 < fraction < 1:
        raise MtError(
            f"--mix must be BASE_PREPARED:FRACTION with a fraction between 0 and 1 (exclusive), "
            f"e.g. data/prepared:0.3; got {text!r}"
        )
    return Mix(prepared=Path(path), fraction=fraction)


def base_count(new: int, fraction: float) -> int:
    """Base pairs to add to `new` pairs so that they are `fraction` of the union."""
    return round(new * fraction / (1 - fraction))


def mixed_pairs(
    new: EncodedPairs, base: EncodedPairs, *, fraction: float, seed: int, epoch: int
) -> EncodedPairs:
    """`new` followed by this epoch's draw of `base` pairs (the new pairs' length limits)."""
    count = base_count(len(new), fraction)
    rng = np.random.default_rng([seed, epoch, 0x5E4])  # not the batch order's stream
    if count <= len(base):
        rows = np.sort(rng.choice(len(base), size=count, replace=False))
    else:  # a base smaller than its share: every pair more than once
        rows = np.sort(rng.integers(0, len(base), size=count))
    return EncodedPairs(
        source=JoinedColumn(new.source, base.source, rows),
        target=JoinedColumn(new.target, base.target, rows),
        max_src_len=new.max_src_len,
        max_tgt_len=new.max_tgt_len,
    )


class JoinedColumn:
    """All rows of `first`, then the rows `rows` of `second`: a view, nothing copied."""

    def __init__(self, first: Column, second: Column, rows: np.ndarray) -> None:
        self._first, self._second, self._rows = first, second, rows
        self._split = len(first)

    def __len__(self) -> int:
        return self._split + len(self._rows)

    def sizes(self) -> np.ndarray:
        return self._sizes

    @functools.cached_property
    def _sizes(self) -> np.ndarray:
        return np.concatenate([self._first.sizes(), self._second.sizes()[self._rows]])

    def row(self, index: int) -> np.ndarray:
        if index < self._split:
            return self._first.row(index)
        return self._second.row(int(self._rows[index - self._split]))
