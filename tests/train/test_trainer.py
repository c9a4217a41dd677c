from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from mt.config import TrainConfig
from mt.data.feed.batching import StepBatch
from mt.data.tokenization import PAD
from mt.errors import MtError
from mt.model.loss import masked_loss_terms
from mt.storage.files import read_metrics
from mt.train.throughput import RATE_COLUMNS
from train_support import copy_task, make_trainer


def test_loss_and_accuracy_ignore_padding() -> None:
    # Two positions are real, the third is padding and must not count.
    logits = torch.log(
        torch.tensor([[[0.7, 0.1, 0.1, 0.1], [0.1, 0.2, 0.6, 0.1], [0.0, 0.0, 0.0, 1.0]]])
    )
    target = torch.tensor([[0, 3, PAD]])
    target[0, 0] = 1  # first position: target 1 (p=0.1, argmax 0: wrong)
    target[0, 1] = 2  # second position: target 2 (p=0.6, argmax 2: right)
    logits[0, 2] = torch.log(torch.tensor([0.01, 0.97, 0.01, 0.01]))
    mask = target != PAD  # as the trainer selects real positions: tgt_out[tgt_mask]
    loss_sum, correct = masked_loss_terms(logits[mask], target[mask])
    loss, accuracy = float(loss_sum) / int(mask.sum()), int(correct) / int(mask.sum())
    assert loss == pytest.approx((-np.log(0.1) - np.log(0.6)) / 2, rel=1e-5)
    assert accuracy == pytest.approx(0.5)


def test_tiny_model_learns_the_copy_task(tmp_path) -> None:
    trainer = make_trainer(tmp_path, copy_task(200, seed=0), max_epochs=60)
    reason = trainer.train()
    final = read_metrics(tmp_path)[-1]
    assert final["selection_accuracy"] == 1.0, reason
    assert "reached the goal" in reason


def test_resume_gives_bitwise_the_same_weights(tmp_path) -> None:
    data = copy_task(100, seed=1)
    straight = make_trainer(tmp_path / "straight", data, max_steps=25, eval_every=7)
    straight.train()

    first = make_trainer(tmp_path / "resumed", data, max_steps=11, eval_every=7)
    first.train()
    second = make_trainer(tmp_path / "resumed", data, max_steps=25, eval_every=7)
    second.restore()
    assert second.progress.step == 11
    second.train()

    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(tensor, second.model.state_dict()[name]), name
    timing = {"tokens_per_second", "elapsed", "eval_seconds", *RATE_COLUMNS}

    def by_step(run: str) -> dict[float, dict[str, float]]:
        rows = read_metrics(tmp_path / run)
        return {r["step"]: {k: v for k, v in r.items() if k not in timing} for r in rows}

    straight_rows, resumed_rows = by_step("straight"), by_step("resumed")
    assert set(resumed_rows) == set(straight_rows) | {11.0}  # the stop at step 11 evaluated too
    for step, row in straight_rows.items():
        assert resumed_rows[step] == row, step


def test_a_stop_on_an_epochs_last_step_is_its_end_and_is_not_evaluated_again(tmp_path) -> None:
    # A budget spent on the epoch's last step: the resumed run must not evaluate that step a
    # second time (it did, as its epoch's end, when the stop had evaluated it already).
    data = copy_task(100, seed=1)
    per_epoch = len(make_trainer(tmp_path / "probe", data)._epoch_steps())
    straight = make_trainer(tmp_path / "straight", data, max_steps=per_epoch + 2)
    straight.train()
    first = make_trainer(tmp_path / "resumed", data, max_steps=per_epoch)
    first.train()
    assert first.progress.epoch == 1 and first.progress.batch_in_epoch == 0
    second = make_trainer(tmp_path / "resumed", data, max_steps=per_epoch + 2)
    second.restore()
    second.train()
    steps = [row["step"] for row in read_metrics(tmp_path / "resumed")]
    assert steps == [row["step"] for row in read_metrics(tmp_path / "straight")]
    assert steps == [per_epoch, per_epoch + 2]
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(tensor, second.model.state_dict()[name]), name


def test_dropout_and_label_smoothing_resume_exactly(tmp_path) -> None:
    data = copy_task(60, seed=2)
    changes = {"label_smoothing": 0.1}
    straight = make_trainer(tmp_path / "a", data, max_steps=12, dropout=0.3, **changes)
    straight.train()
    first = make_trainer(tmp_path / "b", data, max_steps=5, dropout=0.3, **changes)
    first.train()
    second = make_trainer(tmp_path / "b", data, max_steps=12, dropout=0.3, **changes)
    second.restore()
    second.train()
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(tensor, second.model.state_dict()[name]), name


def test_budget_decay_follows_the_step_budget_and_resumes_exactly(tmp_path) -> None:
    data = copy_task(100, seed=1)
    decay = {"lr_decay": "budget", "max_steps": 20, "eval_every": 7}
    straight = make_trainer(tmp_path / "straight", data, **decay)
    rates = []
    original = straight.train_step

    def recording(step: StepBatch):
        result = original(step)
        rates.append(straight.lr)
        return result

    straight.train_step = recording
    straight.train()
    peak = 0.02 * 50**-0.5  # step t has spent (t - 1) / 20 of the budget
    expected = [min(0.02 * t * 50**-1.5, peak * (1 - (t - 1) / 20)) for t in range(1, 21)]
    assert rates == pytest.approx(expected)
    assert rates[-1] == pytest.approx(peak / 20)  # the line, not the rise, at the end

    first = make_trainer(tmp_path / "resumed", data, **decay)
    stop_at_step_9 = first._stop_after_step

    def interrupt():
        first.interrupted = first.progress.step == 9
        return stop_at_step_9()

    first._stop_after_step = interrupt
    with pytest.raises(MtError, match="interrupted at step 9"):
        first.train()
    second = make_trainer(tmp_path / "resumed", data, **decay)
    second.restore()
    second.train()
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(tensor, second.model.state_dict()[name]), name


def test_budget_decay_needs_a_budget() -> None:
    with pytest.raises(MtError, match="--lr-decay budget needs --time-budget or --max-steps"):
        TrainConfig(lr_decay="budget")


def test_metrics_say_how_much_of_the_elapsed_time_went_to_evaluations(tmp_path) -> None:
    trainer = make_trainer(tmp_path, copy_task(100, seed=3), max_steps=12, eval_every=4)
    trainer.train()
    rows = read_metrics(tmp_path)
    spent = [row["eval_seconds"] for row in rows]
    assert spent[0] == 0 and all(a < b for a, b in itertools.pairwise(spent))  # before each row
    assert all(row["eval_seconds"] < row["elapsed"] for row in rows[1:])
    assert trainer.progress.eval_seconds > spent[-1]  # the last evaluation counted too
