"""Source-side noise for training: make some English sentences look typed casually.

Tatoeba's English is capitalised and ends in punctuation; what people type often is neither, and a
model that never saw such input translates it worse. With `--source-noise RATE` that share of the
training sources is, each epoch, lowercased and/or has its final punctuation dropped or changed;
mt.data.batching encodes them again. The draw is a pure function of (seed, epoch), like the batch
order, so a resumed run sees exactly the sources an uninterrupted one would. Targets never change.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

FINAL_PUNCTUATION = ".!?"
_STREAM = 0x6E6F6973  # keeps these draws apart from the batch order's, which use (seed, epoch)


def casual(text: str, *, lower: bool, punctuation: str | None) -> str:
    """`text` lowercased if `lower`; its final punctuation mark (with the spaces before it)
    replaced by `punctuation` ("" drops it, None keeps it)."""
    if lower:
        text = text.lower()
    if punctuation is not None and text and text[-1] in FINAL_PUNCTUATION:
        text = text[:-1].rstrip() + punctuation
    return text


def noisy_sources(texts: Sequence[str], *, rate: float, seed: int, epoch: int) -> list[str]:
    """A `rate` share of `texts` made casual: each chosen one is lowercased (half the time),
    loses its final punctuation (half the time) or has a final "." / "!" swapped (a tenth);
    a chosen sentence that none of these change is lowercased, so `rate` is what changes."""
    rng = np.random.default_rng([seed, epoch, _STREAM])
    draws = rng.random((len(texts), 3))
    out = list(texts)
    for index in np.flatnonzero(draws[:, 0] < rate):
        text = texts[index]
        lower, mark = draws[index, 1] < 0.5, draws[index, 2]
        punctuation = "" if mark < 0.5 else _swapped(text[-1:]) if mark < 0.6 else None
        noisy = casual(text, lower=lower, punctuation=punctuation)
        out[index] = noisy if noisy != text else casual(text, lower=True, punctuation=None)
    return out


def _swapped(mark: str) -> str | None:
    return {".": "!", "!": "."}.get(mark)
