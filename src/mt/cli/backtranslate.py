"""`mt backtranslate`: monolingual Spanish into `english<TAB>spanish` pairs
(mt.decode.backtranslate), with a progress bar: input lines read, sentences written,
sentences/s and the time left."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from mt.cli.common import console, run_or_exit, say
from mt.config import DECODE


def backtranslate(
    inputs: Annotated[
        list[Path],
        typer.Argument(
            help="A Spanish→English run or export, then the Spanish files: plain lines or "
            "doc<TAB>paragraph, .gz/.xz/.zst read as streams. With --engine, only the files.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="The pairs to write, or to go on with (resumes)."),
    ],
    engine: Annotated[
        str | None,
        typer.Option(
            help="A line-by-line translator command instead of a model, e.g. "
            "'apertium -u spa-eng': one English line for each Spanish line it reads."
        ),
    ] = None,
    beam_size: Annotated[int, typer.Option(help="1: greedy (or sampling).")] = 1,
    sampling_topk: Annotated[
        int,
        typer.Option(help="1: no sampling; k: draw from the k likeliest labels; 0: from all."),
    ] = DECODE.sampling_topk,
    sampling_temperature: Annotated[float, typer.Option(help="Of the draws.")] = 1.0,
    seed: Annotated[int, typer.Option(help="Of the draws.")] = DECODE.seed,
    batch_size: Annotated[int, typer.Option(help="Sentences a model call.")] = DECODE.batch_size,
    chunk: Annotated[int, typer.Option(help="Sentences written (and synced) at a time.")] = 512,
    min_words: Annotated[int, typer.Option(help="Leave out shorter sentences.")] = 3,
    max_words: Annotated[int, typer.Option(help="Leave out longer sentences.")] = 80,
    language_check: Annotated[
        bool,
        typer.Option(
            "--language-check/--no-language-check",
            help="Leave out sentences py3langid does not call Spanish.",
        ),
    ] = True,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.")] = "auto",
    threads: Annotated[int | None, typer.Option(help="CPU threads of the model.")] = None,
    compute_type: Annotated[
        str, typer.Option(help="CTranslate2's compute type, for an export.")
    ] = "default",
) -> None:
    """Back-translate monolingual Spanish into pairs for `mt prepare --synthetic`.

    Example: mt backtranslate runs/reverse news.es.tsv.xz --out data/bt.tsv
    """
    from mt.config import DecodeConfig
    from mt.decode.backtranslate import SentenceFilters
    from mt.decode.backtranslate import backtranslate as run_backtranslate
    from mt.decode.line_engines import CommandEngine, ModelEngine
    from mt.errors import MtError

    def run():  # -> BacktranslateResult
        files = list(inputs)
        search: dict = {}
        if engine is not None:
            translator = CommandEngine(engine)
        else:
            if len(files) < 2:
                raise MtError("give a Spanish→English run or export, then the Spanish files")
            config = DecodeConfig(
                beam_size=beam_size, sampling_topk=sampling_topk,
                sampling_temperature=sampling_temperature, seed=seed, batch_size=batch_size,
            )  # fmt: skip
            model, files = files[0], files[1:]
            from mt.catalog.modelinfo import resolve

            translator = ModelEngine(
                resolve(model), config, device=device, threads=threads, compute_type=compute_type
            )
            search = config.to_dict()
        filters = SentenceFilters(
            min_words=min_words, max_words=max_words, language_check=language_check
        )
        with _Bar() as bar:
            return run_backtranslate(
                files, out=out, engine=translator, search=search, filters=filters, chunk=chunk,
                report=bar.update,
            )  # fmt: skip

    result = run_or_exit(run)
    dropped = ", ".join(f"{n:,} {reason.replace('_', ' ')}" for reason, n in result.dropped.items())
    resumed = f" ({result.resumed:,} found there from before)" if result.resumed else ""
    say(
        f"wrote {result.out}: {result.sentences:,} pairs{resumed} in {result.seconds:.1f} s; "
        f"left out {dropped}"
    )


class _Bar:
    """Input lines read of all, sentences written, sentences/s since the start, time left."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("back-translating"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("lines · {task.fields[sentences]:,} sentences · {task.fields[rate]}/s"),
            TimeRemainingColumn(),
            console=console,
            disable=not console.is_terminal,
        )
        self.task = self.progress.add_task("", total=None, sentences=0, rate="…")
        self.start: tuple[float, int] | None = None

    def __enter__(self) -> _Bar:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def update(self, progress) -> None:  # progress: mt.decode.backtranslate.Progress
        now = time.perf_counter()
        if self.start is None:  # the resumed sentences were not translated now
            self.start = (now, progress.written)
        seconds, done = now - self.start[0], progress.written - self.start[1]
        rate = f"{done / seconds:,.0f}" if seconds > 0 and done else "…"
        self.progress.update(
            self.task,
            total=progress.total_lines,
            completed=min(progress.lines, progress.total_lines),
            sentences=progress.written,
            rate=rate,
        )
