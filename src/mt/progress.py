"""How training reports itself: a rich bar per epoch and a table row per evaluation, or nothing."""

from __future__ import annotations

from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class Reporter(Protocol):
    tokens_per_second: float

    def start_epoch(self, epoch: int, steps: int, done: int) -> None: ...
    def advance(
        self, done: int, loss: float, accuracy: float, lr: float, tokens_per_second: float
    ) -> None: ...
    def evaluation(self, row: dict[str, float]) -> None: ...
    def message(self, text: str) -> None: ...
    def close(self) -> None: ...


class SilentReporter:
    """For tests and for non-zero ranks."""

    def __init__(self) -> None:
        self.tokens_per_second = 0.0
        self.messages: list[str] = []

    def start_epoch(self, epoch: int, steps: int, done: int) -> None:
        pass

    def advance(
        self, done: int, loss: float, accuracy: float, lr: float, tokens_per_second: float
    ) -> None:
        self.tokens_per_second = tokens_per_second

    def evaluation(self, row: dict[str, float]) -> None:
        pass

    def message(self, text: str) -> None:
        self.messages.append(text)

    def close(self) -> None:
        pass


class RichReporter:
    """Progress bar with running loss, accuracy, learning rate and target tokens/s.

    Without a step limit the bar fills once per epoch. With ``max_steps`` it counts the whole
    run's steps and shows the time left, so a fixed-step run (`make demo`) says when it ends.
    """

    HEADER = "  step  epoch  train loss  train acc  sel. loss  sel. acc    tok/s  elapsed"

    def __init__(self, console: Console, *, max_steps: int = 0) -> None:
        self.console = console
        self.tokens_per_second = 0.0
        self.max_steps = max_steps
        self.steps_before = 0  # steps of the epochs already finished
        self.epoch_steps = 0
        remaining = [TextColumn("•"), TimeRemainingColumn(), TextColumn("left")]
        self.bar = Progress(
            TextColumn("epoch {task.fields[epoch]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "loss {task.fields[loss]:.3f} acc {task.fields[acc]:.3f} "
                "lr {task.fields[lr]:.2e} {task.fields[tps]:,.0f} tok/s"
            ),
            TimeElapsedColumn(),
            *(remaining if max_steps else []),
            console=console,
            transient=True,
        )
        self.task = None
        self.header_shown = False

    def start_epoch(self, epoch: int, steps: int, done: int) -> None:
        # reset() replaces every field, so each one the columns show is given again.
        fields = {"epoch": epoch, "loss": 0.0, "acc": 0.0, "lr": 0.0, "tps": 0.0}
        if self.task is None:
            # Earlier epochs of a resumed run had as many steps as this one (exact for sentence
            # batches, close for token batches).
            self.steps_before, self.epoch_steps = (epoch - 1) * steps, steps
            self.bar.start()
            total, completed = self.max_steps or steps, self._run_step(done)
            self.task = self.bar.add_task("train", total=total, completed=completed, **fields)
            return
        self.steps_before, self.epoch_steps = self.steps_before + self.epoch_steps, steps
        if self.max_steps:  # no reset: it would forget the speed that estimates the time left
            self.bar.update(self.task, completed=self._run_step(done), epoch=epoch)
        else:
            self.bar.reset(self.task, total=steps, completed=done, **fields)

    def _run_step(self, done: int) -> int:
        """What the bar counts: steps of the run with a step limit, else of the epoch."""
        return min(self.steps_before + done, self.max_steps) if self.max_steps else done

    def advance(
        self, done: int, loss: float, accuracy: float, lr: float, tokens_per_second: float
    ) -> None:
        self.tokens_per_second = tokens_per_second
        if self.task is not None:
            step = self._run_step(done)
            self.bar.update(
                self.task, completed=step, loss=loss, acc=accuracy, lr=lr, tps=tokens_per_second
            )

    def evaluation(self, row: dict[str, float]) -> None:
        if not self.header_shown:
            self.bar.console.print(self.HEADER, style="bold")
            self.header_shown = True
        self.bar.console.print(
            f"{row['step']:>6.0f} {row['epoch']:>6.2f} {row['train_loss']:>11.4f}"
            f" {row['train_accuracy']:>10.4f}"
            f" {row['selection_loss']:>10.4f} {row['selection_accuracy']:>9.4f}"
            f" {row['tokens_per_second']:>8,.0f}"
            f" {row['elapsed']:>7.0f}s",
            highlight=False,
        )

    def message(self, text: str) -> None:
        self.bar.console.print(text, highlight=False, soft_wrap=True)  # one line, paths unbroken

    def close(self) -> None:
        if self.task is not None:
            self.bar.stop()
