"""`mt download` and `mt prepare`: getting a corpus and preparing it."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from mt.cli.common import console, fields_as_options, run_or_exit, say, takes
from mt.config import PREPARE, PrepareConfig

if TYPE_CHECKING:
    from mt.data.sources.fetch import Outcome
    from mt.data.sources.http import ByteProgress


def download(
    out: Annotated[
        Path, typer.Option(help="Where to write the english<TAB>spanish corpus.")
    ] = Path("data/spa-eng.tsv"),
    source: Annotated[
        str,
        typer.Option(
            help="URL or local path of a zip (e.g. with spa.txt), gzip, or 2/3-column TSV.",
        ),
    ] = "https://storage.googleapis.com/download.tensorflow.org/data/spa-eng.zip",
    recipe: Annotated[
        bool,
        typer.Option(
            "--recipe",
            help="Instead: fetch every source of make model's data (the corpus, the four domains, "
            "the general sets) into --root, laid out like ../shared/data, each file checked "
            "against its recorded SHA-256; resumable, and what is there and right is skipped.",
        ),
    ] = False,
    root: Annotated[Path, typer.Option(help="With --recipe: the data root to fill.")] = Path(
        "data/sources"
    ),
) -> None:
    """Fetch the Tatoeba English-Spanish corpus and store it as a 2-column UTF-8 TSV.

    Example: mt download --out data/spa-eng.tsv

    With --recipe, every source of `make model` instead: mt download --recipe --root data/sources
    """
    if recipe:
        _download_recipe(root)
        return
    from mt.data.readers.download import download_corpus

    result = run_or_exit(lambda: download_corpus(out=out, source=source))
    from_member = f" ({result.member})" if result.member else ""
    say(
        f"wrote {result.out}: {result.lines:,} lines, {result.pairs:,} pairs "
        f"from {result.source}{from_member}"
    )


def _download_recipe(root: Path) -> None:
    from mt.cli.progress import RichDownloads
    from mt.data.sources import registry
    from mt.data.sources.fetch import Status, fetch_sources

    lines = _SourceLines(RichDownloads(console))
    outcomes = run_or_exit(lambda: fetch_sources(root, registry.SOURCES, report=lines))
    count = {status: sum(o.status is status for o in outcomes) for status in Status}
    say(
        f"{root}: {count[Status.FETCHED]} fetched, {count[Status.PRESENT]} already there, "
        f"{count[Status.BY_HAND]} to bring by hand, {count[Status.FAILED]} failed"
    )
    if count[Status.FAILED]:
        failed = ", ".join(o.source for o in outcomes if o.status is Status.FAILED)
        say(f"[bold red]error:[/] not fetched: {failed} (the lines above say why)")
        raise typer.Exit(1)


class _SourceLines:
    """mt.data.sources.fetch.Report: the download bars, and a line a source."""

    COLOURS = {"present": "dim", "fetched": "green", "by hand": "yellow", "failed": "bold red"}

    def __init__(self, bars: ByteProgress) -> None:
        self.bars = bars

    def start(self, label: str, total: int | None, done: int) -> None:
        self.bars.start(label, total, done)

    def advance(self, size: int) -> None:
        self.bars.advance(size)

    def stop(self) -> None:
        self.bars.stop()

    def outcome(self, outcome: Outcome) -> None:
        colour = self.COLOURS[outcome.status.value]
        say(f"[{colour}]{outcome.status.value}:[/] {escape(outcome.line)}")


SETTINGS = {  # each option's help, by the PrepareConfig field it fills
    "max_selection": "At most this many selection pairs (the rest of the share trains).",
    "max_test": "At most this many test pairs (the rest of the share trains).",
    "seed": "Seed of the split and the tokenizer sample.",
    "src_vocab": "English vocabulary size.",
    "tgt_vocab": "Spanish vocabulary size.",
    "shared_vocab": "One joint vocabulary of this size for both sides (0: off).",
    "tokenizer_sample": "Training pairs the tokenizers learn from (a seeded sample).",
    "max_words": "Drop pairs with a side of more words than this (0: no limit).",
    "max_ratio": "Drop pairs whose word counts differ more than this factor (0: off).",
    "drop_identical": typer.Option(
        "--drop-identical", help="Drop pairs whose two sides are the same."
    ),
    "max_length": "Drop pairs with a side of more word-pieces than this (0: no limit).",
    "strict": typer.Option("--strict", help="Stop at the first bad line."),
    "extend_vocab": typer.Option(
        "--extend/--no-extend",
        help="With --tokenizers-from: append the placeholders and the characters the run's "
        "vocabulary lacks (--no-extend: copy its tokenizers as they are).",
    ),
    "min_char_count": "With --extend: add a character seen this often in the data.",
    "sampling_temperature": "Repeat each corpus's training pairs so that its share goes as "
    "size^(1/T): 2 keeps small corpora visible next to a large one; 1 keeps them as they are.",
    "reverse": typer.Option(
        "--reverse",
        help="Spanish→English: Spanish is the source (--src-vocab sizes the Spanish side).",
    ),
    "synthetic_share": "At most this share of the training pairs is synthetic.",
}


@takes(fields_as_options(PrepareConfig, SETTINGS), into="settings")
def prepare(
    *,
    out: Annotated[Path, typer.Option("--out", "-o", help="Prepared directory to create.")],
    corpus: Annotated[
        list[Path] | None,
        typer.Argument(
            help="english<TAB>spanish TSV or CSV with a header (.gz/.xz/.zst read as streams); "
            "gettext .po, TMX, XLIFF (.xlf/.xliff), or a directory of them."
        ),
    ] = None,
    source_file: Annotated[
        list[Path] | None,
        typer.Option(help="English side of a line-aligned pair (OPUS style); repeatable."),
    ] = None,
    target_file: Annotated[
        list[Path] | None,
        typer.Option(help="Spanish side, paired with the --source-file in the same position."),
    ] = None,
    corpus_list: Annotated[
        Path | None,
        typer.Option(help="File listing corpora, one a line: FILE or ENGLISH<TAB>SPANISH."),
    ] = None,
    split: Annotated[
        str, typer.Option(help="Train,selection,test fractions, grouped by English sentence.")
    ] = ",".join(str(fraction) for fraction in PREPARE.split),
    selection: Annotated[
        Path | None, typer.Option(help="Use this file as the selection part (with --test).")
    ] = None,
    test: Annotated[
        Path | None, typer.Option(help="Use this file as the test part (with --selection).")
    ] = None,
    paragraphs: Annotated[
        str,
        typer.Option(
            help="Cut pairs into sentence pairs where both sides have as many sentences: auto "
            "(.po/TMX/XLIFF), all, none."
        ),
    ] = PREPARE.paragraphs,
    tokenizers_from: Annotated[
        str | None,
        typer.Option(
            help="Use this model's tokenizers (a run directory or a shipped model's name, to "
            "fine-tune it with mt train --init-from) and report how well they cover the data.",
        ),
    ] = None,
    synthetic: Annotated[
        list[Path] | None,
        typer.Option(
            help="english<TAB>spanish back-translations (mt backtranslate): tagged, training "
            "part only; repeatable."
        ),
    ] = None,
    settings: dict,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
) -> None:
    """Clean and split corpora by English sentence; train tokenizers; encode the training part.

    Example: mt prepare data/spa-eng.tsv --out data/prepared
    """
    from mt.cli.progress import RichStages
    from mt.data.prepare.pipeline import prepare_corpus
    from mt.data.readers.corpus import CorpusInput, parse_split
    from mt.data.readers.inputs import corpus_inputs

    def run():  # -> PrepareResult
        inputs = corpus_inputs(
            files=corpus or [],
            source_files=source_file or [],
            target_files=target_file or [],
            list_file=corpus_list,
        )
        config = PrepareConfig(split=parse_split(split), paragraphs=paragraphs, **settings)
        stages = RichStages(console) if console.is_terminal else contextlib.nullcontext(None)
        with stages as shown:
            return prepare_corpus(
                inputs, out=out, config=config, selection=selection, test=test, force=force,
                stages=shown, tokenizers_from=tokenizers_from,
                synthetic=[CorpusInput(path=path) for path in synthetic or []],
            )  # fmt: skip

    _print_prepared(run_or_exit(run))


def _print_prepared(result) -> None:  # result: PrepareResult
    from rich.table import Table

    from mt.data.prepared_dir import summary_rows

    for bad in result.bad_lines[:10]:
        say(f"[yellow]skipped:[/] {bad}")
    if result.bad_count > 10:
        console.print(f"[yellow]skipped:[/] … and {result.bad_count - 10:,} more lines")
    table = Table(
        title=f"mt prepare: {result.out}",
        caption="labels: word-pieces per sentence, mean/p95/p99/max",
    )
    table.add_column("what")
    table.add_column("value")
    for what, value in summary_rows(result.info):
        table.add_row(what, value)
    console.print(table)
    vocab = result.info["vocabulary"]
    for side in ("source", "target"):
        if vocab[side] < vocab[f"requested_{side}"]:
            say(
                f"[yellow]note:[/] the {side} vocabulary has {vocab[side]:,} labels, fewer than "
                f"the {vocab[f'requested_{side}']:,} asked for: the training text is too small"
            )
    elapsed = result.info["elapsed_seconds"]
    say(f"prepared {result.out} in {elapsed:.1f} s")
