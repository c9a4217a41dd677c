"""bench_scale's training-throughput figure: an in-process A/B of where batches come from.

The trainer's own tokens/s (its last report window in metrics.csv) swings by more than the 5% the
target allows on a shared machine. What changed in training is only the batches' source: `mt
train` now collates each step from the prepared token-array files, where it used to hold each
sentence as one int64 array in a Python list. So one model step is timed with each source, the
same model (the default recipe's, same seed), the same batches, in alternating rounds, and the
ratio is the figure that counts: machine noise hits both arms alike.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from mt.config import TrainConfig
from mt.data.feed.batching import Batch, EncodedPairs, epoch_batches, step_batches
from mt.data.prepared_dir import load_prepared
from mt.data.tokenization import BOS, EOS, PAD
from mt.model.devices import resolve_device
from mt.model.loss import masked_loss_terms, real_position_logits
from mt.model.transformer import make_model
from mt.train.run_config import RunConfig, new_run_config
from mt.train.schedule import learning_rate

MAPPED, LISTS = "token-array files", "in-memory lists"
MIN_ROUNDS = 5


@dataclass(frozen=True)
class ABSettings:
    """How long the A/B runs: `warmup` untimed steps per arm, then rounds of `steps` timed steps
    per arm until both arms together have trained for `seconds` (at least MIN_ROUNDS rounds, at
    most `max_rounds`). A budget of time, not of steps: a step of 16M's long synthetic pairs
    costs several of the real corpus'. Many short rounds: a burst of a neighbour's work spoils a
    round, not the figure."""

    seconds: float = 25.0
    steps: int = 1
    warmup: int = 2
    max_rounds: int = 200
    threads: int = os.cpu_count() or 1
    device: str = "cpu"


@dataclass
class ABResult:
    """Target tokens/s of each arm over all rounds, each round's ratio (token-array files / lists,
    on the same steps), and the mean target length of the training part (tokens/s differs
    across sizes with it). `ratio` is the median round's: robust to the rounds that a burst of a
    neighbour's work spoiled."""

    mapped_tokens_per_second: float
    lists_tokens_per_second: float
    round_ratios: list[float]
    timed_tokens: int  # per arm
    mean_target_tokens: float
    seconds: float  # wall time of the whole A/B, set-up included
    ratio: float = field(init=False)

    def __post_init__(self) -> None:
        self.ratio = float(np.median(self.round_ratios))

    def figures(self) -> str:
        low, high = np.percentile(self.round_ratios, [25, 75])
        return (
            f"token-array files {self.mapped_tokens_per_second:,.0f} vs in-memory lists "
            f"{self.lists_tokens_per_second:,.0f}, ratio {self.ratio:.3f} (median of "
            f"{len(self.round_ratios)} rounds, middle half {low:.3f}-{high:.3f})"
        )


def add_ab_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ab-seconds", type=float, default=ABSettings.seconds, help="A/B timed seconds per size"
    )
    parser.add_argument(
        "--ab-steps", type=int, default=ABSettings.steps, help="timed steps per arm and round"
    )
    parser.add_argument("--ab-warmup", type=int, default=ABSettings.warmup, help="untimed steps")


def ab_settings(args: argparse.Namespace) -> ABSettings:
    """The A/B options; it runs on mt train's --device with --threads or the machine's cores."""
    return ABSettings(
        seconds=args.ab_seconds,
        steps=args.ab_steps,
        warmup=args.ab_warmup,
        threads=args.threads or os.cpu_count() or 1,
        device=args.device,
    )


@dataclass(frozen=True)
class ListPairs:
    """The old EncodedPairs: one int64 array per sentence, labels and cuts applied."""

    src: list[np.ndarray]
    tgt: list[np.ndarray]


def to_lists(pairs: EncodedPairs, rows: np.ndarray) -> ListPairs:
    """Rows `rows` of the prepared pairs as the old `encode_pairs` held them (its code)."""
    src, tgt = [], []
    for row in rows.tolist():
        source, target = pairs.source.row(row).tolist(), pairs.target.row(row).tolist()
        src.append(np.asarray([*source[: pairs.max_src_len - 1], EOS], dtype=np.int64))
        tgt.append(np.asarray([BOS, *target[: pairs.max_tgt_len - 2], EOS], dtype=np.int64))
    return ListPairs(src=src, tgt=tgt)


def old_pad(sequences: Sequence[np.ndarray]) -> torch.Tensor:
    """The old `pad`, copied: (B, max_len) int64, right-padded with PAD."""
    out = np.full((len(sequences), max(len(s) for s in sequences)), PAD, dtype=np.int64)
    for row, seq in enumerate(sequences):
        out[row, : len(seq)] = seq
    return torch.from_numpy(out)


def old_collate(pairs: ListPairs, indices: Sequence[int]) -> Batch:
    """The old `collate`, copied: a batch built from the per-sentence arrays."""
    src = old_pad([pairs.src[i] for i in indices])
    return Batch.from_padded(src, old_pad([pairs.tgt[i] for i in indices]))


def batch_sources(
    pairs: EncodedPairs, batches: list[np.ndarray]
) -> dict[str, Callable[[int], Batch]]:
    """Step k's batch, per arm: collated from the token-array files by mt's own EpochSteps, or
    from the list copy (made here, before any timing) with the old collate."""
    steps = step_batches(pairs, batches, world_size=1, rank=0, grad_accum=1)
    rows = np.unique(np.concatenate(batches))
    lists = to_lists(pairs, rows)
    local = [np.searchsorted(rows, indices) for indices in batches]  # row -> place in the copy
    return {
        MAPPED: lambda k: steps[k].micro_batches[0],
        LISTS: lambda k: old_collate(lists, local[k]),
    }


def check_same(sources: dict[str, Callable[[int], Batch]], count: int) -> None:
    """Both arms must feed the model the same tensors, or their ratio measures something else."""
    for k in range(count):
        mapped, lists = vars(sources[MAPPED](k)), vars(sources[LISTS](k))
        if not all(torch.equal(mapped[name], lists[name]) for name in mapped):
            raise SystemExit(f"A/B: batch {k} differs between {MAPPED} and {LISTS}")


def train_step(
    model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch, config: TrainConfig
) -> int:
    """One fp32 step as `mt train` takes it (masked loss / target tokens, Adam); its tokens."""
    logits = real_position_logits(model, batch)
    loss_sum, _ = masked_loss_terms(logits, batch.out_labels, config.label_smoothing)
    tokens = batch.target_tokens
    (loss_sum / tokens).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return tokens


@dataclass
class Arm:
    """One arm: its model and optimizer (same seed as the other's) and where its batches come
    from; `tokens` and `seconds` add up over the timed rounds."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    batch: Callable[[int], Batch]
    tokens: int = 0
    seconds: float = 0.0

    def run(self, steps: range, config: TrainConfig, device: torch.device) -> tuple[int, float]:
        """Collate and train `steps` (collation timed too); target tokens and seconds."""
        tokens, started = 0, time.perf_counter()
        for k in steps:
            tokens += train_step(self.model, self.optimizer, self.batch(k).to(device), config)
        if device.type == "cuda":
            torch.cuda.synchronize()
        return tokens, time.perf_counter() - started


def new_arm(config: RunConfig, batch: Callable[[int], Batch], device: torch.device) -> Arm:
    """A fresh model of the run config, seeded alike for both arms, and the trainer's Adam."""
    torch.manual_seed(config.train.seed)
    model = make_model(config.model).to(device).train()
    optimizer = torch.optim.Adam(
        model.parameters(),
        lr=learning_rate(1, config.train.lr, config.train.warmup),
        betas=(config.train.beta1, config.train.beta2),
        eps=1e-9,
    )
    return Arm(model, optimizer, batch)


def alternate(
    arms: dict[str, Arm], ab: ABSettings, rounds: int, config: TrainConfig, device: torch.device
) -> list[float]:
    """Warm both arms up, then time the same chunk of steps on each, the order swapped every
    round so that a drift in machine load favours neither; each round's tokens/s ratio."""
    for arm in arms.values():
        arm.run(range(ab.warmup), config, device)
    ratios: list[float] = []
    spent = 0.0
    while len(ratios) < rounds and (spent < ab.seconds or len(ratios) < MIN_ROUNDS):
        first = ab.warmup + len(ratios) * ab.steps
        rates = {}
        for name in list(arms)[:: 1 if len(ratios) % 2 == 0 else -1]:
            tokens, seconds = arms[name].run(range(first, first + ab.steps), config, device)
            arms[name].tokens += tokens
            arms[name].seconds += seconds
            spent += seconds
            rates[name] = tokens / seconds
        ratios.append(rates[MAPPED] / rates[LISTS])
    return ratios


def measure_sources(prepared_dir: Path, ab: ABSettings) -> ABResult:
    """The A/B on the first batches of epoch 0 of a prepared directory's training part."""
    started = time.perf_counter()
    torch.set_num_threads(ab.threads)
    device = resolve_device(ab.device)
    prepared = load_prepared(prepared_dir)
    config = new_run_config(
        src_vocab=prepared.source.vocab_size, tgt_vocab=prepared.target.vocab_size
    )
    limits = {"max_src_len": config.train.max_src_len, "max_tgt_len": config.train.max_tgt_len}
    pairs = prepared.encoded("train", **limits)
    batches = epoch_batches(pairs, config.train, epoch=0)[: ab.warmup + ab.max_rounds * ab.steps]
    rounds = (len(batches) - ab.warmup) // ab.steps
    if rounds < MIN_ROUNDS:
        raise SystemExit(f"{prepared_dir}: only {len(batches)} batches in an epoch")
    sources = batch_sources(pairs, batches)
    check_same(sources, len(batches))
    arms = {name: new_arm(config, batch, device) for name, batch in sources.items()}
    ratios = alternate(arms, ab, rounds, config.train, device)
    return ABResult(
        mapped_tokens_per_second=arms[MAPPED].tokens / arms[MAPPED].seconds,
        lists_tokens_per_second=arms[LISTS].tokens / arms[LISTS].seconds,
        round_ratios=ratios,
        timed_tokens=arms[MAPPED].tokens,
        mean_target_tokens=float(pairs.lengths()[1].mean()),
        seconds=time.perf_counter() - started,
    )
