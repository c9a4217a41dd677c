"""Sentence ids -> padded tensors with masks, grouped into length-bucketed batches.

Batches are built from pools of similar length so that little compute goes to padding, and the
whole epoch's batch order is a pure function of (seed, epoch): resuming mid-epoch replays it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from mt.config import TrainConfig
from mt.tokenization import BOS, EOS, PAD, WordPieceCodec


@dataclass(frozen=True)
class EncodedPairs:
    """Source ids (ending in EOS) and target ids (BOS ... EOS), cut to the maximum lengths."""

    src: list[np.ndarray]
    tgt: list[np.ndarray]
    truncated: int

    def __len__(self) -> int:
        return len(self.src)


def encode_pairs(
    src_ids: Sequence[Sequence[int]],
    tgt_ids: Sequence[Sequence[int]],
    *,
    max_src_len: int,
    max_tgt_len: int,
) -> EncodedPairs:
    """Add start/end labels and cut to length; the end label survives the cut."""
    src, tgt, truncated = [], [], 0
    for source, target in zip(src_ids, tgt_ids, strict=True):
        s = [*source[: max_src_len - 1], EOS]
        t = [BOS, *target[: max_tgt_len - 2], EOS]
        truncated += len(source) + 1 > max_src_len or len(target) + 2 > max_tgt_len
        src.append(np.asarray(s, dtype=np.int64))
        tgt.append(np.asarray(t, dtype=np.int64))
    return EncodedPairs(src=src, tgt=tgt, truncated=truncated)


@dataclass(frozen=True)
class TrainData:
    train: EncodedPairs
    selection: EncodedPairs
    noisy: Callable[[int], EncodedPairs] | None = None  # epoch -> training pairs (--source-noise)

    def epoch_train(self, epoch: int) -> EncodedPairs:
        """The training pairs of one epoch: with source noise, each epoch's own draw."""
        return self.train if self.noisy is None else self.noisy(epoch)


def encode_parts(
    train_pairs: list[tuple[str, str]],
    selection_pairs: list[tuple[str, str]],
    source_codec: WordPieceCodec,
    target_codec: WordPieceCodec,
    config: TrainConfig,
) -> TrainData:
    """Both parts tokenized and cut to the config's length limits."""

    def encode(pairs: list[tuple[str, str]]) -> EncodedPairs:
        return encode_pairs(
            source_codec.encode_batch([en for en, _ in pairs]),
            target_codec.encode_batch([es for _, es in pairs]),
            max_src_len=config.max_src_len,
            max_tgt_len=config.max_tgt_len,
        )

    train = encode(train_pairs)
    noisy = None
    if config.source_noise:
        from mt.noise import noisy_epoch  # noise builds on this module

        sources = [en for en, _ in train_pairs]

        def noisy(epoch: int) -> EncodedPairs:
            return noisy_epoch(
                train,
                sources,
                source_codec,
                rate=config.source_noise,
                seed=config.seed,
                epoch=epoch,
                max_src_len=config.max_src_len,
            )

    return TrainData(train=train, selection=encode(selection_pairs), noisy=noisy)


def encode_sources(src_ids: Sequence[Sequence[int]], max_src_len: int) -> list[np.ndarray]:
    return [np.asarray([*ids[: max_src_len - 1], EOS], dtype=np.int64) for ids in src_ids]


@dataclass(frozen=True)
class Batch:
    """One padded batch; ``tgt_in`` is the target minus its last label, ``tgt_out`` minus BOS."""

    src: Tensor  # (B, S)
    src_mask: Tensor  # (B, S), True = real token
    tgt_in: Tensor  # (B, T)
    tgt_out: Tensor  # (B, T)
    tgt_mask: Tensor  # (B, T), True = real target position

    @property
    def target_tokens(self) -> int:
        return int(self.tgt_mask.sum())

    def to(self, device: torch.device) -> Batch:
        move = {"device": device, "non_blocking": True}
        return Batch(
            src=self.src.to(**move),
            src_mask=self.src_mask.to(**move),
            tgt_in=self.tgt_in.to(**move),
            tgt_out=self.tgt_out.to(**move),
            tgt_mask=self.tgt_mask.to(**move),
        )

    def pin_memory(self) -> Batch:
        return Batch(
            *(
                t.pin_memory()
                for t in (self.src, self.src_mask, self.tgt_in, self.tgt_out, self.tgt_mask)
            )
        )


def pad(sequences: Sequence[np.ndarray]) -> Tensor:
    """(B, max_len) int64 tensor, right-padded with PAD."""
    out = np.full((len(sequences), max(len(s) for s in sequences)), PAD, dtype=np.int64)
    for row, seq in enumerate(sequences):
        out[row, : len(seq)] = seq
    return torch.from_numpy(out)


def collate(pairs: EncodedPairs, indices: Sequence[int]) -> Batch:
    src = pad([pairs.src[i] for i in indices])
    tgt = pad([pairs.tgt[i] for i in indices])
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
    return Batch(
        src=src,
        src_mask=src != PAD,
        tgt_in=tgt_in.contiguous(),
        tgt_out=tgt_out.contiguous(),
        tgt_mask=tgt_out != PAD,
    )


POOL_BATCHES = 50
"""How many batches' worth of sentences are sorted together: large enough to cut padding,
small enough that batches still differ from epoch to epoch."""


def batch_indices(
    src_lengths: np.ndarray,
    tgt_lengths: np.ndarray,
    *,
    batch_size: int,
    batch_tokens: int,
    seed: int,
    epoch: int,
    shuffle: bool = True,
) -> list[np.ndarray]:
    """Index groups for one epoch: shuffle, sort within pools by length, cut, shuffle the batches.

    With ``batch_tokens`` > 0 a batch holds as many sentences as fit in that many padded target
    (or source, whichever is longer) positions; otherwise ``batch_size`` sentences.
    """
    count = len(src_lengths)
    rng = np.random.default_rng([seed, epoch])
    order = rng.permutation(count) if shuffle else np.arange(count)
    longest = np.maximum(src_lengths, tgt_lengths)
    pool_size = POOL_BATCHES * (batch_size if batch_tokens == 0 else max(1, batch_tokens // 16))
    batches: list[np.ndarray] = []
    for start in range(0, count, pool_size):
        pool = order[start : start + pool_size]
        # Target length first: the decoder's positions cost the most (self, cross, vocabulary).
        pool = pool[np.lexsort((src_lengths[pool], tgt_lengths[pool]))]
        batches.extend(_cut(pool, longest, batch_size, batch_tokens))
    if shuffle:
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches


def _cut(
    sorted_pool: np.ndarray, longest: np.ndarray, batch_size: int, batch_tokens: int
) -> list[np.ndarray]:
    if batch_tokens == 0:
        return [sorted_pool[i : i + batch_size] for i in range(0, len(sorted_pool), batch_size)]
    batches, start, widest = [], 0, 0
    for position, index in enumerate(sorted_pool):
        widest = max(widest, int(longest[index]))
        if (position - start + 1) * widest > batch_tokens and position > start:
            batches.append(sorted_pool[start:position])
            start, widest = position, int(longest[index])
    batches.append(sorted_pool[start:])
    return batches


def epoch_batches(
    data: EncodedPairs, config: TrainConfig, epoch: int, shuffle: bool = True
) -> list[np.ndarray]:
    """The index groups of one epoch under the config's batch size and seed."""
    src_len, tgt_len = lengths(data)
    return batch_indices(
        src_len,
        tgt_len,
        batch_size=config.batch_size,
        batch_tokens=config.batch_tokens,
        seed=config.seed,
        epoch=epoch,
        shuffle=shuffle,
    )


@dataclass(frozen=True)
class StepBatch:
    """One optimizer step: this process's micro-batches, and the real target tokens of the whole
    step (every process, every micro-batch), by which each micro-batch's loss is divided."""

    micro_batches: tuple[Batch, ...]
    target_tokens: int


def step_batches(
    pairs: EncodedPairs,
    batches: Sequence[np.ndarray],
    *,
    world_size: int,
    rank: int,
    grad_accum: int,
) -> list[StepBatch]:
    """Consecutive groups of ``world_size * grad_accum`` batches, one per step; process ``rank``
    takes its ``grad_accum`` share of each. A last incomplete group is left out."""
    per_step = world_size * grad_accum
    steps = []
    for start in range(0, len(batches) - per_step + 1, per_step):
        group = batches[start : start + per_step]
        mine = group[rank * grad_accum : (rank + 1) * grad_accum]
        tokens = sum(int(sum(len(pairs.tgt[i]) - 1 for i in indices)) for indices in group)
        steps.append(StepBatch(tuple(collate(pairs, indices) for indices in mine), tokens))
    return steps


def lengths(pairs: EncodedPairs) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.fromiter((len(s) for s in pairs.src), dtype=np.int64, count=len(pairs)),
        np.fromiter((len(t) - 1 for t in pairs.tgt), dtype=np.int64, count=len(pairs)),
    )
