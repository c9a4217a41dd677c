"""A progress bar for `mt prepare`'s stages: pairs done, pairs/s and, once the total is known,
the time left. Reading a stream has no known total (a compressed file's size says little about
its lines), so that stage shows a count and a rate; splitting and encoding know theirs."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

_LABELS = {
    "read": "reading and cleaning",
    "split": "splitting",
    "encode": "encoding",
}


class RichStages:
    """Implements prepare.Stages on a rich console; a context manager. The bars go when prepare
    ends: its summary table says what was done."""

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
