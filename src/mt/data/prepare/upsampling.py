"""Small corpora kept visible: each corpus's training pairs repeated by a temperature rule.

Next to Tatoeba's 107k pairs, 10k of news is one batch in twenty and little learnt. With
`mt prepare --sampling-temperature T` a corpus's share goes as size^(1/T) (T = 2: square roots,
as fairseq's `--sampling-temperature`):

    repeats_i = max(1, round((largest / size_i) ** (1 - 1/T)))

Only the training part is repeated, after the split; selection, test and the tokenizers' sample
are those of T = 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def corpus_repeats(train_pairs: Sequence[int], temperature: float) -> list[int]:
    """How many times each corpus's training pairs are written (1 for an empty corpus);
    `temperature` >= 1 (PrepareConfig checks it)."""
    largest = max(train_pairs, default=0)
    exponent = 1 - 1 / temperature
    return [max(1, round((largest / size) ** exponent)) if size else 1 for size in train_pairs]


def row_repeats(
    part: np.ndarray, pairs_per_corpus: Sequence[int], temperature: float, *, train: int = 0
) -> tuple[np.ndarray, list[int]]:
    """Each spooled pair's repeat count (corpora in spool order, `part` their labels): its
    corpus's for a row labelled `train`, 1 for any other; and each corpus's."""
    bounds = np.cumsum([0, *pairs_per_corpus])
    sizes = [int((part[a:b] == train).sum()) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    repeats = corpus_repeats(sizes, temperature)
    rows = np.repeat(np.asarray(repeats, dtype=np.int64), pairs_per_corpus)
    return np.where(part == train, rows, 1), repeats
