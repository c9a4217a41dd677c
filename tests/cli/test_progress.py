"""The training bar fills per epoch, or over the whole run with the time left under a step limit."""

from __future__ import annotations

import io
import re

from rich.console import Console
from rich.progress import TimeRemainingColumn

from mt.cli.progress import RichReporter


def reporter(max_steps: int = 0) -> tuple[RichReporter, io.StringIO]:
    out = io.StringIO()
    return RichReporter(
        Console(file=out, force_terminal=True, color_system=None, width=200), max_steps=max_steps
    ), out


def completed(rich: RichReporter) -> tuple[float, float | None]:
    task = rich.bar.tasks[0]
    return task.completed, task.total


def test_a_step_limit_counts_the_whole_run_and_shows_time_left() -> None:
    rich, out = reporter(max_steps=100)
    assert any(isinstance(column, TimeRemainingColumn) for column in rich.bar.columns)
    rich.start_epoch(1, 30, 0)
    rich.advance(30, 2.0, 0.4, 1e-3, 900.0)
    assert completed(rich) == (30, 100)
    rich.start_epoch(2, 30, 0)
    assert completed(rich) == (30, 100)  # a new epoch does not restart the bar
    rich.advance(12, 1.5, 0.5, 1e-3, 900.0)
    assert completed(rich) == (42, 100)
    rich.bar.refresh()
    shown = [frame for frame in re.split(r"[\r\n]", out.getvalue()) if "epoch" in frame][-1]
    assert "epoch 2" in shown and " 42/100 " in shown and shown.rstrip().endswith(" left")
    rich.close()


def test_a_resumed_run_with_a_step_limit_starts_where_it_stopped() -> None:
    rich, _ = reporter(max_steps=100)
    rich.start_epoch(3, 30, 5)  # two whole epochs and 5 steps of the third were done before
    assert completed(rich) == (65, 100)
    rich.advance(30, 1.0, 0.6, 1e-3, 900.0)
    rich.start_epoch(4, 30, 0)
    rich.advance(20, 1.0, 0.6, 1e-3, 900.0)
    assert completed(rich) == (100, 100)  # never past the limit
    rich.close()


def test_without_a_step_limit_the_bar_fills_once_per_epoch() -> None:
    rich, _ = reporter()
    assert not any(isinstance(column, TimeRemainingColumn) for column in rich.bar.columns)
    rich.start_epoch(1, 30, 0)
    rich.advance(30, 2.0, 0.4, 1e-3, 900.0)
    rich.start_epoch(2, 25, 0)
    rich.advance(10, 2.0, 0.4, 1e-3, 900.0)
    assert completed(rich) == (10, 25)
    rich.close()
