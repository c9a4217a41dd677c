"""Sentence ids -> padded tensors with masks, grouped into length-bucketed batches.

Sentences are stored end to end in one flat array with an offsets array: in memory
(`TokenColumn`), or the files `mt prepare` wrote for a corpus of millions of pairs (`FileColumn`):
start-up reads nothing but the lengths, and a batch reads only its own rows. Batches are built
from pools of similar length so that little compute goes to padding, and the whole epoch's batch
order is a pure function of (seed, epoch) and the lengths: resuming mid-epoch replays it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Protocol

import numpy as np
import torch
from torch import Tensor

from mt.config import TrainConfig
from mt.data.feed.augment import EpochPairs, augmentation
from mt.data.feed.prefetch import Prefetched
from mt.data.tokenarrays import TokenColumn
from mt.data.tokenization import BOS, EOS, PAD, WordPieceCodec


class Column(Protocol):
    """Sentences of ids: in memory (TokenColumn), read from a prepared directory's files
    (FileColumn), or a view joining two (rehearsal.JoinedColumn)."""

    def __len__(self) -> int: ...

    def sizes(self) -> np.ndarray: ...

    def row(self, index: int) -> np.ndarray: ...


class _Rows(Sequence[np.ndarray]):
    """Sentence i of a column as the model sees it: start label or not, cut, end label."""

    def __init__(self, column: Column, *, start: bool, max_len: int) -> None:
        self._column, self._start, self._max_len = column, start, max_len

    def __len__(self) -> int:
        return len(self._column)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        keep = self._max_len - 1 - self._start
        body = self._column.row(index)[:keep].astype(np.int64)
        return np.concatenate([[BOS] if self._start else [], body, [EOS]]).astype(np.int64)


@dataclass(frozen=True)
class EncodedPairs:
    """Source ids (ending in EOS) and target ids (BOS ... EOS), cut to the maximum lengths.

    The columns hold the tokenizer's ids as they are; labels and cuts are applied when a batch is
    built, so the same prepared arrays serve any --max-src-len / --max-tgt-len.
    """

    source: Column
    target: Column
    max_src_len: int
    max_tgt_len: int

    def __len__(self) -> int:
        return len(self.source)

    @property
    def src(self) -> Sequence[np.ndarray]:
        return _Rows(self.source, start=False, max_len=self.max_src_len)

    @property
    def tgt(self) -> Sequence[np.ndarray]:
        return _Rows(self.target, start=True, max_len=self.max_tgt_len)

    def lengths(self) -> tuple[np.ndarray, np.ndarray]:
        """Source positions (with EOS) and target positions (tgt_in: BOS + labels), cut; int32,
        computed once (epoch plans and step token counts read them again and again)."""
        return self._lengths

    @functools.cached_property
    def _lengths(self) -> tuple[np.ndarray, np.ndarray]:
        src = self.source.sizes() + np.int32(1)
        np.minimum(src, self.max_src_len, out=src)
        tgt = self.target.sizes() + np.int32(2)
        np.minimum(tgt, self.max_tgt_len, out=tgt)
        tgt -= 1
        return src, tgt

    @property
    def truncated(self) -> int:
        """Pairs that lost labels to the length limits."""
        cut = (self.source.sizes() >= self.max_src_len) | (
            self.target.sizes() > self.max_tgt_len - 2
        )
        return int(cut.sum())


def encode_pairs(
    src_ids: Sequence[Sequence[int]],
    tgt_ids: Sequence[Sequence[int]],
    *,
    max_src_len: int,
    max_tgt_len: int,
) -> EncodedPairs:
    """Tokenized pairs held in memory; start/end labels and cuts as for prepared arrays."""
    if len(src_ids) != len(tgt_ids):
        raise ValueError(f"{len(src_ids)} sources but {len(tgt_ids)} targets")
    return EncodedPairs(
        TokenColumn.from_lists(src_ids), TokenColumn.from_lists(tgt_ids), max_src_len, max_tgt_len
    )


@dataclass(frozen=True)
class TrainData:
    train: EncodedPairs
    selection: EncodedPairs
    augmented: Callable[[int], EncodedPairs] | None = None
    """epoch -> training pairs with that epoch's placeholders and source noise."""
    rehearsal: Callable[[EncodedPairs, int], EncodedPairs] | None = None
    """(training pairs, epoch) -> those pairs and the epoch's draw of base pairs (--mix)."""

    def epoch_train(self, epoch: int) -> EncodedPairs:
        """The training pairs of one epoch: with placeholders, source noise or rehearsal, each
        epoch's own draw."""
        pairs = self.train if self.augmented is None else self.augmented(epoch)
        return pairs if self.rehearsal is None else self.rehearsal(pairs, epoch)


def encode_parts(
    train_pairs: list[tuple[str, str]],
    selection_pairs: list[tuple[str, str]],
    source_codec: WordPieceCodec,
    target_codec: WordPieceCodec,
    config: TrainConfig,
) -> TrainData:
    """Both parts tokenized in memory and cut to the config's length limits."""

    def encode(pairs: list[tuple[str, str]]) -> EncodedPairs:
        return encode_pairs(
            source_codec.encode_batch([en for en, _ in pairs]),
            target_codec.encode_batch([es for _, es in pairs]),
            max_src_len=config.max_src_len,
            max_tgt_len=config.max_tgt_len,
        )

    train = encode(train_pairs)
    augmented = with_augmentation(train, train_pairs, (source_codec, target_codec), config)
    return TrainData(train=train, selection=encode(selection_pairs), augmented=augmented)


def with_augmentation(
    train: EncodedPairs,
    pairs: Sequence[tuple[str, str]],
    codecs: tuple[WordPieceCodec, WordPieceCodec],
    config: TrainConfig,
    *,
    english_source: bool = True,
    ahead: bool = False,
) -> Callable[[int], EncodedPairs] | None:
    """Each epoch's training pairs with placeholders and source noise (mt.data.feed.augment), or
    None when the config asks for neither; with `ahead` (a GPU) made an epoch at a time
    (mt.data.feed.prefetch)."""
    epoch_pairs = augmentation(train.source, train.target, pairs, codecs, config, english_source)
    if epoch_pairs is None:
        return None

    def pairs_of(made: EpochPairs) -> EncodedPairs:
        return EncodedPairs(*made.columns, train.max_src_len, train.max_tgt_len)

    if not ahead:
        return lambda epoch: pairs_of(epoch_pairs(epoch))
    epochs = Prefetched(epoch_pairs, warm=EpochPairs.fill)
    return lambda epoch: pairs_of(epochs(epoch))


@dataclass(frozen=True)
class Batch:
    """One padded batch; ``tgt_in`` is the target minus its last label, ``tgt_out`` minus BOS.

    ``out_positions`` are the real target positions as indices into the flattened (B·T) batch
    and ``out_labels`` their labels: computed here, on the host, so that the model picks them
    with `index_select` (no boolean indexing, which waits for a GPU and breaks a compiled
    graph)."""

    src: Tensor  # (B, S)
    src_mask: Tensor  # (B, S), True = real token
    tgt_in: Tensor  # (B, T)
    tgt_out: Tensor  # (B, T)
    out_positions: Tensor  # (N,) int64, N = real target positions
    out_labels: Tensor  # (N,) int64

    @classmethod
    def from_padded(cls, src: Tensor, tgt: Tensor) -> Batch:
        """From (B, S) sources and (B, T + 1) BOS-started targets, both right-padded with PAD."""
        tgt_in, tgt_out = tgt[:, :-1].contiguous(), tgt[:, 1:].contiguous()
        positions = (tgt_out != PAD).flatten().nonzero().squeeze(1)
        return cls(
            src=src,
            src_mask=src != PAD,
            tgt_in=tgt_in,
            tgt_out=tgt_out,
            out_positions=positions,
            out_labels=tgt_out.flatten()[positions],
        )

    @property
    def tgt_mask(self) -> Tensor:
        """(B, T), True = real target position: derived, so not moved or pinned with the rest."""
        return self.tgt_out != PAD

    @property
    def target_tokens(self) -> int:
        return len(self.out_positions)

    def _tensors(self) -> tuple[Tensor, ...]:
        return tuple(getattr(self, name.name) for name in fields(self))

    def to(self, device: torch.device) -> Batch:
        return Batch(*(t.to(device=device, non_blocking=True) for t in self._tensors()))

    def pin_memory(self) -> Batch:
        return Batch(*(t.pin_memory() for t in self._tensors()))


def pad(sequences: Sequence[np.ndarray]) -> Tensor:
    """(B, max_len) int64 tensor, right-padded with PAD."""
    out = np.full((len(sequences), max(len(s) for s in sequences)), PAD, dtype=np.int64)
    for row, seq in enumerate(sequences):
        out[row, : len(seq)] = seq
    return torch.from_numpy(out)


def _padded(column: Column, indices: np.ndarray, *, start: bool, max_len: int) -> np.ndarray:
    """Rows `indices` of `column` as (B, longest) int64: [BOS] ids (cut) EOS, then PAD. Each
    row's own length counts: an epoch's made row may differ from its prepared size."""
    rows = [column.row(index) for index in indices.tolist()]
    keep = np.minimum(np.fromiter(map(len, rows), np.int64, len(rows)), max_len - 1 - start)
    out = np.full((len(indices), int(keep.max()) + 1 + start), PAD, dtype=np.int64)
    if start:
        out[:, 0] = BOS
    for row, (ids, size) in enumerate(zip(rows, keep.tolist(), strict=True)):
        out[row, start : start + size] = ids[:size]
    out[np.arange(len(indices)), keep + start] = EOS
    return out


def collate(pairs: EncodedPairs, indices: Sequence[int]) -> Batch:
    rows = np.asarray(indices, dtype=np.int64)
    src = torch.from_numpy(_padded(pairs.source, rows, start=False, max_len=pairs.max_src_len))
    tgt = torch.from_numpy(_padded(pairs.target, rows, start=True, max_len=pairs.max_tgt_len))
    return Batch.from_padded(src, tgt)


POOL_BATCHES = 50
"""How many batches' worth of sentences are sorted together: large enough to cut padding,
small enough that batches still differ from epoch to epoch. On the Tatoeba training part with
64-sentence batches, 50 leave 19.0% of the source and 6.0% of the target positions padding; 200
would leave 8.7% and 1.9%, but the selection loss after 600 steps was 0.008-0.024 higher at two
seeds (docs/performance.md, "Where a training step's time goes")."""


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

    With ``batch_tokens`` > 0 a batch fills that many padded positions (the longer side), else
    holds ``batch_size`` sentences. NumPy per pool, never Python per sentence: 16M pairs in seconds.
    """
    count = len(src_lengths)
    rng = np.random.default_rng([seed, epoch])
    # int32 indices (the same order as permutation(count)): 4 bytes a sentence, not 8
    indices = np.arange(count, dtype=np.int32 if count < 2**31 else np.int64)
    order = rng.permutation(indices) if shuffle else indices
    longest = np.maximum(src_lengths, tgt_lengths)
    pool_size = POOL_BATCHES * (batch_size if batch_tokens == 0 else max(1, batch_tokens // 16))
    batches: list[np.ndarray] = []
    for start in range(0, count, pool_size):
        pool = order[start : start + pool_size]
        # Target length first: the decoder's positions cost the most (self, cross, vocabulary).
        pool = pool[np.lexsort((src_lengths[pool], tgt_lengths[pool]))]
        batches.extend(_cut(pool, longest[pool], batch_size, batch_tokens))
    if shuffle:
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches


def _cut(
    sorted_pool: np.ndarray, widths: np.ndarray, batch_size: int, batch_tokens: int
) -> list[np.ndarray]:
    """Consecutive groups of the sorted pool: each the longest run whose size times its widest
    sentence fits in ``batch_tokens`` (at least one sentence), as a greedy left-to-right scan."""
    if batch_tokens == 0:
        return [sorted_pool[i : i + batch_size] for i in range(0, len(sorted_pool), batch_size)]
    batches, start, total = [], 0, len(sorted_pool)
    while start < total:
        window = widths[start : start + batch_tokens // max(int(widths[start]), 1) + 1]
        padded = np.maximum.accumulate(window) * np.arange(1, len(window) + 1)
        over = np.flatnonzero(padded > batch_tokens)
        size = max(int(over[0]) if len(over) else len(window), 1)
        batches.append(sorted_pool[start : start + size])
        start += size
    return batches


def epoch_batches(
    data: EncodedPairs, config: TrainConfig, epoch: int, shuffle: bool = True
) -> list[np.ndarray]:
    """The index groups of one epoch under the config's batch size and seed."""
    src_len, tgt_len = data.lengths()
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


class EpochSteps(Sequence[StepBatch]):
    """The steps of one epoch, collated only when asked for: consecutive groups of
    ``world_size * grad_accum`` batches, one per step, of which process ``rank`` takes its
    ``grad_accum`` share (and reads only those rows). A last incomplete group is left out."""

    def __init__(
        self,
        pairs: EncodedPairs,
        batches: Sequence[np.ndarray],
        *,
        world_size: int,
        rank: int,
        grad_accum: int,
    ) -> None:
        self._pairs, self._batches = pairs, batches
        self._per_step, self._rank, self._grad_accum = world_size * grad_accum, rank, grad_accum
        self._tgt_len = pairs.lengths()[1]

    def __len__(self) -> int:
        return len(self._batches) // self._per_step

    def __getitem__(self, step):  # type: ignore[override]
        if isinstance(step, slice):
            return [self[i] for i in range(*step.indices(len(self)))]
        if not 0 <= step < len(self):
            raise IndexError(step)
        group = self._batches[step * self._per_step : (step + 1) * self._per_step]
        mine = group[self._rank * self._grad_accum : (self._rank + 1) * self._grad_accum]
        # the planned sizes, which every process knows without making the others' rows; a row
        # an epoch changes (a span made one placeholder) may hold a few labels fewer
        tokens = sum(int(self._tgt_len[indices].sum()) for indices in group)
        return StepBatch(tuple(collate(self._pairs, indices) for indices in mine), tokens)

    def starting_at(self, step: int) -> Iterator[StepBatch]:
        return (self[k] for k in range(step, len(self)))


def step_batches(
    pairs: EncodedPairs,
    batches: Sequence[np.ndarray],
    *,
    world_size: int,
    rank: int,
    grad_accum: int,
) -> EpochSteps:
    return EpochSteps(pairs, batches, world_size=world_size, rank=rank, grad_accum=grad_accum)


def lengths(pairs: EncodedPairs) -> tuple[np.ndarray, np.ndarray]:
    return pairs.lengths()
