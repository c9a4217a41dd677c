"""The learning-rate schedule: a pure function of the step (and, for --lr-decay budget, of the
share of the budget spent), so a resumed run recomputes exactly the rate it would have used."""

from __future__ import annotations

from mt.config import TrainConfig


def learning_rate(step: int, lr: float, warmup: int, *, budget_used: float | None = None) -> float:
    """η_t = η0·min(t^-0.5, t·t_w^-1.5): linear rise to η0/sqrt(t_w) at t_w, then t^-0.5 decay.

    With `budget_used` (the share of the step or time budget spent, --lr-decay budget/auto) the same
    rise meets a line from that peak down to 0 at the end of the budget: a run whose length is
    known in advance anneals fully instead of stopping at a still-high rate."""
    step = max(step, 1)
    if budget_used is None:
        return lr * min(step**-0.5, step * warmup**-1.5)
    left = min(max(1.0 - budget_used, 0.0), 1.0)
    return lr * min(step * warmup**-1.5, warmup**-0.5 * left)


def budget_used(config: TrainConfig, step: int, clock: float) -> float | None:
    """The share of the budget spent, for --lr-decay budget: `step`s done, or the seconds `clock`
    (rank 0's, as last agreed, so every rank uses the same rate), whichever is further along.
    None when the rate does not decay to a budget."""
    if not config.decays_to_budget:
        return None
    used = step / config.max_steps if config.max_steps else 0.0
    if config.time_budget:
        used = max(used, clock / config.time_budget)
    return used
