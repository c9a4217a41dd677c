"""Sentence ids -> padded tensors with masks, grouped into length-bucketed batches.

Batches are built from pools of similar length so that little compute goes to padding, and the
whole epoch's batch order is a pure function of (seed, epoch): resuming mid-epoch replays it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from mt.tokenization import BOS, EOS, PAD


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


def lengths(pairs: EncodedPairs) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.fromiter((len(s) for s in pairs.src), dtype=np.int64, count=len(pairs)),
        np.fromiter((len(t) - 1 for t in pairs.tgt), dtype=np.int64, count=len(pairs)),
    )


def padding_share(batches: Sequence[Batch]) -> float:
    """Share of the padded target positions that are padding."""
    real = sum(b.target_tokens for b in batches)
    total = sum(b.tgt_mask.numel() for b in batches)
    return 1.0 - real / total if total else 0.0
