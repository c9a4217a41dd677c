"""A tiny training set-up that several test modules share: the copy task and a Trainer on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from mt.config import ModelConfig, TrainConfig
from mt.data.feed.batching import StepBatch, TrainData, encode_pairs, epoch_batches, step_batches
from mt.train.distributed import Distributed
from mt.train.reporting import SilentReporter
from mt.train.trainer import Trainer


def copy_task(count: int, seed: int) -> TrainData:
    """Target = source: the smallest task a working model must learn perfectly."""
    rng = np.random.default_rng(seed)
    sentences = [list(rng.integers(4, 14, size=rng.integers(2, 7))) for _ in range(count)]
    encoded = encode_pairs(sentences, sentences, max_src_len=10, max_tgt_len=10)
    return TrainData(train=encoded, selection=encoded)


def make_trainer(
    run_dir: Path,
    data: TrainData,
    dropout: float = 0.0,
    *,
    model: ModelConfig | None = None,
    dist: Distributed | None = None,
    peak_tflops: float | None = None,
    **changes: object,
) -> Trainer:
    """A CPU trainer for the copy task; tests change the model, process group, peak or
    settings."""
    model_config = model or ModelConfig(
        src_vocab=14, tgt_vocab=14, d_model=32, ff=64, heads=4, layers=1, dropout=dropout
    )
    values: dict[str, object] = dict(
        lr=0.02, warmup=50, batch_size=16, max_src_len=10, max_tgt_len=10, accuracy_goal=1.0
    )
    values.update(changes)
    return Trainer(
        model_config=model_config,
        config=TrainConfig(**values),
        data=data,
        run_dir=run_dir,
        device=torch.device("cpu"),
        reporter=SilentReporter(),
        dist=dist or Distributed(),
        peak_tflops=peak_tflops,
    )


def epoch_steps(trainer: Trainer, epoch: int = 0) -> list[StepBatch]:
    """The optimizer steps of one epoch as the trainer's loop builds them (one process)."""
    batches = epoch_batches(trainer.data.train, trainer.config, epoch)
    grad_accum = trainer.config.grad_accum
    return step_batches(trainer.data.train, batches, world_size=1, rank=0, grad_accum=grad_accum)
