"""Model selection during training: score on the selection part, keep the best weights (lowest
selection loss), keep the last snapshots and average them at the end if that scores better still.
The snapshots are kept on disk too, so that a run stopped and resumed averages the same weights as
one that never stopped.

With ``eval_sample`` a fixed, seeded sample decides (best, patience, averaging) and the rest is
scored only for the record at an epoch's end: confirming each new best on the whole part would cost
a full evaluation almost every time (28 s for 24k pairs on 2 cores; 3,000 pairs an eighth of that).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn

from mt.config import TrainConfig
from mt.data.feed.batching import EncodedPairs
from mt.errors import MtError
from mt.model.checkpoint import load_tensors
from mt.model.loss import TokenStats, evaluate_teacher_forced
from mt.model.rundir import save_weights, step_file, step_files
from mt.model.transformer import make_model
from mt.storage.files import BEST_WEIGHTS, SNAPSHOTS


class Selection:
    def __init__(
        self,
        *,
        data: EncodedPairs,
        config: TrainConfig,
        device: torch.device,
        run_dir: Path,
        writes: bool,
    ) -> None:
        self.data = data
        self.config = config
        self.device = device
        self.best_path = run_dir / BEST_WEIGHTS
        self.snapshot_dir = run_dir / SNAPSHOTS
        self.writes = writes  # only the main process of a torchrun job writes files
        self.snapshots: list[dict[str, Tensor]] = []
        count, wanted = len(data), config.eval_sample
        if 0 < wanted < count:
            chosen = np.zeros(count, dtype=bool)
            chosen[np.random.default_rng(config.seed).choice(count, wanted, replace=False)] = True
            self.sample, self.rest = np.flatnonzero(chosen), np.flatnonzero(~chosen)
        else:
            self.sample, self.rest = None, None

    @property
    def samples(self) -> bool:
        return self.sample is not None

    def score(self, model: nn.Module) -> TokenStats:
        """Teacher-forced loss and accuracy on the whole selection part."""
        if self.sample is None:
            return evaluate_teacher_forced(model, self.data, self.config, self.device)
        return self.score_sample(model) + self.score_rest(model)

    def score_sample(self, model: nn.Module) -> TokenStats:
        return evaluate_teacher_forced(model, self.data, self.config, self.device, self.sample)

    def score_decisive(self, model: nn.Module) -> TokenStats:
        """What best-weight decisions compare: the sample when there is one."""
        return self.score(model) if self.sample is None else self.score_sample(model)

    def score_rest(self, model: nn.Module) -> TokenStats:
        """The pairs outside the sample: added to the sample's sums they give the whole part's."""
        return evaluate_teacher_forced(model, self.data, self.config, self.device, self.rest)

    def save_best(self, model: nn.Module) -> None:
        if self.writes:
            save_weights(self.best_path, model)

    def keep_snapshot(self, model: nn.Module, step: int) -> None:
        """A copy of the weights, of which the last ``average_last`` are kept for averaging, in
        memory and on disk (for a resume)."""
        keep = self.config.average_last
        if keep < 2:
            return
        self.snapshots.append({k: v.detach().clone() for k, v in model.state_dict().items()})
        del self.snapshots[:-keep]
        if self.writes:
            save_weights(self._snapshot(step), model)
            for old in step_files(self.snapshot_dir, ".safetensors")[:-keep]:
                self._snapshot(old).unlink()

    def restore_snapshots(self, step: int) -> list[str]:
        """The snapshots a resumed run kept up to its checkpoint's ``step`` (a newer one, written
        before a crash cut its checkpoint short, is redone); a warning for each that won't load."""
        self.snapshots, warnings = [], []
        for saved in step_files(self.snapshot_dir, ".safetensors"):
            try:
                if saved > step and self.writes:
                    self._snapshot(saved).unlink(missing_ok=True)
                elif saved <= step and self.config.average_last >= 2:
                    tensors, _ = load_tensors(self._snapshot(saved))
                    self.snapshots.append({k: v.to(self.device) for k, v in tensors.items()})
            except (MtError, OSError) as error:
                warnings.append(f"skipping a snapshot for the final average: {error}")
        del self.snapshots[: -self.config.average_last or None]
        return warnings

    def _snapshot(self, step: int) -> Path:
        return step_file(self.snapshot_dir, step, ".safetensors")

    def average(self, model: nn.Module, best_loss: float) -> str:
        """Average the kept snapshots; save them as best if they beat ``best_loss``. Returns a
        note for the user, or "" when there was nothing to average."""
        if len(self.snapshots) < 2:
            return ""
        averaged = average_weights(self.snapshots)
        scratch = make_model(model.config).to(self.device)
        scratch.load_state_dict(averaged)
        stats = self.score_decisive(scratch)
        count = len(self.snapshots)
        if stats.loss < best_loss and self.writes:
            self.save_best(scratch)
            return (
                f"average of the last {count} evaluations is best: "
                f"selection loss {stats.loss:.4f}, accuracy {stats.accuracy:.4f}"
            )
        loss = f"{stats.loss:.4f}"
        return f"average of the last {count} evaluations not better (selection loss {loss})"


def average_weights(snapshots: list[dict[str, Tensor]]) -> dict[str, Tensor]:
    """The element-wise mean of state dicts (computed in float32, kept in each tensor's dtype)."""
    return {
        name: torch.stack([s[name].float() for s in snapshots])
        .mean(0)
        .to(snapshots[-1][name].dtype)
        for name in snapshots[-1]
    }
