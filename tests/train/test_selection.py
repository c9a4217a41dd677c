"""Selection during training: best weights, epochs without improvement, snapshot averaging."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from mt.model.checkpoint import load_tensors
from mt.model.loss import evaluate_teacher_forced
from mt.train.trainer import Trainer
from train_support import copy_task, make_trainer


def selection_loss(trainer: Trainer) -> float:
    data, config = trainer.data.selection, trainer.config
    return evaluate_teacher_forced(trainer.model, data, config, trainer.device).loss


def test_best_weights_follow_the_lowest_selection_loss(tmp_path: Path) -> None:
    trainer = make_trainer(tmp_path, copy_task(40, seed=1))
    trainer.evaluate_and_save(end_of_epoch=True)
    first = load_tensors(tmp_path / "best.safetensors")[0]
    assert trainer.progress.best_loss == pytest.approx(selection_loss(trainer))
    assert trainer.progress.bad_epochs == 0

    with torch.no_grad():  # a worse model: the best weights and loss must stay
        for parameter in trainer.model.parameters():
            parameter.add_(torch.randn_like(parameter))
    assert selection_loss(trainer) > trainer.progress.best_loss
    trainer.evaluate_and_save(end_of_epoch=True)
    kept = load_tensors(tmp_path / "best.safetensors")[0]
    assert all(torch.equal(first[name], kept[name]) for name in first)
    assert trainer.progress.bad_epochs == 1
    assert len(trainer.progress.history) == 2


def test_only_the_last_snapshots_are_kept_as_copies(tmp_path: Path) -> None:
    trainer = make_trainer(tmp_path, copy_task(20, seed=2), average_last=2)
    weight = next(iter(trainer.model.parameters()))
    for value in (1.0, 2.0, 3.0):
        with torch.no_grad():
            weight.fill_(value)
        trainer.selection.keep_snapshot(trainer.model)
    snapshots = trainer.selection.snapshots
    assert len(snapshots) == 2
    name = next(iter(trainer.model.state_dict()))
    assert [float(s[name].flatten()[0]) for s in snapshots] == [2.0, 3.0]


def test_the_average_replaces_the_best_weights_only_when_it_scores_better(tmp_path: Path) -> None:
    data = copy_task(40, seed=3)
    trainer = make_trainer(tmp_path, data, average_last=2, max_steps=30, max_epochs=10)
    trainer.train()
    snapshots = trainer.selection.snapshots
    assert len(snapshots) == 2
    expected = {name: (snapshots[0][name] + snapshots[1][name]) / 2 for name in snapshots[0]}

    before = load_tensors(tmp_path / "best.safetensors")[0]
    assert "not better" in trainer.selection.average(trainer.model, best_loss=-math.inf)
    after = load_tensors(tmp_path / "best.safetensors")[0]
    assert all(torch.equal(before[name], after[name]) for name in before)

    assert "is best" in trainer.selection.average(trainer.model, best_loss=math.inf)
    best = load_tensors(tmp_path / "best.safetensors")[0]
    for name, tensor in expected.items():
        torch.testing.assert_close(best[name], tensor)


def test_no_average_without_two_snapshots(tmp_path: Path) -> None:
    trainer = make_trainer(tmp_path, copy_task(20, seed=4), average_last=0)
    trainer.selection.keep_snapshot(trainer.model)
    assert trainer.selection.snapshots == []
    assert trainer.selection.average(trainer.model, best_loss=math.inf) == ""
