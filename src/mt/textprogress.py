"""A progress bar for translating a long document: sentences done, sentences/s, time left.

The amount of work is counted in characters of text to translate, known from a quick first read
of the file, because how many sentences a line holds is only known once it has been split.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from mt.translation import Translation, Translator, file_lines

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
