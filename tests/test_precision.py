"""--precision bf16/fp16 (autocast, a loss scaler for fp16) and --compile, on the CPU."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from torch import nn

from mt.config import ConfigError, TrainConfig
from mt.metrics import evaluate_teacher_forced
from mt.train import Trainer
from test_train import copy_task, epoch_steps, make_trainer


def linear_output_dtypes(trainer: Trainer) -> set[torch.dtype]:
    """Dtypes the model's linear layers compute in during training."""
    seen: set[torch.dtype] = set()
    for module in trainer.model.modules():
        if isinstance(module, nn.Linear):
            module.register_forward_hook(lambda _m, _i, output: seen.add(output.dtype))
    return seen


def train_steps(tmp_path: Path, precision: str, steps: int = 4) -> Trainer:
    """A few optimizer steps in ``precision``, checking it is the dtype the layers compute in."""
    data = copy_task(40, seed=7)
    trainer = make_trainer(tmp_path / precision, data, precision=precision, lr=0.01, warmup=1)
    dtypes = linear_output_dtypes(trainer)
    for step in epoch_steps(trainer)[:steps]:
        loss, _, finite = trainer.train_step(step)
        assert finite and torch.isfinite(loss)
    expected = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    assert dtypes == {expected}
    assert all(p.dtype == torch.float32 for p in trainer.model.parameters()), "master weights"
    return trainer


def selection_loss(trainer: Trainer) -> float:
    data, config = trainer.data.selection, trainer.config
    return evaluate_teacher_forced(trainer.model, data, config, trainer.device).loss


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_half_precision_on_cpu_trains_close_to_fp32(tmp_path: Path, precision: str) -> None:
    reference = train_steps(tmp_path, "fp32")
    trainer = train_steps(tmp_path, precision)
    untrained = make_trainer(tmp_path / "untrained", reference.data)
    assert selection_loss(reference) < selection_loss(untrained) - 0.3, "the steps must learn"
    assert selection_loss(trainer) == pytest.approx(selection_loss(reference), abs=0.05)
    # fp16 needs a loss scale against gradient underflow; bf16 has fp32's range and needs none.
    assert trainer.scaler.is_enabled() == (precision == "fp16")


def test_unknown_precision_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown --precision 'fp8'"):
        TrainConfig(precision="fp8")  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("MT_COMPILE_TESTS") != "1",
    reason="compiling takes 20-40 s on 2 CPU cores; run with MT_COMPILE_TESTS=1",
)
def test_compiled_training_follows_eager_training(tmp_path: Path) -> None:
    """torch.compile (with a C compiler, inductor on the CPU) computes the same steps."""
    data = copy_task(40, seed=8)
    eager = make_trainer(tmp_path / "eager", data, max_steps=2)
    compiled = make_trainer(tmp_path / "compiled", data, max_steps=2, compile=True)
    assert compiled.forward is not compiled.model
    eager.train()
    compiled.train()
    for row, expected in zip(compiled.progress.history, eager.progress.history, strict=True):
        assert row["train_loss"] == pytest.approx(expected["train_loss"], rel=1e-5)
        assert row["selection_loss"] == pytest.approx(expected["selection_loss"], rel=1e-4)
