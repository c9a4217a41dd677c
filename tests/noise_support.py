"""Source noise over a whole list at once, as training applies it row by row (mt.data.feed.augment):
what the noise tests compare with."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mt.data.feed.noise import NoiseDraws

DEFAULT_KINDS = "lower,punctuation"


def noisy_sources(
    texts: Sequence[str],
    *,
    rate: float,
    seed: int,
    epoch: int,
    kinds: str = DEFAULT_KINDS,
    english_source: bool = True,
) -> list[str]:
    """A `rate` share of `texts` made casual in the `kinds` named (see mt.data.feed.noise); a
    chosen sentence that none of them change is lowercased (with "lower"), so that `rate` is
    what changes. Training makes the same row by row (mt.data.feed.augment)."""
    noise = NoiseDraws.of_epoch(
        len(texts), rate=rate, seed=seed, epoch=epoch, kinds=kinds, english_source=english_source
    )
    rows = np.flatnonzero(noise.chosen())
    noisy = noise.made_casual([(texts[row], *noise.numbers(int(row))) for row in rows])
    out = list(texts)
    for row, text in zip(rows, noisy, strict=True):
        out[row] = text
    return out
