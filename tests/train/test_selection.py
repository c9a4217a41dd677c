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


def test_a_sample_scores_mid_epoch_and_the_whole_part_where_it_decides(tmp_path: Path) -> None:
    """--eval-sample: a seeded sample's sums plus the rest's are the whole part's; a mid-epoch
    evaluation that does not beat the sample's best scores the sample alone and never moves the
    best weights, an epoch's end and the end of training always score everything."""
    data = copy_task(120, seed=2)
    trainer = make_trainer(tmp_path, data, eval_sample=10)
    whole = len(trainer.selection.data)
    assert len(trainer.selection.sample) == 10 < whole
    sample = trainer.selection.score_sample(trainer.model)
    combined = sample + trainer.selection.score_rest(trainer.model)
    assert combined.loss == pytest.approx(selection_loss(trainer), abs=1e-5)  # other batches
    assert combined.count == trainer.selection.score(trainer.model).count

    trainer.evaluate_and_save()  # the first sample is a new best: the whole part decides
    trainer.evaluate_and_save()  # same weights: no better sample, so the sample alone
    trainer.evaluate_and_save(end_of_epoch=True)
    trainer.evaluate_and_save(final=True)
    pairs = [row["selection_pairs"] for row in trainer.progress.history]
    assert pairs == [whole, 10, whole, whole]
    assert trainer.progress.best_loss == pytest.approx(selection_loss(trainer))
    again = make_trainer(tmp_path / "again", data, eval_sample=10)
    assert (again.selection.sample == trainer.selection.sample).all(), "a function of the seed"


def test_a_sample_figure_never_replaces_the_best_weights(tmp_path: Path) -> None:
    trainer = make_trainer(tmp_path, copy_task(120, seed=5), eval_sample=10)
    trainer.progress.best_sample_loss = -math.inf  # no sample beats it: the sample alone
    trainer.evaluate_and_save()
    assert trainer.progress.history[-1]["selection_pairs"] == 10
    assert trainer.progress.best_loss == math.inf, "set only by a whole-part figure"
    assert not (tmp_path / "best.safetensors").exists()
