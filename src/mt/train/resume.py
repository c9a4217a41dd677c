"""What makes a training run resumable exactly, and the checkpoint that holds it.

A checkpoint holds the weights, the optimizer, rank 0's random state and `Progress`, so a run
stopped and resumed trains bit for bit as one that never stopped. Other ranks draw dropout from a
stream of their own (`own_dropout_stream`), and a checkpoint records how many batches a step takes,
so a run resumed on another number of processes keeps the same steps (`grad_accum_keeping_steps`).
The files themselves are mt.model.rundir's.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from torch import nn

from mt.errors import MtError
from mt.model.checkpoint import optimizer_from_tensors, optimizer_to_tensors
from mt.model.precision import machine_id
from mt.model.rundir import (
    MODEL_PREFIX,
    load_latest_checkpoint,
    model_tensors,
    save_checkpoint,
    save_weights,
    write_metrics,
)
from mt.storage.files import LAST_WEIGHTS


@dataclass
class Progress:
    """Counters that, with the weights, optimizer and RNG, make a run resumable exactly."""

    step: int = 0
    epoch: int = 0  # completed epochs
    batch_in_epoch: int = 0  # optimizer steps done in the current epoch
    elapsed: float = 0.0
    eval_seconds: float = 0.0  # of `elapsed`, spent in selection evaluations: the rest trained
    best_loss: float = math.inf
    bad_epochs: int = 0
    epoch_loss_sum: float = 0.0
    epoch_correct: int = 0
    epoch_count: int = 0
    skipped: int = 0  # batches skipped for a non-finite loss, counted against --skip-nonfinite
    source_tokens: int = 0  # real tokens trained on, all processes (an older run: since resumed)
    target_tokens: int = 0
    history: list[dict[str, float]] = field(default_factory=list)


def save_run_state(
    run_dir: Path,
    *,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    progress: Progress,
    device: torch.device,
    batches_per_step: int,
    precision: str,
) -> None:
    """A checkpoint at `progress.step`, the last weights and metrics.csv; the caller is the one
    process that writes files."""
    optimizer_tensors, optimizer_rest = optimizer_to_tensors(optimizer.state_dict())
    state = {
        "progress": asdict(progress),
        "optimizer": optimizer_rest,
        "batches_per_step": batches_per_step,
        "precision": {"mode": precision, "machine": machine_id()},
    }
    tensors = {MODEL_PREFIX + k: v for k, v in model.state_dict().items()}
    tensors.update(optimizer_tensors)
    tensors["rng.cpu"] = torch.get_rng_state()
    if device.type == "cuda":
        tensors["rng.cuda"] = torch.cuda.get_rng_state(device)
    save_checkpoint(run_dir, progress.step, tensors, state)
    save_weights(run_dir / LAST_WEIGHTS, model)
    write_metrics(run_dir, progress.history)


def restore_run_state(
    run_dir: Path, *, model: nn.Module, optimizer: torch.optim.Optimizer, device: torch.device
) -> tuple[Progress, int | None, list[str]]:
    """Load the newest good checkpoint into `model` and `optimizer` and set the random state from
    it; returns its progress, the batches its steps took (None: an older run) and any warnings."""
    tensors, state, warnings = load_latest_checkpoint(run_dir, model.state_dict())
    model.load_state_dict(model_tensors(tensors))
    optimizer.load_state_dict(optimizer_from_tensors(tensors, state["optimizer"]))
    torch.set_rng_state(tensors["rng.cpu"])
    if device.type == "cuda" and "rng.cuda" in tensors:
        torch.cuda.set_rng_state(tensors["rng.cuda"], device)
    return Progress(**state["progress"]), state.get("batches_per_step"), warnings


def grad_accum_keeping_steps(
    saved: int | None, *, world_size: int, grad_accum: int, run_dir: Path
) -> tuple[int, list[str]]:
    """The grad_accum with which `world_size` processes take a step's `saved` batches, and a note
    when that changes it; an MtError where they cannot share them evenly."""
    if saved is None or saved == world_size * grad_accum:
        return grad_accum, []
    if saved % world_size:
        raise MtError(
            f"{run_dir}: each step of this run takes {saved} batches, which {world_size} "
            f"processes cannot share evenly; resume on a number of processes dividing {saved}"
        )
    grad_accum = saved // world_size
    return grad_accum, [
        f"{world_size} process(es) share each step's {saved} batches: "
        f"--grad-accum {grad_accum} for this resumed run"
    ]


def own_dropout_stream(*, seed: int, rank: int, step: int) -> None:
    """Ranks other than 0 reseed, so they don't draw rank 0's dropout masks (checkpoints hold
    rank 0's random state only); one process keeps its stream untouched."""
    if rank:
        torch.manual_seed(seed + 1_000_003 * rank + step)
