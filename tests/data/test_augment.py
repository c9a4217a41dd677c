"""mt.data.feed.augment: the rows that can hold placeholders are found once per training file."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import invented_pairs
from mt.config import TrainConfig
from mt.data.feed import augment
from mt.data.feed.batching import encode_pairs
from placeholder_support import placeholder_codec


def test_candidate_rows_are_found_once_for_a_training_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = invented_pairs() + [
        (f"Room {n} is free.", f"La sala {n} está libre.") for n in range(9)
    ]
    train_file = tmp_path / "train.tsv"
    train_file.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")
    source = placeholder_codec([en for en, _ in pairs])
    target = placeholder_codec([es for _, es in pairs])
    data = encode_pairs(
        source.encode_batch([en for en, _ in pairs]),
        target.encode_batch([es for _, es in pairs]),
        max_src_len=64,
        max_tgt_len=64,
    )
    config = TrainConfig(placeholders=0.5, max_src_len=64, max_tgt_len=64)
    looked = []
    real = augment.candidate_rows
    monkeypatch.setattr(
        augment, "candidate_rows", lambda rows, workers: looked.append(1) or real(rows, workers)
    )

    def epoch_sources(epoch: int) -> list[list[int]]:
        columns = augment.augmentation(
            data.source, data.target, pairs, (source, target), config, pairs_file=train_file
        )
        new_source, _ = columns(epoch)
        return [list(new_source.row(row)) for row in range(len(pairs))]

    first = epoch_sources(0)
    assert epoch_sources(0) == first and looked == [1]  # the second run read them back
    assert any(first[row] != list(data.source.row(row)) for row in range(len(pairs)))
    train_file.write_text("Room 1 is free.\tLa sala 1 está libre.\n", encoding="utf-8")
    epoch_sources(0)
    assert looked == [1, 1]  # another file: looked for again
