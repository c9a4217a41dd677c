"""Selection during training: metrics rows, the best weights, and averaging of the last snapshots.

The best weights are those with the lowest selection loss seen so far; the average of the last
``average_last`` evaluation snapshots replaces them only when it scores better still.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from mt.metrics import evaluate_teacher_forced
from mt.model import make_model
from mt.rundir import save_weights

if TYPE_CHECKING:
    from mt.train import Trainer


def evaluate_and_save(
    trainer: Trainer, lr: float, *, end_of_epoch: bool = False, evaluate: bool = True
) -> None:
    """Selection metrics, a metrics row, weights and a resumable checkpoint; at an epoch's end
    also the count of epochs without a better selection loss, so one checkpoint holds it all."""
    progress = trainer.progress
    improved = False
    if evaluate:
        stats = evaluate_teacher_forced(
            trainer.model, trainer.data.selection, trainer.config, trainer.device
        )
        row = {
            "step": progress.step,
            "epoch": progress.epoch + progress.batch_in_epoch / max(1, trainer.steps_in_epoch),
            "lr": lr,
            "train_loss": progress.epoch_loss_sum / max(progress.epoch_count, 1),
            "train_accuracy": progress.epoch_correct / max(progress.epoch_count, 1),
            "selection_loss": stats.loss,
            "selection_accuracy": stats.accuracy,
            "tokens_per_second": trainer.reporter.tokens_per_second,
            "elapsed": progress.elapsed,
        }
        progress.history.append(row)
        trainer.reporter.evaluation(row)
        if stats.loss < progress.best_loss:
            progress.best_loss = stats.loss
            improved = True
            if trainer.dist.is_main:
                save_weights(trainer.run_dir / "best.safetensors", trainer.model)
        _keep_snapshot(trainer)
    if end_of_epoch:
        progress.epoch_loss_sum, progress.epoch_correct, progress.epoch_count = 0.0, 0, 0
        progress.bad_epochs = 0 if improved else progress.bad_epochs + 1
    trainer.save()


def _keep_snapshot(trainer: Trainer) -> None:
    if trainer.config.average_last < 2:
        return
    trainer.snapshots.append({k: v.detach().clone() for k, v in trainer.model.state_dict().items()})
    del trainer.snapshots[: -trainer.config.average_last]


def average_snapshots(trainer: Trainer) -> str:
    """Average the last evaluation snapshots; keep them as best if the selection loss improves."""
    if len(trainer.snapshots) < 2:
        return ""
    averaged = {
        name: torch.stack([s[name].float() for s in trainer.snapshots])
        .mean(0)
        .to(trainer.snapshots[-1][name].dtype)
        for name in trainer.snapshots[-1]
    }
    scratch = make_model(trainer.model.config).to(trainer.device)
    scratch.load_state_dict(averaged)
    stats = evaluate_teacher_forced(scratch, trainer.data.selection, trainer.config, trainer.device)
    if stats.loss < trainer.progress.best_loss and trainer.dist.is_main:
        save_weights(trainer.run_dir / "best.safetensors", scratch)
        return (
            f"average of the last {len(trainer.snapshots)} evaluations is best: "
            f"selection loss {stats.loss:.4f}, accuracy {stats.accuracy:.4f}"
        )
    return (
        f"average of the last {len(trainer.snapshots)} evaluations not better "
        f"(selection loss {stats.loss:.4f})"
    )
