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
    for step, value in enumerate((1.0, 2.0, 3.0), start=1):
        with torch.no_grad():
            weight.fill_(value)
        trainer.selection.keep_snapshot(trainer.model, step)
    snapshots = trainer.selection.snapshots
    assert len(snapshots) == 2
    name = next(iter(trainer.model.state_dict()))
    assert [float(s[name].flatten()[0]) for s in snapshots] == [2.0, 3.0]
    on_disk = sorted(p.name for p in (tmp_path / "snapshots").iterdir())
    assert on_disk == ["step-00000002.safetensors", "step-00000003.safetensors"]


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
    trainer.selection.keep_snapshot(trainer.model, 1)
    assert trainer.selection.snapshots == []
    assert not (tmp_path / "snapshots").exists()
    assert trainer.selection.average(trainer.model, best_loss=math.inf) == ""


def test_a_sample_decides_and_the_whole_part_is_scored_for_the_record(tmp_path: Path) -> None:
    """--eval-sample: a seeded sample's sums plus the rest's are the whole part's; mid-epoch the
    sample alone is scored, an epoch's end and the end of training add the rest for the record;
    the best weights follow the sample's loss every time, so like is compared with like."""
    data = copy_task(120, seed=2)
    trainer = make_trainer(tmp_path, data, eval_sample=10)
    selection = trainer.selection
    whole = len(selection.data)
    assert len(selection.sample) == 10 < whole
    sample = selection.score_sample(trainer.model)
    combined = sample + selection.score_rest(trainer.model)
    assert combined.loss == pytest.approx(selection_loss(trainer), abs=1e-5)  # other batches
    assert combined.count == selection.score(trainer.model).count

    trainer.evaluate_and_save()
    trainer.evaluate_and_save(end_of_epoch=True)
    trainer.evaluate_and_save(final=True)
    assert [row["selection_pairs"] for row in trainer.progress.history] == [10, whole, whole]
    assert trainer.progress.history[0]["selection_loss"] == pytest.approx(sample.loss)
    assert trainer.progress.history[1]["selection_loss"] == pytest.approx(combined.loss)
    assert trainer.progress.best_loss == pytest.approx(sample.loss), "the sample decides"
    assert trainer.progress.bad_epochs == 1  # the same weights at the epoch's end: no better
    again = make_trainer(tmp_path / "again", data, eval_sample=10)
    assert (again.selection.sample == selection.sample).all(), "a function of the seed"


def test_without_a_sample_the_whole_part_decides(tmp_path: Path) -> None:
    trainer = make_trainer(tmp_path, copy_task(120, seed=5))
    assert not trainer.selection.samples
    trainer.evaluate_and_save()
    whole = len(trainer.selection.data)
    assert trainer.progress.history[-1]["selection_pairs"] == whole
    assert trainer.progress.best_loss == pytest.approx(selection_loss(trainer))


def test_a_resumed_run_averages_the_snapshots_kept_before_it_stopped(tmp_path: Path) -> None:
    """The snapshots live on disk: an interrupted run, resumed, averages the same weights as one
    that never stopped; one written after the checkpoint (a crash between them) is dropped."""
    data = copy_task(60, seed=7)
    settings = dict(average_last=3, max_steps=20, eval_every=4, max_epochs=10)
    straight = make_trainer(tmp_path / "straight", data, **settings)
    straight.train()

    first = make_trainer(tmp_path / "resumed", data, **{**settings, "max_steps": 12})
    first.train()
    stray = tmp_path / "resumed" / "snapshots" / "step-00000099.safetensors"
    stray.write_bytes(
        (tmp_path / "resumed" / "snapshots" / "step-00000012.safetensors").read_bytes()
    )
    second = make_trainer(tmp_path / "resumed", data, **settings)
    assert second.restore() == []
    assert len(second.selection.snapshots) == 3
    assert not stray.exists()
    second.train()
    assert len(second.selection.snapshots) == len(straight.selection.snapshots) == 3
    for ours, theirs in zip(second.selection.snapshots, straight.selection.snapshots, strict=True):
        assert all(torch.equal(ours[name], theirs[name]) for name in theirs)
    for name, tensor in load_tensors(tmp_path / "straight" / "best.safetensors")[0].items():
        assert torch.equal(tensor, load_tensors(tmp_path / "resumed" / "best.safetensors")[0][name])


def test_a_damaged_snapshot_is_skipped_with_a_warning(tmp_path: Path) -> None:
    data = copy_task(40, seed=8)
    make_trainer(tmp_path, data, average_last=3, max_steps=8, eval_every=4).train()
    kept = sorted((tmp_path / "snapshots").iterdir())
    assert len(kept) == 3
    kept[0].write_bytes(b"not weights")
    resumed = make_trainer(tmp_path, data, average_last=3, max_steps=12, eval_every=4)
    warnings = resumed.restore()
    assert len(warnings) == 1 and "skipping a snapshot" in warnings[0], warnings
    assert kept[0].name in warnings[0]
    assert len(resumed.selection.snapshots) == 2
