"""mt.data.feed.augment: an epoch's rows made one at a time are the rows made all at once."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import invented_pairs
from mt.config import TrainConfig
from mt.data.feed import augment
from mt.data.feed.batching import encode_pairs
from placeholder_support import placeholder_codec

CONFIG = TrainConfig(
    placeholders=0.5,
    source_noise=0.4,
    source_noise_kinds="lower,punctuation,apostrophes,typos",
    max_src_len=64,
    max_tgt_len=64,
)


def _setting():
    pairs = invented_pairs() + [
        (
            f"Room {n} isn't free, see https://a.example/{n}.",
            f"La sala {n} no está libre, vea https://a.example/{n}.",
        )
        for n in range(40)
    ]
    source = placeholder_codec([en for en, _ in pairs])
    target = placeholder_codec([es for _, es in pairs])
    data = encode_pairs(
        source.encode_batch([en for en, _ in pairs]),
        target.encode_batch([es for _, es in pairs]),
        max_src_len=64,
        max_tgt_len=64,
    )
    return pairs, (source, target), data


def _rows(made: augment.EpochPairs, count: int) -> list[tuple[list[int], list[int]]]:
    source, target = made.columns
    return [(source.row(i).tolist(), target.row(i).tolist()) for i in range(count)]


def test_rows_made_when_read_are_the_rows_workers_make_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pairs, codecs, data = _setting()
    lazy = augment.augmentation(data.source, data.target, pairs, codecs, CONFIG)(2)
    monkeypatch.setattr(augment, "workers_for", lambda rows: 2)
    filled = augment.augmentation(data.source, data.target, pairs, codecs, CONFIG)(2)
    filled.fill()
    assert _rows(lazy, len(pairs)) == _rows(filled, len(pairs))
    prepared = [
        (data.source.row(i).tolist(), data.target.row(i).tolist()) for i in range(len(pairs))
    ]
    made = _rows(lazy, len(pairs))
    both = sum(a[0] != b[0] and a[1] != b[1] for a, b in zip(made, prepared, strict=True))
    source_only = sum(a[0] != b[0] and a[1] == b[1] for a, b in zip(made, prepared, strict=True))
    assert both and source_only  # placeholders on both sides, noise on the source alone
    assert all(
        made[i][1] == prepared[i][1] or "｟" in codecs[1].decode(made[i][1])
        for i in range(len(pairs))
    )


def test_an_epoch_is_a_function_of_seed_and_epoch_and_keeps_the_prepared_sizes() -> None:
    pairs, codecs, data = _setting()
    epochs = augment.augmentation(data.source, data.target, pairs, codecs, CONFIG)
    first = _rows(epochs(0), len(pairs))
    assert _rows(epochs(0), len(pairs)) == first  # a resumed run makes the same rows
    assert _rows(epochs(1), len(pairs)) != first
    source, target = epochs(0).columns
    assert np.array_equal(source.sizes(), data.source.sizes())
    assert np.array_equal(target.sizes(), data.target.sizes())


def test_reading_a_row_makes_that_row_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs, codecs, data = _setting()
    real = augment._augmented_texts
    counted = []

    def counting(jobs, **options):
        counted.append(len(jobs))
        return real(jobs, **options)

    monkeypatch.setattr(augment, "_augmented_texts", counting)
    made = augment.augmentation(data.source, data.target, pairs, codecs, CONFIG)(0)
    source, _ = made.columns
    for row in range(10):
        source.row(row)
        source.row(row)
    assert sum(counted) <= 10 and all(count == 1 for count in counted)
