"""The rich progress bars of the command line: training, `mt prepare`'s stages, `mt download
--recipe`'s downloads and a long document. A stream's stage shows a count and a rate (a compressed
file's size says little about its lines); a document counts characters, known before it is split.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from mt.cli.textio import file_lines
from mt.decode.results import Translation
from mt.decode.translator import Translator


class RichReporter:
    """Progress bar with running loss, accuracy, learning rate and target tokens/s: one per epoch,
    or with ``max_steps`` the whole run with the time left."""

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


_LABELS = {
    "read": "reading and cleaning",
    "split": "splitting",
    "encode": "encoding",
    "lexicon": "counting names",
}


class RichStages:
    """Implements mt.data.prepare.stages.Stages on a rich console; a context manager. The bars go
    when prepare ends: its summary table says what was done."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description:<22}"),
            BarColumn(),
            TextColumn("{task.completed:>12,.0f} pairs"),
            TextColumn("{task.fields[rate]:>10,.0f} pairs/s"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        )
        self._task: int | None = None
        self._started = 0.0

    def __enter__(self) -> RichStages:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def start(self, stage: str, total: int | None) -> None:
        if self._task is not None:
            task = self._progress.tasks[-1]
            self._progress.update(self._task, total=task.completed)
        self._task = self._progress.add_task(_LABELS.get(stage, stage), total=total, rate=0.0)
        self._started = time.monotonic()

    def advance(self, pairs: int) -> None:
        if self._task is None:
            return
        done = self._progress.tasks[-1].completed + pairs
        rate = done / max(time.monotonic() - self._started, 1e-9)
        self._progress.update(self._task, completed=done, rate=rate)


class RichDownloads:
    """Implements mt.data.sources.http.ByteProgress on a rich console: one bar a download, bytes
    and speed, and the time left when the server gives the size; gone when it ends."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def start(self, label: str, total: int | None, done: int) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=self._console,
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(label, total=total, completed=done)

    def advance(self, size: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, size)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
        self._progress = self._task = None


BATCH_LINES = 256
"""Lines translated together under the bar: small enough for it to move every few seconds,
large enough for dense sorted batches."""


def text_size(path: Path) -> int:
    """Characters to translate in the file: its lines without outer whitespace."""
    return sum(len(line.strip()) for line in file_lines(path))


def with_progress(
    translations: Iterable[Translation], *, total: int, console: Console
) -> Iterator[Translation]:
    """`translations` unchanged, advancing a bar on `console` as they come."""
    columns = (
        BarColumn(),
        TextColumn("{task.fields[sentences]:,} sentences"),
        TextColumn("{task.fields[rate]:.1f} sentences/s"),
        TextColumn("time left"),
        TimeRemainingColumn(),
    )
    start = time.monotonic()
    sentences = 0
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("translate", total=max(total, 1), sentences=0, rate=0.0)
        for translation in translations:
            sentences += translation.pieces
            rate = sentences / max(time.monotonic() - start, 1e-9)
            progress.update(
                task, advance=len(translation.source.strip()), sentences=sentences, rate=rate
            )
            yield translation
        progress.update(task, completed=max(total, 1))


def translate_file(
    translator: Translator, path: Path, *, console: Console
) -> Iterator[Translation]:
    """The translations of the file's lines, in order, with a progress bar on `console`."""
    total = text_size(path)
    lines = file_lines(path)
    batches = iter(lambda: list(itertools.islice(lines, BATCH_LINES)), [])
    return with_progress(translator.translate_batches(batches), total=total, console=console)
