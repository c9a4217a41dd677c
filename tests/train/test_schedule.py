"""The learning-rate schedule (mt.train.schedule); that a resumed run follows it exactly is
tests/train/test_trainer.py's."""

from __future__ import annotations

import numpy as np
import pytest

from mt.config import TrainConfig
from mt.train.schedule import budget_used, learning_rate


def test_schedule_rises_linearly_to_its_peak_then_decays_as_inverse_sqrt() -> None:
    lr, warmup = 0.5, 100
    rates = [learning_rate(t, lr, warmup) for t in range(1, 401)]
    peak = int(np.argmax(rates)) + 1
    assert peak == warmup
    assert rates[warmup - 1] == pytest.approx(lr * warmup**-0.5)
    assert learning_rate(50, lr, warmup) == pytest.approx(0.5 * learning_rate(100, lr, warmup))
    assert learning_rate(400, lr, warmup) == pytest.approx(0.5 * learning_rate(100, lr, warmup))


def test_budget_decay_rises_like_rsqrt_then_falls_linearly_to_zero() -> None:
    lr, warmup = 0.5, 100
    peak = lr * warmup**-0.5
    for step in (1, 50, 99):  # the same rise, whatever share of the budget is used
        assert learning_rate(step, lr, warmup, budget_used=0.0) == learning_rate(step, lr, warmup)
    assert learning_rate(warmup, lr, warmup, budget_used=0.0) == pytest.approx(peak)
    assert learning_rate(500, lr, warmup, budget_used=0.25) == pytest.approx(0.75 * peak)
    assert learning_rate(900, lr, warmup, budget_used=0.5) == pytest.approx(0.5 * peak)
    assert learning_rate(2000, lr, warmup, budget_used=1.0) == 0.0
    assert learning_rate(10, lr, warmup, budget_used=0.99) == pytest.approx(0.01 * peak)


def test_the_budget_used_is_the_further_along_of_steps_and_seconds() -> None:
    both = TrainConfig(lr_decay="budget", max_steps=100, time_budget=60.0)
    assert budget_used(both, 25, clock=6.0) == pytest.approx(0.25)  # steps further along
    assert budget_used(both, 25, clock=30.0) == pytest.approx(0.5)  # the clock further along
    assert budget_used(TrainConfig(lr_decay="budget", time_budget=60.0), 90, 15.0) == 0.25
    assert budget_used(TrainConfig(max_steps=100), 50, 0.0) is None  # rsqrt: no budget to meet
